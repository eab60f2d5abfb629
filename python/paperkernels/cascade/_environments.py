"""Built-in environments and a builder from an item x topic table plus item features (offline)."""

from __future__ import annotations

import csv
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from .. import _core
from .._limits import check_result_bytes
from .._seed import SeedLike, as_seed
from .._validation import as_array, as_choice, as_int
from ._model import FEATURE_MAPS, LINKS, STATE_KINDS, TopicCascadeModel, check_K, check_n_topics
from ._simulation import CascadeEnvironment

_DATA = os.path.join(os.path.dirname(__file__), "data")


def worked_example() -> CascadeEnvironment:
    """The worked example of the topic-order cascading bandit: L = 6, m = 3, K = 3.

    The example of the model section of the paper on cascading bandits with topic-order-dependent
    click probabilities (NeurIPS 2026): topics ``tau = [0, 0, 1, 1, 2, 2]``, linear link, "set"
    states, ``p(i | s) = x_i^T theta_x + sum_{c' in s} Gamma[tau(i), c']``. The optimal value is
    0.754615 with cascade (0, 2, 4) or (0, 4, 2); the reversed cascade (4, 2, 0) gives 0.618905
    and the top three items by ``p(i | {})`` give 0.608245.

    Returns
    -------
    CascadeEnvironment
        The model and K = 3.

    Examples
    --------
    >>> from paperkernels.cascade import worked_example
    >>> env = worked_example()
    >>> env
    CascadeEnvironment(model=TopicCascadeModel(L=6, d_x=2, m=3, link='linear', features='transition', state='set'), K=3, name='worked example', item_names=None, topic_names=None)
    >>> round(env.optimal.value, 6)
    0.754615
    """
    X = np.array([[1.0, 0.0], [0.8, 0.2], [0.2, 0.9], [0.6, 0.3], [0.1, 0.6], [0.3, 0.3]])
    topics = np.array([0, 0, 1, 1, 2, 2])
    gamma = np.array([[-0.20, 0.0, 0.05], [0.10, -0.15, 0.0], [0.25, 0.0, -0.10]])
    model = TopicCascadeModel.from_parts(X, topics, [0.30, 0.25], gamma)
    return CascadeEnvironment(model, 3, name="worked example")


def _uniforms(seed: int, stream: int, shape: tuple[int, ...]) -> np.ndarray:
    return cast(np.ndarray, _core.common.random_uniform(seed, stream, int(np.prod(shape))).reshape(shape))


def _default_gamma(seed: int, m: int) -> np.ndarray:
    gamma = -0.05 + 0.20 * _uniforms(seed, 2, (m, m))
    np.fill_diagonal(gamma, -0.10)
    return gamma


def _default_theta_x(seed: int, d_x: int) -> np.ndarray:
    return 0.2 + 0.2 * _uniforms(seed, 1, (d_x,))


def _normalise_rows(X: np.ndarray, name: str = "features") -> np.ndarray:
    with np.errstate(over="ignore", under="ignore"):
        norms = np.linalg.norm(X, axis=1, keepdims=True)
        # Rows whose squares overflow or underflow: their length again, scaled by the largest entry
        # (the other rows keep the plain norm, bit for bit).
        scale = np.max(np.abs(X), axis=1, keepdims=True)
        redo = (~np.isfinite(norms) | (norms == 0)) & (scale > 0)
        if np.any(redo):
            rows = redo[:, 0]
            norms[rows] = scale[rows] * np.linalg.norm(X[rows] / scale[rows], axis=1, keepdims=True)
    overflow = np.flatnonzero(~np.isfinite(norms[:, 0]))
    if overflow.size:
        raise ValueError(
            f"{name}: values too large: the length of row {int(overflow[0])} overflows float64, so it cannot be "
            "normalised; rescale the features (or pass normalize=False)"
        )
    return cast(np.ndarray, np.divide(X, norms, out=np.zeros_like(X), where=norms > 0))


