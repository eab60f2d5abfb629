// Frequency propagation on half-set coefficients z (n ascending, then m >= 0 ascending).
//   radial step, n ascending:   z'_nm  = z_nm  + lambda z'_{n-2,m}   when m <= n - 2
//   angular step, m ascending:  z''_nm = z'_nm + lambda z''_{n,m-2}  when m >= 2
// Both are unit lower-triangular maps, so the inverse undoes the angular step (m descending, using
// the propagated values), then the radial step (n descending): exact up to rounding.
#pragma once

#include <complex>
#include <cstddef>

#include "paperkernels/shapes/zernike.hpp"

namespace paperkernels::shapes {

using complex = std::complex<double>;

inline void freqprop_forward(int N, double lambda, bool radial, bool angular, complex* z) {
  if (radial)
    for (int n = 2; n <= N; ++n)
      for (int m = n & 1; m <= n - 2; m += 2) z[half_index(n, m)] += lambda * z[half_index(n - 2, m)];
  if (angular)
    for (int n = 2; n <= N; ++n)
      for (int m = (n & 1) + 2; m <= n; m += 2) z[half_index(n, m)] += lambda * z[half_index(n, m - 2)];
}

inline void freqprop_inverse(int N, double lambda, bool radial, bool angular, complex* z) {
  if (angular)
    for (int n = N; n >= 2; --n)
      for (int m = n; m >= (n & 1) + 2; m -= 2) z[half_index(n, m)] -= lambda * z[half_index(n, m - 2)];
  if (radial)
    for (int n = N; n >= 2; --n)
      for (int m = n & 1; m <= n - 2; m += 2) z[half_index(n, m)] -= lambda * z[half_index(n - 2, m)];
}

}  // namespace paperkernels::shapes
