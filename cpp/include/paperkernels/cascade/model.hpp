// The topic-order click model: p(i | s) = mu(phi(i, s)^T theta).
//
// phi(i, s) = [x_i ; topic block], where only the block of the item's topic c = tau(i) is non-zero:
//   "transition": block c holds z(s) (m entries), so the topic part is Gamma[c, :] . z(s);
//   "coverage":   block c holds one entry, 1 if topic c is absent from s (a novelty bonus).
// Link: "linear" (identity clipped to [0, 1]) or "logistic" (sigmoid).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "paperkernels/cascade/state_space.hpp"
#include "paperkernels/common/errors.hpp"

namespace paperkernels::cascade {

enum class FeatureMap : int { transition = 0, coverage = 1 };
enum class Link : int { linear = 0, logistic = 1 };

inline double sigmoid(double t) {
  if (t >= 0) return 1.0 / (1.0 + std::exp(-t));
  const double e = std::exp(t);
  return e / (1.0 + e);
}

inline double apply_link(Link link, double eta) {
  if (link == Link::logistic) return sigmoid(eta);
  return std::min(1.0, std::max(0.0, eta));
}

// Layout of phi: the item features first, then one block per topic.
struct FeatureLayout {
  FeatureMap map;
  int dx;
  int m;

  int block_size() const { return map == FeatureMap::transition ? m : 1; }
  int dim() const { return dx + m * block_size(); }
  int block_offset(int c) const { return dx + c * block_size(); }

  // Calls f(index within block c, coefficient) for each non-zero entry of block c of phi(., s).
  template <class F>
  void for_each_topic_entry(const StateSpace& space, int s, int c, F&& f) const {
    if (map == FeatureMap::transition) {
      for (auto e = space.z_begin(s); e != space.z_end(s); ++e) f(e->topic, static_cast<double>(e->value));
    } else if (space.z(s, c) == 0) {
      f(0, 1.0);
    }
  }
};

// Value of a cascade from the click probabilities at its positions: the recursion
// V_k = p_k + (1 - p_k) V_{k+1}, V_{K+1} = 0, evaluated from the last position. Every planner
// reports values through this function so that equal cascades give bit-identical values.
inline double cascade_value(const double* p, int K) {
  double v = 0.0;
  for (int k = K - 1; k >= 0; --k) v = p[k] + (1.0 - p[k]) * v;
  return v;
}

// Click probabilities of every item in every state of `space`: out[i * S + s].
// X: L x dx (row-major), topics: L, theta: layout.dim().
inline void click_table(const double* X, const std::int64_t* topics, std::size_t L, const double* theta,
                        const FeatureLayout& layout, Link link, const StateSpace& space, double* out,
                        Interrupt* stop = nullptr) {
  const int S = space.size();
  std::vector<double> topic_part(static_cast<std::size_t>(S) * layout.m);
  for (int s = 0; s < S; ++s)
    for (int c = 0; c < layout.m; ++c) {
      tick(stop);
      double t = 0.0;
      const double* block = theta + layout.block_offset(c);
      layout.for_each_topic_entry(space, s, c, [&](int j, double v) { t += block[j] * v; });
      topic_part[static_cast<std::size_t>(s) * layout.m + c] = t;
    }
  for (std::size_t i = 0; i < L; ++i) {
    tick(stop, static_cast<std::size_t>(S));
    double base = 0.0;
    for (int j = 0; j < layout.dx; ++j) base += X[i * layout.dx + j] * theta[j];
    const auto c = static_cast<int>(topics[i]);
    for (int s = 0; s < S; ++s)
      out[i * S + s] = apply_link(link, base + topic_part[static_cast<std::size_t>(s) * layout.m + c]);
  }
}

}  // namespace paperkernels::cascade
