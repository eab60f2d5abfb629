// Exact Zernike moments of polygons (rings with holes, several parts) inside the unit disk.
//
// Both rules below integrate polynomials exactly, so the results are exact up to rounding.
//
// Fan rule (XShapeEnc's, He 2026): each ring edge (a, b) spans the signed triangle (0, a, b);
// the Duffy map (u, v) -> u ((1 - v) a + v b) sends the unit square onto it with Jacobian
// u det(a, b), and conj(Z_nm) becomes a polynomial of degree n + 1 in u and n in v: tensor
// Gauss-Legendre with floor(N/2) + 2 nodes per axis integrates it exactly.
//
// Boundary rule (the default, about q times cheaper): with U_n^k = R_n^|k| e^{i k theta} and the
// identity d/dz [U_{n+1}^{k+1} - U_{n-1}^{k+1}] = (n + 1) U_n^k, Stokes' theorem
// (integral over P of dF/dz dA = i/2 contour integral of F dzbar) gives
//   integral over P of U_n^{-m} dA = i / (2 (n + 1)) sum over edges of
//       integral_0^1 [U_{n+1}^{1-m} - U_{n-1}^{1-m}](a + t (b - a)) conj(b - a) dt,
// a polynomial of degree n + 1 in t: floor(N/2) + 2 Gauss-Legendre nodes per edge are exact.
//
// Points are processed in packs of kLanes so that the radial recurrence and the accumulation
// vectorise across points; each lane keeps its own running sums, reduced in lane order at the end.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "paperkernels/shapes/checkpoint.hpp"
#include "paperkernels/shapes/kernel.hpp"
#include "paperkernels/shapes/zernike.hpp"

