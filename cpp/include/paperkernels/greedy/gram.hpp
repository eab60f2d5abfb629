// The centred Gram matrix X_c^T X_c and the vector X_c^T y_c of a dense design, computed by our own
// kernels rather than by BLAS so that every entry has one definition, whatever the machine's BLAS,
// its thread count or ours:
//   G[i][j] = sum over samples s = 0, 1, ..., n - 1, in that order, of (x_si - mu_i) * (x_sj - mu_j),
// each term added by a fused multiply-add (one rounding) under AVX2 and AVX-512, by a rounded product
// then a rounded sum under the SSE2 baseline (which has no FMA).
//
// The computation is a GEMM-style loop nest (Goto and van de Geijn, "Anatomy of High-Performance
// Matrix Multiplication", ACM TOMS 34(3), 2008, sections 4-6) restricted to the upper triangle:
//  - tasks own groups of tile rows; each sweeps the samples block by block, packing the centred
//    values of the block that it needs into panels of NR features in a buffer of its own (a few
//    hundred KiB, reused for every block, so it stays in L2);
//  - a register-blocked micro-kernel accumulates an MR x NR tile of G in MR * NR / W vector
//    registers over the samples of a block (vectors run across features, one lane per entry, the
//    MR row values broadcast from memory), then stores the tile back;
//  - each task accumulates into its own strip, so the result does not depend on the number of
//    threads; the lower triangle is mirrored at the end.
// Every lane adds its terms in sample order and a tile is stored exactly between blocks, so neither
// the thread count, the vector width, the tile shape nor the blocking changes the bits: AVX2 and
// AVX-512 return identical bits, and so does SSE2 on every machine.
//
// Across the two kinds of instruction set (FMA: avx2, avx512; no FMA: sse2) entries differ by
// rounding only. Both are in-order sums of n rounded terms, each within gamma_n = n u / (1 - n u)
// (u = 2^-53) times sum_s |x_si - mu_i| |x_sj - mu_j| of the exact value (Higham, "Accuracy and
// Stability of Numerical Algorithms", 2nd ed., section 3.1), so two instruction sets differ by at most
//   |G_avx2[i][j] - G_sse2[i][j]| <= 2 gamma_n sqrt(G[i][i] G[j][j])   (Cauchy-Schwarz),
// about 2 n u relative to the scale of the entry; typical differences are near sqrt(n) u. FMA
// doubles the arithmetic rate of CPUs whose adds share the multiply ports (Intel's AVX2 cores),
// which is why the fast kernels use it.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <memory>
#include <vector>

#include "paperkernels/common/errors.hpp"
#include "paperkernels/common/parallel.hpp"
#include "paperkernels/common/simd.hpp"

PAPERKERNELS_PSABI_OFF

namespace paperkernels::greedy {

namespace gram_detail {

// Samples per block: the packed block (kBlock x padded doubles, 500 KiB for p = 500) stays in L2
// while the tile rows of a task sweep it.
constexpr std::size_t kBlock = 128;
// Tasks per thread (more than one, so that the threads finish together), and the most a task's
// strip of the result may hold. Each task packs the columns it needs from its first tile row on,
// so fewer, larger tasks pack less: one task per thread would be best but for the balance.
constexpr std::size_t kTasksPerThread = 4;
constexpr std::size_t kMaxStripBytes = std::size_t{8} << 20;

// Everything one kernel variant needs: panel width NR = W * NV, row block MR (a divisor of NR).
// panels cover the p features (and the extra column, if any); padded = panels * nr.
struct Layout {
  std::size_t nr, mr, n, p, panels, padded;

