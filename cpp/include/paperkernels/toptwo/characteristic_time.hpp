// Characteristic times of fixed-confidence best-arm identification.
//
// For weights w in the simplex and the unique best arm a*,
//   C_a(w) = w_a* kl(mu*, m_a) + w_a kl(mu_a, m_a),  m_a = (w_a* mu* + w_a mu_a) / (w_a* + w_a),
//   1 / T*_beta = max_{w : w_a* = beta} min_{a != a*} C_a(w),   T* = min_beta T*_beta.
// At the optimum every C_a equals a common value v. For fixed (beta, v), C_a(beta, w_a) = v has a
// unique root w_a(v) (C_a increases in w_a up to beta kl(mu*, mu_a)); sum_a w_a(v) = 1 - beta then
// fixes v, and T*_beta = 1 / v. The optimal beta solves
//   sum_a dC_a/dbeta / dC_a/dw_a = sum_a kl(mu*, m_a) / kl(mu_a, m_a) = 1
// (the envelope theorem gives both partial derivatives), a decreasing function of beta.
// Gaussian arms with known variance sigma^2: C_a = Delta_a^2 / (2 sigma^2 (1/beta + 1/w_a)).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "paperkernels/common/bernoulli_kl.hpp"
#include "paperkernels/common/errors.hpp"
#include "paperkernels/common/parallel.hpp"
#include "paperkernels/toptwo/arms.hpp"

