// Zernike moments of Cartesian masks, and synthesis of fields on Cartesian grids.
//
// Grid: an H x W image spans [-1, 1]^2 with the unit disk inscribed, y up, pixel centres
// x_j = (2j + 1 - W) / W and y_i = (H - 1 - 2i) / H; a pixel takes part when at least one of its
// supersample points (an s x s grid of sub-pixel centres) lies in the closed disk, and its basis
// value is the mean over those points (points outside the disk count as zero). Moments:
//   c_nm = sum_p f_p conj(Z_nm)(p) dA,  dA = 4 / (H W),  Z_nm = sqrt((n+1)/pi) R_n^m e^{i m theta}.
//
// Square grids use the eightfold symmetry of the pixel lattice. The orbit of a pixel p in the
// octant 0 <= theta <= pi/4 under the rotations r^k (by k pi/2) and the reflection s (theta -> -theta)
// is f_k = f(r^k p), g_k = f(r^k s p); since e^{-i m (theta + k pi/2)} = (-i)^{mk} e^{-i m theta},
//   sum over the orbit of f conj(Z_nm) = R N [e^{-i m theta} A_{m mod 4} + e^{i m theta} B_{m mod 4}]
// with A_r = sum_k ((-i)^r)^k f_k and B_r likewise from g. Real and imaginary parts then need
// one real feature of the orbit each (even m) or two (odd m): eight features per orbit in all,
// which cuts the work of the dense product by about 5x against summing over every pixel.
// Non-square grids use one feature per pixel (the pixel value itself).
//
// The basis is either precomputed (one matrix per feature group) or, beyond a memory budget,
// evaluated chunk by chunk on the fly; both give bit-identical results because every output is
// accumulated over the same pixels in the same order (see kernel.hpp).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "paperkernels/common/errors.hpp"
#include "paperkernels/common/parallel.hpp"
#include "paperkernels/shapes/checkpoint.hpp"
#include "paperkernels/shapes/kernel.hpp"
#include "paperkernels/shapes/zernike.hpp"

namespace paperkernels::shapes {

class CartesianBasis {
 public:
  enum class Purpose { analysis, synthesis };

  // Features of an orbit, in the order used by the groups below.
  enum Feature { kS0, kD0, kS2, kD2, kU, kV, kX, kY, kValue };

  // Building a stored basis polls for Ctrl-C through `poll` (and throws `interrupted`).
  CartesianBasis(int N, int H, int W, int supersample, Purpose purpose, std::size_t max_basis_bytes, unsigned threads,
                 const Poll& poll = {})
      : N_(N), H_(H), W_(W), ss_(supersample), purpose_(purpose), folded_(H == W) {
    require(N >= 0, "N: expected a non-negative order, got ", N);
    require(H >= 1 && W >= 1, "grid: expected a positive height and width");
    require(supersample >= 1 && supersample <= 16, "supersample: expected an integer in [1, 16], got ", supersample);
    S_ = half_size(N);
    Checkpoint checkpoint(poll);  // the constructor runs on the thread that released the GIL
    enumerate_pixels(checkpoint);
    build_groups();
    std::size_t doubles = 0;
    for (const auto& g : groups_) doubles += g.width * g.features * n_pixels();
    basis_bytes_ = doubles * sizeof(double);
    precomputed_ = basis_bytes_ <= max_basis_bytes;
    chunk_ = 256;
    if (precomputed_) precompute(threads, poll);
  }

  int order() const { return N_; }
  std::size_t half() const { return S_; }
  int height() const { return H_; }
  int width() const { return W_; }
  std::size_t n_pixels() const { return weight_.size(); }  // orbits (square) or pixels
  std::size_t basis_bytes() const { return basis_bytes_; }
  bool precomputed() const { return precomputed_; }
  bool folded() const { return folded_; }

