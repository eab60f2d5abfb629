// Zernike radial polynomials by stable recurrences, the half index set used by every code in
// paperkernels.shapes, and Gauss-Legendre nodes.
//
// Half set of order N: (n, m) with 0 <= m <= n <= N and n - m even, ordered by n, then m. It has
// S(N) = floor((N + 2)^2 / 4) members; half_index(n, m) is the position of (n, m) in it.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "paperkernels/shapes/checkpoint.hpp"

namespace paperkernels::shapes {

inline constexpr double kPi = 3.14159265358979323846;

inline std::size_t half_size(int N) { return N < 0 ? 0 : static_cast<std::size_t>((N + 2) * (N + 2) / 4); }

inline std::size_t half_index(int n, int m) { return half_size(n - 1) + static_cast<std::size_t>((m - (n & 1)) / 2); }

// Orthonormalisation factor of Z_nm = sqrt((n + 1) / pi) R_n^|m| e^{i m theta} on the unit disk.
inline double zernike_norm(int n) { return std::sqrt((n + 1) / kPi); }

// All R_n^m(rho) of the half set of order N, written to out[half_index(n, m)], by the recurrence
//   R_n^m = rho (R_{n-1}^{|m-1|} + R_{n-1}^{m+1}) - R_{n-2}^m
// (Prata and Rusch 1989; shown numerically stable by Andersen 2018), with R_n^m = 0 for m > n.
// Every term stays in [-1, 1] on [0, 1], so no cancellation grows with n, unlike the factorial
// sum. Needs a scratch buffer `rows` of 3 (N + 3) doubles.
class RadialTable {
 public:
  explicit RadialTable(int N) : N_(N), rows_(3 * static_cast<std::size_t>(N + 3)) {}

  void evaluate(double rho, double* out) {
    const std::size_t width = static_cast<std::size_t>(N_) + 3;
    std::fill(rows_.begin(), rows_.end(), 0.0);
    double* older = rows_.data();        // row n - 2
    double* old = rows_.data() + width;  // row n - 1
    double* cur = rows_.data() + 2 * width;
    cur[0] = 1.0;
    out[0] = 1.0;
    for (int n = 1; n <= N_; ++n) {
      double* next = older;  // row n - 3 is no longer needed; see the parity argument below
      older = old;
      old = cur;
      cur = next;
      // Row n is written at positions of parity n only; the stale entries left there by row
      // n - 3 have the other parity, and positions above n were never written (they stay 0).
      const std::size_t base = half_size(n - 1);
      for (int m = n & 1, k = 0; m <= n; m += 2, ++k) {
        const double value = rho * (old[m == 0 ? 1 : m - 1] + old[m + 1]) - older[m];
        cur[m] = value;
        out[base + k] = value;
      }
    }
  }

 private:
  int N_;
  std::vector<double> rows_;
};

// R_{m + 2j}^m(rho) for j = 0 .. L-1 (one angular band), by Kintner's three-term recurrence in n
// (the Jacobi recurrence of P_k^{(0, m)}(2 rho^2 - 1) scaled by rho^m).
inline void radial_band(int m, int L, double rho, double* out) {
  if (L <= 0) return;
  const double rm = std::pow(rho, m);
  out[0] = rm;
  if (L == 1) return;
  const double r2 = rho * rho;
  out[1] = rm * ((m + 2) * r2 - (m + 1));
  for (int j = 2; j < L; ++j) {
    const double n = m + 2.0 * j;
    const double k1 = 0.5 * (n + m) * (n - m) * (n - 2);
    const double k2 = 2.0 * n * (n - 1) * (n - 2);
    const double k3 = -static_cast<double>(m) * m * (n - 1) - n * (n - 1) * (n - 2);
    const double k4 = -0.5 * n * (n + m - 2) * (n - m - 2);
    out[j] = ((k2 * r2 + k3) * out[j - 1] + k4 * out[j - 2]) / k1;
  }
}

// Gauss-Legendre nodes and weights on [-1, 1] (Newton iteration on the Legendre recurrence). The
// work grows as q^2; a checkpoint, if given, is ticked once per node.
inline void gauss_legendre(int q, double* x, double* w, Checkpoint* checkpoint = nullptr) {
  for (int i = 0; i < (q + 1) / 2; ++i) {
    if (checkpoint != nullptr) checkpoint->tick(8 * static_cast<std::size_t>(q));
    double t = std::cos(kPi * (i + 0.75) / (q + 0.5));
    double derivative = 1.0;
    for (int iteration = 0; iteration < 100; ++iteration) {
      double p0 = 1.0, p1 = t;
      for (int k = 2; k <= q; ++k) {
        const double p2 = ((2.0 * k - 1.0) * t * p1 - (k - 1.0) * p0) / k;
        p0 = p1;
        p1 = p2;
      }
      derivative = q * (t * p1 - p0) / (t * t - 1.0);
      const double step = p1 / derivative;
      t -= step;
      if (std::fabs(step) < 1e-16) break;
    }
    // Recompute the derivative at the converged node for the weight.
    double p0 = 1.0, p1 = t;
    for (int k = 2; k <= q; ++k) {
      const double p2 = ((2.0 * k - 1.0) * t * p1 - (k - 1.0) * p0) / k;
      p0 = p1;
      p1 = p2;
    }
    derivative = q * (t * p1 - p0) / (t * t - 1.0);
    const double weight = 2.0 / ((1.0 - t * t) * derivative * derivative);
    x[i] = -t;
    x[q - 1 - i] = t;
    w[i] = weight;
    w[q - 1 - i] = weight;
  }
  if (q % 2 == 1) x[q / 2] = 0.0;
}

}  // namespace paperkernels::shapes
