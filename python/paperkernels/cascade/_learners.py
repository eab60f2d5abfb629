"""Bandit learners for cascades: the topic-aware optimistic learner and the baselines."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any, cast

import numpy as np

from .. import _core
from .._limits import check_result_bytes
from .._seed import SeedLike, as_seed
from .._validation import aligned, as_array, as_choice, as_float, as_int
from ._model import (
    _FEATURE_MAP,
    _LINK,
    _STATE_KIND,
    FEATURE_MAPS,
    LINKS,
    MAX_STATES,
    STATE_KINDS,
    as_indices,
    check_cascade,
    check_K,
    check_n_topics,
    check_plan_workspace,
    count_states,
)
from ._planning import _PLANNER

LEARNER_TYPES = ("topic_ucb", "lin_ucb", "ucb1", "kl_ucb", "random")
_LEARNER_TYPE = {name: _core.cascade.LearnerType.__members__[name] for name in LEARNER_TYPES}
LEARNER_PLANNERS = ("exact", "topic_dp", "greedy")


def _own_copy(arr: np.ndarray, source: Any) -> np.ndarray:
    """``arr`` (converted from ``source``) itself when it is a fresh array, else a copy of it.

    A Python list or tuple is always converted into a new array; an ndarray of another dtype or
    layout too. Any other object (an ndarray of the right dtype, a memoryview, an object with
    ``__array__``) may hand out its own memory, which the caller can change later.
    """
    if isinstance(source, (list, tuple)):
        return arr
    if isinstance(source, np.ndarray) and arr.flags.owndata and not np.may_share_memory(arr, source):
        return arr
    copy: np.ndarray = arr.copy()
    return copy


class CascadeLearner:
    """Base class: ``select(X, topics) -> cascade`` then ``update(cascade, first_click)``.

    The dimensions (``K``, ``n_topics``, ``n_features``) may be left out when the learner is only
    passed to :func:`simulate`, which takes them from the environment; stepping by hand needs ``K``
    and ``n_topics`` (``n_features`` is read from the first ``X``).

    Thread safety: one learner may be shared by several threads. Its calls are serialised (each
    ``select``, ``update`` and query runs alone, under a lock), so the learner ends in the state of
    the calls applied one after the other in the order they took the lock. The C++ work runs
    without the GIL, and long calls stop on Ctrl-C.

    Pickling: learners pickle and copy (``copy.copy`` and ``copy.deepcopy`` give independent
    learners) before and after their first ``select``; a restored learner continues exactly as
    the original would (same cascades, same statistics, same random draws).

    Parameters
    ----------
    K : int or None
        Cascade length.
    n_topics : int or None
        Number of topics m.
    n_features : int or None
        Number of item features d_x (default: read from the first ``X``).
    state : {"set", "count", "last"}
        State kind, which bounds ``n_topics`` and ``K``.

    Raises
    ------
    ValueError
        For dimensions out of range.

    Examples
    --------
    Every learner steps the same way: ``select`` a cascade, show it, ``update`` with the position
    of the first click (None: no click).

    >>> from paperkernels.cascade import CascadeUCB1, worked_example
    >>> model = worked_example().model
    >>> learner = CascadeUCB1(3, model.n_topics)
    >>> cascade = learner.select(model.X, model.topics)
    >>> cascade.tolist()                  # items never examined come first
    [0, 1, 2]
    >>> learner.update(cascade, first_click=1)
    >>> learner.rounds
    1
    """

    _type = ""
    _uses_features = True
    state = "set"  # the state kind (the topic-aware learner sets its own)

    def __init__(self, K: int | None, n_topics: int | None, n_features: int | None, state: str = "set") -> None:
        self.K = None if K is None else check_K(K, state=state)
        self.n_topics = None if n_topics is None else check_n_topics(n_topics, state)
        self.n_features = None if n_features is None else as_int(n_features, "n_features", low=1)
        self._cpp: Any = None  # the C++ learner, made by the first select() (or simulate)
        self._last: tuple[np.ndarray, np.ndarray] | None = None
        self._seed = 0
        self._lock = threading.RLock()

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """The learner's lock for one call. A call that raises leaves the learner as it was, also a
        first call that made the C++ learner (and fixed ``n_features`` from its items)."""
        with self._lock:
            created, n_features = self._cpp is None, self.n_features
            try:
                yield
            except BaseException:
                if created:
                    self._cpp, self.n_features = None, n_features
                raise

    def __getstate__(self) -> dict[str, Any]:
        with self._lock:
            state = dict(self.__dict__)
            del state["_lock"]
            state["_cpp"] = None if self._cpp is None else self._cpp.export_state()
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state = dict(state)
        saved = state.pop("_cpp", None)
        self.__dict__.update(state)
        if self._last is not None:  # arrays unpickled from out-of-band buffers may be misaligned
            X, t = self._last
            self._last = (aligned(X), aligned(t))
        self._lock = threading.RLock()
        self._cpp = None
        if saved is not None:
            cpp = self._make(cast(int, self.K), cast(int, self.n_topics), cast(int, self.n_features), self._seed, 0)
            cpp.import_state(saved)
            self._cpp = cpp

    @property
    def name(self) -> str:
        """The learner's label in simulation results.

        Examples
        --------
        >>> from paperkernels.cascade import CascadeKLUCB, TopicCascadeUCB
        >>> CascadeKLUCB().name, TopicCascadeUCB(planner="greedy").name
        ('CascadeKLUCB', 'TopicCascadeUCB(greedy)')
        """
        return type(self).__name__

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self._params().items())
        return f"{type(self).__name__}({params})"

    def _params(self) -> dict[str, Any]:
        return {"K": self.K, "n_topics": self.n_topics}

    def _options(self) -> dict[str, Any]:
        """Configuration beyond the dimensions, as keyword arguments of _core.cascade.Learner."""
        return dict(
            state=_STATE_KIND["set"],
            features=_FEATURE_MAP["transition"],
            link=_LINK["linear"],
            planner=_PLANNER["exact"],
            lam=1.0,
            beta=float("nan"),
            delta=0.05,
            S=1.0,
        )

    def _make(self, K: int, n_topics: int, n_features: int, seed: int = 0, stream: int = 0) -> Any:
        if self._type == "topic_ucb":
            check_plan_workspace(self.state, n_topics, K)  # refuses oversized spaces at once
        return _core.cascade.Learner(
            type=_LEARNER_TYPE[self._type],
            K=K,
            n_topics=n_topics,
            n_features=n_features,
            max_states=MAX_STATES,
            seed=seed,
            stream=stream,
            **self._options(),
        )

    def _spec(self, K: int, n_topics: int, n_features: int) -> Any:
        """A fresh C++ learner for a simulation with these dimensions."""
        checks = [("K", self.K, K), ("n_topics", self.n_topics, n_topics)]
        if self._uses_features:
            checks.append(("n_features", self.n_features, n_features))
        for name, mine, theirs in checks:
            if mine is not None and mine != theirs:
                raise ValueError(
                    f"learners: {self.name} was created with {name} = {mine}, the environment has {theirs}"
                )
        return self._make(K, n_topics, n_features)

    def _items(self, X: Any, topics: Any) -> tuple[np.ndarray, np.ndarray]:
        if self.K is None or self.n_topics is None:
            raise ValueError(f"{self.name}: pass K and n_topics when creating the learner to call select()")
        X = as_array(X, "X", ndim=2)
        t = as_indices(topics, "topics", f"values in [0, {self.n_topics})", ndim=1)
        if t.shape[0] != X.shape[0]:
            raise ValueError(f"topics: expected one topic per item ({X.shape[0]}), got {t.shape[0]}")
        if t.min() < 0 or t.max() >= self.n_topics:
            raise ValueError(f"topics: expected values in [0, {self.n_topics}), got values in [{t.min()}, {t.max()}]")
        if X.shape[0] < self.K:
            raise ValueError(f"K: expected K <= the number of items ({X.shape[0]}), got {self.K}")
        if self._cpp is None:
            if self.n_features is None:
                self.n_features = int(X.shape[1])
            self._cpp = self._make(self.K, self.n_topics, self.n_features, self._seed, 0)
        if self._uses_features and X.shape[1] != self.n_features:
            raise ValueError(f"X: expected {self.n_features} features per item, got {X.shape[1]}")
        return X, t

    def select(self, X: Any, topics: Any) -> np.ndarray:
        """The cascade to show this round.

        Parameters
        ----------
        X : array of shape (L, d_x)
            Features of the items available this round (may change from round to round).
        topics : int array of shape (L,)
            Topic of each item, in ``[0, n_topics)``.

        Returns
        -------
        numpy.ndarray
            K distinct item indices (int64), top position first.

        Raises
        ------
        ValueError
            If the learner was created without ``K`` or ``n_topics``, for fewer than K items,
            topics out of range, a feature count other than the learner's, or (linear learners)
            features with ``||x||^2 / lam`` above 1e8, too large to be scored accurately.
        TypeError
            For non-numeric ``X`` or boolean ``topics`` (topic indices are integers).

        Examples
        --------
        >>> from paperkernels.cascade import CascadeLinUCB, worked_example
        >>> model = worked_example().model
        >>> CascadeLinUCB(3, model.n_topics, beta=1.0).select(model.X, model.topics).tolist()
        [0, 2, 1]
        """
        with self._locked():
            items, t = self._items(X, topics)
            cascade: np.ndarray = self._cpp.select(items, t).astype(np.int64)
            # update() without X learns from these items: keep them apart from the caller's buffers,
            # which may be reused for the next round before update() runs.
            self._last = (_own_copy(items, X), _own_copy(t, topics))
        return cascade

    def update(self, cascade: Any, first_click: int | None, *, X: Any = None, topics: Any = None) -> None:
        """Learn from the user's response to ``cascade``.

        Parameters
        ----------
        cascade : int array of K distinct items
            The cascade shown (normally the one ``select`` returned).
        first_click : int or None
            Position (0-based) of the first click; ``None`` (or -1) if nothing was clicked. The
            positions up to and including it were examined (label 1 at the click, 0 above it).
        X, topics : optional
            The items of the round; default: those of the last ``select`` call, as they were
            then (``select`` keeps its own copy, so reusing its ``X`` or ``topics`` buffers
            afterwards does not change what is learnt).

        Raises
        ------
        ValueError
            For a cascade that is not K distinct items of the round, a bad ``first_click``, or
            (linear learners) features with ``||x||^2 / lam`` above 1e8, where the incremental
            ``V^{-1}`` would lose the estimate's accuracy or overflow (``X``). A refused update
            changes nothing.

        Examples
        --------
        >>> from paperkernels.cascade import CascadeKLUCB, worked_example
        >>> model = worked_example().model
        >>> learner = CascadeKLUCB(3, model.n_topics)
        >>> learner.update(learner.select(model.X, model.topics), first_click=0)
        >>> learner.scores(model.X, model.topics)[:2].tolist()  # item 0 clicked, item 1 not examined
        [1.0, inf]
        """
        with self._locked():
            if X is None and topics is None:
                if self._last is None:
                    raise ValueError("X, topics: no select() call to take the items from; pass X and topics")
                X, t = self._last
            else:
                if X is None or topics is None:
                    raise ValueError("X, topics: pass both or neither")
                X, t = self._items(X, topics)
            c = check_cascade(cascade, int(X.shape[0]), self.K).astype(np.int32)
            if first_click is None:
                position = -1
            else:
                position = as_int(first_click, "first_click", low=-1, high=cast(int, self.K) - 1)
            self._cpp.update(X, t, c, position)

    @property
    def rounds(self) -> int:
        """Number of ``update`` calls so far.

        Examples
        --------
        >>> from paperkernels.cascade import RandomCascade, worked_example
        >>> model = worked_example().model
        >>> learner = RandomCascade(3, model.n_topics, seed=0)
        >>> learner.rounds
        0
        >>> learner.update(learner.select(model.X, model.topics), first_click=None)
        >>> learner.rounds
        1
        """
        return 0 if self._cpp is None else int(self._cpp.state()["rounds"])


def _check_beta(beta: Any) -> float | None:
    return None if beta is None else as_float(beta, "beta", low=0.0)


#: Smallest ridge regularisation of the linear learners. V^{-1} is kept by Sherman-Morrison
#: updates from V^{-1} = I / lam; their rounding error grows like 1 / lam: after 300 rounds on the
#: built-in environments theta_hat stays within about 1e-8 of the ridge solution at lam = 1e-6,
#: but drifts by about 1e-5 at 1e-9 and 1e-2 at 1e-12 (and a single click is lost at 1e-20).
MIN_LAM = 1e-6


def _check_lam(lam: Any) -> float:
    value = as_float(lam, "lam", low=0.0, low_open=True)
    if value < MIN_LAM:
        raise ValueError(
            f"lam: expected lam >= {MIN_LAM:g} (below it the incremental updates of V^-1 lose accuracy "
            f"and theta_hat drifts from the ridge solution), got {value!r}"
        )
    return value


class TopicCascadeUCB(CascadeLearner):
    """The topic-aware optimistic learner: plans with optimistic, order-dependent click probabilities.

    Each round, with ``theta_hat = V^{-1} b`` (ridge regression on the features ``phi(i, s)`` of the
    positions observed so far, ``V = lam I + sum phi phi^T`` kept by Sherman-Morrison updates),
    every item and every reachable state gets

        ``p~(i | s) = clip(phi^T theta_hat + beta_t ||phi||_{V^{-1}}, 0, 1)``,

    and the planner picks the cascade of highest value under ``p~`` (valid optimism: R is
    non-decreasing in every click probability). Regret O~(pbar^{(K-1)/2} d sqrt(T)).

    Parameters
    ----------
    K : int, optional
        Cascade length.
    n_topics : int, optional
        Number of topics m.
    n_features : int, optional
        d_x (default: read from the first X).
    features : {"transition", "coverage"}
        Feature map (see :class:`TopicCascadeModel`).
    state : {"set", "count", "last"}
        State kind (see :class:`StateSpace`).
    link : {"linear", "logistic"}
        ``"logistic"`` (after Choi, Lee & Oh 2025; a reconstruction): the Gram matrix is
        Hessian-weighted, ``W = lam I + sum sigmoid'(phi^T theta) phi phi^T``, the estimate takes
        one online Newton step per observation, ``theta += W^{-1} phi (y - sigmoid(phi^T theta))``,
        and ``p~ = sigmoid(phi^T theta_hat + beta_t ||phi||_{W^{-1}})``.
    planner : {"exact", "topic_dp", "greedy"}
        How to plan with ``p~`` (see :func:`plan`); ``"greedy"`` is the CascadeLSB-style baseline.
    beta : float or None
        Confidence width. ``None``: ``beta_t = sqrt(d log((1 + n_t / lam) / delta)) / 2 + sqrt(lam) S``
        with ``n_t`` the number of observed positions; a float: that constant.
    lam : float
        Ridge regularisation lambda, at least 1e-6: ``V^{-1}`` is updated incrementally from
        ``I / lam``, and below 1e-6 its rounding errors (growing like ``1 / lam``) make
        ``theta_hat`` drift measurably from the ridge solution.
    delta : float
        Confidence level in the default ``beta_t``, in (0, 1).
    S : float
        Bound on ``||theta||`` in the default ``beta_t``.

    Raises
    ------
    ValueError
        For an unknown option or a parameter out of range (``lam`` below 1e-6 included).

    Notes
    -----
    Ties in the optimistic probabilities (frequent while they are clipped at 1) are broken by
    the unclipped index, then by the lower item index.

    Examples
    --------
    >>> from paperkernels.cascade import TopicCascadeUCB, worked_example
    >>> model = worked_example().model
    >>> learner = TopicCascadeUCB(3, model.n_topics, beta=1.0)
    >>> learner
    TopicCascadeUCB(K=3, n_topics=3, features='transition', state='set', link='linear', planner='exact', beta=1.0, lam=1.0)
    >>> cascade = learner.select(model.X, model.topics)
    >>> learner.update(cascade, first_click=None)
    >>> learner.theta.shape                # d = d_x + m**2
    (11,)
    """

    _type = "topic_ucb"

    def __init__(
        self,
        K: int | None = None,
        n_topics: int | None = None,
        n_features: int | None = None,
        *,
        features: str = "transition",
        state: str = "set",
        link: str = "linear",
        planner: str = "exact",
        beta: float | None = None,
        lam: float = 1.0,
        delta: float = 0.05,
        S: float = 1.0,
    ) -> None:
        self.features = as_choice(features, "features", FEATURE_MAPS)
        self.state = as_choice(state, "state", STATE_KINDS)
        self.link = as_choice(link, "link", LINKS)
        self.planner = as_choice(planner, "planner", LEARNER_PLANNERS)
        self.beta = _check_beta(beta)
        self.lam = _check_lam(lam)
        self.delta = as_float(delta, "delta", low=0.0, high=1.0, low_open=True, high_open=True)
        self.S = as_float(S, "S", low=0.0)
        super().__init__(K, n_topics, n_features, self.state)

    @property
    def name(self) -> str:
        return f"TopicCascadeUCB({self.planner})"

    def _params(self) -> dict[str, Any]:
        return {
            **super()._params(),
            "features": self.features,
            "state": self.state,
            "link": self.link,
            "planner": self.planner,
            "beta": self.beta,
            "lam": self.lam,
        }

    def _options(self) -> dict[str, Any]:
        return dict(
            state=_STATE_KIND[self.state],
            features=_FEATURE_MAP[self.features],
            link=_LINK[self.link],
            planner=_PLANNER[self.planner],
            lam=self.lam,
            beta=float("nan") if self.beta is None else self.beta,
            delta=self.delta,
            S=self.S,
        )

    def optimistic_table(self, X: Any, topics: Any) -> np.ndarray:
        """Optimistic click probabilities of every item in every state for the current estimate.

        Parameters
        ----------
        X : array of shape (L, d_x)
            Item features.
        topics : int array of shape (L,)
            Topic of each item.

        Returns
        -------
        numpy.ndarray of shape (L, S)
            ``p~(i | s)``, columns in the order of :class:`StateSpace` ``(n_topics, K, state)``.

        Raises
        ------
        ValueError
            As :meth:`select`.

        Examples
        --------
        >>> from paperkernels.cascade import TopicCascadeUCB, worked_example
        >>> model = worked_example().model
        >>> table = TopicCascadeUCB(3, model.n_topics, beta=0.1).optimistic_table(model.X, model.topics)
        >>> table.shape, float(table.max()) <= 1.0
        ((6, 7), True)
        """
        with self._locked():
            X, t = self._items(X, topics)
            n_states = count_states(self.state, cast(int, self.n_topics), cast(int, self.K))  # set by _items
            check_result_bytes(
                len(t) * n_states * 8,
                "X",
                f"the optimistic table of {len(t)} items x {n_states} states",
                "score fewer items at once, or use a shorter cascade or fewer topics",
            )
            table: np.ndarray = self._cpp.optimistic_table(X, t)
            return table

    @property
    def theta(self) -> np.ndarray | None:
        """Current estimate theta_hat (None before the first ``select``).

        Examples
        --------
        >>> from paperkernels.cascade import TopicCascadeUCB, worked_example
        >>> model = worked_example().model
        >>> learner = TopicCascadeUCB(3, model.n_topics, beta=1.0)
        >>> learner.theta is None
        True
        >>> learner.update(learner.select(model.X, model.topics), first_click=0)
        >>> learner.theta[:2].round(4).tolist()              # one click on item 0, x = (1, 0)
        [0.5, 0.0]
        """
        return None if self._cpp is None else self._cpp.state()["theta"]

    @property
    def gram_inverse(self) -> np.ndarray | None:
        """Current V^{-1} (W^{-1} for the logistic link); None before the first ``select``.

        Examples
        --------
        >>> from paperkernels.cascade import TopicCascadeUCB, worked_example
        >>> model = worked_example().model
        >>> learner = TopicCascadeUCB(3, model.n_topics, beta=1.0, lam=2.0)
        >>> _ = learner.select(model.X, model.topics)
        >>> learner.gram_inverse.diagonal()[:3].tolist()     # 1 / lam before any update
        [0.5, 0.5, 0.5]
        """
        return None if self._cpp is None else self._cpp.state()["gram_inverse"]

    @property
    def last_value(self) -> float | None:
        """Optimistic value of the last selected cascade (None before the first ``select``).

        Examples
        --------
        >>> from paperkernels.cascade import TopicCascadeUCB, worked_example
        >>> model = worked_example().model
        >>> learner = TopicCascadeUCB(3, model.n_topics, beta=1.0)
        >>> _ = learner.select(model.X, model.topics)
        >>> learner.last_value                                # optimistic: every p~ clipped at 1
        1.0
        """
        if self._cpp is None:
            return None
        plan_state = self._cpp.state().get("last_plan")
        return None if plan_state is None else float(plan_state["value"])


#: The name of the topic-aware optimistic learner in the paper (the cascading bandit with
#: topic-order-dependent click probabilities, NeurIPS 2026, section "Learning").
CascadeUCB = TopicCascadeUCB


class CascadeLinUCB(CascadeLearner):
    """CascadeLinUCB (Zong et al. 2016): topic-agnostic, ridge regression on the item features only.

    Shows the K items of highest ``x^T theta_hat + beta_t ||x||_{V^{-1}}`` in decreasing order.

    Parameters
    ----------
    K : int, optional
        Cascade length.
    n_topics : int, optional
        Number of topics m (the topics are ignored, but checked).
    n_features : int, optional
        d_x (default: read from the first X).
    beta : float or None
        Confidence width, as in :class:`TopicCascadeUCB` (with d = d_x).
    lam : float
        Ridge regularisation lambda, at least 1e-6: ``V^{-1}`` is updated incrementally from
        ``I / lam``, and below 1e-6 its rounding errors (growing like ``1 / lam``) make
        ``theta_hat`` drift measurably from the ridge solution.
    delta : float
        Confidence level in the default ``beta_t``, in (0, 1).
    S : float
        Bound on ``||theta_x||`` in the default ``beta_t``.

    Raises
    ------
    ValueError
        For a parameter out of range (``lam`` below 1e-6 included).

    Examples
    --------
    >>> from paperkernels.cascade import CascadeLinUCB, worked_example
    >>> model = worked_example().model
    >>> learner = CascadeLinUCB(3, model.n_topics, beta=1.0)
    >>> learner.update(learner.select(model.X, model.topics), first_click=0)
    >>> learner.theta.round(4).tolist()
    [0.5, 0.0]
    """

    _type = "lin_ucb"

    def __init__(
        self,
        K: int | None = None,
        n_topics: int | None = None,
        n_features: int | None = None,
        *,
        beta: float | None = None,
        lam: float = 1.0,
        delta: float = 0.05,
        S: float = 1.0,
    ) -> None:
        self.beta = _check_beta(beta)
        self.lam = _check_lam(lam)
        self.delta = as_float(delta, "delta", low=0.0, high=1.0, low_open=True, high_open=True)
        self.S = as_float(S, "S", low=0.0)
        super().__init__(K, n_topics, n_features)

    def _params(self) -> dict[str, Any]:
        return {**super()._params(), "beta": self.beta, "lam": self.lam}

    def _options(self) -> dict[str, Any]:
        opts = super()._options()
        opts.update(lam=self.lam, beta=float("nan") if self.beta is None else self.beta, delta=self.delta, S=self.S)
        return opts

    def scores(self, X: Any, topics: Any) -> np.ndarray:
        """The current upper confidence bound of every item.

        Parameters
        ----------
        X : array of shape (L, d_x)
            Item features.
        topics : int array of shape (L,)
            Topic of each item.

        Returns
        -------
        numpy.ndarray of shape (L,)
            ``x^T theta_hat + beta_t ||x||_{V^{-1}}``.

        Raises
        ------
        ValueError
            As :meth:`select`.

        Examples
        --------
        >>> from paperkernels.cascade import CascadeLinUCB, worked_example
        >>> model = worked_example().model
        >>> CascadeLinUCB(3, model.n_topics, beta=1.0).scores(model.X, model.topics).round(4).tolist()
        [1.0, 0.8246, 0.922, 0.6708, 0.6083, 0.4243]
        """
        with self._locked():
            X, t = self._items(X, topics)
            scores: np.ndarray = self._cpp.item_scores(X, t)
            return scores

    @property
    def theta(self) -> np.ndarray | None:
        """Current estimate of theta_x (None before the first ``select``).

        Examples
        --------
        >>> from paperkernels.cascade import CascadeLinUCB, worked_example
        >>> model = worked_example().model
        >>> learner = CascadeLinUCB(3, model.n_topics, beta=1.0)
        >>> learner.update(learner.select(model.X, model.topics), first_click=None)
        >>> learner.theta.tolist()                           # no click: no evidence of attraction
        [0.0, 0.0]
        """
        return None if self._cpp is None else self._cpp.state()["theta"]


class _ItemIndexLearner(CascadeLearner):
    _uses_features = False

    def __init__(self, K: int | None = None, n_topics: int | None = None, n_features: int | None = None) -> None:
        super().__init__(K, n_topics, n_features)

    def scores(self, X: Any, topics: Any) -> np.ndarray:
        """The current index of every item (inf for items never examined).

        Parameters
        ----------
        X : array of shape (L, d_x)
            The items of the round (their features are not used).
        topics : int array of shape (L,)
            Topic of each item.

        Returns
        -------
        numpy.ndarray of shape (L,)
            The per-item index.

        Raises
        ------
        ValueError
            As :meth:`select`, or for another number of items than the learner has seen.

        Examples
        --------
        >>> from paperkernels.cascade import CascadeUCB1, worked_example
        >>> model = worked_example().model
        >>> learner = CascadeUCB1(3, model.n_topics)
        >>> learner.update(learner.select(model.X, model.topics), first_click=None)
        >>> learner.scores(model.X, model.topics).round(4).tolist()
        [1.0197, 1.0197, 1.0197, inf, inf, inf]
        """
        with self._locked():
            X, t = self._items(X, topics)
            scores: np.ndarray = self._cpp.item_scores(X, t)
            return scores


class CascadeUCB1(_ItemIndexLearner):
    """CascadeUCB1 (Kveton et al. 2015): per-item UCB1, ``mean + sqrt(1.5 log t / n)``.

    Items never examined come first (lower index first). t = 1 + rounds so far. Ignores features
    and topics; needs the same items every round.

    Parameters
    ----------
    K : int, optional
        Cascade length.
    n_topics : int, optional
        Number of topics m (ignored, but checked).
    n_features : int, optional
        d_x (ignored, but checked).

    Raises
    ------
    ValueError
        For dimensions out of range.

    Examples
    --------
    >>> from paperkernels.cascade import CascadeUCB1, simulate, worked_example
    >>> result = simulate(worked_example(), [CascadeUCB1()], T=100, seed=0)
    >>> result.regret.shape
    (1, 1, 100)
    """

    _type = "ucb1"


class CascadeKLUCB(_ItemIndexLearner):
    """CascadeKL-UCB (Kveton et al. 2015): per-item KL-UCB index.

    ``max {q >= mean : n kl(mean, q) <= log t + 3 log log t}`` (the log log term once log t >= 1),
    by Newton's method from Pinsker's upper bound, with the accurate Bernoulli divergence ``kl``.
    Items never examined come first.

    Parameters
    ----------
    K : int, optional
        Cascade length.
    n_topics : int, optional
        Number of topics m (ignored, but checked).
    n_features : int, optional
        d_x (ignored, but checked).

    Raises
    ------
    ValueError
        For dimensions out of range.

    Examples
    --------
    >>> from paperkernels.cascade import CascadeKLUCB, worked_example
    >>> model = worked_example().model
    >>> learner = CascadeKLUCB(3, model.n_topics)
    >>> learner.select(model.X, model.topics).tolist()   # never examined: lowest index first
    [0, 1, 2]
    >>> learner.update([0, 1, 2], first_click=1)          # item 0 skipped, item 1 clicked
    >>> learner.scores(model.X, model.topics).round(4).tolist()
    [0.5, 1.0, inf, inf, inf, inf]
    """

    _type = "kl_ucb"


class RandomCascade(CascadeLearner):
    """Uniformly random cascades (a partial Fisher-Yates shuffle).

    ``seed`` drives stepping by hand; inside :func:`simulate` the random stream is derived from the
    simulation's seed and run instead.

    Parameters
    ----------
    K : int, optional
        Cascade length.
    n_topics : int, optional
        Number of topics m (ignored, but checked).
    n_features : int, optional
        d_x (ignored, but checked).
    seed : None, int or numpy.random.Generator
        Seed of the cascades drawn when stepping by hand.

    Raises
    ------
    ValueError
        For dimensions out of range or a bad seed.

    Examples
    --------
    >>> from paperkernels.cascade import RandomCascade, worked_example
    >>> model = worked_example().model
    >>> a = RandomCascade(3, model.n_topics, seed=7).select(model.X, model.topics)
    >>> b = RandomCascade(3, model.n_topics, seed=7).select(model.X, model.topics)
    >>> a.tolist() == b.tolist() and len(set(a.tolist())) == 3
    True
    """

    _type = "random"
    _uses_features = False

    def __init__(
        self, K: int | None = None, n_topics: int | None = None, n_features: int | None = None, *, seed: SeedLike = None
    ) -> None:
        super().__init__(K, n_topics, n_features)
        self._seed = as_seed(seed)
