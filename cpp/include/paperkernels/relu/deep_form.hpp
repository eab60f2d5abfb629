// Generic canonical form of a deep ReLU network (procedure (b)), float path with exact decisions.
//
// Layer by layer, every hidden row [W_l | b_l] (its columns already multiplied by the scales of the
// previous layer) is divided by its largest absolute entry, and the rows are sorted
// lexicographically (the next layer's columns follow the order). All values are products and
// quotients of the input doubles, computed in float64 with a rigorous relative error bound per
// layer. Every decision -- which entry is the largest, the order of two rows, equality of two forms --
// that the bound cannot settle is decided exactly by comparing products of the input doubles
// (ExactProduct). Networks outside the generic case (a zero, constant or irrelevant neuron, two
// neurons with identical normalised rows, values near the float64 range limits) are reported as
// degenerate so that the caller can use the exact rational path.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "paperkernels/relu/exact_product.hpp"
#include "paperkernels/relu/one_hidden.hpp"
#include "paperkernels/relu/row_scan.hpp"

namespace paperkernels::relu {

struct LayerView {
  const double* W;  // rows x cols, row-major
  const double* b;  // rows
  std::size_t rows, cols;
  double w(std::size_t j, std::size_t k) const { return W[j * cols + k]; }
};

class DeepForm {
 public:
  explicit DeepForm(std::vector<LayerView> layers, Poll poll = nullptr)
      : layers_(std::move(layers)), poll_{std::move(poll)} {
    compute();
  }

  bool ok() const noexcept { return ok_; }
  const std::string& reason() const noexcept { return reason_; }
  std::size_t n_layers() const noexcept { return layers_.size(); }
  const LayerView& layer(std::size_t l) const { return layers_[l]; }
  const std::vector<std::size_t>& order(std::size_t l) const { return order_[l]; }
  const std::vector<int>& pivot(std::size_t l) const { return pivot_[l]; }
  const std::vector<double>& scale(std::size_t l) const { return scale_[l]; }
  const std::vector<double>& relative_error() const noexcept { return rel_err_; }

  // Canonical parameters: out_W[l] has shape rows x cols of layer l (rows and columns in canonical
  // order), out_b[l] has length rows. Returns false (and marks the form degenerate) on underflow.
  bool materialize(const std::vector<double*>& out_W, const std::vector<double*>& out_b) {
    if (!ok_) return false;
    const std::size_t L = layers_.size();
    std::vector<double> col_scale;
    std::vector<std::size_t> col_src, col_pos;
    bool out_of_range = false;
    for (std::size_t l = 0; l < L; ++l) {
      const LayerView& lay = layers_[l];
      col_scale.assign(lay.cols, 1.0);
      col_src.resize(lay.cols);
      col_pos.resize(lay.cols);
      for (std::size_t c = 0; c < lay.cols; ++c) {
        col_src[c] = col_index(l, c);
        col_pos[col_src[c]] = c;
        if (l > 0) col_scale[c] = scale_[l - 1][col_src[c]];
      }
      for (std::size_t r = 0; r < lay.rows; ++r) {
        const std::size_t j = row_index(l, r);
        const double inv = hidden(l) ? inv_scale_[l][j] : 1.0;
        const double* src = lay.W + j * lay.cols;
        double* dst = out_W[l] + r * lay.cols;
        for (std::size_t c = 0; c < lay.cols; ++c) {
          const double w = src[col_src[c]];
          const double v = (w * col_scale[c]) * inv;
          dst[c] = v;
          out_of_range |= (w != 0.0) & !(std::fabs(v) >= kTiny);
        }
        double vb = lay.b[j] * inv;
        out_of_range |= (lay.b[j] != 0.0) & !(std::fabs(vb) >= kTiny);
        if (hidden(l)) {  // the pivot entry is exactly +-1
          const int p = pivot_[l][j];
          if (p < 0)
            vb = lay.b[j] > 0 ? 1.0 : -1.0;
          else
            dst[col_pos[static_cast<std::size_t>(p)]] = src[p] > 0 ? 1.0 : -1.0;
        }
        out_b[l][r] = vb;
      }
    }
    if (out_of_range) fail("values outside the safe float64 range");
    return ok_;
  }

