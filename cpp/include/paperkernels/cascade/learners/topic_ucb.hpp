// TopicUCB, the paper's optimistic learner: ridge regression on phi(i, s) with V^{-1} kept by
// Sherman-Morrison updates; optimistic click probabilities
//   p~(i | s) = clip(phi^T theta_hat + beta_t ||phi||_{V^{-1}}, 0, 1)        (linear link)
//   p~(i | s) = sigmoid(phi^T theta_hat + beta_t ||phi||_{W^{-1}})           (logistic link)
// for every item and reachable state, then planning with them. The logistic variant keeps the
// Hessian-weighted Gram W = lambda I + sum sigmoid'(phi^T theta) phi phi^T and takes one online
// Newton step per observation (a reconstruction, see the Python docstring).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "paperkernels/cascade/learners/common.hpp"
#include "paperkernels/cascade/model.hpp"
#include "paperkernels/cascade/planners.hpp"
#include "paperkernels/cascade/state_space.hpp"
#include "paperkernels/common/errors.hpp"
#include "paperkernels/common/simd.hpp"

namespace paperkernels::cascade {

// The paper's learner: optimistic probabilities for every (item, reachable state), then planning.
class TopicUCB final : public Learner, private ListCompleter {
 public:
  explicit TopicUCB(const LearnerConfig& cfg, Interrupt* stop = nullptr)
      : Learner(cfg, stop),
        space_(cfg.state, cfg.n_topics, cfg.K, cfg.max_states, stop),
        layout_{cfg.features, cfg.n_features, cfg.n_topics} {
    d_ = layout_.dim();
    h_max_entry_ = record_width() - 1;
    prepare_state_entries();
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
    // A refused or interrupted select leaves the saved state as it was: the estimate (refreshed
    // here from V^-1 b, which update leaves to the next select) and the work counters of the last
    // select are part of it, and the lists count that work as they go.
    const std::size_t candidates = n_candidates_, tested = n_tested_;
    saved_theta_.assign(theta_.begin(), theta_.end());
    try {
      refresh_theta();
      optimistic_lists(items);
      plan_ = plan(config_.planner);
    } catch (...) {
      n_candidates_ = candidates;
      n_tested_ = tested;
      theta_.swap(saved_theta_);
      throw;
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
    require(in.gram.size() == d * d && in.b.size() == d && in.theta.size() == d, "state: expected the statistics of a ",
            d_, "-parameter learner");
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
        state_terms(c, s, t);
        for (int j = by_topic_.start[c]; j < by_topic_.start[c + 1]; ++j) {
          const double f = index_of(u_[j], t.G, t.quadratic(a_[j], h_.data() + j));
          out[static_cast<std::size_t>(order_[j]) * S + s] = apply_link(config_.link, f);
        }
      }
  }

 private:
  static constexpr int kBlock = 8;
  // Two-double vectors (every x86-64 CPU has them); lane by lane the scalar multiplies and adds.
  static constexpr int kLanes = simd::width<simd::Isa::sse2>;
  using Lanes = simd::vec<simd::Isa::sse2>;

  // The planner's cascade for the optimistic lists just computed.
  PlanResult plan(Planner planner) {
    switch (planner) {
      case Planner::exact:
        return exact_.run(space_, lists_, stop_);
      case Planner::topic_dp:
        return topic_dp_.run(space_, lists_, stop_);
      case Planner::greedy:
        return plan_greedy(space_, lists_, stop_);
      case Planner::brute:
        break;
    }
    throw invalid_argument("planner: 'brute' is a test oracle for click tables, not a learner planner");
  }

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
      // (The accuracy bound kMaxFeatureRatio is on the item's features, checked with the items, as
      // in select(): the topic entries of phi are at most 1.)
      if (!(norms.sq / lam <= kSafeMagnitude) || !(b_bound <= kSafeMagnitude)) refuse_features(item, k, lam);
      if (config_.link == Link::logistic &&
          !(theta_bound <= kSafeMagnitude && norms.abs_sum * theta_bound <= kSafeMagnitude))
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
    auto before = [&](std::int32_t x, std::int32_t y) {
      return item_u_[x] != item_u_[y] ? item_u_[x] > item_u_[y] : x < y;
    };
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
    beta_ = beta();
    group_items_by_topic(items);
    compute_item_terms(items);
    arrange_item_terms(items);
    compute_block_bounds(items.L);
    prepare_item_offsets(items.L);
    compute_state_terms();
  }

