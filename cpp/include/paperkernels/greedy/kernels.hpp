// The SIMD kernels of the greedy learners (see ensemble.hpp), each written once for every vector
// width and dispatched through simd.hpp: dot products of short and long vectors, the eager row
// update of R and the criteria of a batch of candidates. Every kernel spreads independent sums
// across the lanes of its vectors and keeps each sum in a fixed order, so every instruction set
// returns the same bits.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "paperkernels/common/errors.hpp"
#include "paperkernels/common/simd.hpp"

PAPERKERNELS_PSABI_OFF

namespace paperkernels::greedy {

// Dot product of short vectors (columns of R, length < k): four interleaved partial sums
// combined in a fixed order, so the result is deterministic for a given build.
inline double dot(const double* a, const double* b, std::size_t n) noexcept {
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    s0 += a[i] * b[i];
    s1 += a[i + 1] * b[i + 1];
    s2 += a[i + 2] * b[i + 2];
    s3 += a[i + 3] * b[i + 3];
  }
  for (; i < n; ++i) s0 += a[i] * b[i];
  return (s0 + s1) + (s2 + s3);
}

// Dot products of long vectors (rows of the data, length n) with one x, R rows at a time (x read
// once): eight partial sums per product, partial sum l accumulating the elements i = l (mod 8) in
// order, combined as ((s0 + s1) + (s2 + s3)) + tail with s_l = partial_l + partial_{l+4}. The
// partial sums live in 8 / W vectors of W lanes, so every vector width returns the same bits, and
// an entry does not depend on how many rows were computed with it.
template <int W, int R>
PAPERKERNELS_ALWAYS_INLINE void dot_rows_w(const double* const* rows, const double* x, std::size_t n,
                                           double* out) noexcept {
  using V = typename simd::Vec<W>::type;
  constexpr int A = 8 / W;  // vectors per product
  V acc[R][A];
  for (int r = 0; r < R; ++r)
    for (int a = 0; a < A; ++a) acc[r][a] = V{};
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    V xv[A];
    for (int a = 0; a < A; ++a) {
      xv[a] = simd::load<W>(x + i + a * W);
      PAPERKERNELS_IN_REGISTER(xv[a]);
    }
    for (int r = 0; r < R; ++r)
      for (int a = 0; a < A; ++a) acc[r][a] += simd::load<W>(rows[r] + i + a * W) * xv[a];
  }
  for (int r = 0; r < R; ++r) {
    double partial[8];
    for (int a = 0; a < A; ++a) simd::store<W>(partial + a * W, acc[r][a]);
    double tail = 0.0;
    for (std::size_t j = i; j < n; ++j) tail += rows[r][j] * x[j];
    const double s0 = partial[0] + partial[4], s1 = partial[1] + partial[5];
    const double s2 = partial[2] + partial[6], s3 = partial[3] + partial[7];
    out[r] = ((s0 + s1) + (s2 + s3)) + tail;
  }
}

// Dot products of every data row rows[0..n_rows) with every candidate cands[0..n_cands) (all of
// length n), into out[c][r]: the Gram entries a learner needs for a batch of new candidates. Each
// entry is the dot product of dot_rows_w above, bit for bit (the same eight partial sums, each in
// order, combined the same way), computed as a small matrix product blocked for the caches: groups
// of kGramCands candidates pass over the samples in chunks of kGramChunk, within which a tile of
// rows x candidates keeps its partial sums in registers (each loaded vector serves several
// products) while the rows' chunk stays in L1 for every tile of the group. The partial sums wait
// between chunks in `partial` (kGramRows x kGramCands x 8 values). The candidates' data come from
// memory, which takes longer than the arithmetic unless there are many rows: while a group is
// computed, its first row tiles prefetch the next group's data at the same pace (the first group
// prefetches its own, a few chunks ahead).
inline constexpr std::size_t kGramChunk = 128;  // samples per chunk (a multiple of 8)
inline constexpr std::size_t kGramRows = 24;    // rows per pass over the samples
inline constexpr std::size_t kGramCands = 8;    // candidates per pass over the samples
inline constexpr std::size_t kGramPartial = kGramRows * kGramCands * 8;

// Rows x candidates held in registers, by vector width (partial sums: rows * cands * 8 / W vectors).
template <int W>
struct GramTile {
  static constexpr int rows = W == 8 ? 4 : 3;
  static constexpr int cands = W == 8 ? 4 : 3;
};

