// Zernike moments of values sampled on a polar grid (rows theta_i, columns rho_j), for a given
// quadrature: c_nm = scale_n * sum_i sum_j wtheta_i wrho_j f_ij R_n^m(rho_j) e^{-i m theta_i}
// (wrho includes the area factor rho). Separable: an angular transform per column, then radial sums.
// Building the tables and analysing each grid poll for Ctrl-C (see checkpoint.hpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "paperkernels/common/errors.hpp"
#include "paperkernels/shapes/checkpoint.hpp"
#include "paperkernels/shapes/kernel.hpp"
#include "paperkernels/shapes/zernike.hpp"

namespace paperkernels::shapes {

class PolarBasis {
 public:
  PolarBasis(int N, std::vector<double> theta, std::vector<double> wtheta, std::vector<double> rho,
             std::vector<double> wrho, std::vector<double> scale, const Poll& poll = {})
      : N_(N), n_theta_(theta.size()), n_rho_(rho.size()) {
    Checkpoint checkpoint(poll);
    require(N >= 0, "N: expected a non-negative order");
    require(wtheta.size() == n_theta_ && wrho.size() == n_rho_, "polar grid: weights and nodes differ in length");
    S_ = half_size(N);
    require(scale.size() == S_, "polar grid: expected one scale factor per coefficient");
    const std::size_t M = static_cast<std::size_t>(N) + 1;
    // Rows 0..M-1: wtheta cos(m theta); rows M..2M-1: -wtheta sin(m theta) (the e^{-i m theta} part).
    angular_.assign(2 * M * n_theta_, 0.0);
    for (std::size_t m = 0; m < M; ++m)
      for (std::size_t i = 0; i < n_theta_; ++i) {
        const double angle = static_cast<double>(m) * theta[i];
        angular_[m * n_theta_ + i] = wtheta[i] * std::cos(angle);
        angular_[(M + m) * n_theta_ + i] = -wtheta[i] * std::sin(angle);
        checkpoint.tick(1);
      }
    radial_.assign(n_rho_ * S_, 0.0);  // (rho_j, k): wrho_j R_k(rho_j) scale_k
    RadialTable table(N);
    std::vector<double> values(S_);
    for (std::size_t j = 0; j < n_rho_; ++j) {
      require(rho[j] >= 0.0 && rho[j] <= 1.0, "polar grid: radii must lie in [0, 1]");
      table.evaluate(rho[j], values.data());
      for (std::size_t k = 0; k < S_; ++k) radial_[j * S_ + k] = wrho[j] * values[k] * scale[k];
      checkpoint.tick(4 * S_);
    }
    m_of_.resize(S_);
    std::size_t k = 0;
    for (int n = 0; n <= N; ++n)
      for (int m = n & 1; m <= n; m += 2, ++k) m_of_[k] = m;
  }

  std::size_t n_theta() const { return n_theta_; }
  std::size_t n_rho() const { return n_rho_; }

  // values (B x n_theta x n_rho) -> out (B x S) complex.
  template <class T>
  void analyse(const T* values, std::size_t B, std::complex<double>* out, unsigned threads, const Poll& poll) const {
    const std::size_t cells = n_theta_ * n_rho_, M = static_cast<std::size_t>(N_) + 1;
    run_parallel(B, threads, poll, [&](std::size_t b, Checkpoint& checkpoint) {
      const T* f = values + b * cells;
      // Left uninitialised and filled row by row between polls: a grid of 40000 x 800 is 256 MB,
      // whose zeroing and page faults alone took over 0.5 s without a look for Ctrl-C.
      std::unique_ptr<double[]> grid(new double[cells]);
      for (std::size_t i = 0; i < n_theta_; ++i) {
        for (std::size_t c = i * n_rho_; c < (i + 1) * n_rho_; ++c) {
          const double v = static_cast<double>(f[c]);
          require(v >= 0.0 && v <= 1.0, "masks: expected values in [0, 1], got ", v, " in grid ", b);
          grid[c] = v;
        }
        checkpoint.tick(n_rho_);
      }
      std::vector<double> spectrum(2 * M * n_rho_, 0.0);  // (cos rows, sin rows) x rho
      // Rows of the spectrum in slices, to look for Ctrl-C between them; each entry is one running
      // sum over theta in order, so the slicing does not change a bit.
      const std::size_t rows = 2 * M, slice = 8;
      for (std::size_t r0 = 0; r0 < rows; r0 += slice) {
        const std::size_t nr = std::min(slice, rows - r0);
        accumulate_product(nr, n_theta_, n_rho_, angular_.data() + r0 * n_theta_, n_theta_, grid.get(), n_rho_,
                           spectrum.data() + r0 * n_rho_, n_rho_);
        checkpoint.tick(nr * cells);
      }
      for (std::size_t k = 0; k < S_; ++k) {
        const double* re = spectrum.data() + m_of_[k] * n_rho_;
        const double* im = spectrum.data() + (M + m_of_[k]) * n_rho_;
        double sr = 0.0, si = 0.0;
        for (std::size_t j = 0; j < n_rho_; ++j) {
          sr += radial_[j * S_ + k] * re[j];
          si += radial_[j * S_ + k] * im[j];
        }
        out[b * S_ + k] = std::complex<double>(sr, si);
        checkpoint.tick(n_rho_);
      }
    });
  }

 private:
  int N_;
  std::size_t n_theta_, n_rho_, S_ = 0;
  std::vector<double> angular_, radial_;
  std::vector<int> m_of_;
};

}  // namespace paperkernels::shapes