  // Phase 1: the items grouped by topic (kept from the previous round when the topics are the same,
  // so that the previous order, nearly sorted, is reused).
  void group_items_by_topic(const ItemsView& items) {
    const std::size_t L = items.L;
    const bool same_items = order_.size() == L && std::equal(topics_.begin(), topics_.end(), items.topics);
    if (!same_items) {
      by_topic_.build(items.topics, L, layout_.m);
      order_ = by_topic_.items;
      topics_.assign(items.topics, items.topics + L);
    }
  }

  // Phase 2: u_i = x_i^T theta_x and a_i = x_i^T M_xx x_i of every item, by item index.
  void compute_item_terms(const ItemsView& items) {
    const std::size_t L = items.L;
    const int dx = layout_.dx;
    item_u_.resize(L);
    item_a_.resize(L);
    tick(stop_, L * static_cast<std::size_t>(dx) * dx);
    for (std::size_t i = 0; i < L; ++i) {
      const auto [u, a] = gram_.leading_terms(items.X + i * dx, dx, theta_.data());
      item_u_[i] = u;
      item_a_[i] = std::max(a, 0.0);
    }
  }

  // Phase 3: each topic's items sorted by decreasing u, their u, a and h = M_{c,x} x by position,
  // and the blocks of kBlock positions.
  void arrange_item_terms(const ItemsView& items) {
    const std::size_t L = items.L;
    const int dx = layout_.dx, m = layout_.m, bs = layout_.block_size();
    position_.resize(L);
    u_.resize(L);
    a_.resize(L);
    h_.resize(L * static_cast<std::size_t>(bs));
    block_start_.assign(1, 0);
    block_first_.clear();
    const int vectors = (bs + kLanes - 1) / kLanes;  // h in two-double vectors, zero-padded
    cross_.assign(static_cast<std::size_t>(dx) * vectors * kLanes, 0.0);
    for (int c = 0; c < m; ++c) {
      sort_topic(c);
      // M_{c,x} transposed (cross_[l stride + k] = M[off + k, l]), so that h = M_{c,x} x runs over k
      // innermost; each h[k] still sums l = 0, 1, ... in order: the same bits as row k times x.
      const int off = layout_.block_offset(c);
      for (int l = 0; l < dx; ++l)
        for (int k = 0; k < bs; ++k) cross_[static_cast<std::size_t>(l) * vectors * kLanes + k] = gram_.at(off + k, l);
      const int begin = by_topic_.start[c], end = by_topic_.start[c + 1];
      tick(stop_, static_cast<std::size_t>(end - begin) * bs * dx);
      for (int j = begin; j < end; ++j) {
        const std::int32_t item = order_[j];
        position_[item] = j;
        u_[j] = item_u_[item];
        a_[j] = item_a_[item];
      }
      with_vector_count(vectors, [&](auto count) { item_h<decltype(count)::value>(items, begin, end, vectors); });
      for (int j = begin; j < end; j += kBlock) block_first_.push_back(j);
      block_start_.push_back(static_cast<int>(block_first_.size()));
    }
  }

  // h = M_{c,x} x of the items at positions [begin, end), from the transposed block in cross_.
  template <int kVectors>
  void item_h(const ItemsView& items, int begin, int end, int count) {
    const int vectors = kVectors == kMaxVectors ? count : kVectors;  // a constant but for the generic case
    const std::size_t L = items.L, stride = static_cast<std::size_t>(vectors) * kLanes;
    const int dx = layout_.dx, bs = layout_.block_size();
    Lanes h[kVectors];
    double out[kVectors * kLanes];
    for (int j = begin; j < end; ++j) {
      const double* x = items.X + static_cast<std::size_t>(order_[j]) * dx;
      for (int i = 0; i < vectors; ++i) h[i] = Lanes{};
      for (int l = 0; l < dx; ++l) {
        const double* col = cross_.data() + static_cast<std::size_t>(l) * stride;
        const double xl = x[l];
        for (int i = 0; i < vectors; ++i) h[i] += simd::load<kLanes>(col + i * kLanes) * xl;
      }
      for (int i = 0; i < vectors; ++i) simd::store<kLanes>(out + i * kLanes, h[i]);
      for (int k = 0; k < bs; ++k) h_[static_cast<std::size_t>(k) * L + j] = out[k];
    }
  }