// Samples [lo, hi) of the products of rows[0..R) with cands[0..C), partial sums of product (r, c) at
// partial + (c * stride + r) * 8. Prefetches sample i of prefetch[0..n_prefetch) along the way.
// Narrower vectors than the eight partial sums of a product take them in 8 / W passes over the
// samples (the chunk is in L1), so that the register tile holds one vector per product.
template <int W, int R, int C>
PAPERKERNELS_ALWAYS_INLINE void gram_tile(const double* const* rows, const double* const* cands, std::size_t lo,
                                          std::size_t hi, double* partial, std::size_t stride,
                                          const double* const* prefetch, int n_prefetch) noexcept {
  using V = typename simd::Vec<W>::type;
  for (int a = 0; a < 8 / W; ++a) {  // lanes a W .. a W + W - 1 of the partial sums
    V acc[R][C];
    for (int r = 0; r < R; ++r)
      for (int c = 0; c < C; ++c) acc[r][c] = simd::load<W>(partial + (c * stride + r) * 8 + a * W);
    const std::size_t offset = static_cast<std::size_t>(a) * W;
    for (std::size_t i = lo; i < hi; i += 8) {
      if (a == 0)
        for (int q = 0; q < n_prefetch; ++q) __builtin_prefetch(prefetch[q] + i, 0, 1);
      V cv[C];
      for (int c = 0; c < C; ++c) cv[c] = simd::load<W>(cands[c] + i + offset);
      for (int r = 0; r < R; ++r) {
        V rv = simd::load<W>(rows[r] + i + offset);
        PAPERKERNELS_IN_REGISTER(rv);
        for (int c = 0; c < C; ++c) acc[r][c] += rv * cv[c];
      }
    }
    for (int r = 0; r < R; ++r)
      for (int c = 0; c < C; ++c) simd::store<W>(partial + (c * stride + r) * 8 + a * W, acc[r][c]);
  }
}

// gram_tile with R <= GramTile<W>::rows and C <= GramTile<W>::cands chosen at run time.
template <int W, int R = GramTile<W>::rows, int C = GramTile<W>::cands>
PAPERKERNELS_ALWAYS_INLINE void gram_tile_any(int r, int c, const double* const* rows, const double* const* cands,
                                              std::size_t lo, std::size_t hi, double* partial, std::size_t stride,
                                              const double* const* prefetch, int n_prefetch) noexcept {
  if constexpr (R > 1) {
    if (r < R) return gram_tile_any<W, R - 1, C>(r, c, rows, cands, lo, hi, partial, stride, prefetch, n_prefetch);
  }
  if constexpr (C > 1) {
    if (c < C) return gram_tile_any<W, R, C - 1>(r, c, rows, cands, lo, hi, partial, stride, prefetch, n_prefetch);
  }
  gram_tile<W, R, C>(rows, cands, lo, hi, partial, stride, prefetch, n_prefetch);
}

template <int W>
PAPERKERNELS_ALWAYS_INLINE void gram_block_w(const double* const* rows, std::size_t n_rows, const double* const* cands,
                                             std::size_t n_cands, std::size_t n, double* partial,
                                             double* const* out) noexcept {
  constexpr std::size_t TR = GramTile<W>::rows, TC = GramTile<W>::cands;
  constexpr std::size_t ahead = 2 * kGramChunk;  // the first group's prefetch distance, in samples
  const std::size_t n8 = n - n % 8;
  const std::size_t first_ahead = std::min(ahead, n8);
  for (std::size_t c = 0; c < std::min(kGramCands, n_cands); ++c)  // the first chunks of the first group
    for (std::size_t i = 0; i < first_ahead; i += 8) __builtin_prefetch(cands[c] + i, 0, 1);
  for (std::size_t c0 = 0; c0 < n_cands; c0 += kGramCands) {
    const std::size_t nc = std::min(kGramCands, n_cands - c0);
    const double* const* cand = cands + c0;
    for (std::size_t r0 = 0; r0 < n_rows; r0 += kGramRows) {
      const std::size_t nr = std::min(kGramRows, n_rows - r0);
      std::fill(partial, partial + nr * nc * 8, 0.0);
      for (std::size_t lo = 0; lo < n8; lo += kGramChunk) {
        const std::size_t hi = std::min(lo + kGramChunk, n8);
        for (std::size_t c = 0; c < nc; c += TC) {
          const int tc = static_cast<int>(std::min(TC, nc - c));
          // What this tile prefetches (on its first row tile of the first pass over the samples):
          // the next group's candidates in the same positions and, in the first group, its own
          // candidates `ahead` samples further on.
          const double* prefetch[2 * TC];
          int n_prefetch = 0;
          if (r0 == 0) {
            for (std::size_t q = c; q < c + tc && c0 + kGramCands + q < n_cands; ++q)
              prefetch[n_prefetch++] = cands[c0 + kGramCands + q];
            if (c0 == 0 && lo + ahead < n8)
              for (std::size_t q = c; q < c + tc; ++q) prefetch[n_prefetch++] = cand[q] + ahead;
          }
          for (std::size_t r = 0; r < nr;) {
            // Full tiles, but no single-row tile after them (one row does not fill the tile):
            // the last TR + 1 rows go as two smaller tiles.
            std::size_t rows_left = nr - r, take = std::min(TR, rows_left);
            if (TR > 2 && rows_left == TR + 1) take = (TR + 1) / 2;
            const int tr = static_cast<int>(take);
            gram_tile_any<W>(tr, tc, rows + r0 + r, cand + c, lo, hi, partial + (c * nr + r) * 8, nr, prefetch,
                             r == 0 ? n_prefetch : 0);
            r += take;
          }
        }
      }
      for (std::size_t c = 0; c < nc; ++c) {
        for (std::size_t r = 0; r < nr; ++r) {
          const double* p = partial + (c * nr + r) * 8;
          const double* row = rows[r0 + r];
          double tail = 0.0;
          for (std::size_t j = n8; j < n; ++j) tail += row[j] * cand[c][j];
          const double s0 = p[0] + p[4], s1 = p[1] + p[5], s2 = p[2] + p[6], s3 = p[3] + p[7];
          out[c0 + c][r0 + r] = ((s0 + s1) + (s2 + s3)) + tail;
        }
      }
    }
  }
}