namespace paperkernels::shapes {

enum class PolygonRule { boundary, fan };

// Rings of one polygon (or multipolygon): ring r has vertices xy[2 start[r] .. 2 start[r+1]) and
// contributes with the sign sign[r] (+1 for outer rings, -1 for holes, times the orientation).
struct RingSet {
  const double* xy;
  const std::int64_t* start;
  const double* sign;
  std::size_t first_ring, last_ring;  // rings [first_ring, last_ring)
};

inline constexpr int kLanes = 8;

// One pack of kLanes points z with complex weights w: the radial table of order `top` (lane
// interleaved, kLanes values per entry), the phases w e^{-i j theta}, then for each (n, m) of the
// half set of order N
//   fan rule:      acc_nm += w R_n^m e^{-i m theta}
//   boundary rule: acc_nm += w e^{-i (m - 1) theta} (R_{n+1}^{|m-1|} - R_{n-1}^{|m-1|}).
PAPERKERNELS_PSABI_OFF
// Eight lanes whatever the instruction set (one, two or four vector registers), so that every
// instruction set returns the same bits.
struct PackKernel {
  template <simd::Isa I>
  PAPERKERNELS_ALWAYS_INLINE static void run(int N, int top, bool boundary, const double* px, const double* py,
                                             const double* wre, const double* wim, double* radial, double* pre,
                                             double* pim, double* acc_re, double* acc_im) noexcept {
    static_assert(kLanes == 8, "the pack kernel works on eight lanes");
    using v8 = simd::Vec<kLanes>::type;
    double rho_[kLanes], c1_[kLanes], s1_[kLanes];
    for (int l = 0; l < kLanes; ++l) {
      const double r = std::sqrt(px[l] * px[l] + py[l] * py[l]);
      rho_[l] = std::min(1.0, r);
      c1_[l] = r > 0.0 ? px[l] / r : 1.0;
      s1_[l] = r > 0.0 ? py[l] / r : 0.0;
    }
    const v8 rho = simd::load<kLanes>(rho_), c1 = simd::load<kLanes>(c1_), s1 = simd::load<kLanes>(s1_);
    const v8 zero = rho - rho;

    // The recurrence of RadialTable (zernike.hpp) on eight radii at once, in place in the table.
    for (int l = 0; l < kLanes; ++l) radial[l] = 1.0;  // R_0^0
    for (int n = 1; n <= top; ++n) {
      double* row = radial + half_size(n - 1) * kLanes;
      const double* prev = radial + half_size(n - 2) * kLanes;                      // row n - 1
      const double* prev2 = n >= 2 ? radial + half_size(n - 3) * kLanes : nullptr;  // row n - 2
      for (int m = n & 1, k = 0; m <= n; m += 2, ++k) {
        // row n - 1 holds m' = (n-1)&1, +2, ...: entry of m' is (m' - ((n-1)&1)) / 2
        const int left_m = m == 0 ? 1 : m - 1;
        const v8 left = simd::load<kLanes>(prev + ((left_m - ((n - 1) & 1)) / 2) * kLanes);
        const v8 right = m + 1 <= n - 1 ? simd::load<kLanes>(prev + ((m + 1 - ((n - 1) & 1)) / 2) * kLanes) : zero;
        const v8 below = m <= n - 2 ? simd::load<kLanes>(prev2 + ((m - (n & 1)) / 2) * kLanes) : zero;
        simd::store<kLanes>(row + k * kLanes, rho * (left + right) - below);
      }
    }

    // phase[j + shift] = w e^{-i j theta} for j = -shift .. N (shift = 1 stores j = -1 at 0).
    const int shift = boundary ? 1 : 0;
    v8 re = simd::load<kLanes>(wre), im = simd::load<kLanes>(wim);
    simd::store<kLanes>(pre + shift * kLanes, re);
    simd::store<kLanes>(pim + shift * kLanes, im);
    if (shift) {
      simd::store<kLanes>(pre, re * c1 - im * s1);
      simd::store<kLanes>(pim, re * s1 + im * c1);
    }
    for (int j = 1; j + shift <= N + 1; ++j) {
      const v8 next_re = re * c1 + im * s1, next_im = im * c1 - re * s1;
      re = next_re;
      im = next_im;
      simd::store<kLanes>(pre + (j + shift) * kLanes, re);
      simd::store<kLanes>(pim + (j + shift) * kLanes, im);
    }

    std::size_t k = 0;
    for (int n = 0; n <= N; ++n) {
      for (int m = n & 1; m <= n; m += 2, ++k) {
        const v8 qre = simd::load<kLanes>(pre + m * kLanes);  // fan: j = m; boundary: j = m - 1 stored at m
        const v8 qim = simd::load<kLanes>(pim + m * kLanes);
        v8 factor;
        if (!boundary) {
          factor = simd::load<kLanes>(radial + half_index(n, m) * kLanes);
        } else {
          const int mm = m == 0 ? 1 : m - 1;
          factor = simd::load<kLanes>(radial + half_index(n + 1, mm) * kLanes);
          if (n - 1 >= mm) factor = factor - simd::load<kLanes>(radial + half_index(n - 1, mm) * kLanes);
        }
        simd::store<kLanes>(acc_re + k * kLanes, simd::load<kLanes>(acc_re + k * kLanes) + qre * factor);
        simd::store<kLanes>(acc_im + k * kLanes, simd::load<kLanes>(acc_im + k * kLanes) + qim * factor);
      }
    }
  }
};
PAPERKERNELS_PSABI_ON

class PolygonMoments {
 public:
  PolygonMoments(int N, PolygonRule rule)
      : N_(N),
        top_(rule == PolygonRule::boundary ? N + 1 : N),
        rule_(rule),
        q_(rule == PolygonRule::boundary ? (N + 3) / 2 : N / 2 + 2) {
    nodes_.resize(q_);
    weights_.resize(q_);
    gauss_legendre(q_, nodes_.data(), weights_.data());
    for (int i = 0; i < q_; ++i) {  // to [0, 1]
      nodes_[i] = 0.5 * (nodes_[i] + 1.0);
      weights_[i] *= 0.5;
    }
    const std::size_t table = half_size(top_) * kLanes;
    radial_.resize(table);
    phase_re_.resize(static_cast<std::size_t>(N_ + 2) * kLanes);
    phase_im_.resize(phase_re_.size());
    acc_re_.resize(half_size(N_) * kLanes);
    acc_im_.resize(acc_re_.size());
  }