def _check_names(names: Any, name: str, count: int, what: str) -> tuple[str, ...] | None:
    """Labels as a tuple of ``count`` strings (None stays None; a lone string is refused)."""
    if names is None:
        return None
    if isinstance(names, (str, bytes)) or not isinstance(names, Sequence | np.ndarray):
        raise TypeError(f"{name}: expected a sequence of {count} strings (one per {what}), got {type(names).__name__}")
    labels = tuple(names)
    if len(labels) != count:
        raise ValueError(f"{name}: expected {count} labels (one per {what}), got {len(labels)}")
    for k, label in enumerate(labels):
        if not isinstance(label, str):
            raise TypeError(f"{name}: expected strings, got {type(label).__name__} at index {k}")
    return tuple(str(label) for label in labels)  # numpy strings become plain ones


def reference_environment(
    seed: SeedLike = 0, *, n_items: int = 12, n_topics: int = 4, K: int = 3, n_features: int = 3
) -> CascadeEnvironment:
    """The reference simulation environment of the topic-order cascading bandit.

    The simulation of the paper on cascading bandits with topic-order-dependent click
    probabilities (NeurIPS 2026, section "Reference simulation"): L = 12 items with topic
    ``i mod 4``, K = 3, ``x_i ~ U[0, 1]^3`` normalised to unit length, ``theta_x ~ U(0.2, 0.4)``,
    ``Gamma`` off-diagonal ``~ U(-0.05, 0.15)`` and diagonal -0.10, linear link, "transition"
    features, "set" states. The draws use the package's own generator (streams 0, 1, 2 of
    ``seed``), so an environment is the same on every platform.

    Parameters
    ----------
    seed : None, int or numpy.random.Generator
        Seed of the draws.
    n_items : int
        Number of items L (topic ``i mod n_topics``).
    n_topics : int
        Number of topics m.
    K : int
        Cascade length.
    n_features : int
        Number of item features d_x.

    Returns
    -------
    CascadeEnvironment
        The drawn model and K.

    Raises
    ------
    ValueError
        For sizes out of range or above ``paperkernels.limits.max_result_bytes``.

    Examples
    --------
    >>> from paperkernels.cascade import reference_environment
    >>> env = reference_environment(0)
    >>> env.model
    TopicCascadeModel(L=12, d_x=3, m=4, link='linear', features='transition', state='set')
    >>> env.model.topics[:6].tolist()
    [0, 1, 2, 3, 0, 1]
    """
    seed = as_seed(seed)
    n_items = as_int(n_items, "n_items", low=1)
    n_topics = check_n_topics(n_topics, "set")
    K = check_K(K, n_items)
    n_features = as_int(n_features, "n_features", low=1)
    check_result_bytes(
        8 * (n_items * (2 * n_features + 1) + n_topics * n_topics + n_features),
        "n_items, n_features",
        f"the features of {n_items} items x {n_features} features",
        "use fewer items or features",
    )
    X = _normalise_rows(_uniforms(seed, 0, (n_items, n_features)))
    topics = np.arange(n_items) % n_topics
    model = TopicCascadeModel.from_parts(X, topics, _default_theta_x(seed, n_features), _default_gamma(seed, n_topics))
    return CascadeEnvironment(model, K, name=f"reference (seed {seed})")


