// acc (nb x K) += F (nb x Q) * M (Q x K), the one dense product behind the Cartesian moments, the
// polar moments and the synthesis of fields. Each output is a single running sum taken over
// q = 0, 1, ..., Q-1 in order: the kernel only vectorises across outputs, never across q, so every
// output is bit-identical whatever the tiling, the batch split, the thread count or the instruction
// set (simd.hpp; -ffp-contract=off keeps multiplies and adds separate under all of them).
//
// It is organised like a GEMM micro-kernel: a register tile of MR rows of F times NV vectors of
// columns of M lives in the vector registers for the whole sweep over q, reading one row of the
// tile's columns of M (which stay in L1 while the row tiles take turns) and MR values of F per q.
#pragma once

#include <algorithm>
#include <cstddef>

#include "paperkernels/common/simd.hpp"

PAPERKERNELS_PSABI_OFF

namespace paperkernels::shapes {

namespace detail {

// Columns per panel of a matrix stored in panels (PanelProduct).
constexpr std::size_t kPanel = 8;

// Scalar outputs (the columns that fill no vector): the same operations as a lane of a tile.
inline void product_edge(std::size_t bn, std::size_t kn, std::size_t Q, const double* F, std::size_t ldF,
                         const double* M, std::size_t ldM, double* acc, std::size_t ldacc) noexcept {
  for (std::size_t b = 0; b < bn; ++b)
    for (std::size_t k = 0; k < kn; ++k) {
      double sum = acc[b * ldacc + k];
      for (std::size_t q = 0; q < Q; ++q) sum += F[b * ldF + q] * M[q * ldM + k];
      acc[b * ldacc + k] = sum;
    }
}

// Register tile by instruction set: MR rows x NV vectors of accumulators, plus NV vectors of M and
// one broadcast value, within the 16 (32) vector registers.
template <simd::Isa I>
constexpr int product_rows = I == simd::Isa::avx512 ? 8 : 6;
template <simd::Isa I>
constexpr int product_vectors = 2;

// Where the tile's columns of M are: vector v of row q at M + q * ldq + v * vstep (row-major M:
// ldq = ldM, vstep = W; M in panels of 8 columns: ldq = 8, vstep = W within a panel or the panel
// size across panels).
struct Columns {
  std::size_t ldq, vstep;
};

// One MR x (NV W) tile of acc over all q.
template <simd::Isa I, int MR, int NV>
PAPERKERNELS_ALWAYS_INLINE void product_tile(std::size_t Q, const double* F, std::size_t ldF, const double* M,
                                             Columns cols, double* acc, std::size_t ldacc) noexcept {
  constexpr int W = simd::width<I>;
  using V = simd::vec<I>;
  V t[MR][NV];
  for (int r = 0; r < MR; ++r)
    for (int v = 0; v < NV; ++v) t[r][v] = simd::load<W>(acc + r * ldacc + v * W);
  for (std::size_t q = 0; q < Q; ++q, M += cols.ldq) {
    V m[NV];
    for (int v = 0; v < NV; ++v) m[v] = simd::load<W>(M + v * cols.vstep);
    for (int r = 0; r < MR; ++r) {
      const double g = F[r * ldF + q];  // vector-scalar products broadcast the scalar
      for (int v = 0; v < NV; ++v) t[r][v] += g * m[v];
    }
  }
  for (int r = 0; r < MR; ++r)
    for (int v = 0; v < NV; ++v) simd::store<W>(acc + r * ldacc + v * W, t[r][v]);
}

// The last rows < MR of a column tile, with a tile of exactly that height.
template <simd::Isa I, int NV, int MR>
PAPERKERNELS_ALWAYS_INLINE void product_few_rows(std::size_t rows, std::size_t Q, const double* F, std::size_t ldF,
                                                 const double* M, Columns cols, double* acc,
                                                 std::size_t ldacc) noexcept {
  if constexpr (MR > 0) {
    if (rows == MR)
      product_tile<I, MR, NV>(Q, F, ldF, M, cols, acc, ldacc);
    else
      product_few_rows<I, NV, MR - 1>(rows, Q, F, ldF, M, cols, acc, ldacc);
  }
}

// Columns [k0, k0 + NV W) of every row.
template <simd::Isa I, int NV>
PAPERKERNELS_ALWAYS_INLINE void product_column_tile(std::size_t nb, std::size_t Q, const double* F, std::size_t ldF,
                                                    const double* M, Columns cols, double* acc,
                                                    std::size_t ldacc) noexcept {
  constexpr std::size_t MR = static_cast<std::size_t>(product_rows<I>);
  std::size_t b0 = 0;
  for (; b0 + MR <= nb; b0 += MR)
    product_tile<I, product_rows<I>, NV>(Q, F + b0 * ldF, ldF, M, cols, acc + b0 * ldacc, ldacc);
  if (b0 < nb)
    product_few_rows<I, NV, product_rows<I> - 1>(nb - b0, Q, F + b0 * ldF, ldF, M, cols, acc + b0 * ldacc, ldacc);
}

struct Product {
  template <simd::Isa I>
  PAPERKERNELS_ALWAYS_INLINE static void run(std::size_t nb, std::size_t Q, std::size_t K, const double* F,
                                             std::size_t ldF, const double* M, std::size_t ldM, double* acc,
                                             std::size_t ldacc) noexcept {
    constexpr std::size_t W = static_cast<std::size_t>(simd::width<I>);
    constexpr std::size_t KT = W * static_cast<std::size_t>(product_vectors<I>);
    std::size_t k0 = 0;
    const Columns cols{ldM, W};
    for (; k0 + KT <= K; k0 += KT)
      product_column_tile<I, product_vectors<I>>(nb, Q, F, ldF, M + k0, cols, acc + k0, ldacc);
    for (; k0 + W <= K; k0 += W) product_column_tile<I, 1>(nb, Q, F, ldF, M + k0, cols, acc + k0, ldacc);
    if (k0 < K) product_edge(nb, K - k0, Q, F, ldF, M + k0, ldM, acc + k0, ldacc);
  }
};

// The same product with M stored in panels of 8 columns (K a multiple of 8): panel j holds
// columns 8j .. 8j + 7 of all Q rows, row after row, at M + 8 j Q. Every tile then streams through
// contiguous memory.
struct PanelProduct {
  template <simd::Isa I>
  PAPERKERNELS_ALWAYS_INLINE static void run(std::size_t nb, std::size_t Q, std::size_t K, const double* F,
                                             std::size_t ldF, const double* M, double* acc,
                                             std::size_t ldacc) noexcept {
    constexpr std::size_t W = static_cast<std::size_t>(simd::width<I>);
    constexpr std::size_t KT = W * static_cast<std::size_t>(product_vectors<I>);
    static_assert(kPanel % W == 0, "a vector lies within one panel");
    const Columns cols{kPanel, W == kPanel ? kPanel * Q : W};
    const auto at = [M, Q](std::size_t k0) { return M + (k0 / kPanel) * kPanel * Q + k0 % kPanel; };
    std::size_t k0 = 0;
    for (; k0 + KT <= K; k0 += KT)
      product_column_tile<I, product_vectors<I>>(nb, Q, F, ldF, at(k0), cols, acc + k0, ldacc);
    for (; k0 + W <= K; k0 += W) product_column_tile<I, 1>(nb, Q, F, ldF, at(k0), cols, acc + k0, ldacc);
  }
};

}  // namespace detail

using detail::kPanel;

// acc += F * M with M in panels of kPanel columns (see PanelProduct; K a multiple of kPanel).
inline void accumulate_panels(std::size_t nb, std::size_t Q, std::size_t K, const double* F, std::size_t ldF,
                              const double* M, double* acc, std::size_t ldacc) {
  simd::dispatch<detail::PanelProduct>(simd::active(), nb, Q, K, F, ldF, M, acc, ldacc);
}

// Under the instruction set in use (simd::active()).
inline void accumulate_product(std::size_t nb, std::size_t Q, std::size_t K, const double* F, std::size_t ldF,
                               const double* M, std::size_t ldM, double* acc, std::size_t ldacc) {
  simd::dispatch<detail::Product>(simd::active(), nb, Q, K, F, ldF, M, ldM, acc, ldacc);
}

}  // namespace paperkernels::shapes

PAPERKERNELS_PSABI_ON