namespace paperkernels::toptwo {

namespace detail {
using paperkernels::detail::kInf;
constexpr double kEps = std::numeric_limits<double>::epsilon();
}  // namespace detail

using paperkernels::kl_bernoulli;
using paperkernels::kl_bernoulli_parts;

// The pooled mean m = share_i mu_i + share_j mu_j and 1 - m (share_i + share_j = 1, mu_i > mu_j,
// gap = mu_i - mu_j), each formed from the nearer mean so that both are accurate.
template <class T>
std::pair<T, T> pooled_mean(T mu_i, T mu_j, T gap, T share_i, T share_j) {
  if (share_j <= T(0.5)) return {mu_i - share_j * gap, (1 - mu_i) + share_j * gap};
  return {mu_j + share_i * gap, (1 - mu_j) - share_i * gap};
}

// kl(mu_i, m) and kl(mu_j, m) for that pooled mean m (pooled = {m, 1 - m}).
template <class T>
std::pair<T, T> pair_kl(T mu_i, T mu_j, T gap, T share_i, T share_j, const std::pair<T, T>& pooled) {
  const auto [m, mc] = pooled;
  return {kl_bernoulli_parts(mu_i, share_j * gap, m, mc), kl_bernoulli_parts(mu_j, -share_i * gap, m, mc)};
}

// The Bernoulli transportation cost (below) in arithmetic T. `clean` tells whether every quantity
// it went through is a normal number: none lost digits below the normal range, nor overflowed.
template <class T>
T bernoulli_cost(T mu_i, T n_i, T mu_j, T n_j, bool& clean) {
  const T gap = mu_i - mu_j;
  T total = n_i + n_j, a = n_i, b = n_j;
  if (std::isinf(total)) {  // halved counts: the same shares, exactly (a power-of-two scale)
    a = T(0.5) * n_i;
    b = T(0.5) * n_j;
    total = a + b;
  }
  const T share_i = a / total, share_j = b / total;
  const auto pooled = pooled_mean(mu_i, mu_j, gap, share_i, share_j);
  const auto kl = pair_kl(mu_i, mu_j, gap, share_i, share_j, pooled);
  const T cost = n_i * kl.first + n_j * kl.second;
  const auto [m, mc] = pooled;
  clean = std::isnormal(gap) && std::isnormal(share_i * gap) && std::isnormal(share_j * gap) && std::isnormal(m) &&
          std::isnormal(mc) && std::isnormal(kl.first) && std::isnormal(kl.second) && std::isnormal(cost);
  return cost;
}

// W = n_i kl(mu_i, m) + n_j kl(mu_j, m), m = (n_i mu_i + n_j mu_j) / (n_i + n_j), if mu_i > mu_j, else 0.
// Counts may be real (weights). Gaussian arms: (mu_i - mu_j)^2 / (2 sigma^2 (1/n_i + 1/n_j)).
inline double transportation_cost(double mu_i, double n_i, double mu_j, double n_j, Arms arms, double sigma) {
  if (!(mu_i > mu_j)) return 0.0;
  const double gap = mu_i - mu_j;
  if (arms == Arms::gaussian) {
    const double denominator = 2.0 * sigma * sigma * (1.0 / n_i + 1.0 / n_j);
    const double square = gap * gap;
    const double cost = square / denominator;
    if (std::isnormal(square) && std::isnormal(denominator) && std::isnormal(cost)) return cost;
    // An intermediate beyond float64 (a huge square over tiny counts, a denominator that
    // overflows) or in its subnormal range (losing digits): the same formula in long double
    // (x86: 64-bit mantissa, exponents to 16383), rounded once to double.
    using wide = long double;
    const wide g = static_cast<wide>(mu_i) - static_cast<wide>(mu_j), s = static_cast<wide>(sigma);
    const wide d = 2.0L * s * s * (1.0L / static_cast<wide>(n_i) + 1.0L / static_cast<wide>(n_j));
    return static_cast<double>(g * g / d);
  }
  bool clean = false;
  const double cost = bernoulli_cost(mu_i, n_i, mu_j, n_j, clean);
  if (clean) return cost;
  // A gap, pooled-mean offset, kl term or cost below the normal range (its digits lost, or 0), a
  // share that underflows, a kl term that overflows: the same computation in long double, whose
  // exponent range holds every such quantity of float64 inputs, rounded once to double.
  using wide = long double;
  return static_cast<double>(bernoulli_cost<wide>(mu_i, n_i, mu_j, n_j, clean));
}

// Root of an increasing function on (lo, hi), f(lo) < 0 < f(hi), by Newton steps that fall back to
// bisection whenever they would leave the current bracket or shrink too slowly (a step more than
// half the one before last: Newton creeps where f is far from linear, e.g. exponential in x, as the
// weights of an arm of mean 0 are in its transportation cost). f returns (value, derivative); a
// value of +infinity is allowed (it just moves the upper end). Converged when a step is below
// 4 eps max(|x|, scale).
template <class F>
double increasing_root(F&& f, double lo, double hi, double x, double scale = 0.0) {
  double step = hi - lo, step_before = step;
  for (int iteration = 0; iteration < 500; ++iteration) {
    const std::pair<double, double> fx = f(x);
    if (fx.first == 0.0) return x;
    if (fx.first < 0.0)
      lo = x;
    else
      hi = x;
    double next = x - fx.first / fx.second;
    if (!(next > lo && next < hi) || 2.0 * std::fabs(next - x) > std::fabs(step_before)) next = 0.5 * (lo + hi);
    step_before = step;
    step = next - x;
    if (std::fabs(next - x) <= 4.0 * detail::kEps * std::max(std::fabs(next), scale)) return next;
    if (hi - lo <= 4.0 * detail::kEps * std::max(std::fabs(lo), std::fabs(hi))) return 0.5 * (lo + hi);
    x = next;
  }
  return x;
}

// Brent's bracketing root finder (inverse quadratic interpolation, secant and bisection steps).
// Requires f(a) and f(b) of opposite signs; returns a root to full double precision.
template <class F>
double brent_root(F&& f, double a, double b, double fa, double fb) {
  double c = b, fc = fb, d = b - a, e = d;
  for (int iteration = 0; iteration < 300; ++iteration) {
    if ((fb > 0.0) == (fc > 0.0)) {
      c = a;
      fc = fa;
      d = e = b - a;
    }
    if (std::fabs(fc) < std::fabs(fb)) {
      a = b;
      b = c;
      c = a;
      fa = fb;
      fb = fc;
      fc = fa;
    }
    const double tol = 2.0 * detail::kEps * std::fabs(b) + 1e-300;
    const double half = 0.5 * (c - b);
    if (std::fabs(half) <= tol || fb == 0.0) return b;
    if (std::fabs(e) >= tol && std::fabs(fa) > std::fabs(fb)) {
      const double s = fb / fa;
      double p, q;
      if (a == c) {
        p = 2.0 * half * s;
        q = 1.0 - s;
      } else {
        const double qa = fa / fc, r = fb / fc;
        p = s * (2.0 * half * qa * (qa - r) - (b - a) * (r - 1.0));
        q = (qa - 1.0) * (r - 1.0) * (s - 1.0);
      }
      if (p > 0.0)
        q = -q;
      else
        p = -p;
      if (2.0 * p < std::min(3.0 * half * q - std::fabs(tol * q), std::fabs(e * q))) {
        e = d;
        d = p / q;
      } else {
        d = half;
        e = half;
      }
    } else {
      d = half;
      e = half;
    }
    a = b;
    fa = fb;
    b += std::fabs(d) > tol ? d : (half > 0.0 ? tol : -tol);
    fb = f(b);
  }
  return b;
}

struct CharacteristicTime {
  double T = 0.0;     // T*_beta (or T* when beta was optimised)
  double beta = 0.0;  // weight of the best arm
  int best = -1;
  std::vector<double> weights;
};

// The nested root finding for one instance.
class CharacteristicSolver {
 public:
  CharacteristicSolver(const std::vector<double>& mu, Arms arms, double sigma) : arms_(arms), sigma_(sigma) {
    const int K = static_cast<int>(mu.size());
    require(K >= 2, "mu: expected at least 2 arms, got ", K);
    require(sigma > 0.0 && std::isfinite(sigma), "sigma: expected a finite positive number");
    best_ = 0;
    for (int a = 0; a < K; ++a) {
      require(std::isfinite(mu[a]), "mu: expected finite values");
      if (arms == Arms::bernoulli) require(mu[a] >= 0.0 && mu[a] <= 1.0, "mu: expected values in [0, 1]");
      if (mu[a] > mu[best_]) best_ = a;
    }
    top_ = mu[best_];
    for (int a = 0; a < K; ++a) {
      if (a == best_) continue;
      require(mu[a] < top_, "mu: expected a unique best arm, but arms ", best_, " and ", a, " share the largest mean");
      Other o;
      o.index = a;
      o.mu = mu[a];
      o.gap = top_ - mu[a];
      o.cap = arms == Arms::bernoulli ? kl_bernoulli(top_, mu[a]) : o.gap * o.gap / (2.0 * sigma * sigma);
      others_.push_back(o);
    }
    K_ = K;
  }

