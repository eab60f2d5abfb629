// Learners for the topic-order cascading bandit.
//
// TopicUCB (the paper's optimistic learner): ridge regression on phi(i, s) with V^{-1} kept by
// Sherman-Morrison updates; optimistic click probabilities
//   p~(i | s) = clip(phi^T theta_hat + beta_t ||phi||_{V^{-1}}, 0, 1)        (linear link)
//   p~(i | s) = sigmoid(phi^T theta_hat + beta_t ||phi||_{W^{-1}})           (logistic link)
// for every item and reachable state, then planning with them. The logistic variant keeps the
// Hessian-weighted Gram W = lambda I + sum sigmoid'(phi^T theta) phi phi^T and takes one online
// Newton step per observation (a reconstruction, see the Python docstring).
//
// Baselines: CascadeLinUCB on x only (topic-agnostic), CascadeUCB1, CascadeKL-UCB, uniform random.
// Every learner sees the items of a round as (X, topics) and, after showing a cascade, the position
// of the first click (-1 for none): positions up to and including it were examined.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "paperkernels/cascade/model.hpp"
#include "paperkernels/cascade/planners.hpp"
#include "paperkernels/cascade/state_space.hpp"
#include "paperkernels/common/errors.hpp"
#include "paperkernels/common/random.hpp"

namespace paperkernels::cascade {

enum class LearnerType : int { topic_ucb = 0, lin_ucb = 1, ucb1 = 2, kl_ucb = 3, random = 4 };

struct LearnerConfig {
  LearnerType type = LearnerType::topic_ucb;
  int K = 1;
  int n_topics = 1;
  int n_features = 1;
  StateKind state = StateKind::set;
  FeatureMap features = FeatureMap::transition;
  Link link = Link::linear;
  Planner planner = Planner::exact;
  double lam = 1.0;
  double beta = std::numeric_limits<double>::quiet_NaN();  // NaN: the confidence schedule
  double delta = 0.05;
  double S = 1.0;
  std::size_t max_states = 2'000'000;
};

struct ItemsView {
  const double* X;
  const std::int64_t* topics;
  std::size_t L;
  int dx;
};

class Learner {
 public:
  virtual ~Learner() = default;
  virtual void select(const ItemsView& items, std::int32_t* cascade) = 0;
  virtual void update(const ItemsView& items, const std::int32_t* cascade, int first_click) = 0;
  const LearnerConfig& config() const { return config_; }
  std::int64_t rounds() const { return rounds_; }

 protected:
  explicit Learner(const LearnerConfig& config) : config_(config) {}
  void check_items(const ItemsView& items, bool needs_features) const {
    require(items.L >= static_cast<std::size_t>(config_.K),
            "X: expected at least K = " + std::to_string(config_.K) + " items, got " + std::to_string(items.L));
    if (needs_features)
      require(items.dx == config_.n_features, "X: expected " + std::to_string(config_.n_features) +
                                                  " features per item, got " + std::to_string(items.dx));
  }
  LearnerConfig config_;
  std::int64_t rounds_ = 0;
};

// Number of observed positions and their labels for a first click at `first_click` (-1: none).
inline int observed_positions(int K, int first_click) { return first_click < 0 ? K : first_click + 1; }

// V^{-1} of V = lambda I + sum w phi phi^T, kept by Sherman-Morrison (symmetric by construction).
class InverseGram {
 public:
  void reset(int d, double lam) {
    d_ = d;
    M_.assign(static_cast<std::size_t>(d) * d, 0.0);
    for (int i = 0; i < d; ++i) M_[static_cast<std::size_t>(i) * d + i] = 1.0 / lam;
    work_.assign(d, 0.0);
  }
  int dim() const { return d_; }
  const double* data() const { return M_.data(); }
  double at(int i, int j) const { return M_[static_cast<std::size_t>(i) * d_ + j]; }
  const double* row(int i) const { return M_.data() + static_cast<std::size_t>(i) * d_; }

  // M <- M - w (M phi)(M phi)^T / (1 + w phi^T M phi). Returns M_old phi in `Mphi` (size d).
  void add(const double* phi, double w, double* Mphi) {
    for (int i = 0; i < d_; ++i) {
      const double* r = row(i);
      double t = 0.0;
      for (int j = 0; j < d_; ++j) t += r[j] * phi[j];
      Mphi[i] = t;
    }
    double quad = 0.0;
    for (int i = 0; i < d_; ++i) quad += phi[i] * Mphi[i];
    const double scale = w / (1.0 + w * quad);
    for (int i = 0; i < d_; ++i) {
      double* r = M_.data() + static_cast<std::size_t>(i) * d_;
      const double ci = scale * Mphi[i];
      for (int j = 0; j < d_; ++j) r[j] -= ci * Mphi[j];
    }
  }