  // Phase 4: block maxima (record per block: u, a, h[0..bs) and the largest of those h) and suffix
  // maxima within each topic.
  void compute_block_bounds(std::size_t L) {
    const int m = layout_.m, bs = layout_.block_size();
    const std::size_t nb = block_first_.size(), width = record_width();
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
        for (int k = 0; k < bs; ++k) rec[2 + bs] = std::max(rec[2 + bs], rec[2 + k]);
      }
      for (int blk = block_start_[c + 1] - 1; blk >= block_start_[c]; --blk) {
        double* suf = suffix_max_.data() + blk * width;
        const double* rec = block_max_.data() + blk * width;
        const double* later = blk + 1 < block_start_[c + 1] ? suffix_max_.data() + (blk + 1) * width : nullptr;
        for (std::size_t k = 0; k < width; ++k) suf[k] = later ? std::max(rec[k], later[k]) : rec[k];
      }
    }
  }

  // Phase 5: G_cs = theta_c^T g and q_cs = g^T M_cc g of every (state, topic).
  void compute_state_terms() {
    const int m = layout_.m, S = space_.size(), bs = layout_.block_size();
    G_.assign(static_cast<std::size_t>(S) * m, 0.0);
    q_.assign(static_cast<std::size_t>(S) * m, 0.0);
    if (layout_.map == FeatureMap::transition) {
      compute_state_terms_by_topic();
      return;
    }
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

  // Transition features: every topic's block holds z(s), so one pass over the entries of z(s) serves
  // every topic, the topics innermost over contiguous copies of theta_c[k] and M_cc[k, l] (taken for
  // the pairs (k, l) that some state uses). Each (s, c) still adds its terms in the order above, with
  // the same operations: the same bits.
  void compute_state_terms_by_topic() {
    const int m = layout_.m, bs = layout_.block_size();
    const int vectors = (m + kLanes - 1) / kLanes;  // the topics in two-double vectors, zero-padded
    const auto stride = static_cast<std::size_t>(vectors) * kLanes;
    theta_by_topic_.assign(static_cast<std::size_t>(bs) * stride, 0.0);
    for (int k = 0; k < bs; ++k)
      for (int c = 0; c < m; ++c) theta_by_topic_[k * stride + c] = theta_[layout_.block_offset(c) + k];
    gram_by_topic_.resize(static_cast<std::size_t>(bs) * bs * stride);  // rows written when first used
    pair_copied_.assign(static_cast<std::size_t>(bs) * bs, 0);
    with_vector_count(vectors, [&](auto count) { state_terms_in<decltype(count)::value>(vectors); });
  }

  // Calls f(std::integral_constant<int, V>) with V = vectors for 1 to 8 vectors, else with
  // V = kMaxVectors: a fixed number of vectors keeps the sums of a kernel in registers.
  static constexpr int kMaxVectors = (kMaxTopics + kLanes - 1) / kLanes;
  template <class F>
  static void with_vector_count(int vectors, F&& f) {
    switch (vectors) {
      case 1:
        return f(std::integral_constant<int, 1>{});
      case 2:
        return f(std::integral_constant<int, 2>{});
      case 3:
        return f(std::integral_constant<int, 3>{});
      case 4:
        return f(std::integral_constant<int, 4>{});
      case 5:
        return f(std::integral_constant<int, 5>{});
      case 6:
        return f(std::integral_constant<int, 6>{});
      case 7:
        return f(std::integral_constant<int, 7>{});
      case 8:
        return f(std::integral_constant<int, 8>{});
      default:
        return f(std::integral_constant<int, kMaxVectors>{});
    }
  }

  template <int kVectors>
  void state_terms_in(int count) {
    const int vectors = kVectors == kMaxVectors ? count : kVectors;  // a constant but for the generic case
    const int m = layout_.m, S = space_.size(), bs = layout_.block_size();
    const auto stride = static_cast<std::size_t>(vectors) * kLanes;
    auto gram_pair = [&](int k, int l) {
      const std::size_t pair = static_cast<std::size_t>(k) * bs + l;
      double* out = gram_by_topic_.data() + pair * stride;
      if (!pair_copied_[pair]) {
        for (int c = 0; c < m; ++c) out[c] = gram_.at(layout_.block_offset(c) + k, layout_.block_offset(c) + l);
        std::fill(out + m, out + stride, 0.0);  // the padding lanes
        pair_copied_[pair] = 1;
      }
      return static_cast<const double*>(out);
    };
    Lanes g[kVectors], q[kVectors];
    double out[kVectors * kLanes];
    for (int s = 0; s < S; ++s) {
      tick(stop_, stride * bs);
      for (int i = 0; i < vectors; ++i) g[i] = q[i] = Lanes{};
      for (const StateSpace::Entry* e = space_.z_begin(s); e != space_.z_end(s); ++e) {
        const double v = static_cast<double>(e->value);
        const double* theta_k = theta_by_topic_.data() + static_cast<std::size_t>(e->topic) * stride;
        for (int i = 0; i < vectors; ++i) g[i] += simd::load<kLanes>(theta_k + i * kLanes) * v;
        for (const StateSpace::Entry* f = space_.z_begin(s); f != space_.z_end(s); ++f) {
          const double w = static_cast<double>(f->value);
          const double* gram_kl = gram_pair(e->topic, f->topic);
          for (int i = 0; i < vectors; ++i) q[i] += simd::load<kLanes>(gram_kl + i * kLanes) * v * w;
        }
      }
      const std::size_t row = static_cast<std::size_t>(s) * m;
      for (int i = 0; i < vectors; ++i) simd::store<kLanes>(out + i * kLanes, g[i]);
      std::copy(out, out + m, G_.data() + row);
      for (int i = 0; i < vectors; ++i) simd::store<kLanes>(out + i * kLanes, q[i]);
      for (int c = 0; c < m; ++c) q_[row + c] = std::max(out[c], 0.0);
    }
  }

  // The state-dependent part of phi for items of topic c in state s: G_cs, q_cs and the non-zero
  // entries (k, v) of the topic block, as (offset of h entry k, weight 2 v), pointing into the
  // tables of prepare_state_entries().
  struct StateTerms {
    double G = 0.0, q = 0.0;
    double weight_sum = 0.0;  // sum of the weights 2 v
    int n = 0;
    const std::size_t* offset = nullptr;
    const double* weight = nullptr;

    // phi^T M phi given a (and h entries found at base + offset[e]). States have a few entries:
    // two per iteration (still added one after the other) keeps the loop short.
    double quadratic(double a, const double* base) const {
      double acc = a + q;
      int e = 0;
      for (; e + 2 <= n; e += 2) {
        acc += weight[e] * base[offset[e]];
        acc += weight[e + 1] * base[offset[e + 1]];
      }
      if (e < n) acc += weight[e] * base[offset[e]];
      return acc;
    }
  };

  // The entries of every state's topic block. With transition features the block of every topic
  // holds z(s), so the entries of state s are its z entries whatever the topic: entry e of the state
  // space (topic k, count v) becomes offset 2 + k into a block record (u, a, h[0..bs)), weight 2 v
  // and, each round (the number of items L may change), offset k L into the item arrays (h entry k
  // of position j at k L + j). With coverage features the block is the single entry (0, 1) when the
  // topic is not in z(s). The state space is fixed: everything but the item offsets is prepared once.
  void prepare_state_entries() {
    const std::size_t n = static_cast<std::size_t>(space_.z_end(space_.size() - 1) - space_.z_begin(0));
    entry_item_offset_.assign(std::max<std::size_t>(n, 1), 0);
    entry_block_offset_.assign(std::max<std::size_t>(n, 1), 2);
    entry_weight_.assign(std::max<std::size_t>(n, 1), 2.0 * 1.0);
    if (layout_.map != FeatureMap::transition) return;
    const StateSpace::Entry* z = space_.z_begin(0);
    for (std::size_t e = 0; e < n; ++e) {
      entry_block_offset_[e] = 2 + static_cast<std::size_t>(z[e].topic);
      entry_weight_[e] = 2.0 * static_cast<double>(z[e].value);
    }
    state_weight_sum_.assign(static_cast<std::size_t>(space_.size()), 0.0);
    for (int s = 0; s < space_.size(); ++s)
      for (auto e = space_.z_begin(s) - z; e < space_.z_end(s) - z; ++e) state_weight_sum_[s] += entry_weight_[e];
  }
  void prepare_item_offsets(std::size_t L) {
    if (layout_.map != FeatureMap::transition) return;  // the single entry: offset 0
    const StateSpace::Entry* z = space_.z_begin(0);
    const std::size_t n = static_cast<std::size_t>(space_.z_end(space_.size() - 1) - z);
    for (std::size_t e = 0; e < n; ++e) entry_item_offset_[e] = static_cast<std::size_t>(z[e].topic) * L;
  }

  // Entries of a block record: u, a, h[0..bs) and the largest of those h.
  std::size_t record_width() const { return 3 + static_cast<std::size_t>(layout_.block_size()); }

  // Whether no item of a block record (or suffix record) rec can have an index above `cut`: first
  // with the record's largest h in every entry (sum_e 2 v_e h[k_e] <= hmax sum_e 2 v_e: one multiply),
  // then, if that is not enough, entry by entry.
  bool record_cannot_exceed(double cut, const double* rec, const StateTerms& tb, double beta2) const {
    const double d = cut - rec[0] - tb.G;
    if (!(d >= 0.0)) return false;
    const double room = d * d;
    if (beta2 * ((rec[1] + tb.q) + tb.weight_sum * rec[h_max_entry_]) <= room) return true;
    return beta2 * tb.quadratic(rec[1], rec) <= room;
  }

  // Terms for the item arrays and, in `blocks`, for the block records.
  void state_terms(int c, int s, StateTerms& items, StateTerms* blocks = nullptr) const {
    const std::size_t cs = static_cast<std::size_t>(s) * layout_.m + c;
    items.G = G_[cs];
    items.q = q_[cs];
    std::size_t first = 0;
    if (layout_.map == FeatureMap::transition) {
      first = static_cast<std::size_t>(space_.z_begin(s) - space_.z_begin(0));
      items.n = static_cast<int>(space_.z_end(s) - space_.z_begin(s));
      items.weight_sum = state_weight_sum_[s];
    } else {
      items.n = space_.z(s, c) == 0 ? 1 : 0;
      items.weight_sum = items.n * entry_weight_[0];
    }
    items.offset = entry_item_offset_.data() + first;
    items.weight = entry_weight_.data() + first;
    if (blocks) {
      *blocks = items;
      blocks->offset = entry_block_offset_.data() + first;
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
    const std::size_t width = record_width();
    const int S = space_.size(), m = layout_.m;
    const double beta2 = beta_ * beta_;
    n_candidates_ = n_tested_ = 0;
    StateTerms t, tb;
    double acc[kBlock];
    for (int c = 0; c < m; ++c) {
      const int begin = by_topic_.start[c], end = by_topic_.start[c + 1];
      if (begin == end) continue;
      const double u_scale = topic_u_scale(c);
      for (int s = 0; s < S; ++s) {
        tick(stop_, kBlock);  // per state: one topic's pass over a million states takes about a second
        state_terms(c, s, t, &tb);
        const int parent = space_.parent(s);
        int best = parent >= 0 ? position_[lists_.list(parent, c)[0].item] : begin;
        double best_f = index_of(u_[best], t.G, t.quadratic(a_[best], h_.data() + best));
        double cut = best_f - rounding_margin(best_f, t.G, u_scale);
        ++n_candidates_;
        for (int blk = block_start_[c]; blk < block_start_[c + 1]; ++blk) {
          const int first = block_first_[blk], n = std::min(end, first + kBlock) - first;
          // The first block (the largest u) rarely gets pruned: its items are tested right away.
          if (blk != block_start_[c]) {
            const double* suf = suffix_max_.data() + blk * width;
            if (record_cannot_exceed(cut, suf, tb, beta2)) break;
            if (record_cannot_exceed(cut, block_max_.data() + blk * width, tb, beta2)) continue;
          }
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
    const std::size_t width = record_width();
    const double beta2 = beta_ * beta_;
    StateTerms t, tb;
    double acc[kBlock];
    for (int c = 0; c < layout_.m; ++c) {
      const int begin = by_topic_.start[c], end = by_topic_.start[c + 1];
      const int capacity = space_.list_length(s, c);
      if (begin == end || capacity <= 1) continue;
      const double u_scale = topic_u_scale(c);
      state_terms(c, s, t, &tb);
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
          if (record_cannot_exceed(cut, suf, tb, beta2)) break;
          if (record_cannot_exceed(cut, block_max_.data() + blk * width, tb, beta2)) continue;
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
    if (n == kBlock) {  // a fixed trip count: unrolled and vectorised
      block_quadratics_of<kBlock>(t, first, acc);
      return;
    }
    for (int r = 0; r < n; ++r) acc[r] = a_[first + r] + t.q;
    for (int e = 0; e < t.n; ++e) {
      const double* h = h_.data() + t.offset[e] + first;
      const double w = t.weight[e];
      for (int r = 0; r < n; ++r) acc[r] += w * h[r];
    }
  }
  // The items of a block side by side in vectors (Lanes).
  template <int n>
  void block_quadratics_of(const StateTerms& t, int first, double* acc) const {
    constexpr int W = kLanes;
    static_assert(n % W == 0, "whole vectors");
    Lanes sum[n / W];
    for (int i = 0; i < n / W; ++i) sum[i] = simd::load<W>(a_.data() + first + i * W) + t.q;
    for (int e = 0; e < t.n; ++e) {
      const double* h = h_.data() + t.offset[e] + first;
      const double w = t.weight[e];
      for (int i = 0; i < n / W; ++i) sum[i] += w * simd::load<W>(h + i * W);
    }
    for (int i = 0; i < n / W; ++i) simd::store<W>(acc + i * W, sum[i]);
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
  std::size_t h_max_entry_ = 0;  // of a block record
  InverseGram gram_;
  std::vector<double> b_, theta_, phi_, work_;
  std::vector<double> saved_theta_;  // theta_ before a select, restored if the select fails
  std::int64_t n_obs_ = 0;

  double beta_ = 0.0;
  std::vector<std::int64_t> topics_;     // topics of the previous round (the order is reused)
  std::vector<std::int32_t> order_;      // items by topic, then decreasing u
  std::vector<int> position_;            // item -> position in order_
  std::vector<double> item_u_, item_a_;  // by item index
  std::vector<double> u_, a_, h_;        // by position (h: block entry k at k * L + j)
  std::vector<int> block_start_, block_first_;
  std::vector<double> block_max_, suffix_max_;
  std::vector<double> G_, q_;
  std::vector<std::size_t> entry_item_offset_, entry_block_offset_;  // see prepare_state_entries
  std::vector<double> entry_weight_, state_weight_sum_;
  std::vector<double> theta_by_topic_, gram_by_topic_;  // see compute_state_terms_by_topic
  std::vector<double> cross_;                           // see arrange_item_terms
  std::vector<char> pair_copied_;
  std::vector<std::uint32_t> seen_;  // seen_[j] == stamp_: position j was offered as a seed
  std::uint32_t stamp_ = 0;
  std::size_t n_candidates_ = 0, n_tested_ = 0;
  TopicIndex by_topic_;
  TopLists lists_;
  ExactSearch exact_;
  TopicDP topic_dp_;
  PlanResult plan_;
};

}  // namespace paperkernels::cascade