def environment_from_table(
    topic_table: Any,
    features: Any,
    K: int,
    *,
    theta_x: Any = None,
    gamma: Any = None,
    assign: str = "argmax",
    normalize: bool = True,
    seed: SeedLike = 0,
    feature_map: str = "transition",
    link: str = "linear",
    state: str = "set",
    item_names: Sequence[str] | None = None,
    topic_names: Sequence[str] | None = None,
    name: str = "",
) -> CascadeEnvironment:
    """An environment from an item x topic table (e.g. MovieLens genres) and item features.

    Parameters
    ----------
    topic_table : array of shape (L, m)
        Non-negative weights (0/1 genre flags, scores, ...); every item needs a positive entry.
    features : array of shape (L, d_x)
        Item features.
    K : int
        Cascade length.
    theta_x, gamma : arrays, optional
        Model parameters; by default drawn as in the reference simulation (``theta_x ~ U(.2, .4)``;
        for "transition", ``Gamma`` off-diagonal ``~ U(-.05, .15)``, diagonal -.10; for
        "coverage", ``gamma ~ U(-.05, .15)``) from ``seed``.
    assign : {"argmax", "rarest"}
        One topic per item: the largest weight (ties: the first column), or the least frequent of
        the item's topics (ties: the first column), which keeps small topics populated.
    normalize : bool
        Scale feature rows to unit length (the default parameter ranges assume it).
    seed : None, int or numpy.random.Generator
        Seed of the default parameters.
    feature_map : {"transition", "coverage"}
        As ``features`` in :class:`TopicCascadeModel`.
    link : {"linear", "logistic"}
        As in :class:`TopicCascadeModel`.
    state : {"set", "count", "last"}
        As in :class:`TopicCascadeModel`.
    item_names : sequence of str, optional
        Labels of the items, for reports: one string per row of ``topic_table`` (a lone string
        is refused).
    topic_names : sequence of str, optional
        Labels of the topics (the table's columns), for reports: one string per column.
    name : str
        Name of the environment.

    Returns
    -------
    CascadeEnvironment
        The model built from the table and the features, and K.

    Raises
    ------
    ValueError
        For tables or features of the wrong shape, negative weights, an item without topic, an
        unknown option, parameters of the wrong shape, a bad ``K``, labels of the wrong number,
        or (with ``normalize``) a feature row whose length overflows float64 (``features``).
    TypeError
        For ``item_names`` or ``topic_names`` that are not a sequence of strings.

    Examples
    --------
    Three items, two genres: the second item has both and goes to the rarer one with
    ``assign="rarest"``.

    >>> from paperkernels.cascade import environment_from_table
    >>> table = [[1, 0], [1, 1], [1, 0]]
    >>> features = [[1.0, 0.0], [0.6, 0.8], [0.0, 1.0]]
    >>> environment_from_table(table, features, 2).model.topics.tolist()
    [0, 0, 0]
    >>> environment_from_table(table, features, 2, assign="rarest").model.topics.tolist()
    [0, 1, 0]
    """
    table = as_array(topic_table, "topic_table", ndim=2, low=0.0)
    X = as_array(features, "features", ndim=2)
    if X.shape[0] != table.shape[0]:
        raise ValueError(f"features: expected one row per item of topic_table ({table.shape[0]}), got {X.shape[0]}")
    assign = as_choice(assign, "assign", ("argmax", "rarest"))
    feature_map = as_choice(feature_map, "feature_map", FEATURE_MAPS)
    link = as_choice(link, "link", LINKS)
    state = as_choice(state, "state", STATE_KINDS)
    m = check_n_topics(table.shape[1], state, name="topic_table")
    empty = np.nonzero(~np.any(table > 0, axis=1))[0]
    if empty.size:
        raise ValueError(f"topic_table: item {int(empty[0])} has no topic (every row needs a positive weight)")
    if assign == "argmax":
        topics = np.argmax(table, axis=1)
    else:
        present = table > 0
        frequency = present.sum(axis=0)
        masked = np.where(present, frequency[None, :], np.iinfo(np.int64).max)
        topics = np.argmin(masked, axis=1)
    if normalize:
        X = _normalise_rows(X)
    seed = as_seed(seed)
    tx = _default_theta_x(seed, X.shape[1]) if theta_x is None else as_array(theta_x, "theta_x", shape=(X.shape[1],))
    if gamma is None:
        g = _default_gamma(seed, m) if feature_map == "transition" else -0.05 + 0.20 * _uniforms(seed, 2, (m,))
    else:
        g = as_array(gamma, "gamma", shape=(m, m) if feature_map == "transition" else (m,))
    items = _check_names(item_names, "item_names", table.shape[0], "item")
    topic_labels = _check_names(topic_names, "topic_names", m, "column of topic_table")
    model = TopicCascadeModel.from_parts(X, topics, tx, g, n_topics=m, features=feature_map, link=link, state=state)
    return CascadeEnvironment(model, K, name=name, item_names=items, topic_names=topic_labels)


