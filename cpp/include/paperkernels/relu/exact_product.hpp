// Exact sign comparison of products of float64 values. Every finite double is m * 2^e with an
// integer mantissa m < 2^53, so a product of k doubles is an integer of at most 53k bits times a
// power of two; two such products are compared exactly with a small fixed-capacity big integer.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "paperkernels/common/errors.hpp"

namespace paperkernels::relu {

class ExactProduct {
 public:
  static constexpr int kMaxLimbs = 48;  // 3072 bits: products of up to 57 doubles

  ExactProduct() noexcept { limbs_[0] = 1; }

  void multiply(double x) {
    if (sign_ == 0) return;
    if (x == 0.0) {
      sign_ = 0;
      return;
    }
    if (x < 0.0) {
      sign_ = -sign_;
      x = -x;
    }
    int e = 0;
    const double f = std::frexp(x, &e);
    std::uint64_t m = static_cast<std::uint64_t>(std::ldexp(f, 53));
    const int tz = __builtin_ctzll(m);
    m >>= tz;
    exponent_ += static_cast<std::int64_t>(e) - 53 + tz;
    multiply_small(m);
  }

  int sign() const noexcept { return sign_; }

  // -1, 0, +1 as a <, ==, > b (signed values).
  friend int compare(const ExactProduct& a, const ExactProduct& b) {
    if (a.sign_ != b.sign_) return a.sign_ < b.sign_ ? -1 : 1;
    if (a.sign_ == 0) return 0;
    const int magnitude = compare_magnitude(a, b);
    return a.sign_ > 0 ? magnitude : -magnitude;
  }

 private:
  void multiply_small(std::uint64_t m) {
    unsigned __int128 carry = 0;
    for (int i = 0; i < n_; ++i) {
      const unsigned __int128 cur = static_cast<unsigned __int128>(limbs_[i]) * m + carry;
      limbs_[i] = static_cast<std::uint64_t>(cur);
      carry = cur >> 64;
    }
    if (carry != 0) {
      if (n_ == kMaxLimbs) fail("network too deep for the exact product comparison");
      limbs_[n_++] = static_cast<std::uint64_t>(carry);
    }
  }

  std::int64_t bit_length() const noexcept {
    return 64 * static_cast<std::int64_t>(n_ - 1) + (64 - __builtin_clzll(limbs_[n_ - 1]));
  }

  // |a| = A * 2^ea with A odd-free integer limbs; compares |a| and |b|.
  static int compare_magnitude(const ExactProduct& a, const ExactProduct& b) {
    const std::int64_t top_a = a.bit_length() + a.exponent_;
    const std::int64_t top_b = b.bit_length() + b.exponent_;
    if (top_a != top_b) return top_a < top_b ? -1 : 1;
    // Same leading bit position: align the lowest exponents and compare the integers.
    if (a.exponent_ >= b.exponent_) return compare_shifted(a, a.exponent_ - b.exponent_, b);
    return -compare_shifted(b, b.exponent_ - a.exponent_, a);
  }

  // Compares (x << shift) with y, given that both have the same bit length.
  static int compare_shifted(const ExactProduct& x, std::int64_t shift, const ExactProduct& y) {
    std::array<std::uint64_t, kMaxLimbs + 1> s{};
    const int q = static_cast<int>(shift / 64);
    const int r = static_cast<int>(shift % 64);
    int n = 0;
    for (int i = 0; i < x.n_; ++i) {
      const int k = i + q;
      if (k > kMaxLimbs) fail("network too deep for the exact product comparison");
      s[k] |= r == 0 ? x.limbs_[i] : (x.limbs_[i] << r);
      if (r != 0 && k + 1 <= kMaxLimbs) s[k + 1] |= x.limbs_[i] >> (64 - r);
      n = std::max(n, k + 2);
    }
    n = std::min(n, kMaxLimbs + 1);
    while (n > 1 && s[n - 1] == 0) --n;
    if (n != y.n_) return n < y.n_ ? -1 : 1;
    for (int i = n - 1; i >= 0; --i) {
      if (s[i] != y.limbs_[i]) return s[i] < y.limbs_[i] ? -1 : 1;
    }
    return 0;
  }

  std::array<std::uint64_t, kMaxLimbs> limbs_{};
  int n_ = 1;
  int sign_ = 1;
  std::int64_t exponent_ = 0;
};

// Small list of factors (the doubles whose product is a value of the canonical form).
struct Factors {
  static constexpr int kMax = 56;
  double v[kMax];
  int n = 0;
  void push(double x) {
    if (n == kMax) fail("network too deep for the exact product comparison");
    v[n++] = x;
  }
};

// sign(prod(lhs) - prod(rhs)), exactly.
inline int compare_factor_products(const Factors& lhs, const Factors& rhs) {
  ExactProduct a, b;
  for (int i = 0; i < lhs.n; ++i) a.multiply(lhs.v[i]);
  for (int i = 0; i < rhs.n; ++i) b.multiply(rhs.v[i]);
  return compare(a, b);
}

}  // namespace paperkernels::relu
