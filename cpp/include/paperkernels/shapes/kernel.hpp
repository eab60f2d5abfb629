// acc (nb x K) += F (nb x Q) * M (Q x K), the one dense product behind the Cartesian moments and
// the synthesis of fields. Each output is a single running sum taken over q = 0, 1, ..., Q-1 in
// order: the kernel only vectorises across outputs, never across q, so every output is bit-identical
// whatever the tiling, the batch split, the thread count or the instruction set of the clone that
// runs (x86-64 Linux builds carry AVX-512 and AVX2 clones chosen at load time; -ffp-contract=off
// keeps multiplies and adds separate in all of them).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>

#if defined(__x86_64__) && defined(__linux__) && (defined(__GNUC__) || defined(__clang__)) && \
    !defined(PAPERKERNELS_NO_TARGET_CLONES)
#define PAPERKERNELS_TARGET_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define PAPERKERNELS_TARGET_CLONES
#endif

#if (defined(__GNUC__) || defined(__clang__)) && !defined(PAPERKERNELS_NO_VECTOR_EXTENSIONS)
#define PAPERKERNELS_VECTOR_EXTENSIONS 1
#endif

namespace paperkernels::shapes {

namespace detail {

inline void product_edge(std::size_t bn, std::size_t kn, std::size_t Q, const double* F, std::size_t ldF,
                         const double* M, std::size_t ldM, double* acc, std::size_t ldacc) {
  for (std::size_t b = 0; b < bn; ++b)
    for (std::size_t k = 0; k < kn; ++k) {
      double sum = acc[b * ldacc + k];
      for (std::size_t q = 0; q < Q; ++q) sum += F[b * ldF + q] * M[q * ldM + k];
      acc[b * ldacc + k] = sum;
    }
}

}  // namespace detail

namespace detail {
#ifdef PAPERKERNELS_VECTOR_EXTENSIONS
// Eight doubles: one register with AVX-512, two with AVX2, four with SSE2.
typedef double v8 __attribute__((vector_size(64)));
typedef double v8_unaligned __attribute__((vector_size(64), aligned(8), may_alias));
#else
struct v8 {
  double x[8];
  friend v8 operator+(v8 a, const v8& b) { for (int i = 0; i < 8; ++i) a.x[i] += b.x[i]; return a; }
  friend v8 operator-(v8 a, const v8& b) { for (int i = 0; i < 8; ++i) a.x[i] -= b.x[i]; return a; }
  friend v8 operator*(v8 a, const v8& b) { for (int i = 0; i < 8; ++i) a.x[i] *= b.x[i]; return a; }
  v8& operator+=(const v8& b) { return *this = *this + b; }
};
#endif
#ifdef PAPERKERNELS_VECTOR_EXTENSIONS
// Unaligned eight-double views of lane-interleaved buffers.
inline const v8_unaligned& lanes(const double* p) { return *reinterpret_cast<const v8_unaligned*>(p); }
inline v8_unaligned& lanes(double* p) { return *reinterpret_cast<v8_unaligned*>(p); }
#else
inline const v8& lanes(const double* p) { return *reinterpret_cast<const v8*>(p); }
inline v8& lanes(double* p) { return *reinterpret_cast<v8*>(p); }
#endif
}  // namespace detail

#ifdef PAPERKERNELS_VECTOR_EXTENSIONS

PAPERKERNELS_TARGET_CLONES [[maybe_unused]]
static void accumulate_product(std::size_t nb, std::size_t Q, std::size_t K, const double* F, std::size_t ldF,
                               const double* M, std::size_t ldM, double* acc, std::size_t ldacc) {
  using detail::v8;
  using detail::v8_unaligned;
  constexpr std::size_t BT = 4, KT = 16;
  std::size_t k0 = 0;
  for (; k0 + KT <= K; k0 += KT) {
    std::size_t b0 = 0;
    for (; b0 + BT <= nb; b0 += BT) {
      const double* f0 = F + b0 * ldF;
      const double* f1 = f0 + ldF;
      const double* f2 = f1 + ldF;
      const double* f3 = f2 + ldF;
      double* a = acc + b0 * ldacc + k0;
      v8 t00 = *reinterpret_cast<const v8_unaligned*>(a), t01 = *reinterpret_cast<const v8_unaligned*>(a + 8);
      v8 t10 = *reinterpret_cast<const v8_unaligned*>(a + ldacc);
      v8 t11 = *reinterpret_cast<const v8_unaligned*>(a + ldacc + 8);
      v8 t20 = *reinterpret_cast<const v8_unaligned*>(a + 2 * ldacc);
      v8 t21 = *reinterpret_cast<const v8_unaligned*>(a + 2 * ldacc + 8);
      v8 t30 = *reinterpret_cast<const v8_unaligned*>(a + 3 * ldacc);
      v8 t31 = *reinterpret_cast<const v8_unaligned*>(a + 3 * ldacc + 8);
      const double* row = M + k0;
      for (std::size_t q = 0; q < Q; ++q, row += ldM) {
        const v8 m0 = *reinterpret_cast<const v8_unaligned*>(row);
        const v8 m1 = *reinterpret_cast<const v8_unaligned*>(row + 8);
        const double g0 = f0[q], g1 = f1[q], g2 = f2[q], g3 = f3[q];
        t00 += g0 * m0;
        t01 += g0 * m1;
        t10 += g1 * m0;
        t11 += g1 * m1;
        t20 += g2 * m0;
        t21 += g2 * m1;
        t30 += g3 * m0;
        t31 += g3 * m1;
      }
      *reinterpret_cast<v8_unaligned*>(a) = t00;
      *reinterpret_cast<v8_unaligned*>(a + 8) = t01;
      *reinterpret_cast<v8_unaligned*>(a + ldacc) = t10;
      *reinterpret_cast<v8_unaligned*>(a + ldacc + 8) = t11;
      *reinterpret_cast<v8_unaligned*>(a + 2 * ldacc) = t20;
      *reinterpret_cast<v8_unaligned*>(a + 2 * ldacc + 8) = t21;
      *reinterpret_cast<v8_unaligned*>(a + 3 * ldacc) = t30;
      *reinterpret_cast<v8_unaligned*>(a + 3 * ldacc + 8) = t31;
    }
    for (; b0 < nb; ++b0) {  // single remaining shapes
      const double* f = F + b0 * ldF;
      double* a = acc + b0 * ldacc + k0;
      v8 t0 = *reinterpret_cast<const v8_unaligned*>(a), t1 = *reinterpret_cast<const v8_unaligned*>(a + 8);
      const double* row = M + k0;
      for (std::size_t q = 0; q < Q; ++q, row += ldM) {
        t0 += f[q] * *reinterpret_cast<const v8_unaligned*>(row);
        t1 += f[q] * *reinterpret_cast<const v8_unaligned*>(row + 8);
      }
      *reinterpret_cast<v8_unaligned*>(a) = t0;
      *reinterpret_cast<v8_unaligned*>(a + 8) = t1;
    }
  }
  for (; k0 + 8 <= K; k0 += 8) {
    std::size_t b0 = 0;
    for (; b0 + BT <= nb; b0 += BT) {
      const double* f0 = F + b0 * ldF;
      const double* f1 = f0 + ldF;
      const double* f2 = f1 + ldF;
      const double* f3 = f2 + ldF;
      double* a = acc + b0 * ldacc + k0;
      v8 t0 = *reinterpret_cast<const v8_unaligned*>(a);
      v8 t1 = *reinterpret_cast<const v8_unaligned*>(a + ldacc);
      v8 t2 = *reinterpret_cast<const v8_unaligned*>(a + 2 * ldacc);
      v8 t3 = *reinterpret_cast<const v8_unaligned*>(a + 3 * ldacc);
      const double* row = M + k0;
      for (std::size_t q = 0; q < Q; ++q, row += ldM) {
        const v8 m0 = *reinterpret_cast<const v8_unaligned*>(row);
        t0 += f0[q] * m0;
        t1 += f1[q] * m0;
        t2 += f2[q] * m0;
        t3 += f3[q] * m0;
      }
      *reinterpret_cast<v8_unaligned*>(a) = t0;
      *reinterpret_cast<v8_unaligned*>(a + ldacc) = t1;
      *reinterpret_cast<v8_unaligned*>(a + 2 * ldacc) = t2;
      *reinterpret_cast<v8_unaligned*>(a + 3 * ldacc) = t3;
    }
    for (; b0 < nb; ++b0) {
      const double* f = F + b0 * ldF;
      double* a = acc + b0 * ldacc + k0;
      v8 t0 = *reinterpret_cast<const v8_unaligned*>(a);
      const double* row = M + k0;
      for (std::size_t q = 0; q < Q; ++q, row += ldM) t0 += f[q] * *reinterpret_cast<const v8_unaligned*>(row);
      *reinterpret_cast<v8_unaligned*>(a) = t0;
    }
  }
  if (k0 < K) detail::product_edge(nb, K - k0, Q, F, ldF, M + k0, ldM, acc + k0, ldacc);
}

#else

[[maybe_unused]] static void accumulate_product(std::size_t nb, std::size_t Q, std::size_t K, const double* F, std::size_t ldF,
                               const double* M, std::size_t ldM, double* acc, std::size_t ldacc) {
  detail::product_edge(nb, K, Q, F, ldF, M, ldM, acc, ldacc);
}

#endif

}  // namespace paperkernels::shapes
