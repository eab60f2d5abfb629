"""
Shape codes: reconstructions at growing order and the pose field
================================================================

A star polygon is encoded by its exact Zernike moments at growing order N and decoded back to a
mask: the reconstruction sharpens and its IoU with the shape grows. The last panel shows the
harmonic pose field of :class:`paperkernels.shapes.PoseEncoder`, whose Zernike radial coefficients
make the pose code.
"""

import matplotlib.pyplot as plt
import numpy as np

from paperkernels import shapes

star = shapes.star_polygon(5, 0.45, radius=3.0, center=(10.0, 4.0))
unit, pose = shapes.normalize(star)
truth = shapes.rasterize(unit, 128)
orders = [4, 8, 16, 32]

decoded = {}
for N in orders:
    encoder = shapes.XShapeEncoder(N, input="polygon")
    decoded[N] = (encoder.length, encoder.decode_geometry(encoder.encode_geometry(unit), res=128))
    print(f"N = {N}: IoU {shapes.iou(decoded[N][1].mask, truth):.3f}")

# %%
# The pose field ``F = P(rho) cos(m_p theta)`` of the pose of the star.
pose_encoder = shapes.PoseEncoder(K=3, m_p=7, L=32)
x = np.linspace(-1, 1, 201)
xx, yy = np.meshgrid(x, x)
rho, theta = np.hypot(xx, yy), np.arctan2(yy, xx)
inside = rho <= 1
field = np.full(rho.shape, np.nan)
field[inside] = pose_encoder.field(pose / np.abs(pose).max(), rho[inside], theta[inside])

# %%
# Reconstructions (the star's outline in orange) and the pose field.
fig, axes = plt.subplots(1, len(orders) + 1, figsize=(15, 3.6), constrained_layout=True)
for ax, N in zip(axes, orders, strict=False):
    length, result = decoded[N]
    ax.imshow(result.field, cmap="gray", extent=(-1, 1, -1, 1), origin="lower")
    ax.plot(*np.vstack([unit, unit[:1]]).T, color="C1", lw=1)
    ax.set(title=f"N = {N} ({length} values)\nIoU {shapes.iou(result.mask, truth):.3f}", xticks=[], yticks=[])
image = axes[-1].imshow(field, cmap="RdBu_r", extent=(-1, 1, -1, 1), origin="lower")
axes[-1].set(title="pose field", xticks=[], yticks=[])
fig.colorbar(image, ax=axes[-1], shrink=0.8)
plt.show()
