"""The topic-order click model, its state spaces and user-supplied click tables."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

import numpy as np

from .. import _core
from .._limits import check_result_bytes
from .._validation import as_array, as_choice, as_int, is_real, plain_array, realign_state

#: State kinds: what a state remembers of the topics shown above (see :class:`StateSpace`).
STATE_KINDS = ("set", "count", "last")
#: Feature maps phi(i, s) of the click model (see :class:`TopicCascadeModel`).
FEATURE_MAPS = ("transition", "coverage")
#: Links from phi^T theta to a click probability: identity clipped to [0, 1], or the sigmoid.
LINKS = ("linear", "logistic")

#: Largest number of topics per state kind ("set"/"last": a 64-bit mask; "count": 4 bits per topic).
MAX_TOPICS = {"set": 62, "count": 16, "last": 62}
#: Largest cascade length accepted anywhere ("count" states allow at most 16).
MAX_K = 64
#: Default cap on the number of reachable states (planning memory grows with it).
MAX_STATES = 2_000_000

# The options as the C++ core takes them: enum members of _core.cascade, looked up by the option
# string once it is validated (as_choice). Building the tables checks that both sides name the same options.
_STATE_KIND = {name: _core.cascade.StateKind.__members__[name] for name in STATE_KINDS}
_FEATURE_MAP = {name: _core.cascade.FeatureMap.__members__[name] for name in FEATURE_MAPS}
_LINK = {name: _core.cascade.Link.__members__[name] for name in LINKS}


def check_n_topics(n_topics: Any, state: str, name: str = "n_topics") -> int:
    m = as_int(n_topics, name, low=1)
    limit = MAX_TOPICS[state]
    if m > limit:
        raise ValueError(f"{name}: the {state!r} state kind allows at most {limit} topics, got {m}")
    return m


def check_K(K: Any, n_items: int | None = None, state: str = "set") -> int:
    length = as_int(K, "K", low=1, high=MAX_K)
    if state == "count" and length > 16:
        raise ValueError(f"K: the 'count' state kind allows K <= 16, got {length}")
    if n_items is not None and length > n_items:
        raise ValueError(f"K: expected K <= the number of items ({n_items}), got {length}")
    return length


def as_indices(
    value: Any,
    name: str,
    expected: str,
    *,
    ndim: int | None = None,
    allow_empty: bool = False,
    booleans: bool = False,
) -> np.ndarray:
    """Integer indices (or counts) as an int64 array, checked before any narrowing cast.

    Booleans are refused (TypeError, as for scalar integer arguments: a mask is not a list of
    indices) unless ``booleans``; unsigned or float values beyond the int64 range are refused with
    the values as given (a cast would wrap them). ``expected`` describes the valid values.
    """
    if value is None:
        raise TypeError(f"{name}: expected an array, got None")
    raw = plain_array(value, name)
    if raw.dtype.kind == "b" and not booleans:
        raise TypeError(
            f"{name}: expected integer indices, got booleans (dtype bool); for the indices of a mask "
            "pass numpy.flatnonzero(mask)"
        )
    if raw.size and (
        (raw.dtype.kind == "u" and raw.max() >= 2**63)
        or (raw.dtype.kind == "f" and np.all(np.isfinite(raw)) and (raw.max() >= 2.0**63 or raw.min() < -(2.0**63)))
    ):
        raise ValueError(f"{name}: expected {expected}, got values in [{raw.min()}, {raw.max()}]")
    return as_array(raw, name, dtype=np.int64, ndim=ndim, allow_empty=allow_empty)


def check_topics(topics: Any, n_items: int | None, n_topics: int | None, state: str) -> tuple[np.ndarray, int]:
    """Topic array (int64) and the number of topics, validated against the state kind."""
    limit = MAX_TOPICS[state] if n_topics is None else check_n_topics(n_topics, state)
    t = as_indices(topics, "topics", f"topic indices in [0, {limit})", ndim=1)
    if n_items is not None and t.shape[0] != n_items:
        raise ValueError(f"topics: expected one topic per item ({n_items}), got {t.shape[0]}")
    if t.min() < 0:
        raise ValueError(f"topics: expected non-negative topic indices, got {int(t.min())}")
    m = int(t.max()) + 1 if n_topics is None else check_n_topics(n_topics, state)
    if n_topics is None:
        m = check_n_topics(m, state, name="topics")
    if t.max() >= m:
        raise ValueError(f"topics: expected values in [0, {m}) (n_topics = {m}), got {int(t.max())}")
    return t, m


def count_states(kind: str, n_topics: int, K: int, max_states: int | None = None) -> int:
    """Number of states reachable before positions 1..K, counted without listing them.

    "set": subsets of at most K - 1 topics; "count": multisets of at most K - 1 topics; "last":
    the empty state plus one state per topic (K >= 2). With ``max_states``, a larger space is
    refused (ValueError naming K and n_topics) as soon as the count passes it.
    """
    depth = K - 1
    if kind == "last":
        total = 1 + (n_topics if depth >= 1 else 0)
    else:
        total, layer = 0, 1  # layer: states at depth j, C(m, j) or C(m + j - 1, j)
        for j in range(depth + 1):
            if j > 0:
                layer = layer * (n_topics - j + 1) // j if kind == "set" else layer * (n_topics + j - 1) // j
            if layer == 0:
                break
            total += layer
            if max_states is not None and total > max_states:
                break
    if max_states is not None and total > max_states:
        raise ValueError(
            f"K, n_topics: the {kind!r} state space with {n_topics} topics and K = {K} has more than "
            f"{max_states} states (max_states)"
        )
    return total


def check_plan_workspace(kind: str, n_topics: int, K: int) -> int:
    """The number of states, after refusing a planner workspace above ``max_result_bytes``: the
    ranked item lists of every (state, topic), K entries of 24 bytes each (about 5.8 GB for 21
    topics and K = 11 with "set" states)."""
    n_states = count_states(kind, n_topics, K, MAX_STATES)
    check_result_bytes(
        n_states * n_topics * (24 * K + 4),
        "K",
        f"the planner's ranked lists of {n_states} states x {n_topics} topics x K = {K} items",
        "use a shorter cascade, fewer topics or the 'last' state kind",
    )
    return n_states


def check_cascade(cascade: Any, n_items: int, K: int | None = None) -> np.ndarray:
    """A cascade: a 1-d array of distinct item indices (checked before any narrowing cast)."""
    c = as_indices(cascade, "cascade", f"item indices in [0, {n_items})", ndim=1)
    if K is not None and c.shape[0] != K:
        raise ValueError(f"cascade: expected {K} items, got {c.shape[0]}")
    if c.min() < 0 or c.max() >= n_items:
        raise ValueError(f"cascade: expected item indices in [0, {n_items}), got values in [{c.min()}, {c.max()}]")
    values, counts = np.unique(c, return_counts=True)
    if np.any(counts > 1):
        raise ValueError(f"cascade: expected distinct items, item {int(values[counts > 1][0])} appears twice")
    return c


def cascade_value(probs: Iterable[float]) -> float:
    """Probability of a click on a cascade from the click probabilities at its positions.

    ``R = 1 - prod_k (1 - p_k)``, evaluated as ``V_k = p_k + (1 - p_k) V_{k+1}`` from the last
    position (the recursion every planner uses, so equal cascades get bit-identical values).

    Parameters
    ----------
    probs : iterable of float
        Click probability at each position, top position first, given the items above it.

    Returns
    -------
    float
        The probability that the user clicks somewhere on the cascade.

    Raises
    ------
    ValueError, TypeError
        When ``probs`` is not a one-dimensional sequence of probabilities in [0, 1].

    Examples
    --------
    >>> from paperkernels.cascade import cascade_value
    >>> cascade_value([0.5, 0.5])
    0.75
    >>> cascade_value([])
    0.0
    """
    not_iterable = TypeError(f"probs: expected an iterable of click probabilities, got {type(probs).__name__}")
    if isinstance(probs, (str, bytes, dict)) or probs is None:
        raise not_iterable
    try:
        values = probs if isinstance(probs, np.ndarray) else list(probs)
    except TypeError:
        raise not_iterable from None
    if isinstance(values, list) and all(is_real(p) for p in values):
        try:
            values = [float(p) for p in values]  # Fractions and numpy scalars, as float()
        except OverflowError:  # integers or Fractions beyond float64
            raise ValueError("probs: expected values in [0.0, 1.0], got a number beyond float64") from None
    checked = as_array(values, "probs", ndim=1, low=0.0, high=1.0, allow_empty=True)
    v = 0.0
    for p in reversed(checked.tolist()):
        v = p + (1.0 - p) * v
    return float(v)


class StateSpace:
    """The states reachable before positions 1..K, in the column order of every click table.

    A state is described by its topic vector ``z`` (length ``n_topics``): for ``"set"`` the 0/1
    indicator of the topics shown above, for ``"count"`` how many items of each topic were shown,
    for ``"last"`` the one-hot of the previous item's topic (all zeros before the first position).
    States are listed breadth first: by the least number of items needed to reach them, then by
    the order in which one more topic (ascending) reaches them. The space for a smaller K is a
    prefix of the space for a larger one.

    Parameters
    ----------
    n_topics : int
        Number of topics m (``"set"``/``"last"``: at most 62; ``"count"``: at most 16).
    K : int
        Cascade length; the states needing at most K - 1 items are listed.
    kind : {"set", "count", "last"}
        What a state remembers: the set of topics shown, their counts, or the last topic.
    max_states : int
        Refuse larger spaces (ValueError) instead of exhausting memory.

    Attributes
    ----------
    vectors : int64 array of shape (S, n_topics)
        Topic vectors of the states, in column order.
    depth : int64 array of shape (S,)
        Least number of items shown to reach each state.
    next : int64 array of shape (S, n_topics)
        Column of the state after showing an item of each topic (-1: needs K or more items).

    Raises
    ------
    ValueError
        For an unknown ``kind``, too many topics for the kind, a bad ``K``, or a space with more
        than ``max_states`` states or above ``paperkernels.limits.max_result_bytes``.

    Examples
    --------
    >>> from paperkernels.cascade import StateSpace
    >>> space = StateSpace(3, 3)          # subsets of at most 2 of 3 topics
    >>> len(space)
    7
    >>> space.vectors[:5].tolist()
    [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0]]
    >>> int(space.next[0, 1])             # showing a topic-1 item first leads to state {1}
    2
    """

    def __init__(self, n_topics: int, K: int, kind: str = "set", *, max_states: int = MAX_STATES) -> None:
        self.kind = as_choice(kind, "state", STATE_KINDS)
        self.n_topics = check_n_topics(n_topics, self.kind)
        self.K = check_K(K, state=self.kind)
        self.max_states = as_int(max_states, "max_states", low=1)
        n_states = count_states(self.kind, self.n_topics, self.K, self.max_states)
        check_result_bytes(
            n_states * (2 * self.n_topics + 3) * 8,
            "K, n_topics",
            f"the {n_states} states (topic vectors and transitions of {self.n_topics} topics)",
            "use fewer topics or a shorter cascade",
        )
        raw = _core.cascade.state_space(_STATE_KIND[self.kind], self.n_topics, self.K, self.max_states)
        #: (S, m) topic vectors of the states.
        self.vectors: np.ndarray = raw["vectors"]
        #: (S,) least number of items shown to reach each state.
        self.depth: np.ndarray = raw["depth"]
        #: (S, m) index of the state after showing an item of each topic (-1: needs K or more items).
        self.next: np.ndarray = raw["next"]
        self._index: dict[tuple[int, ...], int] | None = None  # vector -> column, built on first use

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "_index"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(realign_state(state))
        self._index = None

    def __len__(self) -> int:
        return int(self.vectors.shape[0])

    def __repr__(self) -> str:
        return f"StateSpace(n_topics={self.n_topics}, K={self.K}, kind={self.kind!r}, states={len(self)})"

    def index(self, vector: Any) -> int:
        """Column of the state with topic vector ``vector``.

        Parameters
        ----------
        vector : int array of shape (n_topics,)
            Topic vector of a state (see the class description).

        Returns
        -------
        int
            Its column in every click table over this space.

        Raises
        ------
        ValueError
            If ``vector`` is not a state of this space.

        Examples
        --------
        >>> from paperkernels.cascade import StateSpace
        >>> StateSpace(3, 3).index([1, 1, 0])
        4
        """
        z = as_indices(vector, "vector", "a topic vector of non-negative counts", booleans=True, allow_empty=True)
        z = as_array(z, "vector", dtype=np.int64, shape=(self.n_topics,), allow_empty=True)
        if self._index is None:
            self._index = {tuple(v): s for s, v in enumerate(self.vectors.tolist())}
        try:
            return self._index[tuple(z.tolist())]
        except KeyError:
            raise ValueError(f"vector: {z.tolist()} is not a {self.kind!r} state reachable with K = {self.K}") from None


def _next_vector(z: np.ndarray, topic: int, kind: str) -> np.ndarray:
    z = z.copy()
    if kind == "set":
        z[topic] = 1
    elif kind == "count":
        z[topic] += 1
    else:
        z[:] = 0
        z[topic] = 1
    return z


def check_state_vectors(states: Any, n_topics: int, kind: str) -> np.ndarray:
    z = as_indices(states, "states", "topic vectors of non-negative counts", booleans=True, allow_empty=True)
    if z.ndim == 0 or z.shape[-1] != n_topics:
        raise ValueError(
            f"states: expected topic vectors of length n_topics = {n_topics} on the last axis, got shape {z.shape}"
        )
    if z.size and z.min() < 0:
        raise ValueError("states: expected non-negative topic vectors")
    if kind == "set" and z.size and z.max() > 1:
        raise ValueError("states: 'set' state vectors hold 0/1 indicators")
    if kind == "last" and z.size and (z.max() > 1 or np.any(z.sum(axis=-1) > 1)):
        raise ValueError("states: 'last' state vectors are one-hot (or all zero before the first position)")
    return z


def check_scores_finite(
    X: np.ndarray, topics: np.ndarray, theta: np.ndarray, n_topics: int, features: str, state: str
) -> None:
    """Refuse parameters whose linear scores ``phi(i, s)^T theta`` could overflow float64.

    The link is applied to ``x_i^T theta_x`` plus the topic part of the item's topic in the state;
    every planner, click table and simulation forms these sums (in its own order). They are bounded
    here by ``sum_j |x_ij theta_j|`` plus the largest topic part over all states (a state holds at
    most 15 items of one topic: "count" states allow K <= 16; "set" and "last" states hold 0/1),
    so that no summation order overflows.
    """
    d_x = X.shape[1]
    with np.errstate(over="ignore", invalid="ignore"):
        item_part = np.abs(X) @ np.abs(theta[:d_x])
        rest = np.abs(theta[d_x:])
        if features == "transition":
            most = 15.0 if state == "count" else 1.0
            topic_part = rest.reshape(n_topics, n_topics).sum(axis=1) * most
        else:
            topic_part = rest
        bound = item_part + topic_part[topics]
    if not np.all(np.isfinite(bound)):
        i = int(np.flatnonzero(~np.isfinite(bound))[0])
        if not np.isfinite(item_part[i]):
            raise ValueError(
                f"X, theta: values too large: the linear score x_{i}^T theta_x of item {i} (its features times "
                "the first d_x entries of theta) would overflow float64; rescale the features or theta"
            )
        raise ValueError(
            f"theta: values too large: the topic part of the linear scores of topic {int(topics[i])} (its "
            "Gamma row or bonus) would overflow float64 when added up"
        )


class TopicCascadeModel:
    """Click model whose probabilities depend on the item and on the topics shown above it.

    ``p(i | s) = mu(phi(i, s)^T theta)`` with ``phi(i, s) = [x_i ; topic block]``, where only the
    block of the item's topic ``c = topics[i]`` is non-zero:

    * ``features="transition"`` (default): block ``c`` holds the state's topic vector ``z(s)``, so
      ``theta = [theta_x ; vec(Gamma)]`` (row-major, ``m * m`` entries) and the topic part is
      ``sum_c' Gamma[c, c'] z_c'(s)``: ``Gamma[c, c']`` is the additive effect on a topic-``c``
      item of topic ``c'`` shown above. ``d = d_x + m**2``.
    * ``features="coverage"``: block ``c`` is one entry, 1 if topic ``c`` is absent from the state
      (a novelty bonus ``gamma[c]``). ``d = d_x + m``.

    The feature map is a reconstruction from the cascading-bandit literature (CascadeLinUCB,
    CascadeLSB/CascadeHybrid topic coverage); the paper's exact map is not published.

    Parameters
    ----------
    X : array of shape (L, d_x)
        Item features.
    topics : int array of shape (L,)
        Topic of each item, in ``[0, n_topics)``.
    theta : array of shape (d,)
        Parameters in the layout above.
    n_topics : int, optional
        Number of topics m (default ``max(topics) + 1``).
    link : {"linear", "logistic"}
        ``"linear"``: identity clipped to [0, 1]; ``"logistic"``: the sigmoid.
    features : {"transition", "coverage"}
        The topic block of phi, as above.
    state : {"set", "count", "last"}
        What the state remembers of the topics shown above (see :class:`StateSpace`).

    Raises
    ------
    ValueError
        For an unknown option, arrays of the wrong shape or with non-finite values, topics
        outside ``[0, n_topics)``, too many topics for the state kind, or features and parameters
        so large that the linear scores ``phi(i, s)^T theta`` would overflow float64 (``X,
        theta``; ``theta`` when its topic part alone does).
    TypeError
        For non-numeric arrays or boolean ``topics`` (topic indices are integers).

    Examples
    --------
    The model of the worked example (:func:`worked_example`): item 0 is less attractive below
    another topic-0 item, and topic 2 gains below topic 0.

    >>> from paperkernels.cascade import TopicCascadeModel
    >>> X = [[1.0, 0.0], [0.8, 0.2], [0.2, 0.9], [0.6, 0.3], [0.1, 0.6], [0.3, 0.3]]
    >>> gamma = [[-0.20, 0.0, 0.05], [0.10, -0.15, 0.0], [0.25, 0.0, -0.10]]
    >>> model = TopicCascadeModel.from_parts(X, [0, 0, 1, 1, 2, 2], [0.30, 0.25], gamma)
    >>> model
    TopicCascadeModel(L=6, d_x=2, m=3, link='linear', features='transition', state='set')
    >>> model.dim                         # d_x + m**2
    11
    >>> round(model.value([0, 2, 4]), 6), round(model.value([4, 2, 0]), 6)
    (0.754615, 0.618905)
    """

    def __setstate__(self, state: dict[str, Any]) -> None:
        # Arrays unpickled from out-of-band buffers can be misaligned; the C++ core reads them directly.
        self.__dict__.update(realign_state(state))
        for a in (self.X, self.topics, self.theta):
            a.setflags(write=False)  # unpickled arrays come back writable

    def __init__(
        self,
        X: Any,
        topics: Any,
        theta: Any,
        *,
        n_topics: int | None = None,
        link: str = "linear",
        features: str = "transition",
        state: str = "set",
    ) -> None:
        self.link = as_choice(link, "link", LINKS)
        self.features = as_choice(features, "features", FEATURE_MAPS)
        self.state = as_choice(state, "state", STATE_KINDS)
        # Own copies, frozen: the caller's arrays stay writable and later changes to them do not
        # reach the model.
        self.X = as_array(X, "X", ndim=2).copy()
        topics, self.n_topics = check_topics(topics, self.X.shape[0], n_topics, self.state)
        self.topics = topics.copy()
        self.theta = as_array(theta, "theta", ndim=1, shape=(self.dim,)).copy()
        check_scores_finite(self.X, self.topics, self.theta, self.n_topics, self.features, self.state)
        for a in (self.X, self.topics, self.theta):
            a.setflags(write=False)

    @classmethod
    def from_parts(cls, X: Any, topics: Any, theta_x: Any, gamma: Any, **kwargs: Any) -> TopicCascadeModel:
        """Model from the item weights ``theta_x`` and the topic parameters ``gamma``.

        Parameters
        ----------
        X : array of shape (L, d_x)
            Item features.
        topics : int array of shape (L,)
            Topic of each item.
        theta_x : array of shape (d_x,)
            Weights of the item features.
        gamma : array
            ``Gamma`` of shape (m, m) for ``"transition"`` (row: the item's topic, column: a topic
            shown above), the novelty bonuses of shape (m,) for ``"coverage"``.
        **kwargs
            ``n_topics`` (default: the size of ``gamma``), ``link``, ``features``, ``state`` as in
            the constructor.

        Returns
        -------
        TopicCascadeModel
            The model with ``theta = [theta_x ; gamma.ravel()]``.

        Raises
        ------
        ValueError
            For a ``gamma`` of the wrong shape and whatever the constructor refuses.

        Examples
        --------
        >>> from paperkernels.cascade import TopicCascadeModel
        >>> model = TopicCascadeModel.from_parts([[1.0], [0.5]], [0, 1], [0.4], [0.1, 0.2], features="coverage")
        >>> model.theta.tolist()
        [0.4, 0.1, 0.2]
        """
        features = kwargs.get("features", "transition")
        theta_x = as_array(theta_x, "theta_x", ndim=1)
        g = as_array(gamma, "gamma", ndim=2 if features == "transition" else 1)
        if features == "transition" and g.shape[0] != g.shape[1]:
            raise ValueError(f"gamma: expected a square (m, m) matrix, got shape {g.shape}")
        kwargs.setdefault("n_topics", g.shape[0])
        return cls(X, topics, np.concatenate([theta_x, g.ravel()]), **kwargs)

    # -- sizes and parameter views ------------------------------------------------------------
    @property
    def n_items(self) -> int:
        """Number of items L.

        Examples
        --------
        >>> from paperkernels.cascade import worked_example
        >>> model = worked_example().model
        >>> model.n_items
        6
        """
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        """Number of item features d_x.

        Examples
        --------
        >>> from paperkernels.cascade import worked_example
        >>> model = worked_example().model
        >>> model.n_features
        2
        """
        return int(self.X.shape[1])

    @property
    def dim(self) -> int:
        """Length d of phi and theta: ``d_x + m**2`` ("transition") or ``d_x + m`` ("coverage").

        Examples
        --------
        >>> from paperkernels.cascade import worked_example
        >>> model = worked_example().model
        >>> model.dim
        11
        """
        block = self.n_topics if self.features == "transition" else 1
        return self.n_features + self.n_topics * block

    @property
    def theta_x(self) -> np.ndarray:
        """Weights of the item features, the first d_x entries of theta.

        Examples
        --------
        >>> from paperkernels.cascade import worked_example
        >>> model = worked_example().model
        >>> model.theta_x.tolist()
        [0.3, 0.25]
        """
        return cast(np.ndarray, self.theta[: self.n_features])

    @property
    def gamma(self) -> np.ndarray:
        """Topic parameters: ``Gamma`` (m, m) for ``"transition"``, the bonuses (m,) for ``"coverage"``.

        Examples
        --------
        >>> from paperkernels.cascade import worked_example
        >>> model = worked_example().model
        >>> model.gamma[2].tolist()          # effects on a topic-2 item of topics 0, 1, 2 above
        [0.25, 0.0, -0.1]
        """
        rest = self.theta[self.n_features :]
        return cast(np.ndarray, rest.reshape(self.n_topics, self.n_topics) if self.features == "transition" else rest)

    def __repr__(self) -> str:
        return (
            f"TopicCascadeModel(L={self.n_items}, d_x={self.n_features}, m={self.n_topics}, link={self.link!r}, "
            f"features={self.features!r}, state={self.state!r})"
        )

    # -- states --------------------------------------------------------------------------------
    def state_space(self, K: int, *, max_states: int = MAX_STATES) -> StateSpace:
        """The states of this model's kind reachable before positions 1..K.

        Parameters
        ----------
        K : int
            Cascade length.
        max_states : int
            Refuse larger spaces (ValueError).

        Returns
        -------
        StateSpace
            The column order of :meth:`click_table`.

        Examples
        --------
        >>> from paperkernels.cascade import worked_example
        >>> len(worked_example().model.state_space(3))
        7
        """
        return StateSpace(self.n_topics, K, self.state, max_states=max_states)

    def state_after(self, items: Any) -> np.ndarray:
        """Topic vector of the state after showing ``items`` in order.

        Parameters
        ----------
        items : int array
            Item indices, top position first; ``[]`` gives the empty state.

        Returns
        -------
        int64 array of shape (n_topics,)
            The state's topic vector (see :class:`StateSpace`).

        Raises
        ------
        ValueError
            For item indices outside ``[0, L)``.
        TypeError
            For boolean ``items`` (item indices are integers).

        Examples
        --------
        >>> from paperkernels.cascade import worked_example
        >>> worked_example().model.state_after([0, 2]).tolist()
        [1, 1, 0]
        """
        shown = as_indices(items, "items", f"item indices in [0, {self.n_items})", ndim=1, allow_empty=True)
        if shown.size and (shown.min() < 0 or shown.max() >= self.n_items):
            raise ValueError(f"items: expected item indices in [0, {self.n_items})")
        z = np.zeros(self.n_topics, dtype=np.int64)
        for i in shown.tolist():
            z = _next_vector(z, int(self.topics[i]), self.state)
        return z

    # -- probabilities and values --------------------------------------------------------------
    def click_prob(self, items: Any, states: Any) -> np.ndarray:
        """Click probabilities ``p(i | s)``.

        Parameters
        ----------
        items : int or int array
            Item indices.
        states : int array of shape (..., n_topics)
            Topic vectors of the states (see :class:`StateSpace`), broadcast against ``items``.

        Returns
        -------
        numpy.ndarray
            The probabilities, of the broadcast shape of ``items`` and ``states[..., 0]``.

        Raises
        ------
        ValueError
            For item indices outside ``[0, L)``, vectors that are not states of this kind, shapes
            that do not broadcast, or a result above ``paperkernels.limits.max_result_bytes``.
        TypeError
            For boolean ``items`` (item indices are integers).

        Examples
        --------
        >>> from paperkernels.cascade import worked_example
        >>> model = worked_example().model
        >>> model.click_prob([0, 4], [0, 0, 0]).round(6).tolist()        # nothing shown above
        [0.3, 0.18]
        >>> model.click_prob(4, [1, 1, 0]).round(6).tolist()             # below topics 0 and 1
        0.43
        """
        # as_array returns at least 1-d arrays: restore a scalar's shape.
        expected = f"item indices in [0, {self.n_items})"
        i = as_indices(items, "items", expected, allow_empty=True).reshape(np.shape(items))
        if i.size and (i.min() < 0 or i.max() >= self.n_items):
            raise ValueError(f"items: expected item indices in [0, {self.n_items})")
        z = check_state_vectors(states, self.n_topics, self.state)
        try:
            shape = np.broadcast_shapes(i.shape, z.shape[:-1])
        except ValueError:
            raise ValueError(
                f"items, states: shapes {i.shape} and {z.shape[:-1]} (+ topic axis) do not broadcast"
            ) from None
        n = int(np.prod(shape, dtype=object))
        check_result_bytes(
            n * 8 * (self.n_features + self.n_topics + 4),
            "items, states",
            f"the click probabilities of broadcast shape {shape} (with their intermediates)",
            "evaluate fewer (item, state) pairs per call",
        )
        i = np.broadcast_to(i, shape)
        z = np.broadcast_to(z, shape + (self.n_topics,))
        c = self.topics[i]
        eta = self.X[i] @ self.theta_x
        if self.features == "transition":
            eta = eta + np.sum(self.gamma[c] * z, axis=-1)
        else:
            novel = np.take_along_axis(z, c[..., None], axis=-1)[..., 0] == 0
            eta = eta + self.gamma[c] * novel
        if self.link == "linear":
            return cast(np.ndarray, np.clip(eta, 0.0, 1.0))
        return cast(np.ndarray, 1.0 / (1.0 + np.exp(-eta)))

    def position_probs(self, cascade: Any) -> np.ndarray:
        """Click probability at each position of ``cascade`` given the items above it.

        Parameters
        ----------
        cascade : int array
            Distinct item indices, top position first.

        Returns
        -------
        numpy.ndarray
            ``p(a_k | s_k)`` for each position k.

        Raises
        ------
        ValueError
            For a cascade that is not distinct item indices of the model.
        TypeError
            For a boolean cascade (item indices are integers).

        Examples
        --------
        >>> from paperkernels.cascade import worked_example
        >>> worked_example().model.position_probs([0, 2, 4]).round(6).tolist()
        [0.3, 0.385, 0.43]
        """
        c = check_cascade(cascade, self.n_items)
        z = np.zeros(self.n_topics, dtype=np.int64)
        out = np.empty(c.shape[0])
        for k, item in enumerate(c.tolist()):
            out[k] = float(self.click_prob(item, z))
            z = _next_vector(z, int(self.topics[item]), self.state)
        return out

    def value(self, cascade: Any) -> float:
        """Probability of a click on ``cascade``: R(A) = 1 - prod_k (1 - p(a_k | s_k)).

        Parameters
        ----------
        cascade : int array
            Distinct item indices, top position first.

        Returns
        -------
        float
            The expected reward of showing ``cascade``.

        Raises
        ------
        ValueError
            For a cascade that is not distinct item indices of the model.
        TypeError
            For a boolean cascade (item indices are integers).

        Examples
        --------
        >>> from paperkernels.cascade import worked_example
        >>> round(worked_example().model.value([0, 2, 4]), 6)
        0.754615
        """
        return cascade_value(self.position_probs(cascade))

    def click_table(self, K: int, *, max_states: int = MAX_STATES) -> np.ndarray:
        """Click probabilities of every item in every state of ``state_space(K)``.

        Parameters
        ----------
        K : int
            Cascade length (the states before positions 1..K).
        max_states : int
            Refuse larger state spaces (ValueError).

        Returns
        -------
        numpy.ndarray of shape (L, S)
            ``P[i, s] = p(i | s)``, columns in the order of :meth:`state_space`.

        Raises
        ------
        ValueError
            For a bad ``K``, or a table or state space above its limit.

        Examples
        --------
        >>> from paperkernels.cascade import worked_example
        >>> worked_example().model.click_table(3).shape
        (6, 7)
        """
        K = check_K(K, self.n_items, self.state)
        max_states = as_int(max_states, "max_states", low=1)
        n_states = count_states(self.state, self.n_topics, K, max_states)
        check_result_bytes(
            self.n_items * n_states * 8,
            "K",
            f"the click table of {self.n_items} items x {n_states} states",
            "use a shorter cascade or fewer topics",
        )
        table: np.ndarray = _core.cascade.click_table(
            self.X,
            self.topics,
            self.theta,
            _FEATURE_MAP[self.features],
            _LINK[self.link],
            _STATE_KIND[self.state],
            self.n_topics,
            K,
            max_states,
        )
        return table


class ClickTable:
    """User-supplied click probabilities ``P[item, state]`` for planning.

    Parameters
    ----------
    probabilities : array of shape (L, S)
        Probabilities in [0, 1]; column ``s`` is state ``s`` of ``StateSpace(n_topics, K, state)``
        (S must equal the size of that space).
    topics : int array of shape (L,)
    K : int
        Longest cascade the table serves (its columns cover the states before positions 1..K).
    state : {"set", "count", "last"}
        The state kind of the columns.
    n_topics : int, optional
        Default ``max(topics) + 1``.

    Raises
    ------
    ValueError
        For probabilities outside [0, 1], a column count other than the size of the state space,
        or bad topics, ``K`` or ``state``.
    TypeError
        For non-numeric probabilities or boolean ``topics`` (topic indices are integers).

    Examples
    --------
    Two topics, two items each; the columns are the states {}, {0} and {1}.

    >>> from paperkernels.cascade import ClickTable, StateSpace, plan
    >>> StateSpace(2, 2).vectors.tolist()
    [[0, 0], [1, 0], [0, 1]]
    >>> P = [[0.5, 0.3, 0.6], [0.4, 0.2, 0.4], [0.45, 0.45, 0.25], [0.1, 0.1, 0.0]]
    >>> table = ClickTable(P, [0, 0, 1, 1], 2)
    >>> round(table.value([0, 2]), 6), round(table.value([2, 0]), 6)
    (0.725, 0.78)
    >>> plan(table, 2).cascade.tolist()
    [2, 0]
    """

    def __setstate__(self, state: dict[str, Any]) -> None:
        # Arrays unpickled from out-of-band buffers can be misaligned; the C++ core reads them directly.
        self.__dict__.update(realign_state(state))
        for a in (self.probabilities, self.topics):
            a.setflags(write=False)  # unpickled arrays come back writable

    def __init__(
        self, probabilities: Any, topics: Any, K: int, *, state: str = "set", n_topics: int | None = None
    ) -> None:
        self.state = as_choice(state, "state", STATE_KINDS)
        P = as_array(probabilities, "probabilities", ndim=2, low=0.0, high=1.0)
        self.topics, self.n_topics = check_topics(topics, P.shape[0], n_topics, self.state)
        self.K = check_K(K, P.shape[0], self.state)
        self.space = StateSpace(self.n_topics, self.K, self.state)
        if P.shape[1] != len(self.space):
            raise ValueError(
                f"probabilities: expected {len(self.space)} columns (the {self.state!r} states for "
                f"n_topics = {self.n_topics}, K = {self.K}), got {P.shape[1]}"
            )
        self.probabilities = P.copy()  # own frozen copies: the caller's arrays stay writable
        self.topics = self.topics.copy()
        for a in (self.probabilities, self.topics):
            a.setflags(write=False)

    @property
    def n_items(self) -> int:
        """Number of items L.

        Examples
        --------
        >>> from paperkernels.cascade import ClickTable
        >>> ClickTable([[0.5, 0.3, 0.5], [0.5, 0.5, 0.25]], [0, 1], 2).n_items
        2
        """
        return int(self.probabilities.shape[0])

    def __repr__(self) -> str:
        return f"ClickTable(L={self.n_items}, m={self.n_topics}, K={self.K}, state={self.state!r})"

    def position_probs(self, cascade: Any) -> np.ndarray:
        """Click probability at each position of ``cascade`` given the items above it.

        Parameters
        ----------
        cascade : int array
            At most ``K`` distinct item indices, top position first.

        Returns
        -------
        numpy.ndarray
            The table's entries along the cascade's state path.

        Raises
        ------
        ValueError
            For a cascade longer than ``K`` or not of distinct item indices.
        TypeError
            For a boolean cascade (item indices are integers).

        Examples
        --------
        >>> from paperkernels.cascade import ClickTable
        >>> table = ClickTable([[0.5, 0.3, 0.5], [0.45, 0.45, 0.25]], [0, 1], 2)
        >>> table.position_probs([1, 0]).tolist()
        [0.45, 0.5]
        """
        c = check_cascade(cascade, self.n_items)
        if c.shape[0] > self.K:
            raise ValueError(f"cascade: this table covers cascades of length <= {self.K}, got {c.shape[0]}")
        out = np.empty(c.shape[0])
        s = 0
        for k, item in enumerate(c.tolist()):
            out[k] = self.probabilities[item, s]
            if k + 1 < c.shape[0]:
                s = int(self.space.next[s, self.topics[item]])
        return out

    def value(self, cascade: Any) -> float:
        """Probability of a click on ``cascade``: R(A) = 1 - prod_k (1 - p(a_k | s_k)).

        Parameters
        ----------
        cascade : int array
            At most ``K`` distinct item indices, top position first.

        Returns
        -------
        float
            The expected reward of showing ``cascade``.

        Raises
        ------
        ValueError
            For a cascade longer than ``K`` or not of distinct item indices.
        TypeError
            For a boolean cascade (item indices are integers).

        Examples
        --------
        >>> from paperkernels.cascade import ClickTable
        >>> ClickTable([[0.5, 0.3, 0.5], [0.5, 0.5, 0.25]], [0, 1], 2).value([1, 0])
        0.75
        """
        return cascade_value(self.position_probs(cascade))
