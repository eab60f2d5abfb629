"""Bandit learners for cascades: the topic-aware optimistic learner and the baselines."""

from __future__ import annotations

import threading
from typing import Any, Dict, Optional

import numpy as np

from .. import _core
from .._seed import SeedLike, as_seed
from .._validation import aligned, as_array, as_choice, as_float, as_int
from ._model import (
    _FEATURE_CODE,
    _KIND_CODE,
    _LINK_CODE,
    FEATURE_MAPS,
    LINKS,
    MAX_STATES,
    STATE_KINDS,
    check_cascade,
    check_K,
    check_n_topics,
    count_states,
)
from ._planning import _PLANNER_CODE

_TYPE_CODE = {"topic_ucb": 0, "lin_ucb": 1, "ucb1": 2, "kl_ucb": 3, "random": 4}
LEARNER_PLANNERS = ("exact", "topic_dp", "greedy")


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
    """

    _type = ""
    _uses_features = True

    def __init__(self, K: Optional[int], n_topics: Optional[int], n_features: Optional[int], state: str = "set") -> None:
        self.K = None if K is None else check_K(K, state=state)
        self.n_topics = None if n_topics is None else check_n_topics(n_topics, state)
        self.n_features = None if n_features is None else as_int(n_features, "n_features", low=1)
        self._cpp: Optional[Any] = None
        self._last: Optional[tuple] = None
        self._seed = 0
        self._lock = threading.RLock()

    def __getstate__(self) -> Dict[str, Any]:
        with self._lock:
            state = dict(self.__dict__)
            del state["_lock"]
            state["_cpp"] = None if self._cpp is None else self._cpp.export_state()
        return state

    def __setstate__(self, state: Dict[str, Any]) -> None:
        state = dict(state)
        saved = state.pop("_cpp", None)
        self.__dict__.update(state)
        if self._last is not None:  # arrays unpickled from out-of-band buffers may be misaligned
            self._last = tuple(aligned(a) for a in self._last)
        self._lock = threading.RLock()
        self._cpp = None
        if saved is not None:
            cpp = self._make(self.K, self.n_topics, self.n_features, self._seed, 0)
            cpp.import_state(saved)
            self._cpp = cpp

    @property
    def name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self._params().items())
        return f"{type(self).__name__}({params})"

    def _params(self) -> Dict[str, Any]:
        return {"K": self.K, "n_topics": self.n_topics}

    def _options(self) -> Dict[str, Any]:
        """Configuration beyond the dimensions, as keyword arguments of _core.cascade.Learner."""
        return dict(state=0, features=0, link=0, planner=0, lam=1.0, beta=float("nan"), delta=0.05, S=1.0)

    def _make(self, K: int, n_topics: int, n_features: int, seed: int = 0, stream: int = 0) -> Any:
        if self._type == "topic_ucb":
            count_states(self.state, n_topics, K, MAX_STATES)  # refuses oversized spaces at once
        return _core.cascade.Learner(
            type=_TYPE_CODE[self._type], K=K, n_topics=n_topics, n_features=n_features,
            max_states=MAX_STATES, seed=seed, stream=stream, **self._options(),
        )

    def _spec(self, K: int, n_topics: int, n_features: int) -> Any:
        """A fresh C++ learner for a simulation with these dimensions."""
        checks = [("K", self.K, K), ("n_topics", self.n_topics, n_topics)]
        if self._uses_features:
            checks.append(("n_features", self.n_features, n_features))
        for name, mine, theirs in checks:
            if mine is not None and mine != theirs:
                raise ValueError(f"learners: {self.name} was created with {name} = {mine}, the environment has {theirs}")
        return self._make(K, n_topics, n_features)

    def _items(self, X: Any, topics: Any) -> tuple:
        if self.K is None or self.n_topics is None:
            raise ValueError(f"{self.name}: pass K and n_topics when creating the learner to call select()")
        X = as_array(X, "X", ndim=2)
        t = as_array(topics, "topics", dtype=np.int64, ndim=1)
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

        Returns
        -------
        numpy.ndarray of K distinct item indices, top position first.
        """
        with self._lock:
            X, t = self._items(X, topics)
            cascade = self._cpp.select(X, t).astype(np.int64)
            self._last = (X, t)
        return cascade

    def update(self, cascade: Any, first_click: Optional[int], *, X: Any = None, topics: Any = None) -> None:
        """Learn from the user's response to ``cascade``.

        Parameters
        ----------
        cascade : int array of K distinct items
            The cascade shown (normally the one ``select`` returned).
        first_click : int or None
            Position (0-based) of the first click; ``None`` (or -1) if nothing was clicked. The
            positions up to and including it were examined (label 1 at the click, 0 above it).
        X, topics : optional
            The items of the round; default: those of the last ``select`` call.

        Raises
        ------
        ValueError
            For a cascade that is not K distinct items of the round, a bad ``first_click``, or
            features so large that the estimate would overflow (``X``). A refused update changes
            nothing.
        """
        with self._lock:
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
                position = as_int(first_click, "first_click", low=-1, high=self.K - 1)
            self._cpp.update(X, t, c, position)

    @property
    def rounds(self) -> int:
        """Number of update() calls so far."""
        return 0 if self._cpp is None else int(self._cpp.state()["rounds"])


