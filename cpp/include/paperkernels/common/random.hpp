// Named, portable pseudo-random numbers: xoshiro256** seeded through SplitMix64, with independent
// streams derived from (seed, stream index). No std::*_distribution anywhere: every draw below is
// defined bit for bit, so results are identical across compilers and standard libraries.
#pragma once

#include <cmath>
#include <cstdint>

namespace paperkernels {

inline constexpr std::uint64_t rotl64(std::uint64_t x, int k) noexcept { return (x << k) | (x >> (64 - k)); }

// SplitMix64 (Steele, Lea, Flood 2014): used only to expand seeds into generator states.
class SplitMix64 {
 public:
  explicit constexpr SplitMix64(std::uint64_t state) noexcept : state_(state) {}
  constexpr std::uint64_t next() noexcept {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }

 private:
  std::uint64_t state_;
};

// Murmur3's 64-bit finaliser: a bijection that spreads every input bit over the output.
inline constexpr std::uint64_t mix64(std::uint64_t z) noexcept {
  z = (z ^ (z >> 33)) * 0xFF51AFD7ED558CCDULL;
  z = (z ^ (z >> 33)) * 0xC4CEB9FE1A85EC53ULL;
  return z ^ (z >> 33);
}

// xoshiro256** 1.0 (Blackman and Vigna 2018).
class Xoshiro256 {
 public:
  using result_type = std::uint64_t;

  // Stream `stream` of `seed`: the pair is hashed into a SplitMix64 seed, which fills the state.
  // Distinct (seed, stream) pairs give distinct SplitMix64 seeds (mix64 is a bijection), hence
  // generator states that are, for all practical purposes, independent.
  explicit Xoshiro256(std::uint64_t seed, std::uint64_t stream = 0) noexcept {
    const std::uint64_t key = mix64(seed) ^ mix64(stream * 0xD1B54A32D192ED03ULL + 0x8CB92BA72F3D8DD7ULL);
    SplitMix64 sm(key);
    for (auto& word : s_) word = sm.next();
    // An all-zero state is the generator's only fixed point; SplitMix64 cannot produce four zeros
    // in a row, but make the guarantee explicit.
    if ((s_[0] | s_[1] | s_[2] | s_[3]) == 0) s_[0] = 1;
  }

  static constexpr result_type min() noexcept { return 0; }
  static constexpr result_type max() noexcept { return ~std::uint64_t{0}; }

  std::uint64_t next() noexcept {
    const std::uint64_t result = rotl64(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl64(s_[3], 45);
    return result;
  }
  result_type operator()() noexcept { return next(); }

  // Uniform on [0, 1): the top 53 bits as a multiple of 2^-53.
  double uniform() noexcept { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  // Uniform integer on [0, n), n >= 1, without bias (Lemire 2019, multiply and reject).
  std::uint64_t below(std::uint64_t n) noexcept {
    unsigned __int128 product = static_cast<unsigned __int128>(next()) * n;
    auto low = static_cast<std::uint64_t>(product);
    if (low < n) {
      const std::uint64_t threshold = (0 - n) % n;
      while (low < threshold) {
        product = static_cast<unsigned __int128>(next()) * n;
        low = static_cast<std::uint64_t>(product);
      }
    }
    return static_cast<std::uint64_t>(product >> 64);
  }

  // Bernoulli draw by integer comparison against a precomputed threshold (see bernoulli_threshold).
  bool bernoulli(std::uint64_t threshold) noexcept { return threshold == kAlways || next() < threshold; }

  // Standard normal by Marsaglia's polar method (two uniforms per attempt; the spare is discarded so
  // that each call consumes a self-contained amount of the stream).
  double normal() noexcept {
    for (;;) {
      const double u = 2.0 * uniform() - 1.0;
      const double v = 2.0 * uniform() - 1.0;
      const double s = u * u + v * v;
      if (s > 0.0 && s < 1.0) return u * std::sqrt(-2.0 * std::log(s) / s);
    }
  }

  static constexpr std::uint64_t kAlways = ~std::uint64_t{0};

 private:
  std::uint64_t s_[4];
};

// Threshold T for bernoulli(T): P(next() < T) = T / 2^64 = p rounded down to a multiple of 2^-64;
// p >= 1 gives the sentinel kAlways (always true), p <= 0 gives 0 (never).
inline std::uint64_t bernoulli_threshold(double p) noexcept {
  if (!(p > 0.0)) return 0;
  if (p >= 1.0) return Xoshiro256::kAlways;
  return static_cast<std::uint64_t>(std::ldexp(p, 64));
}

}  // namespace paperkernels