// One entry j of the eager row update below, in scalar arithmetic: the same operations as a lane
// of its vectors.
inline void eager_entry(const double* g, double* rows, const double* coefs, std::size_t t, std::size_t p, double inv,
                        double z, double* c, double* d, std::size_t j) noexcept {
  double acc = g[j];
  for (std::size_t u = 0; u < t; ++u) acc -= coefs[u] * rows[u * p + j];
  const double r = acc * inv;
  rows[t * p + j] = r;
  c[j] -= z * r;
  d[j] -= r * r;
}

// The eager row update (the hot loop of dense fits): with rows = R (row-major, p columns),
//   row_t = (g - sum_{u<t} coefs[u] rows[u]) * inv,   c -= z row_t,   d -= row_t^2.
// Blocks of 4 vectors of W features keep their partial sums in registers while the t earlier rows
// stream past. Only element-wise IEEE operations (no contraction, no reassociation), so the vector
// width picked at load time (AVX-512, AVX2 or the SSE2 baseline) never changes the bits.
// The loop is bound by the earlier rows coming from L2 (R outgrows L1 at a few hundred features):
// at p = 500 it runs as fast under AVX2 as under AVX-512. Measured the same or slower there: 2, 3,
// 6 or 8 vectors per block, software prefetch, R stored in tiles of 16 features, alternating the
// direction over the features from step to step, and two rows per pass over the earlier ones (the
// first row meanwhile computed for the next step's candidates alone, whose gathered loads cost
// what the shared pass saves).
template <int W>
PAPERKERNELS_ALWAYS_INLINE void eager_update_w(const double* g, double* rows, const double* coefs, std::size_t t,
                                               std::size_t p, double inv, double z, double* c, double* d) noexcept {
  using V = typename simd::Vec<W>::type;
  constexpr int NV = 4;  // vectors in flight (more do not help: the rows stream from L2)
  constexpr std::size_t block = NV * W;
  double* row = rows + t * p;
  std::size_t lo = 0;
  for (; lo + block <= p; lo += block) {
    V acc[NV];
    for (int v = 0; v < NV; ++v) acc[v] = simd::load<W>(g + lo + v * W);
    for (std::size_t u = 0; u < t; ++u) {
      const double coef = coefs[u];  // vector-scalar operations broadcast the scalar
      const double* previous = rows + u * p + lo;
      for (int v = 0; v < NV; ++v) acc[v] -= coef * simd::load<W>(previous + v * W);
    }
    for (int v = 0; v < NV; ++v) {
      const V r = acc[v] * inv;
      const std::size_t at = lo + v * W;
      simd::store<W>(row + at, r);
      simd::store<W>(c + at, simd::load<W>(c + at) - z * r);
      simd::store<W>(d + at, simd::load<W>(d + at) - r * r);
    }
  }
  for (; lo + W <= p; lo += W) {
    V a = simd::load<W>(g + lo);
    for (std::size_t u = 0; u < t; ++u) a -= coefs[u] * simd::load<W>(rows + u * p + lo);
    const V r = a * inv;
    simd::store<W>(row + lo, r);
    simd::store<W>(c + lo, simd::load<W>(c + lo) - z * r);
    simd::store<W>(d + lo, simd::load<W>(d + lo) - r * r);
  }
  for (; lo < p; ++lo) eager_entry(g, rows, coefs, t, p, inv, z, c, d, lo);
}

