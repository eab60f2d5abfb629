// The two passes over a hidden row of the deep canonical form (deep_form.hpp), as SIMD kernels:
// the scaled magnitudes |W_jk| * s_k with their maximum, then the entries within a margin of it.
// Both are exact operations (a product, a sum in a fixed order per column, comparisons), so every
// instruction set returns the same values.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "paperkernels/common/simd.hpp"

PAPERKERNELS_PSABI_OFF

namespace paperkernels::relu {

// e[k] = |row[k]| * scale[k] and col_sum[k] += e[k] for k < n; returns max(0, max_k e[k]).
struct ScaledMagnitudes {
  template <simd::Isa I>
  PAPERKERNELS_ALWAYS_INLINE static double run(const double* row, const double* scale, std::size_t n, double* e,
                                               double* col_sum) noexcept {
    constexpr int W = simd::width<I>;
    using V = simd::vec<I>;
    using M = simd::lanes<I>;
    const M magnitude_bits = M{} + INT64_MAX;  // every bit but the sign: |w| as std::fabs has it
    V top{};
    std::size_t k = 0;
    for (; k + W <= n; k += W) {
      const V v =
          reinterpret_cast<V>(reinterpret_cast<M>(simd::load<W>(row + k)) & magnitude_bits) * simd::load<W>(scale + k);
      simd::store<W>(e + k, v);
      simd::store<W>(col_sum + k, simd::load<W>(col_sum + k) + v);
      top = top < v ? v : top;
    }
    double best = 0.0;
    for (int l = 0; l < W; ++l) best = best < top[l] ? top[l] : best;
    for (; k < n; ++k) {
      const double v = std::fabs(row[k]) * scale[k];
      e[k] = v;
      col_sum[k] += v;
      best = best < v ? v : best;
    }
    return best;
  }
};

// How many of e[0..n) are >= threshold, and the largest such index in *last (untouched if none).
struct CountAtLeast {
  template <simd::Isa I>
  PAPERKERNELS_ALWAYS_INLINE static std::size_t run(const double* e, std::size_t n, double threshold,
                                                    std::size_t* last) noexcept {
    constexpr int W = simd::width<I>;
    using M = simd::lanes<I>;  // lane masks: -1 where true, as 64-bit integers
    M count{}, last_index = M{} - 1, index{};
    for (int l = 0; l < W; ++l) index[l] = l;
    std::size_t k = 0;
    for (; k + W <= n; k += W) {
      const M hit = simd::load<W>(e + k) >= threshold;
      count -= hit;
      last_index = hit ? index : last_index;
      index += W;
    }
    std::int64_t total = 0, at = -1;
    for (int l = 0; l < W; ++l) {
      total += count[l];
      at = last_index[l] > at ? last_index[l] : at;
    }
    for (; k < n; ++k) {
      if (e[k] >= threshold) {
        ++total;
        at = static_cast<std::int64_t>(k);
      }
    }
    if (at >= 0) *last = static_cast<std::size_t>(at);
    return static_cast<std::size_t>(total);
  }
};

}  // namespace paperkernels::relu

PAPERKERNELS_PSABI_ON