def _check_beta(beta: Any) -> Optional[float]:
    return None if beta is None else as_float(beta, "beta", low=0.0)


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
    n_features : int, optional
        d_x (default: read from the first X).
    features : {"transition", "coverage"}
        Feature map (see :class:`TopicCascadeModel`).
    state : {"set", "count", "last"}
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
        Ridge regularisation lambda > 0.
    delta, S : float
        Confidence level and bound on ||theta|| in the default ``beta_t``.

    Ties in the optimistic probabilities (frequent while they are clipped at 1) are broken by
    the unclipped index, then by the lower item index.
    """

    _type = "topic_ucb"

    def __init__(
        self,
        K: Optional[int] = None,
        n_topics: Optional[int] = None,
        n_features: Optional[int] = None,
        *,
        features: str = "transition",
        state: str = "set",
        link: str = "linear",
        planner: str = "exact",
        beta: Optional[float] = None,
        lam: float = 1.0,
        delta: float = 0.05,
        S: float = 1.0,
    ) -> None:
        self.features = as_choice(features, "features", FEATURE_MAPS)
        self.state = as_choice(state, "state", STATE_KINDS)
        self.link = as_choice(link, "link", LINKS)
        self.planner = as_choice(planner, "planner", LEARNER_PLANNERS)
        self.beta = _check_beta(beta)
        self.lam = as_float(lam, "lam", low=0.0, low_open=True)
        self.delta = as_float(delta, "delta", low=0.0, high=1.0, low_open=True, high_open=True)
        self.S = as_float(S, "S", low=0.0)
        super().__init__(K, n_topics, n_features, self.state)

    @property
    def name(self) -> str:
        return f"TopicCascadeUCB({self.planner})"

    def _params(self) -> Dict[str, Any]:
        return {**super()._params(), "features": self.features, "state": self.state, "link": self.link,
                "planner": self.planner, "beta": self.beta, "lam": self.lam}

    def _options(self) -> Dict[str, Any]:
        return dict(
            state=_KIND_CODE[self.state], features=_FEATURE_CODE[self.features], link=_LINK_CODE[self.link],
            planner=_PLANNER_CODE[self.planner], lam=self.lam, beta=float("nan") if self.beta is None else self.beta,
            delta=self.delta, S=self.S,
        )

    def optimistic_table(self, X: Any, topics: Any) -> np.ndarray:
        """Optimistic click probabilities of every item in every state (L, S) for the current estimate."""
        with self._lock:
            X, t = self._items(X, topics)
            return self._cpp.optimistic_table(X, t)

    @property
    def theta(self) -> Optional[np.ndarray]:
        """Current estimate theta_hat (None before the first select)."""
        return None if self._cpp is None else self._cpp.state()["theta"]

    @property
    def gram_inverse(self) -> Optional[np.ndarray]:
        """Current V^{-1} (W^{-1} for the logistic link)."""
        return None if self._cpp is None else self._cpp.state()["gram_inverse"]

    @property
    def last_value(self) -> Optional[float]:
        """Optimistic value of the last selected cascade."""
        if self._cpp is None:
            return None
        plan_state = self._cpp.state().get("last_plan")
        return None if plan_state is None else float(plan_state["value"])


#: The specification's name for the topic-aware optimistic learner.
CascadeUCB = TopicCascadeUCB


class CascadeLinUCB(CascadeLearner):
    """CascadeLinUCB (Zong et al. 2016): topic-agnostic, ridge regression on the item features only.

    Shows the K items of highest ``x^T theta_hat + beta_t ||x||_{V^{-1}}`` in decreasing order.
    ``beta``, ``lam``, ``delta``, ``S`` as in :class:`TopicCascadeUCB` (with d = d_x).
    """

    _type = "lin_ucb"

    def __init__(
        self,
        K: Optional[int] = None,
        n_topics: Optional[int] = None,
        n_features: Optional[int] = None,
        *,
        beta: Optional[float] = None,
        lam: float = 1.0,
        delta: float = 0.05,
        S: float = 1.0,
    ) -> None:
        self.beta = _check_beta(beta)
        self.lam = as_float(lam, "lam", low=0.0, low_open=True)
        self.delta = as_float(delta, "delta", low=0.0, high=1.0, low_open=True, high_open=True)
        self.S = as_float(S, "S", low=0.0)
        super().__init__(K, n_topics, n_features)

    def _params(self) -> Dict[str, Any]:
        return {**super()._params(), "beta": self.beta, "lam": self.lam}

    def _options(self) -> Dict[str, Any]:
        opts = super()._options()
        opts.update(lam=self.lam, beta=float("nan") if self.beta is None else self.beta, delta=self.delta, S=self.S)
        return opts

    def scores(self, X: Any, topics: Any) -> np.ndarray:
        """The current upper confidence bound of every item."""
        with self._lock:
            X, t = self._items(X, topics)
            return self._cpp.item_scores(X, t)

    @property
    def theta(self) -> Optional[np.ndarray]:
        return None if self._cpp is None else self._cpp.state()["theta"]


class _ItemIndexLearner(CascadeLearner):
    _uses_features = False

    def __init__(self, K: Optional[int] = None, n_topics: Optional[int] = None, n_features: Optional[int] = None) -> None:
        super().__init__(K, n_topics, n_features)

    def scores(self, X: Any, topics: Any) -> np.ndarray:
        """The current index of every item (inf for items never examined)."""
        with self._lock:
            X, t = self._items(X, topics)
            return self._cpp.item_scores(X, t)


class CascadeUCB1(_ItemIndexLearner):
    """CascadeUCB1 (Kveton et al. 2015): per-item UCB1, ``mean + sqrt(1.5 log t / n)``.

    Items never examined come first (lower index first). t = 1 + rounds so far. Ignores features
    and topics; needs the same items every round.
    """

    _type = "ucb1"


class CascadeKLUCB(_ItemIndexLearner):
    """CascadeKL-UCB (Kveton et al. 2015): per-item KL-UCB index.

    ``max {q >= mean : n kl(mean, q) <= log t + 3 log log t}`` (the log log term once log t >= 1),
    by Newton's method from Pinsker's upper bound. Items never examined come first.
    """

    _type = "kl_ucb"


class RandomCascade(CascadeLearner):
    """Uniformly random cascades (a partial Fisher-Yates shuffle).

    ``seed`` drives stepping by hand; inside :func:`simulate` the random stream is derived from the
    simulation's seed and run instead.
    """

    _type = "random"
    _uses_features = False

    def __init__(self, K: Optional[int] = None, n_topics: Optional[int] = None, n_features: Optional[int] = None, *, seed: SeedLike = None) -> None:
        super().__init__(K, n_topics, n_features)
        self._seed = as_seed(seed)