  // Samples in block b: blocks of kBlock samples, the last one shorter.
  std::size_t rows(std::size_t b) const noexcept { return std::min(kBlock, n - b * kBlock); }
  std::size_t blocks() const noexcept { return (n + kBlock - 1) / kBlock; }
};

// The data one task reads, packed block of samples by block of samples into a buffer of its own
// (kBlock x (padded - first_panel * NR) doubles, reused for every block, so it stays in L2):
//   packed[((q - first_panel) * rows(b) + s) * NR + l] = x[b * kBlock + s][q * NR + l] - mu
// for the panels q >= first_panel (0 beyond the last feature; with an extra column, column p holds
// extra[sample] as given).
struct Source {
  const double *x, *mean, *extra;
};

template <std::size_t NR>
PAPERKERNELS_ALWAYS_INLINE void pack_block(const Source& src, const Layout& L, std::size_t b, std::size_t first_panel,
                                           double* packed) noexcept {
  const std::size_t rows = L.rows(b), full = L.p / NR;  // panels [first_panel, full) hold NR features
  for (std::size_t s = 0; s < rows; ++s) {
    const std::size_t sample = b * kBlock + s;
    const double* row = src.x + sample * L.p;
    double* out = packed + s * NR;
    for (std::size_t q = first_panel; q < L.panels; ++q, out += rows * NR) {
      const std::size_t first = q * NR;
      if (q < full) {
        if (src.mean)
          for (std::size_t l = 0; l < NR; ++l) out[l] = row[first + l] - src.mean[first + l];
        else
          for (std::size_t l = 0; l < NR; ++l) out[l] = row[first + l];
        continue;
      }
      const std::size_t width = L.p > first ? L.p - first : 0;
      for (std::size_t l = 0; l < NR; ++l) out[l] = 0.0;
      if (src.mean)
        for (std::size_t l = 0; l < width; ++l) out[l] = row[first + l] - src.mean[first + l];
      else
        for (std::size_t l = 0; l < width; ++l) out[l] = row[first + l];
      if (src.extra && first <= L.p && L.p < first + NR) out[L.p - first] = src.extra[sample];
    }
  }
}

// The micro-kernel: C[r][v] += A[s][r] * B[s][v] for the samples of one block, in sample order, C
// an MR x NR tile of the task's strip (leading dimension ldc), A the MR row values of each sample at
// stride NR (they live inside a packed panel), B a packed panel of NR features. The MR x NV
// accumulators stay in registers (with FMA no product needs a register of its own); each sample
// loads NV vectors of B and broadcasts MR values of A.
template <simd::Isa I, int MR, int NV>
PAPERKERNELS_ALWAYS_INLINE void tile(const double* a, const double* b, std::size_t samples, double* c,
                                     std::size_t ldc) noexcept {
  constexpr int W = simd::width<I>, NR = W * NV;
  using V = simd::vec<I>;
  V acc[MR][NV];
  for (int r = 0; r < MR; ++r)
    for (int v = 0; v < NV; ++v) acc[r][v] = simd::load<W>(c + r * ldc + v * W);
  for (std::size_t s = 0; s < samples; ++s) {
    V bv[NV];
    for (int v = 0; v < NV; ++v) bv[v] = simd::load<W>(b + s * NR + v * W);
    for (int r = 0; r < MR; ++r) {
      const V x = simd::broadcast<I>(a + s * NR + r);
      for (int v = 0; v < NV; ++v) acc[r][v] = simd::mul_add<I>(x, bv[v], acc[r][v]);
    }
  }
  for (int r = 0; r < MR; ++r)
    for (int v = 0; v < NV; ++v) simd::store<W>(c + r * ldc + v * W, acc[r][v]);
}

// Tile shape by instruction set: MR rows x NV vectors of accumulators, within the vector registers
// (AVX2: 12 accumulators, 3 vectors of B and a broadcast fill the 16 registers; AVX-512: 24 + 3 + 1
// of 32).
template <simd::Isa I>
constexpr int tile_rows = I == simd::Isa::avx512 ? 8 : 4;
template <simd::Isa I>
constexpr int tile_vectors = I == simd::Isa::sse2 ? 2 : 3;

// One task: row blocks [first, last) of the upper triangle (tiles whose panel reaches the diagonal)
// over all samples, block of samples by block of samples (each packed into `packed` first), into
// c: rows first * MR, ... of the padded matrix. Returns early (c incomplete) when `token` asks to stop.
struct RowBlocks {
  template <simd::Isa I>
  PAPERKERNELS_ALWAYS_INLINE static void run(const Source* src, const Layout* layout, std::size_t first,
                                             std::size_t last, double* packed, double* c,
                                             const StopToken* token) noexcept {
    constexpr int MR = tile_rows<I>, NV = tile_vectors<I>;
    constexpr std::size_t NR = static_cast<std::size_t>(simd::width<I> * NV);
    const Layout& L = *layout;
    const std::size_t row0 = first * MR, first_panel = row0 / NR;
    for (std::size_t b = 0; b < L.blocks(); ++b) {
      if (token->stop_requested()) return;
      const std::size_t samples = L.rows(b);
      pack_block<NR>(*src, L, b, first_panel, packed);
      for (std::size_t rb = first; rb < last; ++rb) {
        const std::size_t i0 = rb * MR, own_panel = i0 / NR;
        const double* a = packed + (own_panel - first_panel) * samples * NR + (i0 - own_panel * NR);
        for (std::size_t q = own_panel; q < L.panels; ++q)
          tile<I, MR, NV>(a, packed + (q - first_panel) * samples * NR, samples, c + (i0 - row0) * L.padded + q * NR,
                          L.padded);
      }
    }
  }
};

// Rows [first, last) of the strictly lower triangle of the p x p matrix g from its upper triangle,
// in square tiles so that the column reads stay in cache.
inline void mirror_rows(double* g, std::size_t p, std::size_t first, std::size_t last,
                        const StopToken& token) noexcept {
  constexpr std::size_t tile = 64;
  for (std::size_t j0 = 0; j0 < last; j0 += tile) {
    if (token.stop_requested()) return;
    const std::size_t j1 = std::min(last, j0 + tile);
    for (std::size_t i = std::max(first, j0 + 1); i < last; ++i) {
      double* row = g + i * p;
      const std::size_t end = std::min(j1, i);
      for (std::size_t j = j0; j < end; ++j) row[j] = g[j * p + i];
    }
  }
}

using simd::Isa;

template <Isa I>
constexpr std::size_t panel_width = static_cast<std::size_t>(simd::width<I>* tile_vectors<I>);

inline Layout layout_for(Isa isa, std::size_t n, std::size_t p, bool extra) noexcept {
  Layout L{};
  switch (isa) {
    case Isa::avx512:
      L.nr = panel_width<Isa::avx512>, L.mr = tile_rows<Isa::avx512>;
      break;
    case Isa::avx2:
      L.nr = panel_width<Isa::avx2>, L.mr = tile_rows<Isa::avx2>;
      break;
    default:
      L.nr = panel_width<Isa::sse2>, L.mr = tile_rows<Isa::sse2>;
      break;
  }
  L.n = n;
  L.p = p;
  const std::size_t columns = p + (extra ? 1 : 0);
  L.panels = (columns + L.nr - 1) / L.nr;
  L.padded = L.panels * L.nr;
  return L;
}

// The row blocks of the tasks: task i has row blocks [bounds[i], bounds[i + 1]). About
// kTasksPerThread tasks per thread of equal work (row block rb has as many tiles as panels from its
// own to the last), one task on one thread, none with a strip above kMaxStripBytes. Only the speed
// depends on this split: every entry is computed the same way whatever task holds it.
inline std::vector<std::size_t> task_bounds(const Layout& L, unsigned n_threads) {
  const std::size_t row_blocks = (L.p + L.mr - 1) / L.mr;
  const std::size_t max_blocks = std::max<std::size_t>(1, kMaxStripBytes / (L.mr * L.padded * sizeof(double)));
  auto tiles = [&](std::size_t rb) { return L.panels - rb * L.mr / L.nr; };
  std::size_t total = 0;
  for (std::size_t rb = 0; rb < row_blocks; ++rb) total += tiles(rb);
  const std::size_t wanted = n_threads <= 1 ? 1 : kTasksPerThread * n_threads;
  const std::size_t share = (total + wanted - 1) / wanted;
  std::vector<std::size_t> bounds{0};
  std::size_t work = 0;
  for (std::size_t rb = 0; rb < row_blocks; ++rb) {
    work += tiles(rb);
    if (rb + 1 < row_blocks && (work >= share || rb + 1 - bounds.back() >= max_blocks)) {
      bounds.push_back(rb + 1);
      work = 0;
    }
  }
  bounds.push_back(row_blocks);
  return bounds;
}

}  // namespace gram_detail

// gram (p x p, row-major) = X_c^T X_c with X row-major n x p and X_c = X - mean (mean == nullptr:
// X itself). Exactly symmetric; identical bits for any n_threads and on any x86-64 machine for a
// given instruction set (avx2 and avx512 agree bit for bit; sse2 within the bound above). With
// `extra` (length n, e.g. a centred response y), also extra_out = X_c^T extra, an extra column of
// the same computation, bit-identical to centred_xty under the same instruction set. The kernels
// run under simd::active().
inline void centred_gram(const double* x, std::size_t n, std::size_t p, const double* mean, double* gram,
                         unsigned n_threads, const Poll& poll, const double* extra = nullptr,
                         double* extra_out = nullptr) {
  using namespace gram_detail;
  require(n >= 1 && p >= 1, "X: expected at least one sample and one feature");
  const simd::Isa isa = simd::active();
  const Layout L = layout_for(isa, n, p, extra != nullptr);
  const Source src{x, mean, extra};

  // Tasks of consecutive row blocks, each packing the blocks of samples it needs and accumulating
  // into its own zeroed strip of the padded matrix, then copying its rows of the upper triangle
  // out. Each task writes its own rows only: the first touch of a large output's pages is spread
  // over the tasks, all of which poll.
  const std::vector<std::size_t> bounds = task_bounds(L, n_threads);
  parallel_for(
      bounds.size() - 1, n_threads,
      [&](std::size_t task, const StopToken& token) {
        const std::size_t first = bounds[task], last = bounds[task + 1];
        const std::size_t row0 = first * L.mr, rows = (last - first) * L.mr;
        std::unique_ptr<double[]> strip(new double[rows * L.padded]());
        std::unique_ptr<double[]> packed(new double[std::min(kBlock, n) * (L.padded - row0 / L.nr * L.nr)]);
        simd::dispatch<RowBlocks>(isa, &src, &L, first, last, packed.get(), strip.get(), &token);
        if (token.stop_requested()) return;  // parallel_for throws `interrupted`
        for (std::size_t i = row0; i < std::min(p, row0 + rows); ++i) {
          const double* row = strip.get() + (i - row0) * L.padded;
          std::copy(row + i, row + p, gram + i * p + i);
          if (extra) extra_out[i] = row[p];
        }
      },
      poll);

  // The lower triangle, mirrored from the upper one by blocks of rows.
  constexpr std::size_t mirror_rows_per_task = 64;
  parallel_for((p + mirror_rows_per_task - 1) / mirror_rows_per_task, n_threads,
               [&](std::size_t task, const StopToken& token) {
                 const std::size_t first = task * mirror_rows_per_task;
                 mirror_rows(gram, p, first, std::min(p, first + mirror_rows_per_task), token);
               },
               poll);
}

namespace gram_detail {

// centred_xty under instruction set I: the features in vectors, the samples in order.
struct Xty {
  template <simd::Isa I>
  PAPERKERNELS_ALWAYS_INLINE static void run(const double* x, std::size_t n, std::size_t p, const double* mean,
                                             const double* y, double* xty) noexcept {
    constexpr std::size_t W = static_cast<std::size_t>(simd::width<I>);
    const std::size_t vectors = p / W * W;
    std::fill(xty, xty + p, 0.0);
    for (std::size_t s = 0; s < n; ++s) {
      const double* row = x + s * p;
      const simd::vec<I> ys = simd::broadcast<I>(y + s);
      for (std::size_t j = 0; j < vectors; j += W) {
        simd::vec<I> xc = simd::load<W>(row + j);
        if (mean) xc -= simd::load<W>(mean + j);
        simd::store<W>(xty + j, simd::mul_add<I>(xc, ys, simd::load<W>(xty + j)));
      }
      for (std::size_t j = vectors; j < p; ++j) {
        const double xc = mean ? row[j] - mean[j] : row[j];
        if constexpr (I == simd::Isa::sse2)
          xty[j] += xc * y[s];
        else
          xty[j] = std::fma(xc, y[s], xty[j]);
      }
    }
  }
};

}  // namespace gram_detail

// xty[j] = sum over samples s, in order, of (x_sj - mu_j) * y_s (y already centred; mean == nullptr:
// X itself), each term added as in centred_gram (fused multiply-add under avx2 and avx512, product
// then sum under sse2): bit-identical to the extra column of centred_gram.
inline void centred_xty(const double* x, std::size_t n, std::size_t p, const double* mean, const double* y,
                        double* xty) noexcept {
  simd::dispatch<gram_detail::Xty>(simd::active(), x, n, p, mean, y, xty);
}

}  // namespace paperkernels::greedy

PAPERKERNELS_PSABI_ON
