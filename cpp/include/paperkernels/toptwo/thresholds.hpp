// Stopping thresholds c(t, delta) of the GLR stopping rule "stop when Z > c(t, delta)".
// Each formula is evaluated in one fixed order of double operations (documented next to it) so that
// a reference implementation can reproduce it bit for bit.
#pragma once

#include <cmath>
#include <cstdint>

#include "paperkernels/common/errors.hpp"

namespace paperkernels::toptwo {

enum class ThresholdKind { gk16, union_bound, kk21, array };

class Threshold {
 public:
  // log((1 + log t) / delta): Garivier & Kaufmann (2016)'s heuristic, used in the papers' experiments.
  static Threshold gk16(double delta) { return Threshold(ThresholdKind::gk16, delta, 2); }

  // log(2 t (K - 1) / delta), evaluated as log(((2 t) (K - 1)) / delta).
  static Threshold union_bound(double delta, int K) { return Threshold(ThresholdKind::union_bound, delta, K); }

  // 2 C_exp(log((K - 1) / delta) / 2) + 6 log(1 + log(t / 2)) with the closed-form approximation
  // C_exp(x) ~= x + 4 log(1 + x + sqrt(2 x)).
  static Threshold kk21(double delta, int K) {
    Threshold c(ThresholdKind::kk21, delta, K);
    const double x = std::log(static_cast<double>(K - 1) / delta) / 2.0;
    const double c_exp = x + 4.0 * std::log(1.0 + x + std::sqrt(2.0 * x));
    c.constant_ = 2.0 * c_exp;
    return c;
  }

  // c[t] read from a caller-owned array of `length` entries (which must outlive this object).
  static Threshold array(const double* values, std::int64_t length) {
    Threshold c(ThresholdKind::array, 0.5, 2);
    c.values_ = values;
    c.length_ = length;
    return c;
  }

  Threshold() : Threshold(ThresholdKind::gk16, 0.01, 2) {}

  ThresholdKind kind() const noexcept { return kind_; }
  std::int64_t length() const noexcept { return length_; }

  // The named thresholds are non-decreasing in t; a user array need not be.
  bool non_decreasing() const noexcept { return kind_ != ThresholdKind::array; }

  double operator()(std::int64_t t) const {
    const double tt = static_cast<double>(t);
    switch (kind_) {
      case ThresholdKind::gk16:
        return std::log((1.0 + std::log(tt)) / delta_);
      case ThresholdKind::union_bound:
        return std::log(2.0 * tt * static_cast<double>(K_ - 1) / delta_);
      case ThresholdKind::kk21:
        return constant_ + 6.0 * std::log(1.0 + std::log(tt / 2.0));
      case ThresholdKind::array:
        if (t < 0 || t >= length_)
          fail("threshold: the array has ", length_, " entries (t = 0..", length_ - 1, ") but t = ", t, " was reached");
        return values_[t];
    }
    return 0.0;
  }

 private:
  Threshold(ThresholdKind kind, double delta, int K) : kind_(kind), delta_(delta), K_(K) {}

  ThresholdKind kind_;
  double delta_;
  int K_;
  double constant_ = 0.0;
  const double* values_ = nullptr;
  std::int64_t length_ = 0;
};

}  // namespace paperkernels::toptwo