@dataclass(frozen=True)
class Catalogue:
    """Items with genres and numeric features, as read by :func:`read_catalogue`.

    Parameters
    ----------
    titles : tuple of str
        Item titles.
    topic_names : tuple of str
        Genre names, the columns of ``topic_table``.
    topic_table : array of shape (L, m)
        1 where an item has a genre, 0 elsewhere.
    features : array of shape (L, d_x)
        Numeric features of the items.
    feature_names : tuple of str
        Names of the feature columns.

    Examples
    --------
    >>> from paperkernels.cascade import toy_catalogue
    >>> catalogue = toy_catalogue()
    >>> len(catalogue.titles), catalogue.topic_names
    (24, ('Drama', 'Documentary', 'Comedy', 'Animation', 'Action'))
    """

    titles: tuple[str, ...]
    topic_names: tuple[str, ...]
    topic_table: np.ndarray  # (L, m) 0/1
    features: np.ndarray  # (L, d_x)
    feature_names: tuple[str, ...]

    def environment(self, K: int, **kwargs: Any) -> CascadeEnvironment:
        """An environment from this catalogue, by :func:`environment_from_table`.

        Parameters
        ----------
        K : int
            Cascade length.
        **kwargs
            Further arguments of :func:`environment_from_table` (item and topic names default
            to the catalogue's titles and genres).

        Returns
        -------
        CascadeEnvironment
            The environment.

        Raises
        ------
        ValueError
            As :func:`environment_from_table`.

        Examples
        --------
        >>> from paperkernels.cascade import toy_catalogue
        >>> env = toy_catalogue().environment(3, assign="rarest", seed=1)
        >>> env.K, env.topic_names[0]
        (3, 'Drama')
        """
        kwargs.setdefault("item_names", self.titles)
        kwargs.setdefault("topic_names", self.topic_names)
        return environment_from_table(self.topic_table, self.features, K, **kwargs)