  // out (B x 2S): [Re c_k, Im c_k] for each k of the half set. Masks must hold values in [0, 1].
  // A stored basis is walked once per block of shapes (whose masks stay in cache); a basis
  // evaluated on the fly is computed once per chunk of pixels for a run of up to kRun shapes.
  template <class T>
  void analyse(const T* masks, std::size_t B, double* out, unsigned threads, const Poll& poll) const {
    require(purpose_ == Purpose::analysis, "internal: basis built for synthesis used for analysis");
    const std::size_t HW = static_cast<std::size_t>(H_) * W_;
    if (precomputed_) {
      const std::size_t n_blocks = (B + kBlock - 1) / kBlock;
      // Feature buffers (a few MB per block) are reused from block to block: fresh ones would be
      // zeroed page by page by the kernel each time.
      using Buffers = std::vector<std::vector<double>>;
      std::mutex pool_mutex;
      std::vector<std::unique_ptr<Buffers>> pool;
      run_parallel(n_blocks, threads, poll, [&](std::size_t block, Checkpoint& checkpoint) {
        const std::size_t b0 = block * kBlock, nb = std::min(kBlock, B - b0);
        std::unique_ptr<Buffers> buffers;
        {
          std::lock_guard<std::mutex> lock(pool_mutex);
          if (!pool.empty()) {
            buffers = std::move(pool.back());
            pool.pop_back();
          }
        }
        if (!buffers) buffers = std::make_unique<Buffers>(groups_.size());
        Buffers& features = *buffers;
        // Pixels in spans of up to kSpan orbits: the features of every shape of the block over the
        // span first, shape by shape (its mask is checked, a sequential read that brings it into
        // cache, and at once gathered from: scattered reads that then hit the cache), stored
        // piece-major: piece p0 of group g holds nb rows of (pixels of the piece) x features values,
        // contiguous, at nb * (p0 - s0) * features. Then the products, piece by piece.
        std::vector<std::vector<double>> acc(groups_.size());
        for (std::size_t g = 0; g < groups_.size(); ++g) acc[g].assign(nb * groups_[g].width, 0.0);
        for (std::size_t s0 = 0; s0 < n_pixels(); s0 += kSpan) {
          const std::size_t s1 = std::min(n_pixels(), s0 + kSpan);
          for (std::size_t g = 0; g < groups_.size(); ++g)
            features[g].resize(nb * (s1 - s0) * groups_[g].features);  // every entry is written below
          for (std::size_t b = 0; b < nb; ++b) {
            if (s0 == 0) check_mask(masks + (b0 + b) * HW, b0 + b, checkpoint);
            for (std::size_t p0 = s0; p0 < s1; p0 += kWalk) {
              const std::size_t p1 = std::min(s1, p0 + kWalk);
              std::array<double*, 6> dst{};
              for (std::size_t g = 0; g < groups_.size(); ++g)
                dst[g] = features[g].data() + (nb * (p0 - s0) + b * (p1 - p0)) * groups_[g].features;
              gather_features(masks + (b0 + b) * HW, p0, p1, dst);
            }
            checkpoint.tick((s1 - s0) * orbit_size());
          }
          for (std::size_t p0 = s0; p0 < s1; p0 += kWalk) {
            const std::size_t p1 = std::min(s1, p0 + kWalk);
            for (std::size_t g = 0; g < groups_.size(); ++g) {
              const std::size_t K = groups_[g].width, f = groups_[g].features, Q = (p1 - p0) * f;
              accumulate_panels(nb, Q, K, features[g].data() + nb * (p0 - s0) * f, Q,
                                groups_[g].matrix.data() + p0 * f * K, acc[g].data(), K);
            }
            checkpoint.tick(nb * (p1 - p0) * 2 * S_);
          }
        }
        scatter_moments(acc, nb, out + b0 * 2 * S_);
        std::lock_guard<std::mutex> lock(pool_mutex);
        pool.push_back(std::move(buffers));
      });
      return;
    }
    std::vector<std::vector<double>> scratch;
    Checkpoint between_chunks(poll);  // this thread released the GIL: it may poll itself
    for (std::size_t r0 = 0; r0 < B; r0 += kRun) {
      const std::size_t rn = std::min(kRun, B - r0), n_blocks = (rn + kBlock - 1) / kBlock;
      run_parallel(rn, threads, poll, [&](std::size_t b, Checkpoint& checkpoint) {
        check_mask(masks + (r0 + b) * HW, r0 + b, checkpoint);
      });
      std::vector<std::vector<std::vector<double>>> acc(n_blocks, std::vector<std::vector<double>>(groups_.size()));
      for (std::size_t block = 0; block < n_blocks; ++block)
        for (std::size_t g = 0; g < groups_.size(); ++g)
          acc[block][g].assign(std::min(kBlock, rn - block * kBlock) * groups_[g].width, 0.0);
      for (std::size_t p0 = 0; p0 < n_pixels(); p0 += chunk_) {
        const std::size_t p1 = std::min(n_pixels(), p0 + chunk_);
        const auto matrices = chunk_matrices(p0, p1, threads, poll, scratch);
        run_parallel(n_blocks, threads, poll, [&](std::size_t block, Checkpoint& checkpoint) {
          const std::size_t b0 = r0 + block * kBlock, nb = std::min(kBlock, r0 + rn - b0);
          std::vector<std::vector<double>> features(groups_.size());
          accumulate_chunk(masks + b0 * HW, nb, p0, p1, matrices, features, acc[block]);
          checkpoint.tick(nb * (p1 - p0) * 2 * S_);
        });
        between_chunks.check();
      }
      for (std::size_t block = 0; block < n_blocks; ++block) {
        const std::size_t b0 = r0 + block * kBlock, nb = std::min(kBlock, r0 + rn - b0);
        scatter_moments(acc[block], nb, out + b0 * 2 * S_);
      }
    }
  }