// The criteria of candidates cand[0..count) into crit, and their maximum (-1 if none is valid). A
// candidate with d_j <= tol ||x_j||^2 is (nearly) in the active span: invalid, criterion -1. W
// candidates at a time (gathered), each with exactly the scalar arithmetic.
template <int W>
PAPERKERNELS_ALWAYS_INLINE double criteria_w(const std::uint32_t* cand, std::size_t count, const double* c,
                                             const double* d, const double* col_sq, double tol, bool omp,
                                             double* crit) noexcept {
  using V = typename simd::Vec<W>::type;
  const V minus_one = V{} - 1.0;
  V top = minus_one;
  std::size_t i = 0;
  for (; i + W <= count; i += W) {
    V cv, dv, qv;
    for (int l = 0; l < W; ++l) {
      const std::uint32_t j = cand[i + l];
      cv[l] = c[j];
      dv[l] = d[j];
      qv[l] = col_sq[j];
    }
    const auto valid = dv > tol * qv;
    const V value = omp ? (cv < 0.0 ? -cv : cv) : cv * cv / dv;
    const V r = valid ? value : minus_one;
    simd::store<W>(crit + i, r);
    top = r > top ? r : top;
  }
  double best = -1.0;
  for (int l = 0; l < W; ++l) best = top[l] > best ? top[l] : best;
  for (; i < count; ++i) {
    const std::uint32_t j = cand[i];
    const double cj = c[j], dj = d[j];
    crit[i] = dj > tol * col_sq[j] ? (omp ? std::fabs(cj) : cj * cj / dj) : -1.0;
    best = crit[i] > best ? crit[i] : best;
  }
  return best;
}

// The kernels above as simd kernels (see simd.hpp); a learner takes their variants for one
// instruction set (any gives the same bits).
struct EagerUpdate {
  template <simd::Isa I>
  PAPERKERNELS_ALWAYS_INLINE static void run(const double* g, double* rows, const double* coefs, std::size_t t,
                                             std::size_t p, double inv, double z, double* c, double* d) noexcept {
    eager_update_w<simd::width<I>>(g, rows, coefs, t, p, inv, z, c, d);
  }
};
struct Criteria {
  template <simd::Isa I>
  PAPERKERNELS_ALWAYS_INLINE static double run(const std::uint32_t* cand, std::size_t count, const double* c,
                                               const double* d, const double* col_sq, double tol, bool omp,
                                               double* crit) noexcept {
    return criteria_w<simd::width<I>>(cand, count, c, d, col_sq, tol, omp, crit);
  }
};
struct GramBlock {
  template <simd::Isa I>
  PAPERKERNELS_ALWAYS_INLINE static void run(const double* const* rows, std::size_t n_rows, const double* const* cands,
                                             std::size_t n_cands, std::size_t n, double* partial,
                                             double* const* out) noexcept {
    gram_block_w<simd::width<I>>(rows, n_rows, cands, n_cands, n, partial, out);
  }
};
template <int R>
struct DotRows {
  template <simd::Isa I>
  PAPERKERNELS_ALWAYS_INLINE static void run(const double* const* rows, const double* x, std::size_t n,
                                             double* out) noexcept {
    dot_rows_w<simd::width<I>, R>(rows, x, n, out);
  }
};

struct Kernels {
  decltype(simd::entry<EagerUpdate, const double*, double*, const double*, std::size_t, std::size_t, double, double,
                       double*, double*>(simd::Isa::sse2)) eager_update;
  decltype(simd::entry<Criteria, const std::uint32_t*, std::size_t, const double*, const double*, const double*, double,
                       bool, double*>(simd::Isa::sse2)) criteria;
  decltype(simd::entry<DotRows<4>, const double* const*, const double*, std::size_t, double*>(
      simd::Isa::sse2)) dot_rows4;
  decltype(simd::entry<DotRows<1>, const double* const*, const double*, std::size_t, double*>(
      simd::Isa::sse2)) dot_rows1;
  decltype(simd::entry<GramBlock, const double* const*, std::size_t, const double* const*, std::size_t, std::size_t,
                       double*, double* const*>(simd::Isa::sse2)) gram_block;
};

inline Kernels kernels_for(simd::Isa isa) {
  require(simd::supported(isa), std::string("isa: this CPU does not support '") + simd::name(isa) + "'");
  return Kernels{simd::entry<EagerUpdate, const double*, double*, const double*, std::size_t, std::size_t, double,
                             double, double*, double*>(isa),
                 simd::entry<Criteria, const std::uint32_t*, std::size_t, const double*, const double*, const double*,
                             double, bool, double*>(isa),
                 simd::entry<DotRows<4>, const double* const*, const double*, std::size_t, double*>(isa),
                 simd::entry<DotRows<1>, const double* const*, const double*, std::size_t, double*>(isa),
                 simd::entry<GramBlock, const double* const*, std::size_t, const double* const*, std::size_t,
                             std::size_t, double*, double* const*>(isa)};
}

}  // namespace paperkernels::greedy

PAPERKERNELS_PSABI_ON
