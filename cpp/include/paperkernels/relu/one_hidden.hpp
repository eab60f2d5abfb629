// Exact equivalence of two one-hidden-layer networks with float64 parameters (procedure (a)).
//
// f(x) = sum_i c_i relu(w_i . x + b_i) + d. The difference a - b is one network whose neurons are
// those of a and those of b with negated outgoing weights. Each neuron with c_i != 0 and w_i != 0 has
// the oriented key (w_i, b_i) / w_ip (p: first nonzero entry of w_i) and the kink coefficient
// kappa_i = c_i |w_ip|. The networks are equivalent iff, for every group of neurons with equal keys,
// the kink coefficients sum to zero, and the affine part sum_{w_ip < 0} c_i (w_i, b_i) + (constant
// neurons) + d_a - d_b vanishes. Keys are sorted with float comparisons whose error bound is known
// (one division each), and exactly (products of two doubles) when the bound cannot decide; sums are
// exact (ExactSum). So the verdict is exact.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

#include "paperkernels/common/errors.hpp"
#include "paperkernels/common/parallel.hpp"
#include "paperkernels/relu/exact_product.hpp"
#include "paperkernels/relu/exact_sum.hpp"

namespace paperkernels::relu {

// Calls `poll` every 2^14 ticks and throws `interrupted` when it returns true (Ctrl-C in long sorts:
// exact tie-breaking can make a sort of millions of keys take minutes).
struct PollEvery {
  Poll poll;
  std::size_t count = 0;
  void tick() {
    if (poll && (++count & 0x3FFFu) == 0 && poll()) throw interrupted();
  }
};

struct OneHiddenView {
  const double* W1;  // m x n0
  const double* b1;  // m
  const double* W2;  // n_out x m
  const double* b2;  // n_out
  std::size_t n0, m, n_out;
  double w(std::size_t i, std::size_t k) const { return W1[i * n0 + k]; }
  double c(std::size_t o, std::size_t i) const { return W2[o * m + i]; }
};

class OneHiddenDifference {
 public:
  OneHiddenDifference(const OneHiddenView& a, const OneHiddenView& b, Poll poll = nullptr)
      : nets_{a, b}, poll_{std::move(poll)} {}

  // True iff the two networks compute the same function (exact).
  bool equal() {
    const std::size_t n0 = nets_[0].n0, n_out = nets_[0].n_out;
    std::vector<ExactSum> offset(n_out);
    for (std::size_t o = 0; o < n_out; ++o) {
      offset[o].add(nets_[0].b2[o]);
      offset[o].add(nets_[1].b2[o], -1);
    }
    collect(offset);
    std::vector<std::size_t> order(items_.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
      poll_.tick();
      return compare_keys(items_[x], items_[y]) < 0;
    });

    std::vector<ExactSum> linear;  // n_out x n0, allocated on first need
    std::size_t start = 0;
    while (start < order.size()) {
      std::size_t end = start + 1;
      while (end < order.size() && compare_keys(items_[order[start]], items_[order[end]]) == 0) {
        poll_.tick();
        ++end;
      }
      for (std::size_t o = 0; o < n_out; ++o) {
        ExactSum kink, flipped;
        for (std::size_t g = start; g < end; ++g) {
          const Item& it = items_[order[g]];
          const OneHiddenView& net = nets_[it.net];
          const double c = net.c(o, it.neuron);
          const double s = std::fabs(net.w(it.neuron, it.pivot));
          kink.add_product(c, s, it.sign);
          if (net.w(it.neuron, it.pivot) < 0.0) flipped.add_product(c, s, it.sign);
        }
        if (kink.sign() != 0) return false;  // a kink that does not cancel: the functions differ
        if (flipped.sign() == 0) continue;   // the flipped members' linear terms cancel exactly
        if (linear.empty()) linear.resize(n_out * n0);
        for (std::size_t g = start; g < end; ++g) {
          const Item& it = items_[order[g]];
          const OneHiddenView& net = nets_[it.net];
          if (!(net.w(it.neuron, it.pivot) < 0.0)) continue;
          const double c = net.c(o, it.neuron);
          for (std::size_t k = 0; k < n0; ++k) linear[o * n0 + k].add_product(c, net.w(it.neuron, k), it.sign);
          offset[o].add_product(c, net.b1[it.neuron], it.sign);
        }
      }
      start = end;
    }
    for (const ExactSum& s : linear)
      if (s.sign() != 0) return false;
    for (const ExactSum& s : offset)
      if (s.sign() != 0) return false;
    return true;
  }