  int best() const noexcept { return best_; }

  // Checked between the per-arm solves: once it is set, the solver throws `interrupted`.
  void set_stop_token(const StopToken* token) noexcept { token_ = token; }

  // T*_beta and its weights.
  CharacteristicTime at(double beta) {
    require(beta > 0.0 && beta < 1.0, "beta: expected a number in (0, 1), got ", beta);
    const double v = solve_value(beta);
    CharacteristicTime out;
    out.T = 1.0 / v;
    out.beta = beta;
    out.best = best_;
    out.weights.assign(K_, 0.0);
    out.weights[best_] = beta;
    // The solution, checked: T finite, the weights in the simplex and every C_a(w) equal to 1 / T.
    // Gaps or means so small that T* or the costs leave the doubles (Gaussian gaps below about
    // 1e-154 sigma, Bernoulli means below about 1e-300) fail here instead of giving a wrong T.
    bool solved = std::isfinite(out.T) && out.T > 0.0;
    double total = beta;
    for (const Other& o : others_) {
      out.weights[o.index] = o.weight;
      total += o.weight;
      const double cost = transportation_cost(top_, beta, o.mu, o.weight, arms_, sigma_);
      solved = solved && std::fabs(cost - v) <= 1e-9 * v;
    }
    require(solved && std::fabs(total - 1.0) <= 1e-9, kUnrepresentable);
    return out;
  }

  // T* = min_beta T*_beta, at the root of the optimality condition.
  CharacteristicTime optimal() {
    auto condition = [&](double beta) { return optimality_gap(beta); };
    double lo = 0.5, hi = 0.5;
    double f_lo = condition(0.5), f_hi = f_lo;
    if (f_lo == 0.0) return at(0.5);
    if (f_lo > 0.0) {
      for (int k = 2; k <= 60 && f_hi > 0.0; ++k) {
        lo = hi;
        f_lo = f_hi;
        hi = 1.0 - std::ldexp(1.0, -k);
        f_hi = condition(hi);
      }
    } else {
      for (int k = 2; k <= 60 && f_lo < 0.0; ++k) {
        hi = lo;
        f_hi = f_lo;
        lo = std::ldexp(1.0, -k);
        f_lo = condition(lo);
      }
    }
    require(f_lo > 0.0 && f_hi < 0.0, kUnrepresentable);
    const double beta = brent_root(condition, lo, hi, f_lo, f_hi);
    return at(beta);
  }

 private:
  static constexpr const char* kUnrepresentable =
      "mu: the characteristic time of these means cannot be computed in float64 (gaps or means too small)";

  struct Other {
    int index;
    double mu;
    double gap;
    double cap;         // sup_w C_a = beta * cap
    double u = 0.0;     // log(w_a / beta) of the last inner solve (a warm start)
    double weight = 0;  // w_a of the last solve
    double slope = 0;   // d w_a / d v
    double kl_top = 0;  // kl(mu*, m_a)
    double kl_own = 0;  // kl(mu_a, m_a)
  };

  // Bernoulli: g(x) = kl(mu*, m) + x kl(mu_a, m), m = (mu* + x mu_a) / (1 + x), x = w_a / beta.
  // g increases from 0 to kl(mu*, mu_a) and g'(x) = kl(mu_a, m).
  void evaluate_ratio(Other& o, double x) const {
    const double share_top = 1.0 / (1.0 + x), share_own = 1.0 / (1.0 + 1.0 / x);
    const auto kl =
        pair_kl(top_, o.mu, o.gap, share_top, share_own, pooled_mean(top_, o.mu, o.gap, share_top, share_own));
    o.kl_top = kl.first;
    o.kl_own = kl.second;
  }