  void multiply(const double* v, double* out) const {
    for (int i = 0; i < d_; ++i) {
      const double* r = row(i);
      double t = 0.0;
      for (int j = 0; j < d_; ++j) t += r[j] * v[j];
      out[i] = t;
    }
  }

 private:
  int d_ = 0;
  std::vector<double> M_;
  std::vector<double> work_;
};

// beta_t = sqrt(d log((1 + n / lambda) / delta)) / 2 + sqrt(lambda) S, or the configured constant.
inline double confidence_width(const LearnerConfig& cfg, int d, std::int64_t n_obs) {
  if (!std::isnan(cfg.beta)) return cfg.beta;
  return std::sqrt(d * std::log((1.0 + static_cast<double>(n_obs) / cfg.lam) / cfg.delta)) / 2.0 +
         std::sqrt(cfg.lam) * cfg.S;
}

// The paper's learner: optimistic probabilities for every (item, reachable state), then planning.
class TopicUCB final : public Learner {
 public:
  explicit TopicUCB(const LearnerConfig& cfg)
      : Learner(cfg), space_(cfg.state, cfg.n_topics, cfg.K, cfg.max_states), layout_{cfg.features, cfg.n_features, cfg.n_topics} {
    d_ = layout_.dim();
    gram_.reset(d_, cfg.lam);
    b_.assign(d_, 0.0);
    theta_.assign(d_, 0.0);
    phi_.assign(d_, 0.0);
    work_.assign(d_, 0.0);
  }

  const StateSpace& space() const { return space_; }
  const FeatureLayout& layout() const { return layout_; }
  const InverseGram& gram() const { return gram_; }
  const std::vector<double>& theta() const { return theta_; }
  std::int64_t observations() const { return n_obs_; }
  double beta() const { return confidence_width(config_, d_, n_obs_); }
  const PlanResult& last_plan() const { return plan_; }
  std::size_t last_candidates() const { return n_candidates_; }

  void select(const ItemsView& items, std::int32_t* cascade) override {
    check_items(items, true);
    refresh_theta();
    optimistic_lists(items);
    switch (config_.planner) {
      case Planner::exact: plan_ = exact_.run(space_, lists_); break;
      case Planner::topic_dp: plan_ = topic_dp_.run(space_, lists_); break;
      case Planner::greedy: plan_ = plan_greedy(space_, lists_); break;
      case Planner::brute: throw invalid_argument("planner: 'brute' is a test oracle for click tables, not a learner planner");
    }
    std::copy(plan_.cascade.begin(), plan_.cascade.end(), cascade);
  }

  void update(const ItemsView& items, const std::int32_t* cascade, int first_click) override {
    check_items(items, true);
    const int n = observed_positions(config_.K, first_click);
    int s = StateSpace::root();
    for (int k = 0; k < n; ++k) {
      const std::int32_t item = cascade[k];
      const int c = static_cast<int>(items.topics[item]);
      fill_phi(items, item, s);
      const double y = k == first_click ? 1.0 : 0.0;
      if (config_.link == Link::linear) {
        gram_.add(phi_.data(), 1.0, work_.data());
        for (int j = 0; j < d_; ++j) b_[j] += y * phi_[j];
      } else {
        // Online Newton step on the log-likelihood: W += sigmoid'(eta) phi phi^T, then
        // theta += W^{-1} phi (y - sigmoid(eta)), with eta at the current estimate.
        double eta = 0.0;
        for (int j = 0; j < d_; ++j) eta += phi_[j] * theta_[j];
        const double mu = sigmoid(eta);
        gram_.add(phi_.data(), mu * (1.0 - mu), work_.data());
        gram_.multiply(phi_.data(), work_.data());
        for (int j = 0; j < d_; ++j) theta_[j] += work_[j] * (y - mu);
      }
      ++n_obs_;
      if (k + 1 < config_.K) s = space_.next(s, c);
    }
    ++rounds_;
  }

  // Optimistic probabilities of every item in every state (out[i * S + s]), evaluated directly.
  void optimistic_table(const ItemsView& items, double* out) {
    check_items(items, true);
    refresh_theta();
    prepare_round(items);
    const int S = space_.size();
    std::vector<double> h(layout_.block_size());
    for (std::size_t i = 0; i < items.L; ++i) {
      const int c = static_cast<int>(items.topics[i]);
      item_topic_products(items, i, c, h.data());
      for (int s = 0; s < S; ++s) out[i * S + s] = evaluate(i, c, s, h.data()).p;
    }
  }