  // out (B x H x W) = Re sum over the full index set of c_nm Z_nm at the pixels (0 off the disk),
  // from coefficients in the layout of analyse (c_{n,-m} = conj(c_nm) is implied).
  void synthesize(const double* coeffs, std::size_t B, double* out, unsigned threads, const Poll& poll) const {
    require(purpose_ == Purpose::synthesis, "internal: basis built for analysis used for synthesis");
    const std::size_t HW = static_cast<std::size_t>(H_) * W_;
    std::fill(out, out + B * HW, 0.0);
    // Re(c Z) = Re c Re conj(Z) + Im c Im conj(Z), and m > 0 stands for the pair (m, -m).
    std::vector<std::vector<double>> codes(groups_.size());
    for (std::size_t g = 0; g < groups_.size(); ++g) {
      const auto& grp = groups_[g];
      codes[g].resize(B * grp.cols.size());
      for (std::size_t b = 0; b < B; ++b)
        for (std::size_t k = 0; k < grp.cols.size(); ++k)
          codes[g][b * grp.cols.size() + k] = (grp.m[k] == 0 ? 1.0 : 2.0) * coeffs[b * 2 * S_ + grp.cols[k]];
    }
    const std::size_t n_blocks = (B + kBlock - 1) / kBlock;
    std::vector<std::vector<double>> scratch;
    Checkpoint between_chunks(poll);  // this thread released the GIL: it may poll itself
    for (std::size_t p0 = 0; p0 < n_pixels(); p0 += chunk_) {
      const std::size_t p1 = std::min(n_pixels(), p0 + chunk_);
      std::vector<std::size_t> ld(groups_.size());
      const auto matrices = chunk_matrices(p0, p1, threads, poll, scratch, &ld);
      run_parallel(n_blocks, threads, poll, [&](std::size_t block, Checkpoint& checkpoint) {
        const std::size_t b0 = block * kBlock, nb = std::min(kBlock, B - b0);
        std::vector<std::vector<double>> adjoint(groups_.size());
        for (std::size_t g = 0; g < groups_.size(); ++g) {
          const std::size_t K = groups_[g].cols.size(), Q = (p1 - p0) * groups_[g].features;
          adjoint[g].assign(nb * Q, 0.0);
          accumulate_product(nb, K, Q, codes[g].data() + b0 * K, K, matrices[g], ld[g], adjoint[g].data(), Q);
          checkpoint.tick(nb * K * Q);
        }
        for (std::size_t b = 0; b < nb; ++b) scatter_field(adjoint, p0, p1, b, out + (b0 + b) * HW);
      });
      between_chunks.check();
    }
  }

 private:
  // Shapes per task: the basis is walked once per task, in pieces of kWalk pixels whose rows of the
  // basis (kWalk x 384 doubles at N = 20) and features of the task's shapes (kBlock x kWalk x 8)
  // stay in L2 while the product's tiles sweep them (a multiple of every tile height).
  static constexpr std::size_t kBlock = 48;
  static constexpr std::size_t kWalk = 64;  // pixels per piece of a stored basis
  // Pixels whose features a task gathers at once (at most kBlock x kSpan x 8 doubles, 8 MiB): a
  // multiple of kWalk, and every orbit of a 128 x 128 grid.
  static constexpr std::size_t kSpan = (std::size_t{8} << 20) / (kBlock * 8 * sizeof(double)) / kWalk * kWalk;
  static constexpr std::size_t kRun = 256;  // shapes per pass over an on-the-fly basis

