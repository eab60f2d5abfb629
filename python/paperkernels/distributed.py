"""Running the batch APIs on a Dask cluster, with results identical to a single machine.

Every batch API of paperkernels derives the randomness of run, learner or shape ``r`` from
``(seed, r)`` only, so a batch split into chunks of consecutive indices, computed anywhere and put
back together in index order, is bit-identical to the single call. The helpers here do that split on
a ``dask.distributed.Client`` (any cluster; a ``LocalCluster`` in the examples)::

    from dask.distributed import Client, LocalCluster
    from paperkernels import distributed as pkd

    with LocalCluster(n_workers=2, threads_per_worker=1) as cluster, Client(cluster) as client:
        fitted = pkd.fit_ensemble(EnsembleForwardSelection(k=20, n_estimators=2000), X, y, client=client)

``client`` may be a ``dask.distributed.Client``, a cluster (e.g. a ``LocalCluster``) or a scheduler
address such as ``"tcp://10.0.0.5:8786"``; for a cluster or an address a client is connected for
the call and closed after it (except :func:`encode_shapes`, whose persisted result needs a
``Client``). ``client=None`` runs the same chunks one after the other in this process (useful for
progress bars on long local runs).

Limits are those of the single call, checked for the whole call before any chunk is queued: a
batch that the local function refuses (for instance for the size of its results, see
``paperkernels.limits``) is refused here too, whatever the chunking. At most :data:`MAX_CHUNKS`
chunks are queued per call. ``progress=True`` shows a tqdm bar when tqdm is installed and prints a
one-line summary otherwise. Requires the ``dask`` extra: ``pip install "paperkernels[dask]"``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from collections.abc import Sequence as SequenceABC
from dataclasses import dataclass, replace
from itertools import product
from types import ModuleType
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._limits import check_result_bytes
from ._optional import optional_import
from ._progress import Progress
from ._validation import as_bool, as_int
from .cascade import CascadeEnvironment, SimulationResult
from .greedy import EnsembleForwardSelection
from .greedy._design import CentredDesign, EnsemblePath, Response
from .shapes import XShapeEncoder
from .toptwo import Runs

__all__ = [
    "MAX_CHUNKS",
    "ChunkRanges",
    "chunk_ranges",
    "map_chunks",
    "GridCell",
    "run_many",
    "run_grid",
    "simulate",
    "simulate_many",
    "fit_ensemble",
    "encode_shapes",
]

#: Largest number of chunks one call queues (each chunk is a task with its own overhead).
MAX_CHUNKS = 100_000


def _require_distributed() -> ModuleType:
    """The ``distributed`` package (dask's scheduler), or an ImportError naming the ``dask`` extra."""
    optional_import("dask", "paperkernels.distributed")
    return optional_import("distributed", "paperkernels.distributed")


class ChunkRanges(SequenceABC):  # type: ignore[type-arg]  # a Sequence of (start, count) pairs
    """The consecutive ``(start, count)`` chunks covering ``range(n)``, computed on demand (like
    ``range``: its length and any chunk cost O(1), whatever the number of chunks).

    Parameters
    ----------
    n : int
        Number of items, ``>= 0`` (checked by :func:`chunk_ranges`, which builds these).
    chunk_size : int
        Items per chunk, ``>= 1``.

    Examples
    --------
    >>> from paperkernels.distributed import chunk_ranges
    >>> chunks = chunk_ranges(10, 4)
    >>> len(chunks), chunks[-1], chunks == [(0, 4), (4, 4), (8, 2)]
    (3, (8, 2), True)
    """

    __slots__ = ("n", "chunk_size")

    def __init__(self, n: int, chunk_size: int) -> None:
        self.n = n
        self.chunk_size = chunk_size

    def __len__(self) -> int:
        return -(-self.n // self.chunk_size)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        length = len(self)
        i = as_int(index, "index")
        if i < 0:
            i += length
        if not 0 <= i < length:
            raise IndexError(f"chunk index {index} out of range for {length} chunks")
        start = i * self.chunk_size
        return (start, min(self.chunk_size, self.n - start))

    def __iter__(self) -> Iterator[tuple[int, int]]:
        for start in range(0, self.n, self.chunk_size):
            yield (start, min(self.chunk_size, self.n - start))

    def __eq__(self, other: Any) -> bool:
        if isinstance(other, ChunkRanges):
            return len(self) == len(other) and (
                len(self) == 0 or (self.n, self.chunk_size) == (other.n, other.chunk_size)
            )
        if isinstance(other, (list, tuple)):
            return len(other) == len(self) and all(a == tuple(b) for a, b in zip(self, other, strict=False))
        return NotImplemented

    def __repr__(self) -> str:
        return f"ChunkRanges(n={self.n}, chunk_size={self.chunk_size})"


def chunk_ranges(n: int, chunk_size: int) -> ChunkRanges:
    """Consecutive ``(start, count)`` chunks covering ``range(n)``, as a lazy sequence.

    The chunks are produced on demand (``len``, indexing and iteration cost nothing up front), so
    ``chunk_ranges(10**7, 1)`` returns at once; it compares equal to the list of its chunks.

    Parameters
    ----------
    n : int
        Number of items (runs, learners, shapes), ``>= 0``.
    chunk_size : int
        Items per chunk, ``>= 1``; the last chunk holds the remainder.

    Returns
    -------
    ChunkRanges
        A sequence of ``(start, count)`` pairs in increasing order of ``start``; empty when
        ``n == 0``.

    Raises
    ------
    ValueError, TypeError
        When ``n`` or ``chunk_size`` is not an integer in range (the message names it).

    Examples
    --------
    >>> from paperkernels.distributed import chunk_ranges
    >>> list(chunk_ranges(10, 4))
    [(0, 4), (4, 4), (8, 2)]
    >>> len(chunk_ranges(10**7, 1))
    10000000
    """
    n = as_int(n, "n", low=0)
    chunk_size = as_int(chunk_size, "chunk_size", low=1)
    return ChunkRanges(n, chunk_size)


def _connected(client: Any) -> bool:
    return all(hasattr(client, name) for name in ("submit", "gather", "nthreads"))


@contextlib.contextmanager
def _client_scope(client: Any) -> Iterator[Any]:
    """A usable client for ``client``: None, a Client as given, or one connected to a cluster
    object or a scheduler address for the duration of the block."""
    if client is None or _connected(client):
        yield client
        return
    is_cluster = hasattr(client, "scheduler_address") and not isinstance(client, type)
    if not (isinstance(client, str) or is_cluster):
        raise TypeError(
            f"client: expected a dask.distributed.Client, a cluster (e.g. LocalCluster) or a scheduler address "
            f"string, got {type(client).__name__}"
        )
    distributed = _require_distributed()
    try:
        connected = distributed.Client(client, set_as_default=False, timeout="10s")
    except Exception as exc:  # an unreachable address, a closed cluster
        raise ValueError(f"client: could not connect to {client!r} ({type(exc).__name__}: {exc})") from None
    try:
        yield connected
    finally:
        connected.close()


def _default_chunk_size(n: int, client: Any) -> int:
    workers = 1
    if client is not None:
        workers = max(1, sum(client.nthreads().values()))
    # A few chunks per worker thread balance the load without much per-chunk overhead.
    return max(1, -(-n // (4 * workers)))


def map_chunks(
    fn: Callable[..., Any],
    chunks: Sequence[tuple[Any, ...]],
    client: Any = None,
    *,
    progress: bool = False,
    desc: str = "chunks",
) -> list[Any]:
    """``[fn(*args) for args in chunks]``, on the cluster's workers when ``client`` is given.

    Results come back in chunk order whatever order the workers finish in. ``client`` may also be
    a cluster or a scheduler address (see the module notes).

    Parameters
    ----------
    fn : callable
        Called as ``fn(*args)`` for every ``args`` in ``chunks``; with a client it must pickle
        (a module-level function).
    chunks : sequence of tuple
        The arguments of each call.
    client : dask.distributed.Client, cluster or str, optional
        Where to run the calls: a Client, a cluster object (e.g. ``LocalCluster``) or a scheduler
        address, connected for the call. ``None`` runs them one after the other in this process.
    progress : bool
        Show a progress bar (tqdm when installed, a one-line summary otherwise).
    desc : str
        Label of the progress bar.

    Returns
    -------
    list
        ``fn(*args)`` for each chunk, in chunk order.

    Raises
    ------
    ImportError
        When a ``client`` is given but dask.distributed is not installed.
    TypeError
        When ``client`` is neither a Client, a cluster nor an address string.

    Examples
    --------
    >>> from paperkernels.distributed import map_chunks
    >>> map_chunks(pow, [(2, 3), (3, 2)])
    [8, 9]
    """
    progress = as_bool(progress, "progress")
    with _client_scope(client) as client:
        return _map_chunks(fn, chunks, client, progress, desc)


def _map_chunks(
    fn: Callable[..., Any], chunks: Sequence[tuple[Any, ...]], client: Any, progress: bool, desc: str
) -> list[Any]:
    with Progress(len(chunks), progress, desc) as bar:
        if client is None:
            results = []
            for args in chunks:
                results.append(fn(*args))
                bar.update()
            return results
        distributed = _require_distributed()
        futures = [client.submit(fn, *args, pure=False) for args in chunks]
        for _ in distributed.as_completed(futures, loop=client.loop):
            bar.update()
        gathered: list[Any] = client.gather(futures)
        return gathered


def _split(n: int, chunk_size: int | None, client: Any, already: int = 0) -> ChunkRanges:
    """Chunks of ``range(n)``; refused when, with ``already`` chunks queued, they pass MAX_CHUNKS."""
    chunks = chunk_ranges(n, _default_chunk_size(n, client) if chunk_size is None else chunk_size)
    if already + len(chunks) > MAX_CHUNKS:
        raise ValueError(
            f"chunk_size: the call would queue {already + len(chunks)} chunks, above MAX_CHUNKS = {MAX_CHUNKS} "
            "(paperkernels.distributed.MAX_CHUNKS); use a larger chunk_size"
        )
    return chunks


# -- toptwo ----------------------------------------------------------------------------------------


@dataclass
class GridCell:
    """One configuration of :func:`run_grid` and its :class:`~paperkernels.toptwo.Runs`.

    Parameters
    ----------
    mu : ndarray of float64
        The arm means of the instance.
    delta : float
        The confidence level.
    rule : str
        The ``rule`` argument of :func:`paperkernels.toptwo.run_many`.
    threshold : str, array or callable
        The ``threshold`` argument of :func:`paperkernels.toptwo.run_many`.
    result : paperkernels.toptwo.Runs
        The runs of this configuration.

    Examples
    --------
    >>> from paperkernels import distributed
    >>> cell = distributed.run_grid([[0.6, 0.4]], [0.1], n_runs=5, seed=0)[0]
    >>> cell.mu, cell.delta, cell.rule, cell.result.n_runs
    (array([0.6, 0.4]), 0.1, 'random', 5)
    """

    mu: np.ndarray
    delta: float
    rule: str
    threshold: Any
    result: Runs


def _run_range(mu: Any, delta: float, count: int, seed: int, first: int, options: dict[str, Any]) -> Runs:
    from .toptwo import run_many as run_locally

    return run_locally(mu, delta, count, seed=seed, n_threads=1, first_run=first, **options)


def _join_runs(parts: Sequence[Runs]) -> Runs:
    joined: dict[str, Any] = {
        name: np.concatenate([getattr(p, name) for p in parts])
        for name in ("tau", "recommendation", "N", "S", "hit_max_steps")
    }
    return replace(parts[0], **joined)


def _grid_axis(values: Any, name: str) -> list[Any]:
    """One axis of a grid as a list; a lone value (a string included) is refused, naming the axis,
    rather than iterated (a string would become one cell per character)."""
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise TypeError(
            f"{name}: expected a sequence with one value per grid row (e.g. [{values!r}]), got {type(values).__name__}"[
                :200
            ]
        )
    return list(values)


def run_grid(
    instances: Sequence[Any],
    deltas: Sequence[float],
    n_runs: int,
    *,
    rules: Sequence[str] = ("random",),
    thresholds: Sequence[Any] = ("gk16",),
    seed: Any = None,
    client: Any = None,
    chunk_size: int | None = None,
    progress: bool = False,
    **options: Any,
) -> list[GridCell]:
    """:func:`paperkernels.toptwo.run_many` over the grid instances x deltas x rules x thresholds.

    Every cell uses the same ``seed`` (common random numbers across the grid) and the other
    ``run_many`` keyword arguments in ``options``; its runs are split into chunks of ``chunk_size``
    consecutive runs, all cells' chunks queued together. Cell results equal
    ``run_many(mu, delta, n_runs, rule=rule, threshold=threshold, seed=seed, **options)`` bit for bit.

    Parameters
    ----------
    instances : sequence of array-like
        Arm means of each instance.
    deltas : sequence of float
        Confidence levels.
    n_runs : int
        Runs per cell, ``>= 1``.
    rules : sequence of str
        Values of ``rule`` (default ``("random",)``).
    thresholds : sequence
        Values of ``threshold`` (default ``("gk16",)``).
    seed : None, int or numpy.random.Generator
        Seed shared by every cell; ``None`` draws one fresh seed for the whole grid.
    client : dask.distributed.Client, optional
        Where to run the chunks; ``None`` runs them in this process.
    chunk_size : int, optional
        Runs per task (default: about four tasks per worker thread).
    progress : bool
        Show a progress bar over the chunks.
    **options
        Other keyword arguments of :func:`paperkernels.toptwo.run_many` (``beta``, ``challenger``,
        ``arms``, ...), the same for every cell.

    Returns
    -------
    list of GridCell
        One cell per configuration, in the grid's row-major order (instances outermost, thresholds
        innermost).

    Raises
    ------
    ValueError
        When a grid axis is empty, ``n_runs`` is not a positive integer, ``options`` contains
        ``n_threads`` or ``first_run`` (chosen by the helper), or ``run_many`` refuses a cell's
        arguments.

    Examples
    --------
    >>> from paperkernels import distributed, toptwo
    >>> grid = distributed.run_grid([[0.6, 0.4], [0.7, 0.5, 0.3]], [0.1, 0.01], n_runs=40, seed=3,
    ...                             chunk_size=16)
    >>> len(grid), grid[1].delta
    (4, 0.01)
    >>> single = toptwo.run_many([0.6, 0.4], 0.01, 40, seed=3)
    >>> bool((grid[1].result.tau == single.tau).all())
    True
    """
    from ._seed import as_seed
    from ._validation import plain_array

    n_runs = as_int(n_runs, "n_runs", low=1, high=2**62)
    seed = as_seed(seed)
    for name in ("n_threads", "first_run"):
        if name in options:
            raise ValueError(f"{name}: chosen by the distributed helper, not accepted here")
    axes = [
        _grid_axis(values, name)
        for values, name in zip(
            (instances, deltas, rules, thresholds), ("instances", "deltas", "rules", "thresholds"), strict=True
        )
    ]
    progress = as_bool(progress, "progress")
    with _client_scope(client) as client:
        cells: list[tuple[np.ndarray, float, str, Any]] = []
        tasks: list[tuple[Any, ...]] = []
        owners: list[int] = []
        total_bytes = 0
        for mu, delta, rule, threshold in product(*axes):
            values = plain_array(mu, "instances", dtype=np.float64)
            cells.append((values, delta, rule, threshold))
            # The local run_many keeps tau, recommendation and a hit flag (17 bytes) and rows N, S
            # of every arm (16 bytes per arm) for each run: the limit applies to the whole call.
            total_bytes += n_runs * (17 + 16 * int(values.size))
            check_result_bytes(
                total_bytes,
                "n_runs",
                f"the results of {len(cells)} configuration(s) x {n_runs} runs",
                "run fewer runs or configurations per call",
            )
            cell_options = dict(options, rule=rule, threshold=threshold)
            for first, count in _split(n_runs, chunk_size, client, already=len(tasks)):
                tasks.append((mu, delta, count, seed, first, cell_options))
                owners.append(len(cells) - 1)
        if not cells:
            raise ValueError("instances, deltas, rules, thresholds: expected at least one value each")
        parts = _map_chunks(_run_range, tasks, client, progress, "episodes")
    by_cell: list[list[Any]] = [[] for _ in cells]
    for part, owner in zip(parts, owners, strict=False):
        by_cell[owner].append(part)
    return [GridCell(*cell, result=_join_runs(by_cell[index])) for index, cell in enumerate(cells)]


def run_many(
    mu: Any,
    delta: float,
    n_runs: int,
    *,
    seed: Any = None,
    client: Any = None,
    chunk_size: int | None = None,
    progress: bool = False,
    **options: Any,
) -> Runs:
    """:func:`paperkernels.toptwo.run_many` with its runs split into chunks (bit-identical).

    Parameters
    ----------
    mu : array-like
        Arm means.
    delta : float
        Confidence level.
    n_runs : int
        Number of runs, ``>= 1``.
    seed : None, int or numpy.random.Generator
        Seed of the runs; run ``r`` uses the streams of run ``r`` of this seed whatever chunk it is in.
    client : dask.distributed.Client, optional
        Where to run the chunks; ``None`` runs them in this process.
    chunk_size : int, optional
        Runs per task (default: about four tasks per worker thread).
    progress : bool
        Show a progress bar over the chunks.
    **options
        Other keyword arguments of :func:`paperkernels.toptwo.run_many` except ``n_threads`` and
        ``first_run``.

    Returns
    -------
    paperkernels.toptwo.Runs
        Equal, array for array, to ``toptwo.run_many(mu, delta, n_runs, seed=seed, **options)``.

    Raises
    ------
    ValueError, TypeError
        As :func:`paperkernels.toptwo.run_many` for bad arguments; ``n_threads`` and ``first_run``
        are refused.

    Examples
    --------
    >>> from paperkernels import distributed, toptwo
    >>> runs = distributed.run_many([0.6, 0.4], 0.1, n_runs=30, seed=5, chunk_size=7)
    >>> bool((runs.N == toptwo.run_many([0.6, 0.4], 0.1, 30, seed=5).N).all())
    True
    """
    rule = options.pop("rule", "random")
    threshold = options.pop("threshold", "gk16")
    return run_grid(
        [mu],
        [delta],
        n_runs,
        rules=[rule],
        thresholds=[threshold],
        seed=seed,
        client=client,
        chunk_size=chunk_size,
        progress=progress,
        **options,
    )[0].result


# -- cascade ---------------------------------------------------------------------------------------


def _simulate_range(
    env: CascadeEnvironment, learners: Sequence[Any], T: int, count: int, seed: int, first: int, record: bool
) -> SimulationResult:
    from .cascade import simulate as simulate_locally

    return simulate_locally(env, learners, T, count, seed, n_threads=1, record=record, first_run=first)


def _join_simulations(parts: Sequence[SimulationResult]) -> SimulationResult:
    def stacked(name: str) -> Any:  # an array, or None when not recorded
        arrays = [getattr(part, name) for part in parts]
        return None if arrays[0] is None else np.concatenate(arrays, axis=1)

    return replace(
        parts[0], regret=stacked("regret"), cascades=stacked("cascades"), first_clicks=stacked("first_clicks")
    )


def simulate_many(
    studies: Sequence[dict[str, Any]],
    client: Any = None,
    *,
    chunk_size: int | None = None,
    progress: bool = False,
) -> list[SimulationResult]:
    """Several :func:`paperkernels.cascade.simulate` studies at once, their runs split into chunks.

    All chunks of all studies are queued together; each returned
    :class:`~paperkernels.cascade.SimulationResult` equals ``simulate(**study)`` bit for bit.

    Parameters
    ----------
    studies : sequence of dict
        Each a dict of ``simulate`` arguments: ``env``, ``learners``, ``T``, ``n_seeds`` (default 1),
        ``seed`` and optionally ``record``.
    client : dask.distributed.Client, optional
        Where to run the chunks; ``None`` runs them in this process.
    chunk_size : int, optional
        Runs per task (default: about four tasks per worker thread).
    progress : bool
        Show a progress bar over the chunks.

    Returns
    -------
    list of paperkernels.cascade.SimulationResult
        One result per study, in order.

    Raises
    ------
    ValueError
        When a study has keys other than those above, a bad ``n_seeds`` or ``seed``, or
        ``simulate`` refuses its arguments.

    Examples
    --------
    >>> from paperkernels import cascade, distributed
    >>> env = cascade.worked_example()
    >>> studies = [dict(env=env, learners=[cascade.CascadeUCB1()], T=200, n_seeds=4, seed=s) for s in (1, 2)]
    >>> results = distributed.simulate_many(studies, chunk_size=3)
    >>> [r.regret.shape for r in results]
    [(1, 4, 200), (1, 4, 200)]
    """
    from ._seed import as_seed
    from .cascade import CascadeEnvironment
    from .cascade._simulation import check_learners, check_result_size

    if isinstance(studies, dict) or not hasattr(studies, "__iter__"):
        raise TypeError(f"studies: expected a list of dicts of simulate arguments, got {type(studies).__name__}")
    studies = list(studies)
    checked = []
    total_bytes = 0
    for index, study in enumerate(studies):
        if not isinstance(study, dict):
            raise TypeError(f"studies[{index}]: expected a dict of simulate arguments, got {type(study).__name__}")
        unknown = set(study) - {"env", "learners", "T", "n_seeds", "seed", "record"}
        if unknown:
            raise ValueError(f"studies[{index}]: unexpected keys {sorted(unknown)}")
        for key in ("env", "learners", "T"):
            if key not in study:
                raise TypeError(f"{key}: missing from studies[{index}] (simulate needs env, learners and T)")
        env = study["env"]
        if not isinstance(env, CascadeEnvironment):
            raise TypeError(f"env: studies[{index}] holds a {type(env).__name__}, expected a CascadeEnvironment")
        learners = check_learners(study["learners"])
        T = as_int(study["T"], "T", low=1)
        n_seeds = as_int(study.get("n_seeds", 1), f"studies[{index}].n_seeds", low=1, high=2**32)
        seed = as_seed(study.get("seed"), f"studies[{index}].seed")
        record = as_bool(study.get("record", False), f"studies[{index}].record")
        # The limits of the single call, for the whole study and then for all studies together.
        check_result_size(len(learners), n_seeds, T, env.K, bool(record))
        total_bytes += len(learners) * n_seeds * T * (8 + (4 * env.K + 1 if record else 0))
        check_result_bytes(total_bytes, "studies", f"the results of {index + 1} studies", "run fewer studies per call")
        checked.append((env, learners, T, n_seeds, seed, bool(record)))
    progress = as_bool(progress, "progress")
    with _client_scope(client) as client:
        tasks: list[tuple[Any, ...]] = []
        owners: list[int] = []
        for index, (env, learners, T, n_seeds, seed, record) in enumerate(checked):
            for first, count in _split(n_seeds, chunk_size, client, already=len(tasks)):
                tasks.append((env, learners, T, count, seed, first, record))
                owners.append(index)
        parts = _map_chunks(_simulate_range, tasks, client, progress, "runs")
    by_study: list[list[Any]] = [[] for _ in checked]
    for part, owner in zip(parts, owners, strict=False):
        by_study[owner].append(part)
    return [_join_simulations(p) for p in by_study]


def simulate(
    env: Any,
    learners: Sequence[Any],
    T: int,
    n_seeds: int = 1,
    seed: Any = None,
    client: Any = None,
    *,
    record: bool = False,
    chunk_size: int | None = None,
    progress: bool = False,
) -> SimulationResult:
    """:func:`paperkernels.cascade.simulate` with its runs split into chunks of ``chunk_size``
    consecutive runs (run r keeps the random streams of run r); bit-identical to the single call.

    Parameters
    ----------
    env : paperkernels.cascade.CascadeEnvironment
        The environment.
    learners : sequence of paperkernels.cascade.CascadeLearner
        The learners, each run on the same click randomness.
    T : int
        Rounds per run.
    n_seeds : int
        Number of runs.
    seed : None, int or numpy.random.Generator
        Seed of the runs.
    client : dask.distributed.Client, optional
        Where to run the chunks; ``None`` runs them in this process.
    record : bool
        Also keep the cascades shown and the first clicks.
    chunk_size : int, optional
        Runs per task (default: about four tasks per worker thread).
    progress : bool
        Show a progress bar over the chunks.

    Returns
    -------
    paperkernels.cascade.SimulationResult
        Equal, array for array, to ``cascade.simulate(env, learners, T, n_seeds, seed, record=record)``.

    Raises
    ------
    ValueError, TypeError
        As :func:`paperkernels.cascade.simulate` for bad arguments.

    Examples
    --------
    >>> import numpy as np
    >>> from paperkernels import cascade, distributed
    >>> env = cascade.worked_example()
    >>> split = distributed.simulate(env, [cascade.CascadeUCB1()], T=300, n_seeds=5, seed=2, chunk_size=2)
    >>> whole = cascade.simulate(env, [cascade.CascadeUCB1()], T=300, n_seeds=5, seed=2)
    >>> bool(np.array_equal(split.regret, whole.regret))
    True
    """
    study = dict(env=env, learners=learners, T=T, n_seeds=n_seeds, seed=seed, record=record)
    return simulate_many([study], client, chunk_size=chunk_size, progress=progress)[0]


# -- greedy ----------------------------------------------------------------------------------------


def _fit_learner_range(
    design: CentredDesign, response: Response, first: int, count: int, options: dict[str, Any]
) -> EnsemblePath:
    return design.fit_learners(response, n_learners=count, first_learner=first, **options)


def fit_ensemble(
    estimator: EnsembleForwardSelection,
    X: ArrayLike,
    y: ArrayLike,
    client: Any = None,
    *,
    chunk_size: int | None = None,
    progress: bool = False,
) -> EnsembleForwardSelection:
    """Fit a :class:`paperkernels.greedy.EnsembleForwardSelection` with its learners split across
    workers, then reduce their paths in learner order.

    The result (every fitted attribute) is bit-identical to ``estimator.fit(X, y)`` for any number of
    workers and any ``chunk_size``. The centred design (and its Gram matrix) is built once here and
    broadcast to the workers.

    Parameters
    ----------
    estimator : paperkernels.greedy.EnsembleForwardSelection
        The estimator to fit (its parameters decide everything but where the learners run).
    X : array-like of shape (n_samples, n_features)
        Training data.
    y : array-like of shape (n_samples,)
        Targets.
    client : dask.distributed.Client, optional
        Where to run the learners; ``None`` runs the chunks in this process.
    chunk_size : int, optional
        Learners per task (default: about four tasks per worker thread).
    progress : bool
        Show a progress bar over the chunks.

    Returns
    -------
    paperkernels.greedy.EnsembleForwardSelection
        ``estimator`` itself, fitted.

    Raises
    ------
    ValueError, TypeError
        As ``estimator.fit`` for bad data or parameters.
    TypeError
        When ``estimator`` is not an EnsembleForwardSelection or ``progress`` is not a bool.

    Examples
    --------
    >>> import numpy as np
    >>> from paperkernels import distributed
    >>> from paperkernels.greedy import EnsembleForwardSelection
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(100, 12)); y = X[:, 0] - X[:, 1] + 0.1 * rng.normal(size=100)
    >>> split = distributed.fit_ensemble(EnsembleForwardSelection(k=4, n_estimators=30, random_state=0),
    ...                                  X, y, chunk_size=7)
    >>> whole = EnsembleForwardSelection(k=4, n_estimators=30, random_state=0).fit(X, y)
    >>> bool(np.array_equal(split.coef_path_, whole.coef_path_))
    True
    """
    if not isinstance(estimator, EnsembleForwardSelection):
        raise TypeError(
            f"estimator: expected a paperkernels.greedy.EnsembleForwardSelection, got {type(estimator).__name__}"
        )
    progress = as_bool(progress, "progress")
    with _client_scope(client) as client:
        return _fit_ensemble(estimator, X, y, client, chunk_size, progress)


def _fit_ensemble(
    estimator: EnsembleForwardSelection, X: Any, y: Any, client: Any, chunk_size: int | None, progress: bool
) -> EnsembleForwardSelection:
    with estimator._unchanged_on_failure():
        X, y, params, seed, design = estimator._prepare_fit(X, y)
        response = design.response(y)  # here, once: the workers' BLAS may round X^T y differently
        ranges = _split(params["n_learners"], chunk_size, client)
        options = dict(
            k=params["k"],
            m=params["m"],
            criterion=params["criterion"],
            tol=params["tol"],
            seed=seed,
            n_threads=1 if client is not None else params["n_threads"],
        )
        shipped = (
            client.scatter([design, response], broadcast=True, hash=False) if client is not None else [design, response]
        )
        parts = _map_chunks(
            _fit_learner_range,
            [(*shipped, first, count, options) for first, count in ranges],
            client,
            progress,
            "learners",
        )
        result = design.combine(parts, y_mean=response.y_mean, m=params["m"], n_threads=params["n_threads"])
        return estimator._finish_fit(result, params, X.shape[1])


# -- shapes ----------------------------------------------------------------------------------------


def _encode_block(block: Any, encoder: XShapeEncoder) -> np.ndarray:
    return np.asarray(encoder.encode_geometry(block))


def encode_shapes(
    encoder: XShapeEncoder,
    shapes: Any,
    client: Any = None,
    *,
    chunk_size: int = 1024,
    progress: bool = False,
) -> Any:
    """Geometry codes of a large collection as a ``dask.array`` of shape ``(B, D)``.

    Chunks of ``chunk_size`` shapes are encoded independently; the codes equal
    ``encoder.encode_geometry(shapes)`` bit for bit.

    Parameters
    ----------
    encoder : paperkernels.shapes.XShapeEncoder
        The encoder (shipped once to each worker).
    shapes : dask.array.Array, ndarray or sequence
        A ``dask.array`` or numpy array of masks or polar grids ``(B, H, W)``, or a sequence of
        polygons (any form :class:`paperkernels.shapes.XShapeEncoder` accepts).
    client : dask.distributed.Client, optional
        With a client the array is persisted on the cluster (the work starts at once;
        ``progress=True`` follows it); without, it stays lazy and runs on ``compute()``. The
        persisted codes live on the client, so it must be a connected ``Client`` here.
    chunk_size : int
        Shapes per task (default 1024).
    progress : bool
        With a client, show a progress bar until the codes are computed.

    Returns
    -------
    dask.array.Array
        Codes of shape ``(B, encoder.length)`` and dtype ``encoder.dtype``.

    Raises
    ------
    TypeError
        When ``encoder`` is not an XShapeEncoder, ``progress`` is not a bool, or ``client`` is a
        cluster, an address or anything but a connected Client.
    ValueError
        When ``shapes`` is empty or an array is not 3-dimensional; the encoder's errors for bad
        shapes surface when the codes are computed.

    Examples
    --------
    >>> import numpy as np
    >>> from paperkernels import distributed, shapes
    >>> encoder = shapes.XShapeEncoder(8)
    >>> masks = shapes.rasterize([shapes.regular_polygon(n) for n in (3, 4, 5, 6, 7)], 32)
    >>> codes = distributed.encode_shapes(encoder, masks, chunk_size=2)
    >>> codes.shape, codes.numblocks
    ((5, 50), (3, 1))
    >>> bool(np.array_equal(codes.compute(), encoder.encode_geometry(masks)))
    True
    """
    if not isinstance(encoder, XShapeEncoder):
        raise TypeError(f"encoder: expected a paperkernels.shapes.XShapeEncoder, got {type(encoder).__name__}")
    progress = as_bool(progress, "progress")
    if client is not None and not _connected(client):
        raise TypeError(
            f"client: encode_shapes needs a connected dask.distributed.Client (the persisted codes live on it), "
            f"got {type(client).__name__}; pass Client(cluster_or_address)"
        )
    return _encode_shapes(encoder, shapes, client, chunk_size, progress)


def _encode_shapes(encoder: XShapeEncoder, shapes: Any, client: Any, chunk_size: int, progress: bool) -> Any:
    dask = optional_import("dask", "encode_shapes")
    da = optional_import("dask.array", "encode_shapes", extra="dask")

    chunk_size = as_int(chunk_size, "chunk_size", low=1)
    n_shapes = len(shapes) if hasattr(shapes, "__len__") else 0
    if -(-n_shapes // chunk_size) > MAX_CHUNKS:
        raise ValueError(
            f"chunk_size: {n_shapes} shapes in chunks of {chunk_size} make more than MAX_CHUNKS = {MAX_CHUNKS} "
            "chunks (paperkernels.distributed.MAX_CHUNKS); use a larger chunk_size"
        )
    width = encoder.length
    if isinstance(shapes, da.Array):
        if shapes.ndim != 3:
            raise ValueError(f"shapes: expected a batch (B, H, W) of masks or polar grids, got shape {shapes.shape}")
        array = shapes.rechunk({0: chunk_size, 1: -1, 2: -1})
        pieces = list(zip(array.to_delayed().ravel(), array.chunks[0], strict=False))
    elif isinstance(shapes, np.ndarray) and shapes.dtype != object:
        if shapes.ndim != 3:
            raise ValueError(f"shapes: expected a batch (B, H, W) of masks or polar grids, got shape {shapes.shape}")
        pieces = [(shapes[start : start + count], count) for start, count in chunk_ranges(len(shapes), chunk_size)]
    else:
        items = list(shapes)
        pieces = [(items[start : start + count], count) for start, count in chunk_ranges(len(items), chunk_size)]
    if not pieces:
        raise ValueError("shapes: expected at least one shape, got an empty collection")
    if client is not None and not isinstance(shapes, da.Array):
        # In-memory inputs go to the workers once, not inside the task graph.
        stored = client.scatter([piece for piece, _ in pieces], hash=False)
        pieces = [(future, count) for future, (_, count) in zip(stored, pieces, strict=False)]
    # One graph node holds the encoder, so each worker receives it once.
    shared = dask.delayed(encoder, pure=True)
    codes = da.concatenate(
        [
            da.from_delayed(dask.delayed(_encode_block)(piece, shared), shape=(count, width), dtype=encoder.dtype)
            for piece, count in pieces
        ],
        axis=0,
    )
    if client is None:
        return codes
    codes = client.persist(codes)
    if progress:
        distributed = _require_distributed()
        distributed.progress(codes)
    return codes


from ._public import export as _export  # noqa: E402

_export(__name__, globals(), __all__)
