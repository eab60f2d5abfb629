// The Bernoulli Kullback-Leibler divergence kl(p, q) = p log(p/q) + (1-p) log((1-p)/(1-q)), accurate
// for p close to q, for q close to 0 or 1 and for subnormal p (the best-arm identification
// statistics and the KL-UCB indices both evaluate it where the naive formula cancels).
#pragma once

#include <cmath>
#include <limits>

namespace paperkernels {

namespace detail {

constexpr double kInf = std::numeric_limits<double>::infinity();

// z - log(1 + z) for z > -1, given also r = 1 + z (each accurate): the series for small |z|, log r
// when 1 + z would round badly, log1p(z) otherwise. T is double, or long double where a caller
// needs the wider exponent range.
template <class T>
T z_minus_log1p(T z, T r) {
  if (std::fabs(z) < T(0.1)) {
    // z^2/2 - z^3/3 + z^4/4 - ...: |z| < 0.1, so 22 terms reach 1e-20 relative.
    T power = z * z;
    T sum = 0.0;
    for (int k = 2; k < 24; ++k) {
      sum += (k % 2 == 0 ? power : -power) / k;
      power *= z;
    }
    return sum;
  }
  if (r < T(0.5)) return z - std::log(r);
  return z - std::log1p(z);
}

}  // namespace detail

// kl(p, q) from d = p - q, q and qc = 1 - q, each supplied accurately by the caller. Written as
//   p psi(q/p) + (1-p) psi(qc/(1-p)),  psi(r) = r - 1 - log r >= 0
// (equal to kl because q + qc = 1): a sum of non-negative terms, with no cancellation when q is
// close to p nor when q is close to 0 or 1. Infinite when q or qc is 0 and q != p.
template <class T>
T kl_bernoulli_parts(T p, T d, T q, T qc) {
  if (d == 0) return 0;
  if (!(q > 0 && qc > 0)) return std::numeric_limits<T>::infinity();
  T first = q;  // the p -> 0 limit
  if (p > 0) {
    const T ratio = q / p;
    // A subnormal p overflows q / p: p psi(q/p) = q - p + p (log p - log q) directly.
    first = std::isfinite(ratio) ? p * detail::z_minus_log1p(-d / p, ratio) : q - p + p * (std::log(p) - std::log(q));
  }
  const T second = p < 1 ? (1 - p) * detail::z_minus_log1p(d / (1 - p), qc / (1 - p)) : qc;
  return first + second;
}

inline double kl_bernoulli(double p, double q) { return p == q ? 0.0 : kl_bernoulli_parts(p, p - q, q, 1.0 - q); }

}  // namespace paperkernels
