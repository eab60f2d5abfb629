"""
Cascading bandits: regret curves and why order matters
======================================================

Simulates the paper's optimistic learner and three baselines on the reference environment with
common random numbers, and plots the value of every ordering of the best three items of the worked
example: the best set shown in the wrong order loses much of its value.
"""

import itertools

import matplotlib.pyplot as plt

from paperkernels import cascade

env = cascade.reference_environment(seed=0)
learners = [
    cascade.TopicCascadeUCB(beta=1.0),
    cascade.CascadeLinUCB(beta=1.0),
    cascade.CascadeUCB1(),
    cascade.RandomCascade(),
]
result = cascade.simulate(env, learners, T=3000, n_seeds=4, seed=1)
print(result.regret.shape)

# %%
# The value of every ordering of the optimal items of the worked example.
example = cascade.worked_example()
best, best_value = cascade.plan(example.model, K=3)
orders = list(itertools.permutations(best))
values = [float(example.model.value(list(order))) for order in orders]

fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
cascade.plot_regret(result, ax=left)
left.set(title="cumulative regret, reference environment")
labels = ["-".join(map(str, order)) for order in orders]
colors = ["C3" if tuple(order) == tuple(best) else "C0" for order in orders]
right.bar(labels, values, color=colors)
right.set(
    ylim=(min(values) * 0.9, best_value * 1.03),
    xlabel="cascade (items from top)",
    ylabel="click probability",
    title="same items, different order",
)
fig.tight_layout()
plt.show()
