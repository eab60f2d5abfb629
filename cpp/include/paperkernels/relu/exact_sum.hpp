// Exact sums of products of two float64 values: a fixed-point two's-complement accumulator wide
// enough for every product of two finite doubles (2^-2148 .. 2^2048) plus 2^20 terms of headroom.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>

namespace paperkernels::relu {

class ExactSum {
 public:
  static constexpr int kLimbs = 72;     // 4608 bits
  static constexpr int kOffset = 2304;  // bit index of 2^0

  // this += sign * x * y, exactly.
  void add_product(double x, double y, int sign = 1) {
    if (x == 0.0 || y == 0.0 || sign == 0) return;
    bool negative = (x < 0.0) != (y < 0.0);
    if (sign < 0) negative = !negative;
    int ex = 0, ey = 0;
    const auto mx = static_cast<std::uint64_t>(std::ldexp(std::frexp(std::fabs(x), &ex), 53));
    const auto my = static_cast<std::uint64_t>(std::ldexp(std::frexp(std::fabs(y), &ey), 53));
    const unsigned __int128 p = static_cast<unsigned __int128>(mx) * my;
    const int position = ex - 53 + ey - 53 + kOffset;  // >= -2148 - 106 + 2304 > 0
    const int q = position / 64, r = position % 64;
    const auto lo = static_cast<std::uint64_t>(p), hi = static_cast<std::uint64_t>(p >> 64);
    const std::uint64_t w0 = lo << r;
    const std::uint64_t w1 = r ? (hi << r) | (lo >> (64 - r)) : hi;
    const std::uint64_t w2 = r ? hi >> (64 - r) : 0;
    if (negative)
      subtract_at(q, w0, w1, w2);
    else
      add_at(q, w0, w1, w2);
  }

  void add(double x, int sign = 1) { add_product(x, 1.0, sign); }

  // -1, 0 or +1.
  int sign() const noexcept {
    if (limbs_[kLimbs - 1] >> 63) return -1;
    for (std::uint64_t v : limbs_)
      if (v) return 1;
    return 0;
  }

 private:
  void add_at(int q, std::uint64_t w0, std::uint64_t w1, std::uint64_t w2) {
    const std::uint64_t w[3] = {w0, w1, w2};
    unsigned carry = 0;
    int i = q;
    for (int k = 0; k < 3 && i < kLimbs; ++k, ++i) {
      const unsigned __int128 s = static_cast<unsigned __int128>(limbs_[i]) + w[k] + carry;
      limbs_[i] = static_cast<std::uint64_t>(s);
      carry = static_cast<unsigned>(s >> 64);
    }
    for (; carry && i < kLimbs; ++i) {
      limbs_[i] += 1;
      carry = limbs_[i] == 0;
    }
  }

  void subtract_at(int q, std::uint64_t w0, std::uint64_t w1, std::uint64_t w2) {
    const std::uint64_t w[3] = {w0, w1, w2};
    unsigned borrow = 0;
    int i = q;
    for (int k = 0; k < 3 && i < kLimbs; ++k, ++i) {
      const std::uint64_t a = limbs_[i];
      const std::uint64_t d = a - w[k] - borrow;
      borrow = (a < w[k]) || (a - w[k] < borrow);
      limbs_[i] = d;
    }
    for (; borrow && i < kLimbs; ++i) {
      borrow = limbs_[i] == 0;
      limbs_[i] -= 1;
    }
  }

  std::array<std::uint64_t, kLimbs> limbs_{};
};

}  // namespace paperkernels::relu