  // Exact equality of two canonical forms (both must be ok()): 1 equal, 0 different, -1 undecided
  // (a value left the safe float64 range during the comparison).
  friend int forms_equal(DeepForm& a, DeepForm& b) {
    if (!a.ok_ || !b.ok_) return -1;
    const std::size_t L = a.layers_.size();
    if (b.layers_.size() != L) return 0;
    for (std::size_t l = 0; l < L; ++l)
      if (a.layers_[l].rows != b.layers_[l].rows || a.layers_[l].cols != b.layers_[l].cols) return 0;
    for (std::size_t l = 0; l < L; ++l) {
      const LayerView& lay = a.layers_[l];
      for (std::size_t r = 0; r < lay.rows; ++r) {
        const std::size_t ja = a.row_index(l, r), jb = b.row_index(l, r);
        for (std::size_t c = 0; c <= lay.cols; ++c) {
          const std::size_t ka = c == lay.cols ? kBias : a.col_index(l, c);
          const std::size_t kb = c == lay.cols ? kBias : b.col_index(l, c);
          const int s = compare_entries(a, l, ja, ka, b, jb, kb);
          if (!a.ok_ || !b.ok_) return -1;
          if (s != 0) return 0;
        }
      }
    }
    return 1;
  }

 private:
  static constexpr std::size_t kBias = std::numeric_limits<std::size_t>::max();
  static constexpr double kTiny = 0x1p-960;
  static constexpr double kHuge = 0x1p960;
  static constexpr double kUnit = 0x1p-53;

  bool hidden(std::size_t l) const noexcept { return l + 1 < layers_.size(); }
  std::size_t row_index(std::size_t l, std::size_t r) const { return hidden(l) ? order_[l][r] : r; }
  std::size_t col_index(std::size_t l, std::size_t c) const { return l == 0 ? c : order_[l - 1][c]; }

  void fail(const std::string& why) {
    if (ok_) reason_ = why;
    ok_ = false;
  }

  // Float value of the canonical entry (row j, column k or the bias), original indices. The pivot
  // entry of a hidden row is exactly +-1 and is returned as such.
  double value(std::size_t l, std::size_t j, std::size_t k) {
    const LayerView& lay = layers_[l];
    double num;
    if (k == kBias) {
      num = lay.b[j];
    } else {
      num = lay.w(j, k);
      if (l > 0) num *= scale_[l - 1][k];
    }
    if (hidden(l) && is_pivot(l, j, k)) return num > 0 ? 1.0 : -1.0;
    const double v = hidden(l) ? num * inv_scale_[l][j] : num;
    const double source = k == kBias ? lay.b[j] : lay.w(j, k);
    // A nonzero source must give a value in the safe range (no underflow to 0 or to subnormals).
    if (source != 0.0 && !(std::fabs(v) >= kTiny && std::fabs(v) <= kHuge))
      fail("values outside the safe float64 range");
    return v;
  }

  bool is_pivot(std::size_t l, std::size_t j, std::size_t k) const {
    const int p = pivot_[l][j];
    return k == kBias ? p < 0 : p == static_cast<int>(k);
  }

  // Factors of the exact scale of neuron j of hidden layer l (the chain of pivots).
  void scale_factors(std::size_t l, std::size_t j, Factors& out) const {
    for (std::ptrdiff_t ll = static_cast<std::ptrdiff_t>(l); ll >= 0; --ll) {
      const int p = pivot_[ll][j];
      const LayerView& lay = layers_[ll];
      if (p < 0) {
        out.push(std::fabs(lay.b[j]));
        return;
      }
      out.push(std::fabs(lay.w(j, static_cast<std::size_t>(p))));
      j = static_cast<std::size_t>(p);
    }
  }

  // Numerator and denominator factors of an entry: value = prod(num) / prod(den), den > 0.
  void entry_factors(std::size_t l, std::size_t j, std::size_t k, Factors& num, Factors& den) const {
    const LayerView& lay = layers_[l];
    if (k == kBias) {
      num.push(lay.b[j]);
    } else {
      num.push(lay.w(j, k));
      if (l > 0) scale_factors(l - 1, k, num);
    }
    if (hidden(l)) scale_factors(l, j, den);
  }

