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
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <numeric>
#include <string>
#include <type_traits>
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

// Everything a learner's next decisions depend on, for pickling: a learner rebuilt from its
// configuration and given this state continues bit-identically. Fields a learner type does not
// use stay empty.
struct LearnerState {
  std::int64_t rounds = 0;
  std::int64_t observations = 0;
  std::vector<double> gram;   // d x d, V^{-1} (W^{-1} for the logistic link)
  std::vector<double> b;      // sum phi y (linear link)
  std::vector<double> theta;  // the estimate (the logistic link's running Newton iterate)
  std::vector<double> clicks, views;
  std::vector<std::uint64_t> rng;  // generator words (random baseline)
  std::vector<std::int32_t> plan_cascade;
  std::vector<double> plan_probs;
  double plan_value = 0.0;
  std::size_t plan_nodes = 0, candidates = 0, tested = 0;
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
  virtual void save(LearnerState& out) const { out.rounds = rounds_; }
  virtual void load(const LearnerState& in) { rounds_ = in.rounds; }
  const LearnerConfig& config() const { return config_; }
  std::int64_t rounds() const { return rounds_; }

 protected:
  Learner(const LearnerConfig& config, Interrupt* stop) : config_(config), stop_(stop) {}
  void check_items(const ItemsView& items, bool needs_features) const {
    require(items.L >= static_cast<std::size_t>(config_.K),
            "X: expected at least K = " + std::to_string(config_.K) + " items, got " + std::to_string(items.L));
    if (needs_features)
      require(items.dx == config_.n_features, "X: expected " + std::to_string(config_.n_features) +
                                                  " features per item, got " + std::to_string(items.dx));
  }
  LearnerConfig config_;
  Interrupt* stop_ = nullptr;  // polled by long select() calls; may be null
  std::int64_t rounds_ = 0;
};

// Updates are refused, before anything changes, when a feature vector could make the estimate
// overflow. Since V >= lambda I, phi^T V^{-1} phi <= ||phi||^2 / lambda and ||V^{-1} phi|| <=
// ||phi|| / lambda; a step moves b by at most ||phi||_inf and the logistic estimate by at most
// ||phi|| / lambda. Keeping these bounds far below the largest double keeps every quantity finite,
// and no observation is lost to an infinite Sherman-Morrison denominator.
inline constexpr double kSafeMagnitude = std::numeric_limits<double>::max() / 1024.0;

struct FeatureNorms {
  double sq = 0.0, abs_sum = 0.0, abs_max = 0.0;
};

inline FeatureNorms feature_norms(const double* phi, int d) {
  FeatureNorms n;
  for (int j = 0; j < d; ++j) {
    const double a = std::fabs(phi[j]);
    n.sq += a * a;
    n.abs_sum += a;
    n.abs_max = std::max(n.abs_max, a);
  }
  return n;
}

inline double max_abs(const std::vector<double>& v) {
  double m = 0.0;
  for (double x : v) m = std::max(m, std::fabs(x));
  return m;
}

[[noreturn]] inline void refuse_features(std::int32_t item, int position, double lam) {
  char lam_text[32];
  std::snprintf(lam_text, sizeof lam_text, "%g", lam);
  throw invalid_argument("X: the features of item " + std::to_string(item) + " (position " + std::to_string(position) +
                         " of the cascade) are too large for a finite update of the estimate (||phi||^2 / lam must stay "
                         "far below 1.8e308, lam = " + lam_text + "); rescale X. Nothing was updated");
}

// Number of observed positions and their labels for a first click at `first_click` (-1: none).
inline int observed_positions(int K, int first_click) { return first_click < 0 ? K : first_click + 1; }

