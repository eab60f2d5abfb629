"""
ReLU networks: a hidden symmetry and fiber dimensions
=====================================================

A hidden-bias shift (symmetry 6) changes the parameters of a three-layer bottleneck network without
changing its function; a permutation-and-scaling normal form cannot see it, the bottleneck
canonical form and :func:`paperkernels.relu.equivalent` can. The right panel counts, over random
Gaussian networks, how many have a fiber larger than the permutation/scaling orbit.
"""

from fractions import Fraction as F

import matplotlib.pyplot as plt
import numpy as np

from paperkernels.relu import ReLUNet, equivalent, fiber_description, moves

net = ReLUNet([[[1, 2], [-1, 1]], [[2, -1]], [[3]]], [[F(1, 2), 1], [-1], [0]])
other = moves.shift_hidden_bias(net, layer=1, neuron=0, t=5)
verdict = equivalent(net, other)
print(verdict)

print("layer-1 biases:", [str(b) for b in net.biases[0]], "->", [str(b) for b in other.biases[0]])

# %%
# Fiber dimension beyond the permutation/scaling orbit, for small Gaussian networks.
rng = np.random.default_rng(0)
architectures = [(2, 2, 2, 1), (3, 2, 4, 1)]
shares = []
for widths in architectures:
    larger = 0
    for _ in range(10):
        weights = [rng.normal(size=(widths[i + 1], widths[i])) for i in range(len(widths) - 1)]
        biases = [rng.normal(size=widths[i + 1]) for i in range(len(widths) - 1)]
        larger += bool(fiber_description(ReLUNet(weights, biases), seed=0).beyond_scaling)
    shares.append(larger / 10)

# %%
# Left: both functions along a line through input space; right: the share of draws with hidden
# symmetries.
s = np.linspace(-3, 3, 241)
points = np.column_stack([s, 0.5 * s - 0.25])
fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
left.plot(s, net(points)[:, 0], lw=4, alpha=0.5, label="net")
left.plot(s, other(points)[:, 0], "k--", label="shifted")
left.set(
    xlabel="s  (x = (s, s/2 - 1/4))",
    ylabel="output",
    title=f"equivalent: {verdict.equivalent} (proof: {verdict.proof})",
)
left.legend()
right.bar(["-".join(map(str, w)) for w in architectures], shares, color="C2")
right.set(ylim=(0, 1), ylabel="share of 10 draws", xlabel="architecture", title="fiber larger than the scaling orbit")
fig.tight_layout()
plt.show()
