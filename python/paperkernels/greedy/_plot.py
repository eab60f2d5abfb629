"""Weight curves: asymptotic rank weights between their logistic bounds (matplotlib optional)."""

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._optional import optional_import
from .._validation import as_array, as_int
from ._theory import asymptotic_weights, exact_weights, logistic_bounds


def plot_weights(
    k: int,
    gamma: float,
    *,
    p: int | None = None,
    n_ranks: int | None = None,
    ax: Any = None,
    empirical: ArrayLike | None = None,
) -> Any:
    """Plot the rank weights ``w_j`` against the rank j.

    Draws the asymptotic weights for ``(k, gamma)``, the band between their logistic bounds and,
    when ``p`` is given, the exact finite-p weights for ``m = max(1, round(gamma p))``.

    Parameters
    ----------
    k : int
        Steps of each learner.
    gamma : float in (0, 1]
        Subsampling rate m / p.
    p : int, optional
        Also draw ``exact_weights(k, m, p)``.
    n_ranks : int, optional
        Ranks shown (default ``min(3 k + 10, p)`` or ``3 k + 10``).
    ax : matplotlib Axes, optional
        Drawn into a new figure when omitted.
    empirical : array of shape (n_ranks,), optional
        Measured weights (e.g. ``coef_ / beta_hat`` sorted by rank) drawn as points.

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    ImportError
        When matplotlib is not installed.
    ValueError, TypeError
        For out-of-range arguments (named).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from paperkernels.greedy import plot_weights
    >>> ax = plot_weights(5, 0.2, p=50)
    >>> ax.get_xlabel() != ""
    True
    """
    plt = optional_import("matplotlib.pyplot", "plot_weights")
    if n_ranks is None:
        n_ranks = 3 * as_int(k, "k", low=0) + 10
        if p is not None:
            n_ranks = min(n_ranks, as_int(p, "p", low=1))
    ranks = np.arange(1, n_ranks + 1)
    w = asymptotic_weights(k, gamma, n_ranks)
    lower, upper = logistic_bounds(k, gamma, n_ranks)
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 4))
    ax.fill_between(ranks, lower, upper, step=None, alpha=0.25, label="logistic bounds")
    ax.plot(ranks, w, "-", label=f"asymptotic, gamma = {gamma:g}")
    if p is not None:
        m = max(1, int(round(gamma * p)))
        ax.plot(ranks, exact_weights(k, m, p)[:n_ranks], "--", label=f"exact, p = {p}, m = {m}")
    if empirical is not None:
        values = as_array(empirical, "empirical", ndim=1)[:n_ranks]
        ax.plot(ranks[: len(values)], values, "o", markersize=3, label="ensemble")
    ax.axvline(k, color="grey", lw=0.5)
    ax.set_xlabel("rank j of |beta_hat_j|")
    ax.set_ylabel("weight w_j")
    ax.set_ylim(-0.02, 1.02)
    ax.legend()
    return ax