  // acc (per group, nb x width) += the contribution of pixels [p0, p1) of nb consecutive masks.
  template <class T>
  void accumulate_chunk(const T* masks, std::size_t nb, std::size_t p0, std::size_t p1,
                        const std::vector<const double*>& matrices, std::vector<std::vector<double>>& features,
                        std::vector<std::vector<double>>& acc) const {
    const std::size_t HW = static_cast<std::size_t>(H_) * W_;
    for (std::size_t g = 0; g < groups_.size(); ++g) features[g].resize(nb * (p1 - p0) * groups_[g].features);
    for (std::size_t b = 0; b < nb; ++b) {
      std::array<double*, 6> dst{};
      for (std::size_t g = 0; g < groups_.size(); ++g)
        dst[g] = features[g].data() + b * (p1 - p0) * groups_[g].features;
      gather_features(masks + b * HW, p0, p1, dst);
    }
    for (std::size_t g = 0; g < groups_.size(); ++g) {
      const std::size_t K = groups_[g].width, Q = (p1 - p0) * groups_[g].features;
      accumulate_product(nb, Q, K, features[g].data(), Q, matrices[g], K, acc[g].data(), K);
    }
  }

  void scatter_moments(const std::vector<std::vector<double>>& acc, std::size_t nb, double* out) const {
    for (std::size_t g = 0; g < groups_.size(); ++g) {
      const auto& cols = groups_[g].cols;
      for (std::size_t b = 0; b < nb; ++b)
        for (std::size_t k = 0; k < cols.size(); ++k) out[b * 2 * S_ + cols[k]] = acc[g][b * groups_[g].width + k];
    }
  }

  struct Group {
    std::size_t features = 1;          // rows per pixel in the matrix (1, or 2 interleaved)
    std::array<Feature, 2> feature{};  // which orbit features feed the rows
    std::vector<int> cols;             // output columns in the [Re, Im] layout
    std::vector<int> k, m;             // half-set index and m of each column
    std::vector<double> row_sign[2];   // basis row r = row_sign[r][col] * (cos or sin part)
    std::vector<char> row_is_sin[2];
    std::size_t width = 0;  // analysis: K rounded up to a multiple of 8 (zero columns)
    // analysis: (P * features) x width, by pieces of kWalk pixels, each in panels of kPanel columns
    // (see fill_rows); synthesis: K x (P * features), column-major
    std::vector<double> matrix;
  };

  int N_, H_, W_, ss_;
  Purpose purpose_;
  bool folded_;
  std::size_t S_ = 0, chunk_ = 256, basis_bytes_ = 0;
  bool precomputed_ = false;
  std::vector<std::int64_t> centre_x_, centre_y_;  // pixel centres, numerators over W ss, H ss
  std::vector<std::int64_t> orbit_;                // pixel indices, orbit_size() per pixel
  std::vector<double> weight_;                     // dA times the orbit multiplicity / 8
  std::vector<Group> groups_;

  std::size_t orbit_size() const { return folded_ ? 8 : 1; }

  std::int64_t pixel_index(std::int64_t a, std::int64_t b) const {
    // centred odd/even coordinates (a, b) of a square grid -> row-major index
    const std::int64_t j = (a + W_ - 1) / 2, i = (W_ - 1 - b) / 2;
    return i * W_ + j;
  }

  // Numerators (over W ss and H ss) of the supersample points of a pixel whose centre numerators
  // (over W and H) are (a, b); returns how many lie in the closed unit disk.
  bool any_point_inside(std::int64_t a, std::int64_t b) const {
    using wide = __int128;
    const wide DX = static_cast<wide>(W_) * ss_, DY = static_cast<wide>(H_) * ss_;
    for (int s = 0; s < ss_; ++s)
      for (int t = 0; t < ss_; ++t) {
        const wide X = static_cast<wide>(a) * ss_ + 2 * s + 1 - ss_;
        const wide Y = static_cast<wide>(b) * ss_ + 2 * t + 1 - ss_;
        if (X * X * DY * DY + Y * Y * DX * DX <= DX * DX * DY * DY) return true;
      }
    return false;
  }

