"""Comparisons of sampling rules on common reward streams, as a table and as a figure."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from .._optional import optional_import
from .._seed import SeedLike, as_seed
from .._validation import as_choice, as_float
from ._episodes import Runs, run_many
from ._options import CHARACTERISTIC_MAX_ARMS, SAMPLERS
from ._theory import characteristic_time


@dataclass(frozen=True)
class Comparison:
    """Result of :func:`compare`: one row per sampler, in the order given.

    Parameters
    ----------
    rows : list of dict
        Keys ``label``, ``sampler``, ``n_runs``, ``mean_tau``, ``se_tau``, ``error_rate``,
        ``hit_max_steps`` (count of truncated runs), ``ratio`` (``mean_tau / (T* log(1/delta))``) and
        ``se_ratio``.
    runs : dict of str to Runs
        The :class:`Runs` of each label (for plots and further statistics).
    T_star : float
        ``T*(mu)`` of :func:`characteristic_time` (``beta=None``).
    delta : float
        The confidence parameter of the runs.

    Examples
    --------
    >>> from paperkernels import toptwo
    >>> result = toptwo.compare([0.6, 0.4, 0.3], delta=0.1, n_runs=50, seed=1)
    >>> print(result)  # doctest: +NORMALIZE_WHITESPACE
    sampler          runs    mean tau      s.e.   error   cut  tau/(T* log 1/d)
    uniform            50       306.4      28.8  0.0000     0      2.350 +- 0.221
    EB-TCI             50       215.0      16.9  0.0000     0      1.649 +- 0.130
    TTUCB              50       237.1      18.6  0.0000     0      1.818 +- 0.143
    T3C                50       217.5      18.1  0.0000     0      1.668 +- 0.139
    >>> [row["label"] for row in result.rows]
    ['uniform', 'EB-TCI', 'TTUCB', 'T3C']
    >>> result.runs["EB-TCI"].n_runs
    50
    """

    rows: list[dict[str, Any]]
    runs: dict[str, Runs]
    T_star: float
    delta: float

    COLUMNS: ClassVar[tuple[str, ...]] = (
        "label",
        "sampler",
        "n_runs",
        "mean_tau",
        "se_tau",
        "error_rate",
        "hit_max_steps",
        "ratio",
        "se_ratio",
    )

    def to_pandas(self) -> Any:
        """The rows as a pandas DataFrame.

        Returns
        -------
        pandas.DataFrame
            One row per sampler, with the columns of :attr:`COLUMNS`.

        Raises
        ------
        ImportError
            If pandas is not installed.

        Examples
        --------
        >>> from paperkernels import toptwo
        >>> result = toptwo.compare([0.6, 0.4], delta=0.1, samplers=["uniform", "EB-TCI"], n_runs=20, seed=1)
        >>> frame = result.to_pandas()  # doctest: +SKIP
        >>> list(frame["label"])  # doctest: +SKIP
        ['uniform', 'EB-TCI']
        """
        pd = optional_import("pandas", "Comparison.to_pandas")
        return pd.DataFrame(self.rows, columns=list(self.COLUMNS))

    def __str__(self) -> str:
        head = (
            f"{'sampler':<14} {'runs':>6} {'mean tau':>11} {'s.e.':>9} {'error':>7} {'cut':>5} {'tau/(T* log 1/d)':>17}"
        )
        lines = [head]
        for r in self.rows:
            lines.append(
                f"{r['label']:<14} {r['n_runs']:>6} {r['mean_tau']:>11.1f} {r['se_tau']:>9.1f} {r['error_rate']:>7.4f} "
                f"{r['hit_max_steps']:>5} {r['ratio']:>10.3f} +- {r['se_ratio']:.3f}"
            )
        return "\n".join(lines)


# Arguments that compare() fixes for every row: a sampler's dict may not set them.
_COMPARISON_ARGUMENTS = frozenset({"mu", "delta", "n_runs", "arms", "sigma", "seed", "n_threads"})


def compare(
    mu: Any,
    delta: float = 0.01,
    samplers: Sequence[Any] = ("uniform", "EB-TCI", "TTUCB", "T3C"),
    n_runs: int = 100,
    *,
    arms: str = "bernoulli",
    sigma: float = 1.0,
    seed: SeedLike = None,
    n_threads: int | None = None,
    max_arms: int = CHARACTERISTIC_MAX_ARMS,
    **options: Any,
) -> Comparison:
    """Run every sampler on the same instance and the same reward streams, and tabulate.

    Parameters
    ----------
    mu : array_like, shape (K,)
        Arm means, as in :func:`run_many`.
    delta : float
        Confidence parameter in (0, 1).
    samplers : sequence
        Names of ``SAMPLERS``, or dicts ``{"sampler": name, "label": ..., **options}`` for a rule
        with its own options (e.g. ``{"sampler": "TaS-D", "weights_every": 10}``).
    n_runs : int
        Runs per sampler. Run ``r`` of every sampler sees the same reward stream (common random
        numbers), which sharpens the comparison of means.
    arms : {"bernoulli", "gaussian"}
        Reward distributions.
    sigma : float
        Standard deviation of Gaussian arms.
    seed : None, int or numpy.random.Generator
        Randomness, shared by every sampler.
    n_threads : int, optional
        Threads, as in :func:`run_many`.
    max_arms : int
        Largest number of arms for which ``T*`` is computed, as in :func:`characteristic_time`
        (default ``CHARACTERISTIC_MAX_ARMS`` = 10,000).
    **options
        Further :func:`run_many` options applied to every sampler (a sampler's own dict wins).

    Returns
    -------
    Comparison
        ``rows`` (one dict per sampler: mean tau, its standard error, error rate, truncated runs and
        ``mean_tau / (T* log(1/delta))`` with its standard error), ``runs`` and ``T_star``; ``str()``
        gives a table and ``to_pandas()`` a DataFrame.

    Raises
    ------
    TypeError
        If ``samplers`` is not a non-empty list of names or dicts with a ``"sampler"`` key, or a label
        is not a string.
    ValueError
        If a sampler name is unknown, a sampler's dict sets an argument of the whole comparison (``seed``,
        ``n_threads``, ``arms``, ...), two rows share a label, ``mu`` has more than ``max_arms`` arms,
        or :func:`run_many` refuses the options.

    Examples
    --------
    >>> from paperkernels import toptwo
    >>> result = toptwo.compare([0.6, 0.4, 0.3], delta=0.1, n_runs=50, seed=1,
    ...                         samplers=["uniform", {"sampler": "TaS-D", "weights_every": 10, "label": "TaS-D/10"}])
    >>> print(result)  # doctest: +NORMALIZE_WHITESPACE
    sampler          runs    mean tau      s.e.   error   cut  tau/(T* log 1/d)
    uniform            50       306.4      28.8  0.0000     0      2.350 +- 0.221
    TaS-D/10           50       195.7      22.6  0.0000     0      1.501 +- 0.173
    >>> round(result.T_star, 2)
    56.62
    """
    delta = as_float(delta, "delta", low=0.0, high=1.0, low_open=True, high_open=True)
    if isinstance(samplers, (str, dict)) or not isinstance(samplers, Sequence) or len(samplers) == 0:
        raise TypeError("samplers: expected a non-empty list of sampler names or dicts")
    specs: list[tuple[str, dict[str, Any]]] = []
    for item in samplers:
        if isinstance(item, str):
            spec: dict[str, Any] = {"sampler": item}
        elif isinstance(item, dict) and "sampler" in item:
            spec = dict(item)
        else:
            raise TypeError(f"samplers: expected names or dicts with a 'sampler' key, got {item!r}"[:200])
        as_choice(spec["sampler"], "samplers", tuple(SAMPLERS))
        shared = sorted(set(spec) & _COMPARISON_ARGUMENTS)
        if shared:
            raise ValueError(
                f"samplers: {', '.join(map(repr, shared))} is an argument of the whole comparison (every sampler "
                "sees the same instance, reward streams and threads); pass it to compare() instead"
            )
        label = spec.pop("label", spec["sampler"])
        if not isinstance(label, str):
            raise TypeError("samplers: a label must be a string")
        if any(label == other for other, _ in specs):
            raise ValueError(f"samplers: the label {label!r} appears twice; give the rows distinct labels")
        specs.append((label, spec))
    seed_value = as_seed(seed)
    T_star = characteristic_time(mu, arms=arms, sigma=sigma, max_arms=max_arms).T
    scale = T_star * math.log(1.0 / delta)
    rows: list[dict[str, Any]] = []
    all_runs: dict[str, Runs] = {}
    for label, spec in specs:
        kwargs = dict(options, **spec)
        runs = run_many(mu, delta, n_runs, arms=arms, sigma=sigma, seed=seed_value, n_threads=n_threads, **kwargs)
        all_runs[label] = runs
        rows.append(
            dict(
                label=label,
                sampler=spec["sampler"],
                n_runs=runs.n_runs,
                mean_tau=runs.mean_tau,
                se_tau=runs.se_tau,
                error_rate=runs.error_rate,
                hit_max_steps=int(runs.hit_max_steps.sum()),
                ratio=runs.mean_tau / scale,
                se_ratio=runs.se_tau / scale,
            )
        )
    return Comparison(rows, all_runs, float(T_star), delta)


def plot_comparison(result: Comparison, ax: Any = None, log_scale: bool = True) -> Any:
    """Stopping-time distributions of a :func:`compare` result side by side.

    Box plots with the means marked, and the reference line ``T* log(1/delta)``.

    Parameters
    ----------
    result : Comparison
        The result of :func:`compare`.
    ax : matplotlib.axes.Axes, optional
        Axes to draw into; None creates a figure.
    log_scale : bool
        Logarithmic stopping-time axis.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn into.

    Raises
    ------
    ImportError
        If matplotlib is not installed (the ``plot`` extra).
    TypeError
        If ``result`` is not a :class:`Comparison`.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from paperkernels import toptwo
    >>> result = toptwo.compare([0.6, 0.4], delta=0.1, samplers=["uniform", "EB-TCI"], n_runs=20, seed=1)
    >>> ax = toptwo.plot_comparison(result)
    >>> ax.get_ylabel(), ax.get_yscale()
    ('stopping time tau', 'log')
    """
    plt = optional_import("matplotlib.pyplot", "plot_comparison")
    if not isinstance(result, Comparison):
        raise TypeError(f"result: expected a Comparison from compare(), got {type(result).__name__}")
    if ax is None:
        _, ax = plt.subplots(figsize=(1.2 + 1.1 * len(result.rows), 4))
    labels = [r["label"] for r in result.rows]
    data = [result.runs[label].tau for label in labels]
    ax.boxplot(data, showmeans=True)
    ax.set_xticks(range(1, len(labels) + 1))
    ax.set_xticklabels(labels, rotation=30, ha="right")
    ax.axhline(result.T_star * math.log(1.0 / result.delta), color="grey", linestyle="--", label="T* log(1/delta)")
    if log_scale:
        ax.set_yscale("log")
    ax.set_ylabel("stopping time tau")
    ax.legend(loc="best")
    return ax
