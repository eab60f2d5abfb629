// Raster helpers on the [-1, 1]^2 pixel-centre grid (y up): coverage rasterisation of polygons
// (even-odd rule, s x s samples per pixel) and resampling of masks under a similarity transform.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "paperkernels/shapes/checkpoint.hpp"
#include "paperkernels/shapes/polygon.hpp"

namespace paperkernels::shapes {

// out (H x W) = fraction of the pixel's s x s sample points inside the rings (even-odd rule).
// The checkpoint is ticked once per sample row.
inline void rasterize(const RingSet& rings, int H, int W, int ss, double* out, Checkpoint& checkpoint) {
  std::fill(out, out + static_cast<std::size_t>(H) * W, 0.0);
  const double cols = static_cast<double>(W) * ss;
  std::vector<double> crossings;
  for (int row = 0; row < H * ss; ++row) {
    const double y = 1.0 - (row + 0.5) * 2.0 / (static_cast<double>(H) * ss);
    crossings.clear();
    for (std::size_t r = rings.first_ring; r < rings.last_ring; ++r) {
      const std::int64_t begin = rings.start[r], end = rings.start[r + 1];
      for (std::int64_t i = begin; i < end; ++i) {
        const std::int64_t j = (i + 1 == end) ? begin : i + 1;
        const double x0 = rings.xy[2 * i], y0 = rings.xy[2 * i + 1];
        const double x1 = rings.xy[2 * j], y1 = rings.xy[2 * j + 1];
        if ((y0 > y) != (y1 > y)) crossings.push_back(x0 + (y - y0) * (x1 - x0) / (y1 - y0));
      }
    }
    std::sort(crossings.begin(), crossings.end());
    double* pixels = out + static_cast<std::size_t>(row / ss) * W;
    for (std::size_t k = 0; k + 1 < crossings.size(); k += 2) {
      // sample columns c with centre -1 + (c + 1/2) 2 / (W s) in [x_a, x_b)
      const double first = std::ceil((crossings[k] + 1.0) * cols / 2.0 - 0.5);
      const double last = std::ceil((crossings[k + 1] + 1.0) * cols / 2.0 - 0.5);
      const long c0 = static_cast<long>(std::max(0.0, first));
      const long c1 = static_cast<long>(std::min(cols, last));
      for (long c = c0; c < c1; ++c) pixels[c / ss] += 1.0;
    }
    checkpoint.tick(static_cast<std::size_t>(rings.start[rings.last_ring] - rings.start[rings.first_ring]) +
                    static_cast<std::size_t>(cols));
  }
  // Exact sample counts divided once: a fully covered pixel is exactly 1, never 1 + ulp.
  const double samples = static_cast<double>(ss) * ss;
  for (std::size_t i = 0; i < static_cast<std::size_t>(H) * W; ++i) out[i] /= samples;
}

// out (R x C) pixel (i, j) = mean over s x s samples (x, y) of the input mask at c + (x, y) / scale,
// the input being constant on its pixels and zero outside the image. The checkpoint is ticked once
// per output row.
template <class T>
void resample(const T* mask, int H, int W, double cx, double cy, double scale, int R, int C, int ss, double* out,
              Checkpoint& checkpoint) {
  const double samples = static_cast<double>(ss) * ss;
  for (int i = 0; i < R; ++i) {
    checkpoint.tick(static_cast<std::size_t>(C) * ss * ss);
    for (int j = 0; j < C; ++j) {
      double sum = 0.0;
      for (int t = 0; t < ss; ++t) {
        const double y = 1.0 - (i + (t + 0.5) / ss) * 2.0 / R;
        const double wy = cy + y / scale;
        const double row = std::floor((1.0 - wy) * H / 2.0);
        if (row < 0.0 || row >= H) continue;
        for (int u = 0; u < ss; ++u) {
          const double x = -1.0 + (j + (u + 0.5) / ss) * 2.0 / C;
          const double wx = cx + x / scale;
          const double col = std::floor((wx + 1.0) * W / 2.0);
          if (col < 0.0 || col >= W) continue;
          sum += static_cast<double>(mask[static_cast<std::size_t>(row) * W + static_cast<std::size_t>(col)]);
        }
      }
      out[static_cast<std::size_t>(i) * C + j] = sum / samples;  // <= 1 when the mask is
    }
  }
}

}  // namespace paperkernels::shapes