def read_catalogue(
    path: str,
    *,
    title_column: str = "title",
    genre_column: str = "genres",
    feature_columns: Sequence[str] | None = None,
) -> Catalogue:
    """Read a CSV of items: a title, pipe-separated genres (MovieLens style) and numeric features.

    Lines starting with ``#`` are comments. Genres become topics in order of first appearance;
    ``(no genres listed)`` counts as no genre.

    Parameters
    ----------
    path : str
        The CSV file (UTF-8, with or without a byte order mark, with a header row; spaces around
        a column name are not part of it).
    title_column : str
        Column of the titles.
    genre_column : str
        Column of the pipe-separated genres.
    feature_columns : sequence of str, optional
        Numeric columns to read; default: every column other than the title, the genres and a
        column named ``item`` or ``movieId``.

    Returns
    -------
    Catalogue
        Titles, genres as a 0/1 item x topic table, and the features.

    Raises
    ------
    ValueError
        For a file without header or items, a header with a blank or repeated column name, missing
        columns, a row with more or fewer fields than the header (naming its line number), or
        non-numeric or non-finite features.
    OSError
        If the file cannot be read.

    Examples
    --------
    >>> import os, tempfile
    >>> from paperkernels.cascade import read_catalogue
    >>> path = os.path.join(tempfile.mkdtemp(), "items.csv")
    >>> with open(path, "w", encoding="utf-8") as handle:
    ...     _ = handle.write("title,genres,year\\nA,Drama|Comedy,1.0\\nB,Comedy,2.0\\n")
    >>> catalogue = read_catalogue(path)
    >>> catalogue.topic_names, catalogue.topic_table.tolist()
    (('Drama', 'Comedy'), [[1.0, 1.0], [0.0, 1.0]])
    """
    # utf-8-sig: a byte order mark (written by some spreadsheet programs) is not part of the first
    # column name. Each row keeps the number of its (last) line in the file, for the messages.
    line_number = 0

    def uncommented(handle: Any) -> Any:
        nonlocal line_number
        for number, line in enumerate(handle, 1):
            if not line.startswith("#"):
                line_number = number
                yield line

    with open(path, newline="", encoding="utf-8-sig") as handle:
        numbered = [(line_number, r) for r in csv.reader(uncommented(handle))]
    if not numbered:
        raise ValueError(f"path: {path} holds no header row")
    header = [name.strip() for name in numbered[0][1]]  # "title, genres" names "genres"
    if "" in header:
        raise ValueError(f"path: the header of {path} has a column without a name (column {header.index('')})")
    repeated = sorted({h for h in header if header.count(h) > 1})
    if repeated:
        raise ValueError(f"path: the header of {path} names column(s) {repeated} more than once")
    lines = [n for n, r in numbered[1:] if r]
    body = [r for _, r in numbered[1:] if r]
    for column in (title_column, genre_column):
        if column not in header:
            raise ValueError(
                f"{'title_column' if column == title_column else 'genre_column'}: no column {column!r} in {header}"
            )
    if feature_columns is None:
        feature_columns = [h for h in header if h not in (title_column, genre_column, "item", "movieId")]
    missing = [c for c in feature_columns if c not in header]
    if missing:
        raise ValueError(f"feature_columns: no column(s) {missing} in {header}")
    if not body:
        raise ValueError(f"path: {path} holds no items")
    for line, row in zip(lines, body, strict=True):
        if len(row) != len(header):
            raise ValueError(
                f"path: the row on line {line} of {path} has {len(row)} fields, expected {len(header)} (the "
                "columns of the header)"
            )
    ti, gi = header.index(title_column), header.index(genre_column)
    fi = [header.index(c) for c in feature_columns]
    topic_names: list[str] = []
    genre_lists = []
    for row in body:
        genres = [g for g in row[gi].split("|") if g and g != "(no genres listed)"]
        for g in genres:
            if g not in topic_names:
                topic_names.append(g)
        genre_lists.append(genres)
    table = np.zeros((len(body), len(topic_names)))
    for i, genres in enumerate(genre_lists):
        for g in genres:
            table[i, topic_names.index(g)] = 1.0
    try:
        features = np.array([[float(row[j]) for j in fi] for row in body], dtype=np.float64).reshape(len(body), len(fi))
    except ValueError as exc:
        raise ValueError(f"feature_columns: non-numeric value in {path} ({exc})") from None
    bad = np.argwhere(~np.isfinite(features))
    if bad.size:
        i, j = (int(k) for k in bad[0])
        raise ValueError(
            f"feature_columns: column {feature_columns[j]!r} holds the non-finite value {body[i][fi[j]]!r} in the "
            f"row on line {lines[i]} of {path}; expected finite numbers"
        )
    return Catalogue(
        titles=tuple(row[ti] for row in body),
        topic_names=tuple(topic_names),
        topic_table=table,
        features=features,
        feature_names=tuple(feature_columns),
    )


def toy_catalogue() -> Catalogue:
    """A tiny synthetic catalogue shipped with the package (24 items, 5 genres, 3 features).

    Returns
    -------
    Catalogue
        The catalogue read from the package's ``data/catalogue.csv``.

    Examples
    --------
    >>> from paperkernels.cascade import toy_catalogue
    >>> toy_catalogue().features.shape
    (24, 3)
    """
    return read_catalogue(os.path.join(_DATA, "catalogue.csv"))