  void enumerate_pixels(Checkpoint& checkpoint) {
    const double dA = 4.0 / (static_cast<double>(H_) * W_);
    // Room for every candidate up front (a triangle of orbits, or every pixel): on large grids the
    // vectors reach hundreds of MB, and growing one copies it in a single step that cannot poll for
    // Ctrl-C. Pages are touched only as pixels are added.
    const std::size_t per_side = (static_cast<std::size_t>(W_) + 1) / 2;
    const std::size_t candidates =
        folded_ ? per_side * (per_side + 1) / 2 : static_cast<std::size_t>(H_) * static_cast<std::size_t>(W_);
    orbit_.reserve(candidates * orbit_size());
    centre_x_.reserve(candidates);
    centre_y_.reserve(candidates);
    weight_.reserve(candidates);
    if (folded_) {
      // Centred coordinates a = 2j + 1 - W, b = W - 1 - 2i share the parity of W - 1.
      const std::int64_t start = (W_ % 2 == 0) ? 1 : 0;
      for (std::int64_t a = start; a <= W_ - 1; a += 2) {
        checkpoint.tick(static_cast<std::size_t>(a + 1) * ss_ * ss_);
        for (std::int64_t b = start; b <= a; b += 2) {
          if (!any_point_inside(a, b)) continue;
          const std::array<std::int64_t, 2> rot[4] = {{a, b}, {-b, a}, {-a, -b}, {b, -a}};
          const std::array<std::int64_t, 2> ref[4] = {{a, -b}, {b, a}, {-a, b}, {-b, -a}};
          for (int k = 0; k < 4; ++k) orbit_.push_back(pixel_index(rot[k][0], rot[k][1]));
          for (int k = 0; k < 4; ++k) orbit_.push_back(pixel_index(ref[k][0], ref[k][1]));
          int distinct = 8;
          if (a == 0 && b == 0)
            distinct = 1;
          else if (b == 0 || b == a)
            distinct = 4;
          centre_x_.push_back(a);
          centre_y_.push_back(b);
          weight_.push_back(dA * distinct / 8.0);
        }
      }
    } else {
      for (std::int64_t i = 0; i < H_; ++i) {
        checkpoint.tick(static_cast<std::size_t>(W_) * ss_ * ss_);
        for (std::int64_t j = 0; j < W_; ++j) {
          const std::int64_t a = 2 * j + 1 - W_, b = H_ - 1 - 2 * i;
          if (!any_point_inside(a, b)) continue;
          orbit_.push_back(i * W_ + j);
          centre_x_.push_back(a);
          centre_y_.push_back(b);
          weight_.push_back(dA);
        }
      }
    }
  }

  void add_column(Group& g, int k, int m, int col, std::array<double, 2> sign, std::array<char, 2> is_sin) {
    g.cols.push_back(col);
    g.k.push_back(k);
    g.m.push_back(m);
    for (int r = 0; r < 2; ++r) {
      g.row_sign[r].push_back(sign[r]);
      g.row_is_sin[r].push_back(is_sin[r]);
    }
  }

  // Real part of conj(Z) is R N cos(m theta), imaginary part -R N sin(m theta).
  void build_groups() {
    std::vector<Group> groups(folded_ ? 6 : 1);
    if (!folded_) {
      groups[0].feature = {kValue, kValue};
    } else {
      groups[0].feature = {kS0, kS0};
      groups[1].feature = {kD0, kD0};
      groups[2].feature = {kS2, kS2};
      groups[3].feature = {kD2, kD2};
      groups[4].feature = {kU, kV};
      groups[4].features = 2;
      groups[5].feature = {kX, kY};
      groups[5].features = 2;
    }
    int k = 0;
    for (int n = 0; n <= N_; ++n)
      for (int m = n & 1; m <= n; m += 2, ++k) {
        const int re = 2 * k, im = 2 * k + 1;
        if (!folded_) {
          add_column(groups[0], k, m, re, {1.0, 0.0}, {0, 0});
          add_column(groups[0], k, m, im, {-1.0, 0.0}, {1, 0});
          continue;
        }
        switch (m % 4) {
          case 0:
            add_column(groups[0], k, m, re, {1.0, 0.0}, {0, 0});
            add_column(groups[1], k, m, im, {-1.0, 0.0}, {1, 0});
            break;
          case 2:
            add_column(groups[2], k, m, re, {1.0, 0.0}, {0, 0});
            add_column(groups[3], k, m, im, {-1.0, 0.0}, {1, 0});
            break;
          case 1:  // Re = u cos + v sin, Im = x sin - y cos
            add_column(groups[4], k, m, re, {1.0, 1.0}, {0, 1});
            add_column(groups[5], k, m, im, {1.0, -1.0}, {1, 0});
            break;
          default:  // m = 3 mod 4: Re = u cos - v sin, Im = x sin + y cos
            add_column(groups[4], k, m, re, {1.0, -1.0}, {0, 1});
            add_column(groups[5], k, m, im, {1.0, 1.0}, {1, 0});
            break;
        }
      }
    for (auto& g : groups) {
      if (g.cols.empty()) continue;
      g.width = purpose_ == Purpose::analysis ? (g.cols.size() + 7) / 8 * 8 : g.cols.size();
      groups_.push_back(std::move(g));
    }
  }

