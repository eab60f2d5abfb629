"""The bandit loop in C++: several learners, common random clicks, several runs in parallel."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from .. import _core
from .._limits import check_result_bytes
from .._optional import optional_import
from .._seed import SeedLike, as_seed
from .._validation import aligned, as_array, as_choice, as_float, as_int, as_n_threads
from ._learners import CascadeLearner
from ._model import _STATE_KIND, MAX_STATES, TopicCascadeModel, check_cascade, check_K
from ._planning import Plan, plan


@dataclass(frozen=True)
class CascadeEnvironment:
    """A true click model and the cascade length shown to the user.

    Parameters
    ----------
    model : TopicCascadeModel
        Generates the clicks; learners see its ``X`` and ``topics``.
    K : int
        Cascade length, at most the number of items.
    name : str
        Name for reports.
    item_names : tuple of str, optional
        Labels of the items for reports (e.g. from a catalogue).
    topic_names : tuple of str, optional
        Labels of the topics for reports.

    Raises
    ------
    TypeError
        If ``model`` is not a :class:`TopicCascadeModel`.
    ValueError
        For a bad ``K``.

    Examples
    --------
    >>> from paperkernels.cascade import CascadeEnvironment, worked_example
    >>> env = CascadeEnvironment(worked_example().model, 2, name="two positions")
    >>> env.optimal.cascade.tolist(), round(env.optimal.value, 6)
    ([0, 4], 0.601)
    """

    model: TopicCascadeModel
    K: int
    name: str = ""
    item_names: tuple[str, ...] | None = None
    topic_names: tuple[str, ...] | None = None
    _cache: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.model, TopicCascadeModel):
            raise TypeError(f"model: expected a TopicCascadeModel, got {type(self.model).__name__}")
        object.__setattr__(self, "K", check_K(self.K, self.model.n_items, self.model.state))

    @property
    def click_table(self) -> np.ndarray:
        """True click probabilities (L, S) over ``model.state_space(K)`` (computed once).

        Examples
        --------
        >>> from paperkernels.cascade import worked_example
        >>> env = worked_example()
        >>> env.click_table.shape
        (6, 7)
        """
        if "table" not in self._cache:
            self._cache["table"] = self.model.click_table(self.K)
        self._cache["table"] = aligned(self._cache["table"])  # an unpickled cache may be misaligned
        return cast(np.ndarray, self._cache["table"])

    @property
    def optimal(self) -> Plan:
        """The optimal cascade A* and R(A*) (exact planner; computed once).

        Examples
        --------
        >>> from paperkernels.cascade import worked_example
        >>> env = worked_example()
        >>> round(env.optimal.value, 6)
        0.754615
        """
        if "optimal" not in self._cache:
            self._cache["optimal"] = plan(self.model, self.K, "exact")
        return cast(Plan, self._cache["optimal"])

    def clicks(self, uniforms: np.ndarray, cascade: Any) -> int | None:
        """Position of the first click on ``cascade`` for the uniforms u[item] (click iff u < p).

        Parameters
        ----------
        uniforms : array of shape (L,)
            One uniform in [0, 1) per item of the model (indexed by item, not by position), e.g.
            a row of :func:`click_uniforms`.
        cascade : int array
            Distinct item indices, top position first.

        Returns
        -------
        int or None
            The first position k with ``u[a_k] < p(a_k | s_k)``; None if there is none.

        Raises
        ------
        ValueError
            For ``uniforms`` that are not a 1-d array of L finite values in [0, 1), or a cascade
            that is not distinct item indices of the model.
        TypeError
            For non-numeric ``uniforms`` or a non-integer (e.g. boolean) cascade.

        Examples
        --------
        >>> from paperkernels.cascade import worked_example
        >>> env = worked_example()
        >>> u = [0.9, 0.9, 0.3, 0.9, 0.9, 0.9]
        >>> env.clicks(u, [0, 2, 4])      # p = 0.3, 0.385, 0.43 down the cascade
        1
        >>> env.clicks(u, [4, 0, 1]) is None
        True
        """
        L = self.model.n_items
        u = as_array(uniforms, "uniforms", shape=(L,))
        low, high = float(np.min(u)), float(np.max(u))
        if low < 0.0 or high >= 1.0:
            raise ValueError(f"uniforms: expected values in [0, 1), got values in [{low!r}, {high!r}]")
        c = check_cascade(cascade, L)
        probs = self.model.position_probs(c)
        hits = np.nonzero(u[c] < probs)[0]
        return int(hits[0]) if hits.size else None


@dataclass(frozen=True)
class SimulationResult:
    """Output of :func:`simulate`.

    Parameters
    ----------
    regret : array of shape (n_learners, n_seeds, T)
        Expected regret R(A*) - R(A_t) of every round (not cumulated).
    names : list of str
        Learner names, in the order of ``learners``.
    optimal_cascade : int array of shape (K,)
        A*.
    optimal_value : float
        R(A*).
    seed : int
        The 64-bit seed used (run r draws its clicks from stream r of it).
    cascades : int32 array (n_learners, n_seeds, T, K) or None
        The cascades shown (``record=True``).
    first_clicks : int8 array (n_learners, n_seeds, T) or None
        Position of the first click, -1 for none (``record=True``).

    Examples
    --------
    >>> from paperkernels.cascade import CascadeUCB1, RandomCascade, simulate, worked_example
    >>> result = simulate(worked_example(), [CascadeUCB1(), RandomCascade()], 200, n_seeds=3, seed=1)
    >>> result.names
    ['CascadeUCB1', 'RandomCascade']
    >>> result.cumulative_regret.shape, result.final_regret.shape
    ((2, 3, 200), (2, 3))
    """

    regret: np.ndarray
    names: list[str]
    optimal_cascade: np.ndarray
    optimal_value: float
    seed: int
    cascades: np.ndarray | None = None
    first_clicks: np.ndarray | None = None

    @property
    def cumulative_regret(self) -> np.ndarray:
        """Cumulative expected regret, shape (n_learners, n_seeds, T).

        Examples
        --------
        >>> from paperkernels.cascade import CascadeUCB1, simulate, worked_example
        >>> result = simulate(worked_example(), [CascadeUCB1()], 50, seed=2)
        >>> bool(result.cumulative_regret[0, 0, -1] == result.regret.sum())
        True
        """
        return np.cumsum(self.regret, axis=-1)

    @property
    def final_regret(self) -> np.ndarray:
        """Cumulative regret after the last round, shape (n_learners, n_seeds).

        Examples
        --------
        >>> from paperkernels.cascade import CascadeUCB1, simulate, worked_example
        >>> simulate(worked_example(), [CascadeUCB1()], 50, n_seeds=3, seed=2).final_regret.shape
        (1, 3)
        """
        final: np.ndarray = self.regret.sum(axis=-1)
        return final

    def summary(self) -> list[tuple[str, float, float]]:
        """Mean and standard error of the final cumulative regret of each learner.

        Returns
        -------
        list of (str, float, float)
            ``(name, mean, standard error)`` per learner; the standard error is NaN for one run.

        Examples
        --------
        >>> from paperkernels.cascade import CascadeUCB1, simulate, worked_example
        >>> [(name, mean > 0) for name, mean, sem in simulate(worked_example(), [CascadeUCB1()], 100, seed=0).summary()]
        [('CascadeUCB1', True)]
        """
        final = self.final_regret
        n = final.shape[1]
        sem = final.std(axis=1, ddof=1) / np.sqrt(n) if n > 1 else np.full(final.shape[0], np.nan)
        return [(name, float(m), float(s)) for name, m, s in zip(self.names, final.mean(axis=1), sem, strict=False)]


def check_learners(learners: Any) -> list[CascadeLearner]:
    """The learners of a simulation as a non-empty list (one learner alone is refused with a hint)."""
    if isinstance(learners, CascadeLearner):
        raise TypeError(
            f"learners: expected a list of learners, got a single {type(learners).__name__}; pass [learner]"
        )
    if isinstance(learners, (str, bytes)) or not hasattr(learners, "__iter__"):
        raise TypeError(f"learners: expected a list of learners, got {type(learners).__name__}")
    checked: list[CascadeLearner] = list(learners)
    if not checked:
        raise ValueError("learners: expected at least one learner")
    for j, learner in enumerate(checked):
        if not isinstance(learner, CascadeLearner):
            raise TypeError(f"learners[{j}]: expected a cascade learner, got {type(learner).__name__}")
    return checked


def check_result_size(n_learners: int, n_seeds: int, T: int, K: int, record: bool) -> None:
    """Refuse up front a simulation whose results exceed ``paperkernels.limits.max_result_bytes``."""
    entries = n_learners * n_seeds * T
    check_result_bytes(
        8 * entries,
        "T, n_seeds",
        f"the regret array of {n_learners} learners x {n_seeds} runs x {T} rounds",
        "simulate fewer runs per call (first_run=) or fewer rounds",
    )
    if record:
        check_result_bytes(
            (8 + 4 * K + 1) * entries,
            "record",
            f"the regret and the recorded cascades and clicks of {n_learners} learners x {n_seeds} runs x {T} rounds",
            "record fewer runs or rounds per call",
        )


def simulate(
    env: CascadeEnvironment,
    learners: Sequence[CascadeLearner],
    T: int,
    n_seeds: int = 1,
    seed: SeedLike = None,
    n_threads: int | None = None,
    *,
    record: bool = False,
    first_run: int = 0,
) -> SimulationResult:
    """Run every learner for T rounds on ``env``, in ``n_seeds`` independent runs.

    The whole loop runs in C++ with the GIL released, runs in parallel threads. Every learner of a
    run faces the same random clicks (common random numbers): round t draws u[t, i] ~ U(0, 1) for
    every item i (stream r of ``seed`` for run r), and position k of a cascade is clicked iff
    ``u[t, a_k] < p(a_k | s_k)``; the user stops at the first click. Learners start from scratch in
    every run (their own stepping state is not used). Results depend only on ``(seed, run)``: they
    are identical for any ``n_threads``.

    Parameters
    ----------
    env : CascadeEnvironment
        The true click model and K.
    learners : sequence of learners
        Instances of :class:`TopicCascadeUCB`, :class:`CascadeLinUCB`, :class:`CascadeUCB1`,
        :class:`CascadeKLUCB`, :class:`RandomCascade`. Missing dimensions are taken from ``env``.
    T : int
        Rounds per run.
    n_seeds : int
        Independent runs.
    seed : None, int or numpy.random.Generator
        Seed of the clicks (and of the random baseline's cascades).
    n_threads : int, optional
        None or -1: all cores.
    record : bool
        Keep the cascades shown and the first clicks.
    first_run : int
        Index of the first run: runs ``first_run .. first_run + n_seeds - 1`` are simulated, so a
        study split into consecutive ranges of runs (see :mod:`paperkernels.distributed`) equals
        the single call.

    Returns
    -------
    SimulationResult
        ``regret`` of shape (n_learners, n_seeds, T): expected regret R(A*) - R(A_t) per round.

    Raises
    ------
    TypeError
        For an ``env`` that is not a :class:`CascadeEnvironment`, ``learners`` that are not a list
        of learners, or a non-bool ``record``.
    ValueError
        For counts out of range, a learner created with other dimensions than ``env``, or results
        above ``paperkernels.limits.max_result_bytes``.
    KeyboardInterrupt
        On Ctrl-C (the loop stops within a fraction of a second).

    Examples
    --------
    The topic-aware learner against the topic-agnostic baseline on the reference environment:

    >>> from paperkernels.cascade import CascadeLinUCB, TopicCascadeUCB, reference_environment, simulate
    >>> env = reference_environment(0)
    >>> learners = [TopicCascadeUCB(beta=1.0), CascadeLinUCB(beta=1.0)]
    >>> result = simulate(env, learners, T=2000, n_seeds=2, seed=1)
    >>> result.regret.shape
    (2, 2, 2000)
    >>> topic_aware, agnostic = result.final_regret.mean(axis=1)
    >>> bool(topic_aware < agnostic)
    True
    """
    if not isinstance(env, CascadeEnvironment):
        raise TypeError(f"env: expected a CascadeEnvironment, got {type(env).__name__}")
    learners = check_learners(learners)
    T = as_int(T, "T", low=1)
    n_seeds = as_int(n_seeds, "n_seeds", low=1, high=2**32)
    if not isinstance(record, (bool, np.bool_)):
        raise TypeError(f"record: expected a bool, got {type(record).__name__}")
    check_result_size(len(learners), n_seeds, T, env.K, bool(record))
    first_run = as_int(first_run, "first_run", low=0, high=2**32 - n_seeds)
    seed_value = as_seed(seed)
    threads = as_n_threads(n_threads)
    model = env.model
    specs = [l._spec(env.K, model.n_topics, model.n_features) for l in learners]
    optimal = env.optimal
    regret, cascades, clicks = _core.cascade.simulate(
        model.X,
        model.topics,
        env.click_table,
        _STATE_KIND[model.state],
        model.n_topics,
        env.K,
        optimal.value,
        specs,
        T,
        n_seeds,
        seed_value,
        threads,
        bool(record),
        MAX_STATES,
        first_run,
    )
    return SimulationResult(
        regret=regret,
        names=[l.name for l in learners],
        optimal_cascade=optimal.cascade,
        optimal_value=optimal.value,
        seed=seed_value,
        cascades=cascades,
        first_clicks=clicks,
    )


def click_uniforms(seed: int, run: int, T: int, n_items: int) -> np.ndarray:
    """The common random numbers u[t, i] of run ``run`` of a simulation with 64-bit ``seed``.

    Parameters
    ----------
    seed : int
        The simulation's seed (``SimulationResult.seed``).
    run : int
        Index of the run (stream ``run`` of ``seed``).
    T : int
        Number of rounds.
    n_items : int
        Number of items L.

    Returns
    -------
    numpy.ndarray of shape (T, n_items)
        Uniforms in [0, 1): position k of round t is clicked iff ``u[t, a_k] < p(a_k | s_k)``.

    Raises
    ------
    ValueError
        For counts out of range or a result above ``paperkernels.limits.max_result_bytes``.

    Examples
    --------
    >>> from paperkernels.cascade import CascadeUCB1, click_uniforms, simulate, worked_example
    >>> env = worked_example()
    >>> result = simulate(env, [CascadeUCB1()], 5, seed=3, record=True)
    >>> u = click_uniforms(result.seed, 0, 5, env.model.n_items)
    >>> first = [env.clicks(u[t], result.cascades[0, 0, t]) for t in range(5)]
    >>> [-1 if f is None else f for f in first] == result.first_clicks[0, 0].tolist()
    True
    """
    seed_value = as_seed(seed)
    run = as_int(run, "run", low=0, high=2**64 - 1)
    T = as_int(T, "T", low=0)
    n_items = as_int(n_items, "n_items", low=1)
    check_result_bytes(
        8 * T * n_items, "T, n_items", f"the uniforms of {T} rounds x {n_items} items", "ask for fewer rounds"
    )
    uniforms: np.ndarray = _core.common.random_uniform(seed_value, run, T * n_items).reshape(T, n_items)
    return uniforms


def plot_regret(
    result: SimulationResult,
    ax: Any = None,
    *,
    band: str = "sem",
    width: float = 1.96,
    cumulative: bool = True,
    every: int | None = None,
) -> Any:
    """Mean regret curves with a shaded band, one per learner (needs matplotlib).

    Parameters
    ----------
    result : SimulationResult
        The simulation to plot.
    ax : matplotlib Axes, optional
        Drawn on a new figure if omitted.
    band : {"sem", "std", "quantile", "none"}
        ``"sem"``: mean +- width standard errors; ``"std"``: +- width standard deviations;
        ``"quantile"``: the 10% to 90% quantiles over runs.
    width : float
        Multiplier for ``"sem"`` and ``"std"``.
    cumulative : bool
        Cumulative regret (default) or regret per round.
    every : int, optional
        Plot every ``every``-th round (default: about 1000 points).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.

    Raises
    ------
    ImportError
        If matplotlib is not installed (``pip install 'paperkernels[plot]'``).
    ValueError
        For an unknown ``band`` or a bad ``width`` or ``every``.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from paperkernels.cascade import CascadeUCB1, RandomCascade, plot_regret, simulate, worked_example
    >>> result = simulate(worked_example(), [CascadeUCB1(), RandomCascade()], 500, n_seeds=4, seed=0)
    >>> ax = plot_regret(result, band="quantile")
    >>> [line.get_label() for line in ax.get_lines()]
    ['CascadeUCB1', 'RandomCascade']
    """
    plt = optional_import("matplotlib.pyplot", "plot_regret")
    band = as_choice(band, "band", ("sem", "std", "quantile", "none"))
    width = as_float(width, "width", low=0.0)
    curves = result.cumulative_regret if cumulative else result.regret
    T = curves.shape[-1]
    step = as_int(every, "every", low=1) if every is not None else max(1, T // 1000)
    rounds = np.arange(1, T + 1)[::step]
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 4.0))
    for name, runs in zip(result.names, curves, strict=False):
        runs = runs[:, ::step]
        mean = runs.mean(axis=0)
        (line,) = ax.plot(rounds, mean, label=name)
        n = runs.shape[0]
        if band == "none" or n < 2:
            continue
        if band == "quantile":
            low, high = np.quantile(runs, [0.1, 0.9], axis=0)
        else:
            spread = runs.std(axis=0, ddof=1) / (np.sqrt(n) if band == "sem" else 1.0)
            low, high = mean - width * spread, mean + width * spread
        ax.fill_between(rounds, low, high, color=line.get_color(), alpha=0.2, linewidth=0)
    ax.set_xlabel("round")
    ax.set_ylabel("cumulative expected regret" if cumulative else "expected regret per round")
    ax.legend(loc="upper left", fontsize="small")
    return ax