// V^{-1} of V = lambda I + sum w phi phi^T, kept by Sherman-Morrison (symmetric by construction).
class InverseGram {
 public:
  void assign(int d, const double* M) {
    d_ = d;
    M_.assign(M, M + static_cast<std::size_t>(d) * d);
  }
  void reset(int d, double lam) {
    d_ = d;
    M_.assign(static_cast<std::size_t>(d) * d, 0.0);
    for (int i = 0; i < d; ++i) M_[static_cast<std::size_t>(i) * d + i] = 1.0 / lam;
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
};

// beta_t = sqrt(d log((1 + n / lambda) / delta)) / 2 + sqrt(lambda) S, or the configured constant.
inline double confidence_width(const LearnerConfig& cfg, int d, std::int64_t n_obs) {
  if (!std::isnan(cfg.beta)) return cfg.beta;
  return std::sqrt(d * std::log((1.0 + static_cast<double>(n_obs) / cfg.lam) / cfg.delta)) / 2.0 +
         std::sqrt(cfg.lam) * cfg.S;
}

// The paper's learner: optimistic probabilities for every (item, reachable state), then planning.
class TopicUCB final : public Learner, private ListCompleter {
 public:
  explicit TopicUCB(const LearnerConfig& cfg, Interrupt* stop = nullptr)
      : Learner(cfg, stop), space_(cfg.state, cfg.n_topics, cfg.K, cfg.max_states, stop),
        layout_{cfg.features, cfg.n_features, cfg.n_topics} {
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
  // The current estimate (for the linear link theta = V^{-1} b, recomputed here).
  const std::vector<double>& theta() {
    refresh_theta();
    return theta_;
  }
  std::int64_t observations() const { return n_obs_; }
  double beta() const { return confidence_width(config_, d_, n_obs_); }
  const PlanResult& last_plan() const { return plan_; }
  // Work of the last select(): exact index evaluations and items tested against a threshold.
  std::size_t last_candidates() const { return n_candidates_; }
  std::size_t last_tested() const { return n_tested_; }

  void select(const ItemsView& items, std::int32_t* cascade) override {
    check_items(items, true);
    refresh_theta();
    optimistic_lists(items);
    switch (config_.planner) {
      case Planner::exact: plan_ = exact_.run(space_, lists_, stop_); break;
      case Planner::topic_dp: plan_ = topic_dp_.run(space_, lists_, stop_); break;
      case Planner::greedy: plan_ = plan_greedy(space_, lists_, stop_); break;
      case Planner::brute: throw invalid_argument("planner: 'brute' is a test oracle for click tables, not a learner planner");
    }
    std::copy(plan_.cascade.begin(), plan_.cascade.end(), cascade);
  }

  void update(const ItemsView& items, const std::int32_t* cascade, int first_click) override {
    check_items(items, true);
    const int n = observed_positions(config_.K, first_click);
    check_update(items, cascade, n);
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

  void save(LearnerState& out) const override {
    Learner::save(out);
    out.observations = n_obs_;
    out.gram.assign(gram_.data(), gram_.data() + static_cast<std::size_t>(d_) * d_);
    out.b = b_;
    out.theta = theta_;
    out.plan_cascade = plan_.cascade;
    out.plan_probs = plan_.probs;
    out.plan_value = plan_.value;
    out.plan_nodes = plan_.nodes;
    out.candidates = n_candidates_;
    out.tested = n_tested_;
  }

  void load(const LearnerState& in) override {
    const auto d = static_cast<std::size_t>(d_);
    require(in.gram.size() == d * d && in.b.size() == d && in.theta.size() == d,
            "state: expected the statistics of a " + std::to_string(d_) + "-parameter learner");
    require(in.plan_cascade.size() == in.plan_probs.size() &&
                (in.plan_cascade.empty() || in.plan_cascade.size() == static_cast<std::size_t>(config_.K)),
            "state: the last plan does not fit this learner");
    Learner::load(in);
    n_obs_ = in.observations;
    gram_.assign(d_, in.gram.data());
    b_ = in.b;
    theta_ = in.theta;
    plan_.cascade = in.plan_cascade;
    plan_.probs = in.plan_probs;
    plan_.value = in.plan_value;
    plan_.nodes = in.plan_nodes;
    n_candidates_ = in.candidates;
    n_tested_ = in.tested;
  }

  // Optimistic probabilities of every item in every state (out[i * S + s]).
  void optimistic_table(const ItemsView& items, double* out) {
    check_items(items, true);
    refresh_theta();
    prepare_round(items);
    const int S = space_.size();
    for (int c = 0; c < layout_.m; ++c)
      for (int s = 0; s < S; ++s) {
        tick(stop_, static_cast<std::size_t>(by_topic_.count(c)) + 1);
        StateTerms t;
        state_terms(c, s, items.L, t);
        for (int j = by_topic_.start[c]; j < by_topic_.start[c + 1]; ++j) {
          const double f = index_of(u_[j], t.G, t.quadratic(a_[j], h_.data() + j));
          out[static_cast<std::size_t>(order_[j]) * S + s] = apply_link(config_.link, f);
        }
      }
  }

 private:
  static constexpr int kBlock = 8;

  void refresh_theta() {
    if (config_.link == Link::linear) gram_.multiply(b_.data(), theta_.data());
  }

  // Refuses an update whose features could overflow the estimate (see kSafeMagnitude).
  void check_update(const ItemsView& items, const std::int32_t* cascade, int n) {
    const double lam = config_.lam;
    double b_bound = max_abs(b_);
    double theta_bound = max_abs(theta_);
    int s = StateSpace::root();
    for (int k = 0; k < n; ++k) {
      const std::int32_t item = cascade[k];
      fill_phi(items, item, s);
      const FeatureNorms norms = feature_norms(phi_.data(), d_);
      b_bound += norms.abs_max;
      theta_bound += std::sqrt(norms.sq) / lam;
      if (!(norms.sq / lam <= kSafeMagnitude) || !(b_bound <= kSafeMagnitude)) refuse_features(item, k, lam);
      if (config_.link == Link::logistic && !(theta_bound <= kSafeMagnitude && norms.abs_sum * theta_bound <= kSafeMagnitude))
        refuse_features(item, k, lam);
      if (k + 1 < config_.K) s = space_.next(s, static_cast<int>(items.topics[item]));
    }
  }

  void fill_phi(const ItemsView& items, std::int32_t item, int s) {
    std::fill(phi_.begin(), phi_.end(), 0.0);
    const int c = static_cast<int>(items.topics[item]);
    for (int j = 0; j < layout_.dx; ++j) phi_[j] = items.X[static_cast<std::size_t>(item) * layout_.dx + j];
    double* block = phi_.data() + layout_.block_offset(c);
    layout_.for_each_topic_entry(space_, s, c, [&](int j, double v) { block[j] = v; });
  }

  // Keeps order_[start[c]..start[c+1]) sorted by decreasing u (then increasing item); u + beta
  // sqrt(a) prunes worse in practice. The previous round's order is nearly sorted, so insertion
  // sort is tried first. The order only decides which items get evaluated, never the result.
  void sort_topic(int c) {
    std::int32_t* first = order_.data() + by_topic_.start[c];
    std::int32_t* last = order_.data() + by_topic_.start[c + 1];
    auto before = [&](std::int32_t x, std::int32_t y) { return item_u_[x] != item_u_[y] ? item_u_[x] > item_u_[y] : x < y; };
    const std::ptrdiff_t n = last - first;
    std::ptrdiff_t moves = 0;
    for (std::int32_t* it = first + (n > 0 ? 1 : 0); it < last; ++it) {
      const std::int32_t v = *it;
      std::int32_t* hole = it;
      while (hole > first && before(v, hole[-1])) {
        *hole = hole[-1];
        --hole;
        if (++moves > 8 * n + 64) {
          *hole = v;
          std::sort(first, last, before);
          return;
        }
      }
      *hole = v;
    }
  }

  // The block structure of phi^T theta and phi^T M phi (M = V^{-1}), for item i of topic c in
  // state s, with g the topic block of phi (its non-zero entries (k, v) come from the state):
  //   phi^T theta   = u_i + G_cs,                 u_i = x_i^T theta_x,  G_cs = theta_c^T g
  //   phi^T M phi   = a_i + q_cs + 2 sum v h_i[k], a_i = x_i^T M_xx x_i, q_cs = g^T M_cc g,
  //                                                h_i = M_{c,x} x_i.
  // Item quantities are stored by topic, each topic's items by decreasing u (position j holds
  // item order_[j]), with per-block maxima of u, a and h and their suffix maxima over later blocks.
  void prepare_round(const ItemsView& items) {
    const std::size_t L = items.L;
    const int dx = layout_.dx, m = layout_.m, S = space_.size(), bs = layout_.block_size();
    beta_ = beta();
    const bool same_items = order_.size() == L && std::equal(topics_.begin(), topics_.end(), items.topics);
    if (!same_items) {
      by_topic_.build(items.topics, L, m);
      order_ = by_topic_.items;
      topics_.assign(items.topics, items.topics + L);
    }
    item_u_.resize(L);
    item_a_.resize(L);
    tick(stop_, L * static_cast<std::size_t>(dx) * dx);
    for (std::size_t i = 0; i < L; ++i) {
      const double* x = items.X + i * dx;
      double u = 0.0, a = 0.0;
      for (int r = 0; r < dx; ++r) {
        u += x[r] * theta_[r];
        const double* row = gram_.row(r);
        double t = 0.0;
        for (int l = 0; l < dx; ++l) t += row[l] * x[l];
        a += x[r] * t;
      }
      item_u_[i] = u;
      item_a_[i] = std::max(a, 0.0);
    }
    position_.resize(L);
    u_.resize(L);
    a_.resize(L);
    h_.resize(L * static_cast<std::size_t>(bs));
    block_start_.assign(1, 0);
    block_first_.clear();
    for (int c = 0; c < m; ++c) {
      sort_topic(c);
      const int off = layout_.block_offset(c);
      const int begin = by_topic_.start[c], end = by_topic_.start[c + 1];
      tick(stop_, static_cast<std::size_t>(end - begin) * bs * dx);
      for (int j = begin; j < end; ++j) {
        const std::int32_t item = order_[j];
        position_[item] = j;
        const double* x = items.X + static_cast<std::size_t>(item) * dx;
        u_[j] = item_u_[item];
        a_[j] = item_a_[item];
        for (int k = 0; k < bs; ++k) {
          const double* row = gram_.row(off + k);
          double t = 0.0;
          for (int l = 0; l < dx; ++l) t += row[l] * x[l];
          h_[static_cast<std::size_t>(k) * L + j] = t;
        }
      }
      for (int j = begin; j < end; j += kBlock) block_first_.push_back(j);
      block_start_.push_back(static_cast<int>(block_first_.size()));
    }
    // Block maxima (record per block: u, a, h[0..bs)) and suffix maxima within each topic.
    const std::size_t nb = block_first_.size(), width = 2 + static_cast<std::size_t>(bs);
    block_max_.assign(nb * width, -std::numeric_limits<double>::infinity());
    suffix_max_.assign(nb * width, -std::numeric_limits<double>::infinity());
    for (int c = 0; c < m; ++c) {
      const int end = by_topic_.start[c + 1];
      for (int blk = block_start_[c]; blk < block_start_[c + 1]; ++blk) {
        double* rec = block_max_.data() + blk * width;
        const int stop = std::min(end, block_first_[blk] + kBlock);
        for (int j = block_first_[blk]; j < stop; ++j) {
          rec[0] = std::max(rec[0], u_[j]);
          rec[1] = std::max(rec[1], a_[j]);
          for (int k = 0; k < bs; ++k) rec[2 + k] = std::max(rec[2 + k], h_[static_cast<std::size_t>(k) * L + j]);
        }
      }
      for (int blk = block_start_[c + 1] - 1; blk >= block_start_[c]; --blk) {
        double* suf = suffix_max_.data() + blk * width;
        const double* rec = block_max_.data() + blk * width;
        const double* later = blk + 1 < block_start_[c + 1] ? suffix_max_.data() + (blk + 1) * width : nullptr;
        for (std::size_t k = 0; k < width; ++k) suf[k] = later ? std::max(rec[k], later[k]) : rec[k];
      }
    }
    G_.assign(static_cast<std::size_t>(S) * m, 0.0);
    q_.assign(static_cast<std::size_t>(S) * m, 0.0);
    for (int s = 0; s < S; ++s) {
      tick(stop_, static_cast<std::size_t>(m) * bs);
      for (int c = 0; c < m; ++c) {
        const int off = layout_.block_offset(c);
        double g = 0.0, q = 0.0;
        layout_.for_each_topic_entry(space_, s, c, [&](int k, double v) {
          g += theta_[off + k] * v;
          layout_.for_each_topic_entry(space_, s, c, [&](int l, double w) { q += gram_.at(off + k, off + l) * v * w; });
        });
        G_[static_cast<std::size_t>(s) * m + c] = g;
        q_[static_cast<std::size_t>(s) * m + c] = std::max(q, 0.0);
      }
    }
  }

  // The state-dependent part of phi for items of topic c in state s: G_cs, q_cs and the non-zero
  // entries (k, v) of the topic block, as (offset of h entry k, weight 2 v).
  struct StateTerms {
    double G = 0.0, q = 0.0;
    int n = 0;
    std::size_t offset[kMaxTopics];
    double weight[kMaxTopics];

    // phi^T M phi given a (and h entries found at base + offset[e]).
    double quadratic(double a, const double* base) const {
      double acc = a + q;
      for (int e = 0; e < n; ++e) acc += weight[e] * base[offset[e]];
      return acc;
    }
  };

  // Terms for the item arrays (h entry k of position j at k * L + j) and, in `blocks`, for the
  // block records (u, a, h[0..bs)), whose h entry k sits at offset 2 + k.
  void state_terms(int c, int s, std::size_t L, StateTerms& items, StateTerms* blocks = nullptr) const {
    const std::size_t cs = static_cast<std::size_t>(s) * layout_.m + c;
    items.G = G_[cs];
    items.q = q_[cs];
    items.n = 0;
    layout_.for_each_topic_entry(space_, s, c, [&](int k, double v) {
      items.offset[items.n] = static_cast<std::size_t>(k) * L;
      items.weight[items.n] = 2.0 * v;
      if (blocks) {
        blocks->offset[items.n] = 2 + static_cast<std::size_t>(k);
        blocks->weight[items.n] = 2.0 * v;
      }
      ++items.n;
    });
    if (blocks) {
      blocks->G = items.G;
      blocks->q = items.q;
      blocks->n = items.n;
    }
  }

  double index_of(double u, double G, double quad) const { return u + G + beta_ * std::sqrt(std::max(quad, 0.0)); }

  // Whether an index u + G + beta sqrt(quad) is at most `cut`, decided without the square root; the
  // quadratic form (an upper bound for a block) is evaluated only when the linear part leaves room.
  template <class Quadratic>
  static bool cannot_exceed(double cut, double u, double G, double beta2, Quadratic&& quadratic) {
    const double d = cut - u - G;
    return d >= 0.0 && beta2 * quadratic() <= d * d;
  }

  // Ranked lists of the best items per (state, topic) under the optimistic probabilities.
  //
  // Items rank by their unclipped index f = u + G + beta sqrt(a + q + 2 sum v h) (then by lower
  // item index), which orders them as the probabilities do. f is non-decreasing in u, a and every
  // h (v > 0), so a block of items sorted by decreasing u is bounded by its first u and its maxima
  // of a and h, and all later blocks by the first u and the suffix maxima: blocks are scanned in
  // order, the scan stops when the suffix bound falls below the current threshold, skips blocks
  // whose own bound does, and tests items without square roots (d = threshold - u - G; an item can
  // only enter if d < 0 or beta^2 quad > d^2). All of this is exact. Every list first gets its
  // best item (all that the relaxed bound and topic_dp read); a planner visiting a state has its
  // lists completed by complete(s).
  void optimistic_lists(const ItemsView& items) {
    prepare_round(items);
    lists_.reset(space_, this);
    seen_.resize(items.L, 0U);
    const std::size_t L = items.L, width = 2 + static_cast<std::size_t>(layout_.block_size());
    const int S = space_.size(), m = layout_.m;
    const double beta2 = beta_ * beta_;
    n_candidates_ = n_tested_ = 0;
    StateTerms t, tb;
    double acc[kBlock];
    for (int c = 0; c < m; ++c) {
      const int begin = by_topic_.start[c], end = by_topic_.start[c + 1];
      if (begin == end) continue;
      const double u_scale = topic_u_scale(c);
      tick(stop_, static_cast<std::size_t>(S) * kBlock);
      for (int s = 0; s < S; ++s) {
        state_terms(c, s, L, t, &tb);
        const int parent = space_.parent(s);
        int best = parent >= 0 ? position_[lists_.list(parent, c)[0].item] : begin;
        double best_f = index_of(u_[best], t.G, t.quadratic(a_[best], h_.data() + best));
        double cut = best_f - rounding_margin(best_f, t.G, u_scale);
        ++n_candidates_;
        for (int blk = block_start_[c]; blk < block_start_[c + 1]; ++blk) {
          const int first = block_first_[blk], n = std::min(end, first + kBlock) - first;
          const double* suf = suffix_max_.data() + blk * width;
          if (cannot_exceed(cut, suf[0], t.G, beta2, [&] { return tb.quadratic(suf[1], suf); })) break;
          const double* rec = block_max_.data() + blk * width;
          if (cannot_exceed(cut, rec[0], t.G, beta2, [&] { return tb.quadratic(rec[1], rec); })) continue;
          block_quadratics(t, first, n, acc);
          n_tested_ += static_cast<std::size_t>(n);
          for (int r = 0; r < n; ++r) {
            const int j = first + r;
            if (cannot_exceed(cut, u_[j], t.G, beta2, [&] { return acc[r]; })) continue;
            const double f = index_of(u_[j], t.G, acc[r]);
            ++n_candidates_;
            if (f > best_f || (f == best_f && order_[j] < order_[best])) {
              best = j;
              best_f = f;
              cut = best_f - rounding_margin(best_f, t.G, u_scale);
            }
          }
        }
        lists_.list(s, c)[0] = {order_[best], apply_link(config_.link, best_f), best_f};
        lists_.set_size(s, c, 1);
      }
    }
  }

  // The full lists of state s (each topic's list holds its best item already).
  void complete(int s) override {
    tick(stop_, u_.size());
    const std::size_t L = u_.size(), width = 2 + static_cast<std::size_t>(layout_.block_size());
    const double beta2 = beta_ * beta_;
    StateTerms t, tb;
    double acc[kBlock];
    for (int c = 0; c < layout_.m; ++c) {
      const int begin = by_topic_.start[c], end = by_topic_.start[c + 1];
      const int capacity = space_.list_length(s, c);
      if (begin == end || capacity <= 1) continue;
      const double u_scale = topic_u_scale(c);
      state_terms(c, s, L, t, &tb);
      if (++stamp_ == 0) {
        std::fill(seen_.begin(), seen_.end(), 0U);
        stamp_ = 1;
      }
      seen_[position_[lists_.list(s, c)[0].item]] = stamp_;
      double cut = -std::numeric_limits<double>::infinity();
      bool full = false;
      for (int blk = block_start_[c]; blk < block_start_[c + 1]; ++blk) {
        const int first = block_first_[blk], n = std::min(end, first + kBlock) - first;
        if (full) {
          const double* suf = suffix_max_.data() + blk * width;
          if (cannot_exceed(cut, suf[0], t.G, beta2, [&] { return tb.quadratic(suf[1], suf); })) break;
          const double* rec = block_max_.data() + blk * width;
          if (cannot_exceed(cut, rec[0], t.G, beta2, [&] { return tb.quadratic(rec[1], rec); })) continue;
        }
        block_quadratics(t, first, n, acc);
        n_tested_ += static_cast<std::size_t>(n);
        for (int r = 0; r < n; ++r) {
          const int j = first + r;
          if (seen_[j] == stamp_) continue;
          if (full) {
            if (cannot_exceed(cut, u_[j], t.G, beta2, [&] { return acc[r]; })) continue;
          }
          const double f = index_of(u_[j], t.G, acc[r]);
          ++n_candidates_;
          lists_.offer(s, c, capacity, {order_[j], apply_link(config_.link, f), f});
          if (lists_.size(s, c) == capacity) {
            full = true;
            const double threshold = lists_.list(s, c)[capacity - 1].score;
            cut = threshold - rounding_margin(threshold, t.G, u_scale);
          }
        }
      }
    }
  }

  // phi^T M phi of the n items from position `first`, in the order of StateTerms::quadratic.
  void block_quadratics(const StateTerms& t, int first, int n, double* acc) const {
    for (int r = 0; r < n; ++r) acc[r] = a_[first + r] + t.q;
    for (int e = 0; e < t.n; ++e) {
      const double* h = h_.data() + t.offset[e] + first;
      const double w = t.weight[e];
      for (int r = 0; r < n; ++r) acc[r] += w * h[r];
    }
  }

  double topic_u_scale(int c) const {
    double scale = 0.0;
    for (int j = by_topic_.start[c]; j < by_topic_.start[c + 1]; ++j) scale = std::max(scale, std::fabs(u_[j]));
    return scale;
  }

  // Slack for comparisons against a threshold index: far above the rounding error of u + G + ...
  static double rounding_margin(double threshold, double G, double u_scale) {
    return 1e-9 * (1.0 + std::fabs(threshold) + std::fabs(G) + u_scale);
  }

  StateSpace space_;
  FeatureLayout layout_;
  int d_ = 0;
  InverseGram gram_;
  std::vector<double> b_, theta_, phi_, work_;
  std::int64_t n_obs_ = 0;

  double beta_ = 0.0;
  std::vector<std::int64_t> topics_;        // topics of the previous round (the order is reused)
  std::vector<std::int32_t> order_;         // items by topic, then decreasing u
  std::vector<int> position_;               // item -> position in order_
  std::vector<double> item_u_, item_a_;  // by item index
  std::vector<double> u_, a_, h_;           // by position (h: block entry k at k * L + j)
  std::vector<int> block_start_, block_first_;
  std::vector<double> block_max_, suffix_max_;
  std::vector<double> G_, q_;
  std::vector<std::uint32_t> seen_;  // seen_[j] == stamp_: position j was offered as a seed
  std::uint32_t stamp_ = 0;
  std::size_t n_candidates_ = 0, n_tested_ = 0;
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
    scores(items, score_);
    top_k_by_score(score_, config_.K, order_, cascade);
  }

  void scores(const ItemsView& items, std::vector<double>& out) {
    gram_.multiply(b_.data(), theta_.data());
    const double beta_t = beta();
    const int dx = items.dx;
    out.resize(items.L);
    for (std::size_t i = 0; i < items.L; ++i) {
      tick(stop_, static_cast<std::size_t>(dx) * dx);
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
    double b_bound = max_abs(b_);
    for (int k = 0; k < n; ++k) {
      const FeatureNorms norms = feature_norms(items.X + static_cast<std::size_t>(cascade[k]) * items.dx, items.dx);
      b_bound += norms.abs_max;
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
    require(in.gram.size() == d * d && in.b.size() == d && in.theta.size() == d,
            "state: expected the statistics of a " + std::to_string(d) + "-feature learner");
    Learner::load(in);
    n_obs_ = in.observations;
    gram_.assign(gram_.dim(), in.gram.data());
    b_ = in.b;
    theta_ = in.theta;
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

// Largest q in [mean, 1] with n kl(mean, q) <= budget. f(q) = n kl(mean, q) - budget is convex
// and increasing on [mean, 1), so Newton's method started to the right of the root (Pinsker:
// kl >= 2 (q - mean)^2 puts the root below mean + sqrt(budget / 2n)) decreases monotonically to it.
inline double kl_upper_bound(double mean, double n, double budget) {
  if (mean >= 1.0) return 1.0;
  if (!(budget > 0.0)) return mean;
  const double below_one = 1.0 - 1e-15;
  double q = std::min(below_one, mean + std::sqrt(budget / (2.0 * n)));
  for (int it = 0; it < 100; ++it) {
    const double f = n * bernoulli_kl(mean, q) - budget;
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
    require(L == clicks_.size(), "X: this learner keeps per-item statistics for " + std::to_string(clicks_.size()) +
                                     " items, got " + std::to_string(L));
  }
  std::vector<double> clicks_, views_, score_;
  std::vector<std::int32_t> order_;
};

// Uniformly random cascade (a partial Fisher-Yates shuffle with the learner's own stream).
class RandomLearner final : public Learner {
 public:
  RandomLearner(const LearnerConfig& cfg, std::uint64_t seed, std::uint64_t stream, Interrupt* stop = nullptr)
      : Learner(cfg, stop), rng_(seed, stream) {}

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

  // The generator is four 64-bit words (trivially copyable): saved and restored as they are.
  static_assert(std::is_trivially_copyable_v<Xoshiro256> && sizeof(Xoshiro256) == 4 * sizeof(std::uint64_t),
                "the random baseline pickles its generator as four words");
  void save(LearnerState& out) const override {
    Learner::save(out);
    out.rng.assign(4, 0);
    std::memcpy(out.rng.data(), &rng_, sizeof rng_);
  }
  void load(const LearnerState& in) override {
    require(in.rng.size() == 4, "state: expected the four words of the random generator");
    Learner::load(in);
    std::memcpy(static_cast<void*>(&rng_), in.rng.data(), sizeof rng_);
  }

 private:
  Xoshiro256 rng_;
  std::vector<std::int32_t> perm_;
};

// `stop` (may be null) is polled while the learner builds its state space and during long select() calls.
inline std::unique_ptr<Learner> make_learner(const LearnerConfig& cfg, std::uint64_t seed, std::uint64_t stream,
                                             Interrupt* stop = nullptr) {
  switch (cfg.type) {
    case LearnerType::topic_ucb: return std::make_unique<TopicUCB>(cfg, stop);
    case LearnerType::lin_ucb: return std::make_unique<LinUCB>(cfg, stop);
    case LearnerType::ucb1:
    case LearnerType::kl_ucb: return std::make_unique<ItemUCB>(cfg, stop);
    case LearnerType::random: return std::make_unique<RandomLearner>(cfg, seed, stream, stop);
  }
  throw invalid_argument("learner: unknown type");
}

}  // namespace paperkernels::cascade
