"""Planning the cascade MDP: the best ordered list of K items for known click probabilities."""

from __future__ import annotations

from typing import NamedTuple, Union

import numpy as np

from .. import _core
from .._validation import as_choice, as_float
from ._model import _FEATURE_CODE, _KIND_CODE, _LINK_CODE, MAX_STATES, ClickTable, TopicCascadeModel, check_K

PLANNERS = ("exact", "topic_dp", "greedy", "brute")
_PLANNER_CODE = {name: code for code, name in enumerate(PLANNERS)}

#: Default limit of the brute-force planner, in orderings L!/(L-K)!.
MAX_ORDERINGS = 10_000_000


class Plan(NamedTuple):
    """A planned cascade (item indices, top position first) and its click probability R(A)."""

    cascade: np.ndarray
    value: float


def plan(
    source: Union[TopicCascadeModel, ClickTable],
    K: int,
    method: str = "exact",
    *,
    max_orderings: float = MAX_ORDERINGS,
) -> Plan:
    """Best cascade of length K for a model or a click table.

    The MDP is ``V_k(s, U) = max_{a not in U} [p(a|s) + (1 - p(a|s)) V_{k+1}(s + tau(a), U + {a})]``.

    Parameters
    ----------
    source : TopicCascadeModel or ClickTable
    K : int
        Cascade length, ``1 <= K <= L``.
    method : {"exact", "topic_dp", "greedy", "brute"}
        * ``"exact"``: depth-first branch and bound over (position, state, used items). At a
          position with state ``s`` only the ``K - k`` best unused items of each topic (ranked by
          ``p(. | s)``) are tried (exchanging an item for a better unused one of the same topic
          keeps the state path and cannot lower the value, so this keeps the search exact), and a
          branch is cut when its value plus the relaxed value of the rest (the same MDP without
          the distinct-items constraint) cannot beat the best cascade found. Optimal.
        * ``"topic_dp"``: dynamic programming over the set of topics used, one item per topic
          (needs K <= the number of topics with items). **Exact only among cascades whose items
          have distinct topics**: with repeated topics allowed the optimum can be higher.
        * ``"greedy"``: the best item for the current state, position by position (not optimal).
        * ``"brute"``: all L!/(L-K)! orderings (a test oracle); refused above ``max_orderings``.
    max_orderings : float
        Limit for ``"brute"``.

    Returns
    -------
    Plan
        ``(cascade, value)``. Ties: candidates are ranked by click probability, then (for a model)
        by the unclipped ``phi^T theta``, then by the lower item index; among equally good
        cascades the first one found is kept, so compare values, not cascades.

    Notes
    -----
    For a model, ``p(i | s) = mu(x_i^T theta_x + G(topic, s))``: within a topic the items rank the
    same in every state, so the planners read the K best items of each topic and never build the
    L x S click table.
    """
    method = as_choice(method, "method", PLANNERS)
    max_orderings = as_float(max_orderings, "max_orderings", low=1.0)
    if isinstance(source, TopicCascadeModel):
        K = check_K(K, source.n_items, source.state)
        if method != "brute":
            out = _core.cascade.plan_model(
                source.X, source.topics, source.theta, _FEATURE_CODE[source.features], _LINK_CODE[source.link],
                _KIND_CODE[source.state], source.n_topics, K, _PLANNER_CODE[method], MAX_STATES,
            )
            return Plan(out["cascade"].astype(np.int64), float(out["value"]))
        table = source.click_table(K)
        topics, kind, m = source.topics, source.state, source.n_topics
    elif isinstance(source, ClickTable):
        K = check_K(K, source.n_items, source.state)
        if K > source.K:
            raise ValueError(f"K: this click table covers cascades of length <= {source.K}, got {K}")
        table, topics, kind, m = source.probabilities, source.topics, source.state, source.n_topics
    else:
        raise TypeError(f"source: expected a TopicCascadeModel or a ClickTable, got {type(source).__name__}")
    out = _core.cascade.plan_table(table, topics, _KIND_CODE[kind], m, K, _PLANNER_CODE[method], max_orderings, MAX_STATES)
    return Plan(out["cascade"].astype(np.int64), float(out["value"]))