 private:
  void refresh_theta() {
    if (config_.link == Link::linear) gram_.multiply(b_.data(), theta_.data());
  }

  void fill_phi(const ItemsView& items, std::int32_t item, int s) {
    std::fill(phi_.begin(), phi_.end(), 0.0);
    const int c = static_cast<int>(items.topics[item]);
    for (int j = 0; j < layout_.dx; ++j) phi_[j] = items.X[static_cast<std::size_t>(item) * layout_.dx + j];
    double* block = phi_.data() + layout_.block_offset(c);
    layout_.for_each_topic_entry(space_, s, c, [&](int j, double v) { block[j] = v; });
  }

  // Per-item and per-(topic, state) parts of phi^T theta and phi^T M phi.
  void prepare_round(const ItemsView& items) {
    const std::size_t L = items.L;
    const int dx = layout_.dx, m = layout_.m, S = space_.size();
    beta_ = beta();
    u_.resize(L);
    a_.resize(L);
    upper_.resize(L);
    for (std::size_t i = 0; i < L; ++i) {
      const double* x = items.X + i * dx;
      double u = 0.0, a = 0.0;
      for (int j = 0; j < dx; ++j) {
        u += x[j] * theta_[j];
        const double* r = gram_.row(j);
        double t = 0.0;
        for (int l = 0; l < dx; ++l) t += r[l] * x[l];
        a += x[j] * t;
      }
      a = std::max(a, 0.0);
      u_[i] = u;
      a_[i] = a;
      upper_[i] = u + beta_ * std::sqrt(a);
    }
    G_.assign(static_cast<std::size_t>(S) * m, 0.0);
    q_.assign(static_cast<std::size_t>(S) * m, 0.0);
    for (int s = 0; s < S; ++s)
      for (int c = 0; c < m; ++c) {
        const int off = layout_.block_offset(c);
        double g = 0.0, q = 0.0;
        layout_.for_each_topic_entry(space_, s, c, [&](int j, double v) {
          g += theta_[off + j] * v;
          layout_.for_each_topic_entry(space_, s, c, [&](int l, double w) { q += gram_.at(off + j, off + l) * v * w; });
        });
        G_[static_cast<std::size_t>(s) * m + c] = g;
        q_[static_cast<std::size_t>(s) * m + c] = std::max(q, 0.0);
      }
  }

  // h[j] = (M x_i)[block c, j]: the cross term between the item and the topic block.
  void item_topic_products(const ItemsView& items, std::size_t i, int c, double* h) const {
    const double* x = items.X + i * layout_.dx;
    const int off = layout_.block_offset(c);
    for (int j = 0; j < layout_.block_size(); ++j) {
      const double* r = gram_.row(off + j);
      double t = 0.0;
      for (int l = 0; l < layout_.dx; ++l) t += r[l] * x[l];
      h[j] = t;
    }
  }

  Candidate evaluate(std::size_t i, int c, int s, const double* h) const {
    const std::size_t cs = static_cast<std::size_t>(s) * layout_.m + c;
    double hg = 0.0;
    layout_.for_each_topic_entry(space_, s, c, [&](int j, double v) { hg += h[j] * v; });
    const double quad = std::max(a_[i] + 2.0 * hg + q_[cs], 0.0);
    const double score = u_[i] + G_[cs] + beta_ * std::sqrt(quad);
    return {static_cast<std::int32_t>(i), apply_link(config_.link, score), score};
  }

  static double margin(double v) { return 1e-9 * (1.0 + std::fabs(v)); }

