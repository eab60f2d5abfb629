// The data layout of learners without a Gram matrix: feature j's centred samples contiguous, so
// that the Gram entries of a candidate read one contiguous row.
#pragma once

#include <algorithm>
#include <cstddef>

#include "paperkernels/common/parallel.hpp"

namespace paperkernels::greedy {

// xt (p x n, row-major) = (x - mean)^T for x (n x p, row-major); mean nullptr: x^T. Each value is
// the one subtraction x[i, j] - mean[j], so the result is the same for any n_threads. Blocks of
// kTransposeFeatures features: each block reads its four cache lines of every sample row and
// writes that many output rows sequentially.
inline constexpr std::size_t kTransposeFeatures = 32;

inline void centred_transpose(const double* x, std::size_t n, std::size_t p, const double* mean, double* xt,
                              unsigned n_threads, const Poll& poll) {
  const std::size_t blocks = (p + kTransposeFeatures - 1) / kTransposeFeatures;
  parallel_for(
      blocks, n_threads,
      [&](std::size_t block, const StopToken&) {
        const std::size_t j0 = block * kTransposeFeatures, j1 = std::min(p, j0 + kTransposeFeatures);
        double mu[kTransposeFeatures] = {};
        if (mean)
          for (std::size_t j = j0; j < j1; ++j) mu[j - j0] = mean[j];
        for (std::size_t i = 0; i < n; ++i) {
          const double* row = x + i * p;
          for (std::size_t j = j0; j < j1; ++j) xt[j * n + i] = row[j] - mu[j - j0];
        }
      },
      poll);
}

}  // namespace paperkernels::greedy
