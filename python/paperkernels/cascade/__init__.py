"""Topic-order cascading bandits: exact MDP planning and optimistic learning.

A cascade is an ordered list of K items; the user examines it from the top and stops at the first
click. Here the click probability of an item depends on the topics of the items shown above it
(NeurIPS 2026, "topic-order-dependent click probabilities"), so the best cascade is no longer the
top-K set: building it is a K-step Markov decision process whose state summarises the topics shown.

Model and planning
    :class:`TopicCascadeModel`, :class:`ClickTable`, :class:`StateSpace`, :func:`plan`.
Learning
    :class:`TopicCascadeUCB` (the paper's optimistic learner, alias ``CascadeUCB``) and the
    baselines :class:`CascadeLinUCB`, :class:`CascadeUCB1`, :class:`CascadeKLUCB`,
    :class:`RandomCascade`.
Simulation
    :class:`CascadeEnvironment`, :func:`simulate` (C++ loop, common random numbers, parallel
    runs), :func:`plot_regret`; environments :func:`worked_example`, :func:`reference_environment`,
    :func:`environment_from_table`, :func:`read_catalogue`, :func:`toy_catalogue`.
"""

from ._environments import (
    Catalogue,
    environment_from_table,
    read_catalogue,
    reference_environment,
    toy_catalogue,
    worked_example,
)
from ._learners import (
    CascadeKLUCB,
    CascadeLearner,
    CascadeLinUCB,
    CascadeUCB,
    CascadeUCB1,
    RandomCascade,
    TopicCascadeUCB,
)
from ._model import (
    FEATURE_MAPS,
    LINKS,
    MAX_K,
    MAX_STATES,
    MAX_TOPICS,
    STATE_KINDS,
    ClickTable,
    StateSpace,
    TopicCascadeModel,
    cascade_value,
)
from ._planning import MAX_ORDERINGS, PLANNERS, Plan, plan
from ._simulation import CascadeEnvironment, SimulationResult, click_uniforms, plot_regret, simulate

__all__ = [
    "FEATURE_MAPS",
    "LINKS",
    "MAX_K",
    "MAX_ORDERINGS",
    "MAX_STATES",
    "MAX_TOPICS",
    "PLANNERS",
    "STATE_KINDS",
    "CascadeEnvironment",
    "CascadeKLUCB",
    "CascadeLearner",
    "CascadeLinUCB",
    "CascadeUCB",
    "CascadeUCB1",
    "Catalogue",
    "ClickTable",
    "Plan",
    "RandomCascade",
    "SimulationResult",
    "StateSpace",
    "TopicCascadeModel",
    "TopicCascadeUCB",
    "cascade_value",
    "click_uniforms",
    "environment_from_table",
    "plan",
    "plot_regret",
    "read_catalogue",
    "reference_environment",
    "simulate",
    "toy_catalogue",
    "worked_example",
]


from .._public import export as _export  # noqa: E402

_export(__name__, globals(), __all__)