 private:
  struct Item {
    int net;   // 0: a, 1: b
    int sign;  // +1 for a, -1 for b (the difference network)
    std::size_t neuron;
    std::size_t pivot;  // first nonzero entry of w
    std::size_t key;    // offset of the float key (n0 + 1 values) in keys_
  };

  void collect(std::vector<ExactSum>& offset) {
    const std::size_t n0 = nets_[0].n0, n_out = nets_[0].n_out;
    for (int t = 0; t < 2; ++t) {
      const OneHiddenView& net = nets_[t];
      const int sign = t == 0 ? 1 : -1;
      for (std::size_t i = 0; i < net.m; ++i) {
        bool silent = true;
        for (std::size_t o = 0; o < n_out && silent; ++o) silent = net.c(o, i) == 0.0;
        if (silent) continue;
        std::size_t p = 0;
        while (p < n0 && net.w(i, p) == 0.0) ++p;
        if (p == n0) {  // constant neuron: c relu(b)
          if (net.b1[i] > 0.0)
            for (std::size_t o = 0; o < n_out; ++o) offset[o].add_product(net.c(o, i), net.b1[i], sign);
          continue;
        }
        const double wp = net.w(i, p);
        const std::size_t at = keys_.size();
        for (std::size_t k = 0; k < n0; ++k) keys_.push_back(k == p ? 1.0 : net.w(i, k) / wp);
        keys_.push_back(net.b1[i] / wp);
        items_.push_back({t, sign, i, p, at});
      }
    }
  }

  // Entry k (n0 = the bias) of an item's key as an exact ratio num / den.
  void ratio(const Item& it, std::size_t k, double& num, double& den) const {
    const OneHiddenView& net = nets_[it.net];
    num = k == net.n0 ? net.b1[it.neuron] : net.w(it.neuron, k);
    den = net.w(it.neuron, it.pivot);
  }

  int compare_keys(const Item& x, const Item& y) const {
    if (x.pivot != y.pivot) return x.pivot < y.pivot ? 1 : -1;  // (.., 1, ..) vs (.., 0, ..)
    const std::size_t n0 = nets_[0].n0;
    for (std::size_t k = x.pivot + 1; k <= n0; ++k) {
      const double u = keys_[x.key + k], v = keys_[y.key + k];
      double nu, du, nv, dv;
      ratio(x, k, nu, du);
      ratio(y, k, nv, dv);
      // A key entry is one correctly rounded division: relative error <= 2^-53 unless the quotient
      // left the normal range (underflow to a subnormal or zero, overflow): then decide exactly.
      const bool trusted = (nu == 0.0 || std::isnormal(u)) && (nv == 0.0 || std::isnormal(v));
      if (trusted) {
        if (nu == 0.0 && nv == 0.0) continue;  // zero entries are exact
        if (std::fabs(u - v) > 0x1p-51 * (std::fabs(u) + std::fabs(v))) return u < v ? -1 : 1;
      }
      // nu/du - nv/dv has the sign of (nu dv - nv du) * sign(du dv)
      Factors l, r;
      l.push(nu);
      l.push(dv);
      r.push(nv);
      r.push(du);
      int s = compare_factor_products(l, r);
      if ((du < 0.0) != (dv < 0.0)) s = -s;
      if (s != 0) return s;
    }
    return 0;
  }

  OneHiddenView nets_[2];
  PollEvery poll_;
  std::vector<double> keys_;
  std::vector<Item> items_;
};

}  // namespace paperkernels::relu
