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
// when 1 + z would round badly, log1p(z) otherwise.
inline double z_minus_log1p(double z, double r) {
  if (std::fabs(z) < 0.1) {
    // z^2/2 - z^3/3 + z^4/4 - ...: |z| < 0.1, so 22 terms reach 1e-20 relative.
    double power = z * z;
    double sum = 0.0;
    for (int k = 2; k < 24; ++k) {
      sum += (k % 2 == 0 ? power : -power) / k;
      power *= z;
    }
    return sum;
  }
  if (r < 0.5) return z - std::log(r);
  return z - std::log1p(z);
}

}  // namespace detail

// kl(p, q) from d = p - q, q and qc = 1 - q, each supplied accurately by the caller. Written as
//   p psi(q/p) + (1-p) psi(qc/(1-p)),  psi(r) = r - 1 - log r >= 0
// (equal to kl because q + qc = 1): a sum of non-negative terms, with no cancellation when q is
// close to p nor when q is close to 0 or 1. Infinite when q or qc is 0 and q != p.
inline double kl_bernoulli_parts(double p, double d, double q, double qc) {
  if (d == 0.0) return 0.0;
  if (!(q > 0.0 && qc > 0.0)) return detail::kInf;
  double first = q;  // the p -> 0 limit
  if (p > 0.0) {
    const double ratio = q / p;
    // A subnormal p overflows q / p: p psi(q/p) = q - p + p (log p - log q) directly.
    first = std::isfinite(ratio) ? p * detail::z_minus_log1p(-d / p, ratio) : q - p + p * (std::log(p) - std::log(q));
  }
  const double second = p < 1.0 ? (1.0 - p) * detail::z_minus_log1p(d / (1.0 - p), qc / (1.0 - p)) : qc;
  return first + second;
}

inline double kl_bernoulli(double p, double q) { return p == q ? 0.0 : kl_bernoulli_parts(p, p - q, q, 1.0 - q); }

}  // namespace paperkernels
