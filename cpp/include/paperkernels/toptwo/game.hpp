// Value and optimal row strategy of a small zero-sum matrix game, for Frank-Wolfe sampling.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

namespace paperkernels::toptwo {

// z = argmax_{z in simplex} min_j sum_i z_i M[i][j] for a K x J matrix M (row-major). The payoffs are
// shifted to be >= 1, then max sum y s.t. A y <= 1, y >= 0 is solved by the simplex method with
// Bland's rule (deterministic, no cycling); the row strategy is the normalised vector of the
// constraints' shadow prices. Pivots and reduced costs below 1e-12 count as zero.
inline std::vector<double> solve_matrix_game(const std::vector<double>& M, int K, int J) {
  std::vector<double> z(static_cast<std::size_t>(K), 0.0);
  double low = M[0];
  for (double m : M) low = m < low ? m : low;
  const double shift = 1.0 - low;
  // Tableau rows 0..K-1: [A | I | 1]; objective row K: reduced costs (maximisation).
  const int cols = J + K;
  const int width = cols + 1;
  std::vector<double> T(static_cast<std::size_t>((K + 1) * width), 0.0);
  std::vector<int> basis(static_cast<std::size_t>(K));
  for (int i = 0; i < K; ++i) {
    for (int j = 0; j < J; ++j) T[i * width + j] = M[i * J + j] + shift;
    T[i * width + J + i] = 1.0;
    T[i * width + cols] = 1.0;
    basis[i] = J + i;
  }
  for (int j = 0; j < J; ++j) T[K * width + j] = 1.0;
  constexpr double eps = 1e-12;
  for (int iteration = 0; iteration < 10000; ++iteration) {
    int enter = -1;
    for (int j = 0; j < cols && enter < 0; ++j)
      if (T[K * width + j] > eps) enter = j;
    if (enter < 0) break;
    int leave = -1;
    double best = 0.0;
    for (int i = 0; i < K; ++i) {
      const double a = T[i * width + enter];
      if (!(a > eps)) continue;
      const double ratio = T[i * width + cols] / a;
      if (leave < 0 || ratio < best || (ratio == best && basis[i] < basis[leave])) {
        leave = i;
        best = ratio;
      }
    }
    if (leave < 0) break;  // unbounded cannot happen (A > 0); stop defensively
    const double pivot = T[leave * width + enter];
    for (int j = 0; j < width; ++j) T[leave * width + j] /= pivot;
    for (int i = 0; i <= K; ++i) {
      if (i == leave) continue;
      const double f = T[i * width + enter];
      if (f == 0.0) continue;
      for (int j = 0; j < width; ++j) T[i * width + j] -= f * T[leave * width + j];
    }
    basis[leave] = enter;
  }
  double total = 0.0;
  for (int i = 0; i < K; ++i) {
    const double u = -T[K * width + J + i];
    z[i] = u > 0.0 ? u : 0.0;
    total += z[i];
  }
  if (!(total > 0.0)) {
    for (double& v : z) v = 1.0 / static_cast<double>(K);
    return z;
  }
  for (double& v : z) v /= total;
  return z;
}

}  // namespace paperkernels::toptwo