  // Mean over the supersample points inside the disk of R N cos(m theta) and R N sin(m theta),
  // for every k of the half set (scratch: radial table buffers).
  void evaluate_pixel(std::size_t p, double* cos_part, double* sin_part, std::vector<double>& radial,
                      RadialTable& table, std::vector<double>& c, std::vector<double>& s) const {
    std::fill(cos_part, cos_part + S_, 0.0);
    std::fill(sin_part, sin_part + S_, 0.0);
    const double DX = static_cast<double>(W_) * ss_, DY = static_cast<double>(H_) * ss_;
    for (int u = 0; u < ss_; ++u)
      for (int v = 0; v < ss_; ++v) {
        const std::int64_t X = centre_x_[p] * ss_ + 2 * u + 1 - ss_;
        const std::int64_t Y = centre_y_[p] * ss_ + 2 * v + 1 - ss_;
        using wide = __int128;
        const wide WX = static_cast<wide>(DX), WY = static_cast<wide>(DY);
        if (static_cast<wide>(X) * X * WY * WY + static_cast<wide>(Y) * Y * WX * WX > WX * WX * WY * WY) continue;
        const double x = X / DX, y = Y / DY;
        const double rho = std::hypot(x, y);
        table.evaluate(std::min(rho, 1.0), radial.data());
        const double c1 = rho > 0 ? x / rho : 1.0, s1 = rho > 0 ? y / rho : 0.0;
        c[0] = 1.0;
        s[0] = 0.0;
        for (int m = 1; m <= N_; ++m) {
          c[m] = c[m - 1] * c1 - s[m - 1] * s1;
          s[m] = s[m - 1] * c1 + c[m - 1] * s1;
        }
        std::size_t k = 0;
        for (int n = 0; n <= N_; ++n) {
          const double norm = zernike_norm(n);
          for (int m = n & 1; m <= n; m += 2, ++k) {
            const double r = radial[k] * norm;
            cos_part[k] += r * c[m];
            sin_part[k] += r * s[m];
          }
        }
      }
    const double mean = 1.0 / (static_cast<double>(ss_) * ss_);
    for (std::size_t k = 0; k < S_; ++k) {
      cos_part[k] *= mean;
      sin_part[k] *= mean;
    }
  }

  // Writes the basis rows of pixels [p0, p1) of every group: row-major (rows x K) for analysis,
  // column-major (K x rows, leading dimension ld[g]) for synthesis; with `panels`, a stored analysis
  // basis in the layout of Group::matrix.
  void fill_rows(std::size_t p0, std::size_t p1, std::size_t first_row_pixel, std::vector<double*>& dest,
                 const std::vector<std::size_t>& ld, Checkpoint& checkpoint, bool panels = false) const {
    std::vector<double> cos_part(S_), sin_part(S_), radial(S_), c(N_ + 1), s(N_ + 1);
    RadialTable table(N_);
    for (std::size_t p = p0; p < p1; ++p) {
      evaluate_pixel(p, cos_part.data(), sin_part.data(), radial, table, c, s);
      checkpoint.tick(static_cast<std::size_t>(ss_) * ss_ * S_ + 2 * S_);
      for (std::size_t g = 0; g < groups_.size(); ++g) {
        const Group& grp = groups_[g];
        const std::size_t K = grp.cols.size(), width = grp.width;
        for (std::size_t r = 0; r < grp.features; ++r) {
          const std::size_t row = (p - first_row_pixel) * grp.features + r;
          for (std::size_t j = 0; j < K; ++j) {
            const double value = grp.row_sign[r][j] * (grp.row_is_sin[r][j] ? sin_part[grp.k[j]] : cos_part[grp.k[j]]);
            if (panels) {
              // piece of kWalk pixels, then panel of kPanel columns, then row, then column
              const std::size_t piece = p / kWalk * kWalk;
              const std::size_t rows = (std::min(n_pixels(), piece + kWalk) - piece) * grp.features;
              const std::size_t local = (p - piece) * grp.features + r;
              dest[g][piece * grp.features * width + (j / kPanel) * kPanel * rows + local * kPanel + j % kPanel] =
                  value;
            } else if (purpose_ == Purpose::analysis) {
              dest[g][row * width + j] = value;
            } else {
              dest[g][j * ld[g] + row] = value;
            }
          }
        }
      }
    }
  }

