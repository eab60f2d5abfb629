"""The numerics of the reference implementation (xshapeenc 0.1.2), kept apart so that the default
mode never touches them:

- polar grid ``theta = linspace(0, 2 pi, res)`` (the endpoint repeats theta = 0) and
  ``rho = linspace(0, 1, res)``, trapezoid rule in both (defect 1's basis side);
- Cartesian masks resampled to polar by bilinear interpolation at ``theta_i = 2 pi i / res`` with
  the pixel mapping ``(x + 1) (W - 1) / 2`` (defects 1 and 2);
- each basis function normalised numerically on that grid (defect 6).
"""

from __future__ import annotations

import numpy as np

from .pose import _trapezoid
from .zernike import PolarGrid, indices, radial_table


def trapezoid_weights(x: np.ndarray) -> np.ndarray:
    dx = np.diff(x)
    w = np.zeros_like(x)
    w[:-1] += dx / 2
    w[1:] += dx / 2
    return w


def reference_grid(res: int) -> PolarGrid:
    theta = np.linspace(0.0, 2 * np.pi, res)
    rho = np.linspace(0.0, 1.0, res)
    return PolarGrid(theta=theta, rho=rho, wtheta=trapezoid_weights(theta), wrho=trapezoid_weights(rho) * rho)


def reference_scales(N: int, res: int) -> np.ndarray:
    """1 / sqrt(norm) of each basis function, norm = trapezoid integral of |Z|^2 rho on the grid."""
    grid = reference_grid(res)
    table = radial_table(N, grid.rho)  # (res, S)
    radial_norm = _trapezoid(table.T**2 * grid.rho, grid.rho)
    angular = _trapezoid(np.ones(res), grid.theta)
    result: np.ndarray = 1.0 / np.sqrt(radial_norm * angular)
    return result


def euclidean_to_polar(masks: np.ndarray, res: int, chunk: int = 64) -> np.ndarray:
    """The reference's resampling of (B, H, W) masks to (B, res, res) polar grids (rows theta)."""
    B, H, W = masks.shape
    if H < 2 or W < 2:
        raise ValueError(f"masks: compat mode needs masks of at least 2 x 2 pixels, got {H} x {W}")
    theta = np.linspace(0.0, 2 * np.pi, res, endpoint=False)
    rho = np.linspace(0.0, 1.0, res)
    R, T = np.meshgrid(rho, theta)
    col = (R * np.cos(T) + 1.0) * 0.5 * (W - 1)
    row = (1.0 - (R * np.sin(T) + 1.0) * 0.5) * (H - 1)
    inside = (row >= 0) & (row <= H - 1) & (col >= 0) & (col <= W - 1)
    i0 = np.clip(np.floor(row), 0, H - 2).astype(np.intp)
    j0 = np.clip(np.floor(col), 0, W - 2).astype(np.intp)
    ty, tx = row - i0, col - j0
    out = np.empty((B, res, res))
    for start in range(0, B, chunk):
        f = np.asarray(masks[start : start + chunk], dtype=np.float64)
        value = (
            (1 - ty) * (1 - tx) * f[:, i0, j0]
            + (1 - ty) * tx * f[:, i0, j0 + 1]
            + ty * (1 - tx) * f[:, i0 + 1, j0]
            + ty * tx * f[:, i0 + 1, j0 + 1]
        )
        out[start : start + chunk] = np.where(inside, value, 0.0)
    return out


def reference_synthesis(z: np.ndarray, N: int, res: int) -> np.ndarray:
    """Re sum over the full index set of c_nm B_nm on the reference grid: (B, res, res)."""
    grid = reference_grid(res)
    nm = indices(N)
    radial = radial_table(N, grid.rho) * reference_scales(N, res)  # (res_rho, S)
    weight = np.where(nm[:, 1] == 0, 1.0, 2.0)
    field = np.zeros((z.shape[0], res, res))
    for m in range(N + 1):
        sel = np.flatnonzero(nm[:, 1] == m)
        profile = (z[:, sel] * weight[sel]) @ radial[:, sel].T  # (B, res_rho) complex
        phase = np.exp(1j * m * grid.theta)  # (res_theta,)
        field += (profile[:, None, :] * phase[None, :, None]).real
    return field
