// CascadeUCB1 and CascadeKL-UCB (Kveton et al. 2015): per-item indices from click counts.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "paperkernels/cascade/learners/common.hpp"
#include "paperkernels/common/bernoulli_kl.hpp"
#include "paperkernels/common/errors.hpp"

namespace paperkernels::cascade {

// Largest q in [mean, 1] with n kl(mean, q) <= budget (kl: the shared, cancellation-free Bernoulli KL). f(q) = n
// kl(mean, q) - budget is convex and increasing on [mean, 1), so Newton's method started to the right of the root
// (Pinsker: kl >= 2 (q - mean)^2 puts the root below mean + sqrt(budget / 2n)) decreases monotonically to it.
inline double kl_upper_bound(double mean, double n, double budget) {
  if (mean >= 1.0) return 1.0;
  if (!(budget > 0.0)) return mean;
  const double below_one = 1.0 - 1e-15;
  double q = std::min(below_one, mean + std::sqrt(budget / (2.0 * n)));
  for (int it = 0; it < 100; ++it) {
    const double f = n * kl_bernoulli(mean, q) - budget;
    if (f <= 0.0) return q == below_one ? 1.0 : q;  // reached (or the root lies beyond 1 - 1e-15)
    const double slope = n * (q - mean) / (q * (1.0 - q));
    const double next = std::max(mean, q - f / slope);
    if (q - next <= 1e-15 * q) return next;
    q = next;
  }
  return q;
}

// CascadeUCB1 and CascadeKL-UCB (Kveton et al. 2015): per-item click statistics, the K items of
// highest index. Items never observed come first (infinite index, lower index first).
class ItemUCB final : public Learner {
 public:
  explicit ItemUCB(const LearnerConfig& cfg, Interrupt* stop = nullptr) : Learner(cfg, stop) {}

  void select(const ItemsView& items, std::int32_t* cascade) override {
    check_items(items, false);
    ensure_items(items.L);
    scores(score_);
    top_k_by_score(score_, config_.K, order_, cascade);
  }

  // UCB1: mean + sqrt(1.5 log t / n); KL-UCB: max{q : n kl(mean, q) <= log t + 3 log log t}
  // (the log log term only once log t >= 1); t = 1 + rounds so far.
  void scores(std::vector<double>& out) const {
    const double t = static_cast<double>(rounds_ + 1);
    const double log_t = std::log(t);
    out.resize(clicks_.size());
    for (std::size_t i = 0; i < clicks_.size(); ++i) {
      const double n = views_[i];
      if (n == 0) {
        out[i] = std::numeric_limits<double>::infinity();
        continue;
      }
      const double mean = clicks_[i] / n;
      if (config_.type == LearnerType::ucb1) {
        out[i] = mean + std::sqrt(1.5 * log_t / n);
      } else {
        const double budget = log_t + 3.0 * std::log(std::max(1.0, log_t));
        out[i] = kl_upper_bound(mean, n, budget);
      }
    }
  }

  void update(const ItemsView& items, const std::int32_t* cascade, int first_click) override {
    ensure_items(items.L);
    const int n = observed_positions(config_.K, first_click);
    for (int k = 0; k < n; ++k) {
      views_[cascade[k]] += 1.0;
      if (k == first_click) clicks_[cascade[k]] += 1.0;
    }
    ++rounds_;
  }

  const std::vector<double>& clicks() const { return clicks_; }
  const std::vector<double>& views() const { return views_; }

  void save(LearnerState& out) const override {
    Learner::save(out);
    out.clicks = clicks_;
    out.views = views_;
  }

  void load(const LearnerState& in) override {
    require(in.clicks.size() == in.views.size(), "state: expected as many click as view counts");
    Learner::load(in);
    clicks_ = in.clicks;
    views_ = in.views;
  }

 private:
  void ensure_items(std::size_t L) {
    if (clicks_.empty()) {
      clicks_.assign(L, 0.0);
      views_.assign(L, 0.0);
    }
    require(L == clicks_.size(), "X: this learner keeps per-item statistics for ", clicks_.size(), " items, got ", L);
  }
  std::vector<double> clicks_, views_, score_;
  std::vector<std::int32_t> order_;
};

}  // namespace paperkernels::cascade