  void precompute(unsigned threads, const Poll& poll) {
    std::vector<double*> dest;
    std::vector<std::size_t> ld;
    for (auto& g : groups_) {
      g.matrix.assign(n_pixels() * g.features * g.width, 0.0);
      dest.push_back(g.matrix.data());
      ld.push_back(n_pixels() * g.features);
    }
    const std::size_t n_chunks = (n_pixels() + chunk_ - 1) / chunk_;
    run_parallel(n_chunks, threads, poll, [&](std::size_t c, Checkpoint& checkpoint) {
      fill_rows(c * chunk_, std::min(n_pixels(), (c + 1) * chunk_), 0, dest, ld, checkpoint,
                purpose_ == Purpose::analysis);
    });
  }

  // Pointers to the basis of pixels [p0, p1) for every group (computed into scratch when the basis
  // is not stored), with the leading dimension of each in ld (synthesis only).
  std::vector<const double*> chunk_matrices(std::size_t p0, std::size_t p1, unsigned threads, const Poll& poll,
                                            std::vector<std::vector<double>>& scratch,
                                            std::vector<std::size_t>* ld = nullptr) const {
    std::vector<const double*> out(groups_.size());
    if (precomputed_) {
      for (std::size_t g = 0; g < groups_.size(); ++g) {
        const Group& grp = groups_[g];
        if (purpose_ == Purpose::analysis) {
          fail("internal: a stored analysis basis is kept in panels");
        } else {
          out[g] = grp.matrix.data() + p0 * grp.features;
          (*ld)[g] = n_pixels() * grp.features;
        }
      }
      return out;
    }
    scratch.resize(groups_.size());
    std::vector<double*> dest(groups_.size());
    std::vector<std::size_t> lds(groups_.size());
    for (std::size_t g = 0; g < groups_.size(); ++g) {
      scratch[g].assign((p1 - p0) * groups_[g].features * groups_[g].width, 0.0);
      dest[g] = scratch[g].data();
      out[g] = scratch[g].data();
      lds[g] = (p1 - p0) * groups_[g].features;
      if (ld) (*ld)[g] = lds[g];
    }
    const std::size_t piece = 32, n_pieces = (p1 - p0 + piece - 1) / piece;
    run_parallel(n_pieces, threads, poll, [&](std::size_t i, Checkpoint& checkpoint) {
      const std::size_t a = p0 + i * piece, b = std::min(p1, a + piece);
      fill_rows(a, b, p0, dest, lds, checkpoint);
    });
    return out;
  }

  template <class T>
  void check_mask(const T* mask, std::size_t b, Checkpoint& checkpoint) const {
    const std::size_t W = static_cast<std::size_t>(W_);
    for (std::size_t row = 0; row < static_cast<std::size_t>(H_); ++row) {
      const T* values = mask + row * W;
      // The whole row first, in the mask's own type (exact for every type read here; NaN fails
      // both tests) and without branches, so that it vectorises; then the offending pixel, if any.
      int inside = 1;
      if constexpr (std::is_unsigned_v<T>) {
        for (std::size_t col = 0; col < W; ++col) inside &= static_cast<int>(values[col] <= static_cast<T>(1));
      } else {
        for (std::size_t col = 0; col < W; ++col)
          inside &=
              static_cast<int>(values[col] >= static_cast<T>(0)) & static_cast<int>(values[col] <= static_cast<T>(1));
      }
      const bool bad = inside == 0;
      for (std::size_t col = 0; bad && col < W; ++col) {
        const double v = static_cast<double>(values[col]);
        require(v >= 0.0 && v <= 1.0, "masks: expected values in [0, 1] (scale 0-255 images by 1/255), got ", v,
                " in mask ", b, " at pixel (", row, ", ", col, ")");
      }
      checkpoint.tick(W);
    }
  }

