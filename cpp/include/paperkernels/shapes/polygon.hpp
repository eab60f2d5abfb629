// Exact Zernike moments of polygons (rings with holes, several parts) inside the unit disk.
//
// Both rules below integrate polynomials exactly, so the results are exact up to rounding.
//
// Fan rule (the specification's): each ring edge (a, b) spans the signed triangle (0, a, b);
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
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <vector>

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

class PolygonMoments {
 public:
  PolygonMoments(int N, PolygonRule rule)
      : N_(N), top_(rule == PolygonRule::boundary ? N + 1 : N), rule_(rule), q_(N / 2 + 2) {
    nodes_.resize(q_);
    weights_.resize(q_);
    gauss_legendre(q_, nodes_.data(), weights_.data());
    for (int i = 0; i < q_; ++i) {  // to [0, 1]
      nodes_[i] = 0.5 * (nodes_[i] + 1.0);
      weights_[i] *= 0.5;
    }
    const std::size_t table = half_size(top_) * kLanes;
    radial_.resize(table);
    rows_.resize(3 * static_cast<std::size_t>(top_ + 3) * kLanes);
    phase_re_.resize(static_cast<std::size_t>(N_ + 2) * kLanes);
    phase_im_.resize(phase_re_.size());
    acc_re_.resize(half_size(N_) * kLanes);
    acc_im_.resize(acc_re_.size());
  }

  // out[k] = c_k for the half set of order N.
  void compute(const RingSet& rings, std::complex<double>* out) {
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
  std::vector<double> radial_, rows_, phase_re_, phase_im_, acc_re_, acc_im_;
  double px_[kLanes] = {}, py_[kLanes] = {}, wre_[kLanes] = {}, wim_[kLanes] = {};
  int fill_ = 0;

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

  // Radial table of order top_ for the pack (lane-interleaved), then the pack's contributions.
  void flush() {
    for (int l = fill_; l < kLanes; ++l) px_[l] = py_[l] = wre_[l] = wim_[l] = 0.0;
    fill_ = 0;
    double rho[kLanes], c1[kLanes], s1[kLanes];
    for (int l = 0; l < kLanes; ++l) {
      rho[l] = std::min(1.0, std::hypot(px_[l], py_[l]));
      const double r = std::hypot(px_[l], py_[l]);
      c1[l] = r > 0.0 ? px_[l] / r : 1.0;
      s1[l] = r > 0.0 ? py_[l] / r : 0.0;
    }
    radial_lanes(rho);

    // phase_[j] = weight * e^{-i j theta}, j = 0 .. N (boundary rule: j = m - 1, stored at j + 1).
    const int shift = rule_ == PolygonRule::boundary ? 1 : 0;
    double* pre = phase_re_.data();
    double* pim = phase_im_.data();
    for (int l = 0; l < kLanes; ++l) {
      pre[shift * kLanes + l] = wre_[l];
      pim[shift * kLanes + l] = wim_[l];
    }
    if (shift) {  // j = -1: weight * e^{+i theta}
      for (int l = 0; l < kLanes; ++l) {
        pre[l] = wre_[l] * c1[l] - wim_[l] * s1[l];
        pim[l] = wre_[l] * s1[l] + wim_[l] * c1[l];
      }
    }
    for (int j = 1; j + shift <= N_ + 1; ++j) {
      const double* lre = pre + (j - 1 + shift) * kLanes;
      const double* lim = pim + (j - 1 + shift) * kLanes;
      double* nre = pre + (j + shift) * kLanes;
      double* nim = pim + (j + shift) * kLanes;
      for (int l = 0; l < kLanes; ++l) {  // times e^{-i theta}
        nre[l] = lre[l] * c1[l] + lim[l] * s1[l];
        nim[l] = lim[l] * c1[l] - lre[l] * s1[l];
      }
    }

    std::size_t k = 0;
    for (int n = 0; n <= N_; ++n) {
      for (int m = n & 1; m <= n; m += 2, ++k) {
        double* are = acc_re_.data() + k * kLanes;
        double* aim = acc_im_.data() + k * kLanes;
        if (rule_ == PolygonRule::fan) {
          const double* r = radial_.data() + half_index(n, m) * kLanes;
          const double* qre = pre + m * kLanes;
          const double* qim = pim + m * kLanes;
          for (int l = 0; l < kLanes; ++l) {
            are[l] += qre[l] * r[l];
            aim[l] += qim[l] * r[l];
          }
        } else {
          const int mm = m == 0 ? 1 : m - 1;
          const double* hi = radial_.data() + half_index(n + 1, mm) * kLanes;
          const double* qre = pre + m * kLanes;  // j = m - 1 stored at m
          const double* qim = pim + m * kLanes;
          if (n - 1 >= mm) {
            const double* lo = radial_.data() + half_index(n - 1, mm) * kLanes;
            for (int l = 0; l < kLanes; ++l) {
              const double d = hi[l] - lo[l];
              are[l] += qre[l] * d;
              aim[l] += qim[l] * d;
            }
          } else {
            for (int l = 0; l < kLanes; ++l) {
              are[l] += qre[l] * hi[l];
              aim[l] += qim[l] * hi[l];
            }
          }
        }
      }
    }
  }

  // The recurrence of RadialTable, run on kLanes radii at once.
  void radial_lanes(const double* rho) {
    const std::size_t width = static_cast<std::size_t>(top_ + 3) * kLanes;
    std::fill(rows_.begin(), rows_.end(), 0.0);
    double* older = rows_.data();
    double* old = rows_.data() + width;
    double* cur = rows_.data() + 2 * width;
    for (int l = 0; l < kLanes; ++l) cur[l] = radial_[l] = 1.0;
    for (int n = 1; n <= top_; ++n) {
      double* next = older;
      older = old;
      old = cur;
      cur = next;
      const std::size_t base = half_size(n - 1);
      for (int m = n & 1, k = 0; m <= n; m += 2, ++k) {
        const double* left = old + (m == 0 ? 1 : m - 1) * kLanes;
        const double* right = old + (m + 1) * kLanes;
        const double* below = older + m * kLanes;
        double* dst = cur + m * kLanes;
        double* table = radial_.data() + (base + k) * kLanes;
        for (int l = 0; l < kLanes; ++l) {
          const double value = rho[l] * (left[l] + right[l]) - below[l];
          dst[l] = value;
          table[l] = value;
        }
      }
    }
  }
};

}  // namespace paperkernels::shapes
