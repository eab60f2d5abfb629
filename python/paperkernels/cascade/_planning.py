"""Planning the cascade MDP: the best ordered list of K items for known click probabilities."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .. import _core
from .._validation import as_choice, as_float
from ._model import (
    _FEATURE_MAP,
    _LINK,
    _STATE_KIND,
    MAX_STATES,
    ClickTable,
    TopicCascadeModel,
    check_K,
    check_plan_workspace,
)

#: Planning methods of :func:`plan`.
PLANNERS = ("exact", "topic_dp", "greedy", "brute")
_PLANNER = {name: _core.cascade.Planner.__members__[name] for name in PLANNERS}

#: Default limit of the brute-force planner, in orderings L!/(L-K)!.
MAX_ORDERINGS = 10_000_000


class Plan(NamedTuple):
    """A planned cascade and its click probability R(A), as returned by :func:`plan`.

    Parameters
    ----------
    cascade : int64 array of shape (K,)
        Item indices, top position first.
    value : float
        R(A), the probability of a click on the cascade.

    Examples
    --------
    >>> from paperkernels.cascade import plan, worked_example
    >>> cascade, value = plan(worked_example().model, 3)
    >>> round(value, 6)
    0.754615
    """

    cascade: np.ndarray
    value: float


def plan(
    source: TopicCascadeModel | ClickTable,
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
        The click probabilities.
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

    Raises
    ------
    ValueError
        For an unknown ``method``, a bad ``K``, ``"topic_dp"`` with fewer topics than ``K``, or
        ``"brute"`` above ``max_orderings``.
    TypeError
        If ``source`` is neither a model nor a click table.

    Notes
    -----
    For a model, ``p(i | s) = mu(x_i^T theta_x + G(topic, s))``: within a topic the items rank the
    same in every state, so the planners read the K best items of each topic and never build the
    L x S click table.

    Examples
    --------
    The worked example: the best cascade mixes topics, and its order matters.

    >>> from paperkernels.cascade import plan, worked_example
    >>> model = worked_example().model
    >>> best = plan(model, 3)
    >>> round(best.value, 6)
    0.754615
    >>> sorted(best.cascade.tolist())
    [0, 2, 4]
    >>> round(plan(model, 3, "greedy").value, 6) <= round(best.value, 6)
    True
    """
    method = as_choice(method, "method", PLANNERS)
    max_orderings = as_float(max_orderings, "max_orderings", low=1.0)
    if isinstance(source, TopicCascadeModel):
        K = check_K(K, source.n_items, source.state)
        if method != "brute":
            check_plan_workspace(source.state, source.n_topics, K)
            out = _core.cascade.plan_model(
                source.X,
                source.topics,
                source.theta,
                _FEATURE_MAP[source.features],
                _LINK[source.link],
                _STATE_KIND[source.state],
                source.n_topics,
                K,
                _PLANNER[method],
                MAX_STATES,
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
    if method != "brute":
        check_plan_workspace(kind, m, K)
    out = _core.cascade.plan_table(table, topics, _STATE_KIND[kind], m, K, _PLANNER[method], max_orderings, MAX_STATES)
    return Plan(out["cascade"].astype(np.int64), float(out["value"]))