  // Ranked lists of the best items per (state, topic) under the optimistic probabilities.
  // ||phi||_M lies within sqrt(a_i) +- sqrt(q_cs) (triangle inequality for the M-norm), so with
  // U_i = u_i + beta sqrt(a_i) the index of item i in state s lies in
  // [U_i + G_cs - beta sqrt(q_cs), U_i + G_cs + beta sqrt(q_cs)]. Items far below the R-th best U
  // of their topic are dropped once per round; the rest are scanned by decreasing U in each state
  // until the upper bound falls below the worst entry of a full list.
  void optimistic_lists(const ItemsView& items) {
    prepare_round(items);
    by_topic_.build(items.topics, items.L, layout_.m);
    lists_.reset(space_);
    const int S = space_.size(), m = layout_.m, bs = layout_.block_size();
    n_candidates_ = 0;
    for (int c = 0; c < m; ++c) {
      const int n_c = by_topic_.count(c);
      if (n_c == 0) continue;
      int R = 0;
      double widest = 0.0;
      for (int s = 0; s < S; ++s) {
        R = std::max(R, space_.list_length(s, c));
        widest = std::max(widest, q_[static_cast<std::size_t>(s) * m + c]);
      }
      widest = beta_ * std::sqrt(widest);
      // The R-th largest upper bound U of the topic.
      top_values_.assign(by_topic_.begin(c), by_topic_.end(c));
      double cut = -std::numeric_limits<double>::infinity();
      if (n_c > R) {
        auto kth = top_values_.begin() + (R - 1);
        std::nth_element(top_values_.begin(), kth, top_values_.end(),
                         [&](std::int32_t x, std::int32_t y) { return upper_[x] > upper_[y]; });
        const double u_R = upper_[*kth];
        cut = u_R - 2.0 * widest - margin(u_R) - margin(widest);
      }
      candidates_.clear();
      for (const std::int32_t* it = by_topic_.begin(c); it != by_topic_.end(c); ++it)
        if (upper_[*it] >= cut) candidates_.push_back(*it);
      std::sort(candidates_.begin(), candidates_.end(), [&](std::int32_t x, std::int32_t y) {
        return upper_[x] != upper_[y] ? upper_[x] > upper_[y] : x < y;
      });
      n_candidates_ += candidates_.size();
      h_.resize(candidates_.size() * static_cast<std::size_t>(bs));
      for (std::size_t k = 0; k < candidates_.size(); ++k)
        item_topic_products(items, static_cast<std::size_t>(candidates_[k]), c, h_.data() + k * bs);
      for (int s = 0; s < S; ++s) {
        const int capacity = space_.list_length(s, c);
        if (capacity <= 0) continue;
        const std::size_t cs = static_cast<std::size_t>(s) * m + c;
        const double lift = G_[cs] + beta_ * std::sqrt(q_[cs]);
        for (std::size_t k = 0; k < candidates_.size(); ++k) {
          const std::int32_t i = candidates_[k];
          if (lists_.size(s, c) == capacity) {
            const double worst = lists_.list(s, c)[capacity - 1].score;
            const double bound = upper_[i] + lift;
            if (bound < worst - margin(worst)) break;
          }
          lists_.offer(s, c, capacity, evaluate(static_cast<std::size_t>(i), c, s, h_.data() + k * bs));
        }
      }
    }
  }

  StateSpace space_;
  FeatureLayout layout_;
  int d_ = 0;
  InverseGram gram_;
  std::vector<double> b_, theta_, phi_, work_;
  std::int64_t n_obs_ = 0;

  double beta_ = 0.0;
  std::vector<double> u_, a_, upper_, G_, q_, h_;
  std::vector<std::int32_t> candidates_, top_values_;
  std::size_t n_candidates_ = 0;
  TopicIndex by_topic_;
  TopLists lists_;
  ExactSearch exact_;
  TopicDP topic_dp_;
  PlanResult plan_;
};

// Orders the items by a score (higher first, then lower index) and writes the best K.
inline void top_k_by_score(const std::vector<double>& score, int K, std::vector<std::int32_t>& order,
                           std::int32_t* cascade) {
  order.resize(score.size());
  std::iota(order.begin(), order.end(), 0);
  auto better = [&](std::int32_t x, std::int32_t y) { return score[x] != score[y] ? score[x] > score[y] : x < y; };
  std::partial_sort(order.begin(), order.begin() + K, order.end(), better);
  std::copy(order.begin(), order.begin() + K, cascade);
}

// CascadeLinUCB (Zong et al. 2016): ridge regression on x_i only, the K items of highest
// UCB x^T theta + beta ||x||_{V^{-1}} in decreasing order.
class LinUCB final : public Learner {
 public:
  explicit LinUCB(const LearnerConfig& cfg) : Learner(cfg) {
    gram_.reset(cfg.n_features, cfg.lam);
    b_.assign(cfg.n_features, 0.0);
    theta_.assign(cfg.n_features, 0.0);
    work_.assign(cfg.n_features, 0.0);
  }
  const InverseGram& gram() const { return gram_; }
  const std::vector<double>& theta() const { return theta_; }
  std::int64_t observations() const { return n_obs_; }
  double beta() const { return confidence_width(config_, gram_.dim(), n_obs_); }

  void select(const ItemsView& items, std::int32_t* cascade) override {
    check_items(items, true);
    scores(items, score_);
    top_k_by_score(score_, config_.K, order_, cascade);
  }