  // sign(entry_a - entry_b): float when the error bounds allow, exact otherwise.
  static int compare_entries(DeepForm& a, std::size_t l, std::size_t ja, std::size_t ka, DeepForm& b, std::size_t jb,
                             std::size_t kb) {
    const double x = a.value(l, ja, ka);
    const double y = b.value(l, jb, kb);
    if (x == 0.0 && y == 0.0) return 0;  // zero-ness is exact: products of nonzero doubles are nonzero
    const double bound = 2.0 * (a.rel_err_[l] * std::fabs(x) + b.rel_err_[l] * std::fabs(y));
    if (std::fabs(x - y) > bound) return x < y ? -1 : 1;
    Factors na, da, nb, db;
    a.entry_factors(l, ja, ka, na, da);
    b.entry_factors(l, jb, kb, nb, db);
    Factors lhs, rhs;  // na * db vs nb * da
    for (int i = 0; i < na.n; ++i) lhs.push(na.v[i]);
    for (int i = 0; i < db.n; ++i) lhs.push(db.v[i]);
    for (int i = 0; i < nb.n; ++i) rhs.push(nb.v[i]);
    for (int i = 0; i < da.n; ++i) rhs.push(da.v[i]);
    return compare_factor_products(lhs, rhs);
  }

  void compute() {
    const std::size_t L = layers_.size();
    if (2 * L + 2 > static_cast<std::size_t>(Factors::kMax)) {
      fail("too many layers for the exact comparisons");
      return;
    }
    scale_.resize(L > 0 ? L - 1 : 0);
    inv_scale_.resize(scale_.size());
    pivot_.resize(scale_.size());
    order_.resize(scale_.size());
    rel_err_.assign(L, 0.0);
    // Relative error bounds, written without 1 + u (which rounds to 1): the scales of layer l-1
    // carry dm_prev; a product W * scale adds one rounding (de); an entry (W * scale) * fl(1 / m)
    // adds two more and the error of m itself. The factor 1.0625 and the 4u cover the rounding of
    // these formulas and of the subtraction in the comparisons.
    double dm_prev = 0.0;
    for (std::size_t l = 0; l < L; ++l) {
      const double de = l == 0 ? 0.0 : dm_prev + kUnit + dm_prev * kUnit;
      if (!hidden(l)) {
        rel_err_[l] = de * 1.0625 + 4.0 * kUnit;
        check_outgoing_of_previous(l);
        break;
      }
      const double dv = (2.0 * de + 2.0 * kUnit + 4.0 * de * kUnit + kUnit * kUnit) / (1.0 - de);
      rel_err_[l] = dv * 1.0625 + 4.0 * kUnit;
      compute_scales(l, de);
      if (!ok_) return;
      check_outgoing_of_previous(l);
      if (!ok_) return;
      sort_rows(l);
      if (!ok_) return;
      dm_prev = de;
    }
  }

  void compute_scales(std::size_t l, double de) {
    const LayerView& lay = layers_[l];
    std::vector<double>& m = scale_[l];
    std::vector<double>& inv = inv_scale_[l];
    std::vector<int>& piv = pivot_[l];
    m.assign(lay.rows, 0.0);
    inv.assign(lay.rows, 0.0);
    piv.assign(lay.rows, -1);
    col_abs_.assign(lay.cols, 0.0);
    const std::vector<double> ones(l == 0 ? lay.cols : 0, 1.0);
    const double* prev = l > 0 ? scale_[l - 1].data() : ones.data();
    const double margin = 4.0 * de + 4.0 * kUnit;
    std::vector<double> e_buf(lay.cols);
    double* e = e_buf.data();
    double* col_abs = col_abs_.data();
    const std::size_t n = lay.cols;
    const simd::Isa isa = simd::active();
    const auto scaled_magnitudes =
        simd::entry<ScaledMagnitudes, const double*, const double*, std::size_t, double*, double*>(isa);
    const auto count_at_least = simd::entry<CountAtLeast, const double*, std::size_t, double, std::size_t*>(isa);
    for (std::size_t j = 0; j < lay.rows; ++j) {
      // |W_jk| * scale_k and their maximum; the column sums of these flag neurons of layer l-1
      // without outgoing weights.
      const double best = scaled_magnitudes(lay.W + j * n, prev, n, e, col_abs);
      if (best == 0.0) {
        fail(lay.b[j] == 0.0 ? "a zero neuron" : "a constant neuron (zero incoming weights)");
        return;
      }
      const double bias = std::fabs(lay.b[j]);
      const double top = std::max(best, bias);
      // Entries far below the maximum never take part in a decision here; values that do (in
      // sorting and comparisons) are range-checked where they are computed.
      if (!(best >= kTiny && top <= kHuge)) {
        fail("values outside the safe float64 range");
        return;
      }
      // Candidates within the error margin of the float maximum.
      const double threshold = top * (1.0 - margin);
      std::size_t last_close = 0;
      const std::size_t n_close = (bias >= threshold ? 1 : 0) + count_at_least(e, n, threshold, &last_close);
      int pivot;
      if (n_close > 1) {
        pivot = exact_argmax(l, j, e_buf, threshold, bias >= threshold);
      } else if (bias >= threshold) {
        pivot = -1;
      } else {
        pivot = static_cast<int>(last_close);
      }
      m[j] = pivot < 0 ? bias : e[static_cast<std::size_t>(pivot)];
      inv[j] = 1.0 / m[j];
      piv[j] = pivot;
    }
  }