  template <class T>
  void gather_features(const T* mask, std::size_t p0, std::size_t p1, const std::array<double*, 6>& dst) const {
    if (!folded_) {
      for (std::size_t p = p0; p < p1; ++p) dst[0][p - p0] = weight_[p] * static_cast<double>(mask[orbit_[p]]);
      return;
    }
    for (std::size_t p = p0; p < p1; ++p) {
      const std::int64_t* o = orbit_.data() + 8 * p;
      const double w = weight_[p];
      const double f0 = mask[o[0]], f1 = mask[o[1]], f2 = mask[o[2]], f3 = mask[o[3]];
      const double g0 = mask[o[4]], g1 = mask[o[5]], g2 = mask[o[6]], g3 = mask[o[7]];
      const double a0 = (f0 + f1) + (f2 + f3), b0 = (g0 + g1) + (g2 + g3);
      const double a2 = (f0 - f1) + (f2 - f3), b2 = (g0 - g1) + (g2 - g3);
      const double alpha = f0 - f2, beta = f1 - f3, gamma = g0 - g2, delta = g1 - g3;
      const double value[8] = {a0 + b0,       a0 - b0,      a2 + b2,       a2 - b2,
                               alpha + gamma, delta - beta, gamma - alpha, beta + delta};
      const std::size_t q = p - p0;
      if (groups_.size() == 6) {  // every group present, in the order of build_groups
        dst[0][q] = w * value[kS0];
        dst[1][q] = w * value[kD0];
        dst[2][q] = w * value[kS2];
        dst[3][q] = w * value[kD2];
        dst[4][2 * q] = w * value[kU];
        dst[4][2 * q + 1] = w * value[kV];
        dst[5][2 * q] = w * value[kX];
        dst[5][2 * q + 1] = w * value[kY];
        continue;
      }
      for (std::size_t g = 0; g < groups_.size(); ++g) {
        const Group& grp = groups_[g];
        if (grp.features == 1) {
          dst[g][q] = w * value[grp.feature[0]];
        } else {
          dst[g][2 * q] = w * value[grp.feature[0]];
          dst[g][2 * q + 1] = w * value[grp.feature[1]];
        }
      }
    }
  }

  // Field values of shape b at the orbit pixels of [p0, p1) from the adjoint features.
  void scatter_field(const std::vector<std::vector<double>>& adjoint, std::size_t p0, std::size_t p1, std::size_t b,
                     double* field) const {
    const std::size_t Pc = p1 - p0;
    if (!folded_) {
      const double* y = adjoint[0].data() + b * Pc;
      for (std::size_t p = p0; p < p1; ++p) field[orbit_[p]] = y[p - p0];
      return;
    }
    for (std::size_t p = p0; p < p1; ++p) {
      double v[8] = {0, 0, 0, 0, 0, 0, 0, 0};  // s0 d0 s2 d2 u v x y
      const std::size_t q = p - p0;
      for (std::size_t g = 0; g < groups_.size(); ++g) {
        const Group& grp = groups_[g];
        const double* y = adjoint[g].data() + b * Pc * grp.features;
        if (grp.features == 1) {
          v[grp.feature[0]] = y[q];
        } else {
          v[grp.feature[0]] = y[2 * q];
          v[grp.feature[1]] = y[2 * q + 1];
        }
      }
      // Transpose of the orbit -> feature map of gather_features.
      const double s0 = v[kS0], d0 = v[kD0], s2 = v[kS2], d2 = v[kD2];
      const double u = v[kU], w = v[kV], x = v[kX], y = v[kY];
      const double even_f = s0 + d0, even_g = s0 - d0;
      const double alt_f = s2 + d2, alt_g = s2 - d2;
      const std::int64_t* o = orbit_.data() + 8 * p;
      field[o[0]] = (even_f + alt_f) + (u - x);
      field[o[1]] = (even_f - alt_f) + (y - w);
      field[o[2]] = (even_f + alt_f) - (u - x);
      field[o[3]] = (even_f - alt_f) - (y - w);
      field[o[4]] = (even_g + alt_g) + (u + x);
      field[o[5]] = (even_g - alt_g) + (w + y);
      field[o[6]] = (even_g + alt_g) - (u + x);
      field[o[7]] = (even_g - alt_g) - (w + y);
    }
  }
};

}  // namespace paperkernels::shapes
