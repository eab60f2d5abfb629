// CascadeLinUCB (Zong et al. 2016), the topic-agnostic baseline.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "paperkernels/cascade/learners/common.hpp"
#include "paperkernels/common/errors.hpp"

namespace paperkernels::cascade {

// CascadeLinUCB (Zong et al. 2016): ridge regression on x_i only, the K items of highest
// UCB x^T theta + beta ||x||_{V^{-1}} in decreasing order.
class LinUCB final : public Learner {
 public:
  explicit LinUCB(const LearnerConfig& cfg, Interrupt* stop = nullptr) : Learner(cfg, stop) {
    gram_.reset(cfg.n_features, cfg.lam);
    b_.assign(cfg.n_features, 0.0);
    theta_.assign(cfg.n_features, 0.0);
    work_.assign(cfg.n_features, 0.0);
  }
  const InverseGram& gram() const { return gram_; }
  const std::vector<double>& theta() {
    gram_.multiply(b_.data(), theta_.data());
    return theta_;
  }
  std::int64_t observations() const { return n_obs_; }
  double beta() const { return confidence_width(config_, gram_.dim(), n_obs_); }

  void select(const ItemsView& items, std::int32_t* cascade) override {
    check_items(items, true);
    score_checked(items, score_);
    top_k_by_score(score_, config_.K, order_, cascade);
  }

  void scores(const ItemsView& items, std::vector<double>& out) {
    check_features(items);
    score_checked(items, out);
  }

  void update(const ItemsView& items, const std::int32_t* cascade, int first_click) override {
    check_items(items, true);
    const int n = observed_positions(config_.K, first_click);
    double b_bound = max_abs(b_);
    for (int k = 0; k < n; ++k) {
      const FeatureNorms norms = feature_norms(items.X + static_cast<std::size_t>(cascade[k]) * items.dx, items.dx);
      b_bound += norms.abs_max;
      // (The accuracy bound kMaxFeatureRatio was checked with the items.)
      if (!(norms.sq / config_.lam <= kSafeMagnitude) || !(b_bound <= kSafeMagnitude))
        refuse_features(cascade[k], k, config_.lam);
    }
    for (int k = 0; k < n; ++k) {
      const double* x = items.X + static_cast<std::size_t>(cascade[k]) * items.dx;
      gram_.add(x, 1.0, work_.data());
      const double y = k == first_click ? 1.0 : 0.0;
      for (int j = 0; j < items.dx; ++j) b_[j] += y * x[j];
      ++n_obs_;
    }
    ++rounds_;
  }

  void save(LearnerState& out) const override {
    Learner::save(out);
    out.observations = n_obs_;
    out.gram.assign(gram_.data(), gram_.data() + static_cast<std::size_t>(gram_.dim()) * gram_.dim());
    out.b = b_;
    out.theta = theta_;
  }

  void load(const LearnerState& in) override {
    const auto d = static_cast<std::size_t>(gram_.dim());
    require(in.gram.size() == d * d && in.b.size() == d && in.theta.size() == d, "state: expected the statistics of a ",
            d, "-feature learner");
    Learner::load(in);
    n_obs_ = in.observations;
    gram_.assign(gram_.dim(), in.gram.data());
    b_ = in.b;
    theta_ = in.theta;
  }

 private:
  // The scores of items whose features were checked (check_features).
  void score_checked(const ItemsView& items, std::vector<double>& out) {
    gram_.multiply(b_.data(), theta_.data());
    const double beta_t = beta();
    const int dx = items.dx;
    out.resize(items.L);
    for (std::size_t i = 0; i < items.L; ++i) {
      tick(stop_, static_cast<std::size_t>(dx) * dx);
      const auto [u, a] = gram_.leading_terms(items.X + i * dx, dx, theta_.data());
      out[i] = u + beta_t * std::sqrt(std::max(a, 0.0));
    }
  }

  InverseGram gram_;
  std::vector<double> b_, theta_, work_, score_;
  std::vector<std::int32_t> order_;
  std::int64_t n_obs_ = 0;
};

}  // namespace paperkernels::cascade