  // Index of the exactly largest |W_jk| * scale_k among the candidates (-1: the bias).
  int exact_argmax(std::size_t l, std::size_t j, const std::vector<double>& e, double threshold, bool bias_candidate) {
    const LayerView& lay = layers_[l];
    auto factors = [&](int k, Factors& out) {
      if (k < 0) {
        out.push(std::fabs(lay.b[j]));
        return;
      }
      out.push(std::fabs(lay.w(j, static_cast<std::size_t>(k))));
      if (l > 0) scale_factors(l - 1, static_cast<std::size_t>(k), out);
    };
    int best = bias_candidate ? -1 : -2;
    for (std::size_t k = 0; k < lay.cols; ++k) {
      if (!(e[k] >= threshold)) continue;
      if (best == -2) {
        best = static_cast<int>(k);
        continue;
      }
      Factors cand, cur;
      factors(static_cast<int>(k), cand);
      factors(best, cur);
      if (compare_factor_products(cand, cur) > 0) best = static_cast<int>(k);
    }
    return best;
  }

  // Every neuron of hidden layer l-1 must have a nonzero outgoing weight (the column sums of
  // |W_l| * scale are filled by compute_scales; a sum of nonnegative doubles is 0 only if all are).
  void check_outgoing_of_previous(std::size_t l) {
    if (l == 0) return;
    const LayerView& lay = layers_[l];
    if (!hidden(l)) {
      col_abs_.assign(lay.cols, 0.0);
      for (std::size_t r = 0; r < lay.rows; ++r)
        for (std::size_t c = 0; c < lay.cols; ++c) col_abs_[c] += std::fabs(lay.w(r, c));
    }
    for (double v : col_abs_)
      if (!(v > 0.0)) {
        fail("a neuron with zero outgoing weights");
        return;
      }
  }

  void sort_rows(std::size_t l) {
    const LayerView& lay = layers_[l];
    std::vector<std::size_t>& ord = order_[l];
    ord.resize(lay.rows);
    std::iota(ord.begin(), ord.end(), std::size_t{0});
    // Most comparisons are settled by the first canonical entry: precompute it once per row.
    const std::size_t first = lay.cols > 0 ? col_index(l, 0) : kBias;
    std::vector<double> key(lay.rows);
    for (std::size_t j = 0; j < lay.rows; ++j) key[j] = value(l, j, first);
    if (!ok_) return;
    const double rel = rel_err_[l];
    bool duplicate = false;
    std::sort(ord.begin(), ord.end(), [&](std::size_t a, std::size_t b) {
      poll_.tick();
      const double x = key[a], y = key[b];
      if (std::fabs(x - y) > 2.0 * rel * (std::fabs(x) + std::fabs(y))) return x < y;
      for (std::size_t c = 0; c <= lay.cols; ++c) {
        const std::size_t k = c == lay.cols ? kBias : col_index(l, c);
        const int s = compare_entries(*this, l, a, k, *this, b, k);
        if (s != 0) return s < 0;
      }
      if (a != b) duplicate = true;
      return false;
    });
    if (duplicate) fail("two neurons with identical normalised rows");
  }

  std::vector<LayerView> layers_;
  std::vector<std::vector<double>> scale_;
  std::vector<std::vector<double>> inv_scale_;
  std::vector<double> col_abs_;
  std::vector<std::vector<int>> pivot_;
  std::vector<std::vector<std::size_t>> order_;
  std::vector<double> rel_err_;
  bool ok_ = true;
  std::string reason_;
  PollEvery poll_;
};

}  // namespace paperkernels::relu