  void scores(const ItemsView& items, std::vector<double>& out) {
    gram_.multiply(b_.data(), theta_.data());
    const double beta_t = beta();
    const int dx = items.dx;
    out.resize(items.L);
    for (std::size_t i = 0; i < items.L; ++i) {
      const double* x = items.X + i * dx;
      double u = 0.0, a = 0.0;
      for (int j = 0; j < dx; ++j) {
        u += x[j] * theta_[j];
        const double* r = gram_.row(j);
        double t = 0.0;
        for (int l = 0; l < dx; ++l) t += r[l] * x[l];
        a += x[j] * t;
      }
      out[i] = u + beta_t * std::sqrt(std::max(a, 0.0));
    }
  }

  void update(const ItemsView& items, const std::int32_t* cascade, int first_click) override {
    check_items(items, true);
    const int n = observed_positions(config_.K, first_click);
    for (int k = 0; k < n; ++k) {
      const double* x = items.X + static_cast<std::size_t>(cascade[k]) * items.dx;
      gram_.add(x, 1.0, work_.data());
      const double y = k == first_click ? 1.0 : 0.0;
      for (int j = 0; j < items.dx; ++j) b_[j] += y * x[j];
      ++n_obs_;
    }
    ++rounds_;
  }

 private:
  InverseGram gram_;
  std::vector<double> b_, theta_, work_, score_;
  std::vector<std::int32_t> order_;
  std::int64_t n_obs_ = 0;
};

// Bernoulli KL divergence kl(p, q), with 0 log 0 = 0.
inline double bernoulli_kl(double p, double q) {
  constexpr double eps = 1e-15;
  q = std::min(std::max(q, eps), 1.0 - eps);
  double out = 0.0;
  if (p > 0.0) out += p * std::log(p / q);
  if (p < 1.0) out += (1.0 - p) * std::log((1.0 - p) / (1.0 - q));
  return out;
}

// Largest q in [mean, 1] with n kl(mean, q) <= budget, by 60 bisection steps.
inline double kl_upper_bound(double mean, double n, double budget) {
  if (mean >= 1.0) return 1.0;
  double lo = mean, hi = 1.0;
  for (int it = 0; it < 60; ++it) {
    const double mid = 0.5 * (lo + hi);
    if (n * bernoulli_kl(mean, mid) <= budget)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

// CascadeUCB1 and CascadeKL-UCB (Kveton et al. 2015): per-item click statistics, the K items of
// highest index. Items never observed come first (infinite index, lower index first).
class ItemUCB final : public Learner {
 public:
  explicit ItemUCB(const LearnerConfig& cfg) : Learner(cfg) {}

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

 private:
  void ensure_items(std::size_t L) {
    if (clicks_.empty()) {
      clicks_.assign(L, 0.0);
      views_.assign(L, 0.0);
    }
    require(L == clicks_.size(), "X: this learner keeps per-item statistics for " + std::to_string(clicks_.size()) +
                                     " items, got " + std::to_string(L));
  }
  std::vector<double> clicks_, views_, score_;
  std::vector<std::int32_t> order_;
};

// Uniformly random cascade (a partial Fisher-Yates shuffle with the learner's own stream).
class RandomLearner final : public Learner {
 public:
  RandomLearner(const LearnerConfig& cfg, std::uint64_t seed, std::uint64_t stream) : Learner(cfg), rng_(seed, stream) {}

  void select(const ItemsView& items, std::int32_t* cascade) override {
    check_items(items, false);
    perm_.resize(items.L);
    std::iota(perm_.begin(), perm_.end(), 0);
    for (int k = 0; k < config_.K; ++k) {
      const std::size_t j = static_cast<std::size_t>(k) + static_cast<std::size_t>(rng_.below(items.L - static_cast<std::size_t>(k)));
      std::swap(perm_[k], perm_[j]);
      cascade[k] = perm_[k];
    }
  }
  void update(const ItemsView&, const std::int32_t*, int) override { ++rounds_; }

 private:
  Xoshiro256 rng_;
  std::vector<std::int32_t> perm_;
};

inline std::unique_ptr<Learner> make_learner(const LearnerConfig& cfg, std::uint64_t seed, std::uint64_t stream) {
  switch (cfg.type) {
    case LearnerType::topic_ucb: return std::make_unique<TopicUCB>(cfg);
    case LearnerType::lin_ucb: return std::make_unique<LinUCB>(cfg);
    case LearnerType::ucb1:
    case LearnerType::kl_ucb: return std::make_unique<ItemUCB>(cfg);
    case LearnerType::random: return std::make_unique<RandomLearner>(cfg, seed, stream);
  }
  throw invalid_argument("learner: unknown type");
}

}  // namespace paperkernels::cascade
