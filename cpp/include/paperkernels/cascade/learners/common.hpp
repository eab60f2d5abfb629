// What every cascade learner shares: the configuration, the saved state, the items of a round, the
// base class, the overflow guard of the updates, the Sherman-Morrison inverse Gram matrix, the
// confidence width and the top-K selection of the item-level learners.
//
// Every learner sees the items of a round as (X, topics) and, after showing a cascade, the position
// of the first click (-1 for none): positions up to and including it were examined.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numeric>
#include <utility>
#include <vector>

#include "paperkernels/cascade/model.hpp"
#include "paperkernels/cascade/planners.hpp"
#include "paperkernels/cascade/state_space.hpp"
#include "paperkernels/common/errors.hpp"

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

// Largest ||x||^2 / lambda of an item's features (scored or learnt from). V^{-1} is kept by
// Sherman-Morrison updates, which in the direction of phi subtract nearly equal numbers when
// ||phi||^2 / lambda is large. Measured against the exact rational ridge solution (rounds scaled up
// to the ratio among ordinary ones), the estimate's relative error is about 1e-10 at a ratio of 1e6,
// 1e-8 to 2e-7 at 1e8 (the larger with nearly parallel features) and 3e-6 at 1e10; at 1e300 it was
// wrong by 284 orders of magnitude. 1e8 keeps about the accuracy that lambda >= 1e-6 gives
// unit-scale features, and keeps the scores' intermediate sums finite.
inline constexpr double kMaxFeatureRatio = 1e8;

[[noreturn]] inline void refuse_item_features(std::size_t item, double sq, double lam) {
  fail("X: the features of item ", item, " are too large for this ridge regularisation: ||x||^2 / lam = ", sq / lam,
       " (lam = ", lam,
       "), at most 1e8, beyond which V^-1 and the estimate lose their accuracy; rescale X or raise lam");
}

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
    require(items.L >= static_cast<std::size_t>(config_.K), "X: expected at least K = ", config_.K, " items, got ",
            items.L);
    if (needs_features) check_features(items);
  }
  // The feature count, and features small enough for accurate scores and updates (kMaxFeatureRatio).
  void check_features(const ItemsView& items) const {
    require(items.dx == config_.n_features, "X: expected ", config_.n_features, " features per item, got ", items.dx);
    for (std::size_t i = 0; i < items.L; ++i) {
      double sq = 0.0;
      const double* x = items.X + i * static_cast<std::size_t>(items.dx);
      for (int j = 0; j < items.dx; ++j) sq += x[j] * x[j];
      if (!(sq / config_.lam <= kMaxFeatureRatio)) refuse_item_features(i, sq, config_.lam);
    }
  }
  LearnerConfig config_;
  Interrupt* stop_ = nullptr;  // polled by long select() calls; may be null
  std::int64_t rounds_ = 0;
};

// Updates are refused, before anything changes, when a feature vector is too large for an accurate
// update (||phi||^2 / lambda above kMaxFeatureRatio) or could make the estimate overflow. Since
// V >= lambda I, phi^T V^{-1} phi <= ||phi||^2 / lambda and ||V^{-1} phi|| <=
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
  fail("X: the features of item ", item, " (position ", position,
       " of the cascade) are too large for an accurate update of the estimate (||phi||^2 / lam must stay at most "
       "1e8, and the estimate far below 1.8e308; lam = ",
       lam, "); rescale X or raise lam. Nothing was updated");
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
  // The products with phi run over its non-zero entries only (phi has a few): a sum that starts at
  // +0 and skips terms that are +-0 gives the same bits as the full sum, M being finite.
  void add(const double* phi, double w, double* Mphi) {
    nonzero_.clear();
    for (int j = 0; j < d_; ++j)
      if (phi[j] != 0.0) nonzero_.push_back(j);
    for (int i = 0; i < d_; ++i) {
      const double* r = row(i);
      double t = 0.0;
      for (const int j : nonzero_) t += r[j] * phi[j];
      Mphi[i] = t;
    }
    double quad = 0.0;
    for (const int i : nonzero_) quad += phi[i] * Mphi[i];
    const double scale = w / (1.0 + w * quad);
    for (int i = 0; i < d_; ++i) {
      double* r = M_.data() + static_cast<std::size_t>(i) * d_;
      const double ci = scale * Mphi[i];
      for (int j = 0; j < d_; ++j) r[j] -= ci * Mphi[j];
    }
  }

  // The linear and quadratic terms of an upper confidence index over the first dx coordinates (all
  // of them for LinUCB, the item block for the topic model): {x^T theta, x^T M x}, M's leading dx x dx
  // block, each summed in coordinate order.
  std::pair<double, double> leading_terms(const double* x, int dx, const double* theta) const {
    double u = 0.0, a = 0.0;
    for (int r = 0; r < dx; ++r) {
      u += x[r] * theta[r];
      const double* m = row(r);
      double t = 0.0;
      for (int l = 0; l < dx; ++l) t += m[l] * x[l];
      a += x[r] * t;
    }
    return {u, a};
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
  std::vector<int> nonzero_;  // add(): the non-zero entries of phi
};

// beta_t = sqrt(d log((1 + n / lambda) / delta)) / 2 + sqrt(lambda) S, or the configured constant.
inline double confidence_width(const LearnerConfig& cfg, int d, std::int64_t n_obs) {
  if (!std::isnan(cfg.beta)) return cfg.beta;
  return std::sqrt(d * std::log((1.0 + static_cast<double>(n_obs) / cfg.lam) / cfg.delta)) / 2.0 +
         std::sqrt(cfg.lam) * cfg.S;
}

// Orders the items by a score (higher first, then lower index) and writes the best K.
inline void top_k_by_score(const std::vector<double>& score, int K, std::vector<std::int32_t>& order,
                           std::int32_t* cascade) {
  order.resize(score.size());
  std::iota(order.begin(), order.end(), 0);
  auto better = [&](std::int32_t x, std::int32_t y) { return score[x] != score[y] ? score[x] > score[y] : x < y; };
  std::partial_sort(order.begin(), order.begin() + K, order.end(), better);
  std::copy(order.begin(), order.begin() + K, cascade);
}

}  // namespace paperkernels::cascade