  // Solves C_a(beta, w_a) = v for w_a (infinite if v >= beta * cap).
  void solve_weight(Other& o, double beta, double v) {
    if (arms_ == Arms::gaussian) {
      const double k = o.cap;
      if (v >= beta * k) {
        o.weight = o.slope = detail::kInf;
        return;
      }
      const double inv = k / v - 1.0 / beta;
      o.weight = 1.0 / inv;
      o.slope = o.weight * o.weight * k / (v * v);
      return;
    }
    const double y = v / beta;
    if (!(y < o.cap)) {
      o.weight = o.slope = detail::kInf;
      return;
    }
    auto f = [&](double u) {
      const double x = std::exp(u);
      evaluate_ratio(o, x);
      return std::make_pair(o.kl_top + x * o.kl_own - y, x * o.kl_own);
    };
    double start = o.u;
    if (std::isfinite(o.cap)) start = std::log(y / (o.cap - y));  // exact when kl is quadratic
    start = std::min(600.0, std::max(-600.0, start));
    // Bracket the root by steps of growing size from the start, so that the extreme ratios, where
    // g can no longer be evaluated, are only visited if the root is there.
    double lo = start, hi = start;
    if (f(start).first < 0.0) {
      for (double step = 1.0; hi < 700.0; step *= 2.0) {
        lo = hi;
        hi = std::min(700.0, start + step);
        if (!(f(hi).first < 0.0)) break;
      }
      // Still below y at w_a / beta = e^700: a weight beyond the doubles (kl(mu*, mu_a) is infinite
      // when mu_a = 0, but g grows only like mu* log x). The outer solve then takes v as too large.
      if (hi >= 700.0 && f(hi).first < 0.0) {
        o.weight = o.slope = detail::kInf;
        return;
      }
    } else {
      for (double step = 1.0; lo > -700.0; step *= 2.0) {
        hi = lo;
        lo = std::max(-700.0, start - step);
        if (f(lo).first < 0.0) break;
      }
    }
    o.u = increasing_root(f, lo, hi, 0.5 * (lo + hi), 1.0);
    const double x = std::exp(o.u);
    evaluate_ratio(o, x);
    o.weight = beta * x;
    o.slope = 1.0 / o.kl_own;
  }

  // sum_a w_a(v) - (1 - beta) and its derivative in v.
  std::pair<double, double> excess_weight(double beta, double v) {
    double total = 0.0, slope = 0.0;
    for (Other& o : others_) {
      if (token_ != nullptr && token_->stop_requested()) throw interrupted();
      solve_weight(o, beta, v);
      total += o.weight;
      slope += o.slope;
    }
    return {total - (1.0 - beta), slope};
  }

  // The common value v = 1 / T*_beta; leaves the weights of the solution in others_.
  double solve_value(double beta) {
    double cap = detail::kInf;
    for (const Other& o : others_) cap = std::min(cap, beta * o.cap);
    double lo = 0.0, hi = cap;
    if (!std::isfinite(hi)) {
      hi = 1.0;
      while (excess_weight(beta, hi).first < 0.0) hi *= 2.0;
      // Means near 0 against a mean-0 arm put v = 1 / T* far below 1 (1e-148 for (1e-148, 0)),
      // out of reach of the bisection steps from [0, hi]: bracket it from above by factors of 2^32.
      // The weights of the last evaluation are the next one's starting points: a probe that does
      // not move the bracket gives them back, so the solve is the one it would have been.
      constexpr double kStep = 0x1p-32;
      saved_ = others_;
      while (hi * kStep >= std::numeric_limits<double>::min() && excess_weight(beta, hi * kStep).first > 0.0)
        hi *= kStep;
      if (hi < 1.0)
        lo = hi * kStep;
      else
        others_.swap(saved_);
    }
    auto f = [&](double v) { return excess_weight(beta, v); };
    const double v = increasing_root(f, lo, hi, 0.5 * (lo + hi));
    excess_weight(beta, v);
    return v;
  }

  // sum_a dC_a/dbeta / dC_a/dw_a - 1 at the solution for beta: positive below the optimal beta.
  double optimality_gap(double beta) {
    solve_value(beta);
    double sum = 0.0;
    for (const Other& o : others_) {
      if (arms_ == Arms::gaussian)
        sum += (o.weight / beta) * (o.weight / beta);
      else
        sum += o.kl_top / o.kl_own;
    }
    return sum - 1.0;
  }

  Arms arms_;
  double sigma_;
  int K_ = 0;
  int best_ = 0;
  double top_ = 0.0;
  std::vector<Other> others_;
  std::vector<Other> saved_;  // solve_value's copy of others_ (kept to reuse its storage)
  const StopToken* token_ = nullptr;
};

}  // namespace paperkernels::toptwo