  // out[k] = c_k for the half set of order N. A checkpoint, if given, is ticked after every pack of
  // points so that Ctrl-C stops a single large polygon.
  void compute(const RingSet& rings, std::complex<double>* out, Checkpoint* checkpoint = nullptr) {
    checkpoint_ = checkpoint;
    std::fill(acc_re_.begin(), acc_re_.end(), 0.0);
    std::fill(acc_im_.begin(), acc_im_.end(), 0.0);
    fill_ = 0;
    for (std::size_t r = rings.first_ring; r < rings.last_ring; ++r) {
      const std::int64_t begin = rings.start[r], end = rings.start[r + 1];
      const double sign = rings.sign[r];
      for (std::int64_t i = begin; i < end; ++i) {
        const std::int64_t j = (i + 1 == end) ? begin : i + 1;
        const double ax = rings.xy[2 * i], ay = rings.xy[2 * i + 1];
        const double bx = rings.xy[2 * j], by = rings.xy[2 * j + 1];
        if (rule_ == PolygonRule::boundary)
          add_edge(ax, ay, bx, by, sign);
        else
          add_triangle(ax, ay, bx, by, sign);
      }
    }
    if (fill_ > 0) flush();
    std::size_t k = 0;
    for (int n = 0; n <= N_; ++n) {
      for (int m = n & 1; m <= n; m += 2, ++k) {
        double re = 0.0, im = 0.0;
        for (int l = 0; l < kLanes; ++l) {
          re += acc_re_[k * kLanes + l];
          im += acc_im_[k * kLanes + l];
        }
        if (rule_ == PolygonRule::boundary) {
          // multiply by i / (2 (n + 1)) and the orthonormalisation sqrt((n + 1) / pi)
          const double scale = zernike_norm(n) / (2.0 * (n + 1));
          out[k] = std::complex<double>(-im * scale, re * scale);
        } else {
          const double scale = zernike_norm(n);
          out[k] = std::complex<double>(re * scale, im * scale);
        }
      }
    }
  }

 private:
  int N_, top_;  // top_: highest radial order needed (N + 1 for the boundary rule)
  PolygonRule rule_;
  int q_;
  std::vector<double> nodes_, weights_;
  std::vector<double> radial_, phase_re_, phase_im_, acc_re_, acc_im_;
  double px_[kLanes] = {}, py_[kLanes] = {}, wre_[kLanes] = {}, wim_[kLanes] = {};
  int fill_ = 0;
  Checkpoint* checkpoint_ = nullptr;

  void push(double x, double y, double wre, double wim) {
    px_[fill_] = x;
    py_[fill_] = y;
    wre_[fill_] = wre;
    wim_[fill_] = wim;
    if (++fill_ == kLanes) flush();
  }

  void add_edge(double ax, double ay, double bx, double by, double sign) {
    const double dx = bx - ax, dy = by - ay;
    if (dx == 0.0 && dy == 0.0) return;
    for (int i = 0; i < q_; ++i) {
      const double t = nodes_[i], w = weights_[i] * sign;
      push(ax + t * dx, ay + t * dy, w * dx, -w * dy);  // weight times conj(b - a)
    }
  }

  void add_triangle(double ax, double ay, double bx, double by, double sign) {
    const double det = ax * by - ay * bx;
    if (det == 0.0) return;
    for (int j = 0; j < q_; ++j) {
      const double v = nodes_[j];
      const double ex = (1.0 - v) * ax + v * bx, ey = (1.0 - v) * ay + v * by;
      for (int i = 0; i < q_; ++i) {
        const double u = nodes_[i];
        push(u * ex, u * ey, weights_[i] * weights_[j] * u * det * sign, 0.0);
      }
    }
  }

  void flush() {
    for (int l = fill_; l < kLanes; ++l) px_[l] = py_[l] = wre_[l] = wim_[l] = 0.0;
    fill_ = 0;
    simd::dispatch<PackKernel>(simd::active(), N_, top_, rule_ == PolygonRule::boundary,
                               static_cast<const double*>(px_), static_cast<const double*>(py_),
                               static_cast<const double*>(wre_), static_cast<const double*>(wim_), radial_.data(),
                               phase_re_.data(), phase_im_.data(), acc_re_.data(), acc_im_.data());
    if (checkpoint_ != nullptr) checkpoint_->tick(radial_.size() + 2 * acc_re_.size());
  }
};

}  // namespace paperkernels::shapes
