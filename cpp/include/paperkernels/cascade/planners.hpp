// Planners for the cascade MDP
//   V_k(s, U) = max_{a not in U} [ p(a|s) + (1 - p(a|s)) V_{k+1}(s + tau(a), U + {a}) ].
//
// Every planner except brute force works on TopLists: for each (state, topic) the best items of
// that topic, ranked by click probability in that state, as many as StateSpace::list_length says.
// Exchanging an item for a better-ranked unused item of the same topic leaves the state path
// unchanged and cannot lower the value, so the lists contain an optimal cascade.
//
// Ranking (and every tie-break): higher p, then higher `score` (the unclipped optimistic index of
// a learner; equal to p for a table), then the lower item index.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "paperkernels/cascade/model.hpp"
#include "paperkernels/cascade/state_space.hpp"
#include "paperkernels/common/errors.hpp"

namespace paperkernels::cascade {

enum class Planner : int { exact = 0, topic_dp = 1, greedy = 2, brute = 3 };

struct Candidate {
  std::int32_t item;
  double p;
  double score;
};

inline bool ranks_before(const Candidate& a, const Candidate& b) {
  if (a.p != b.p) return a.p > b.p;
  if (a.score != b.score) return a.score > b.score;
  return a.item < b.item;
}

// Fills the complete lists of a state on request (see TopLists::ensure).
class ListCompleter {
 public:
  virtual ~ListCompleter() = default;
  virtual void complete(int s) = 0;
};

// Ranked lists per (state, topic). A source may fill only the first entry of every list (all that
// the relaxed bound and topic_dp read) and complete a state's lists when a planner visits it:
// planners call ensure(s) before reading past the first entry.
class TopLists {
 public:
  TopLists() = default;
  void reset(const StateSpace& space, ListCompleter* completer = nullptr) {
    S_ = space.size();
    m_ = space.n_topics();
    R_ = space.K();
    // Left uninitialised (only the first size(s, c) entries of a list are ever read): the system
    // supplies the pages as the lists fill, inside loops that poll for Ctrl-C, instead of in one
    // zero-fill of up to gigabytes.
    const std::size_t n = static_cast<std::size_t>(S_) * m_ * R_;
    if (n > capacity_) {
      entries_.reset();
      entries_.reset(new Candidate[n]);
      capacity_ = n;
    }
    sizes_.assign(static_cast<std::size_t>(S_) * m_, 0);
    completer_ = completer;
    complete_.assign(S_, completer == nullptr ? 1 : 0);
  }
  void ensure(int s) {
    if (!complete_[s]) {
      complete_[s] = 1;
      completer_->complete(s);
    }
  }
  bool is_complete(int s) const { return complete_[s] != 0; }
  int size(int s, int c) const { return sizes_[slot(s, c)]; }
  const Candidate* list(int s, int c) const { return entries_.get() + slot(s, c) * R_; }
  Candidate* list(int s, int c) { return entries_.get() + slot(s, c) * R_; }
  void set_size(int s, int c, int n) { sizes_[slot(s, c)] = n; }

  // Inserts a candidate into the ranked list of (s, c), keeping at most `capacity` entries.
  // Returns false if it ranks below a full list.
  bool offer(int s, int c, int capacity, const Candidate& cand) {
    Candidate* l = list(s, c);
    int& n = sizes_[slot(s, c)];
    if (capacity <= 0) return false;
    if (n == capacity && !ranks_before(cand, l[n - 1])) return false;
    int pos = n < capacity ? n++ : n - 1;
    while (pos > 0 && ranks_before(cand, l[pos - 1])) {
      l[pos] = l[pos - 1];
      --pos;
    }
    l[pos] = cand;
    return true;
  }

 private:
  std::size_t slot(int s, int c) const { return static_cast<std::size_t>(s) * m_ + c; }
  int S_ = 0, m_ = 0, R_ = 0;
  std::unique_ptr<Candidate[]> entries_;
  std::size_t capacity_ = 0;
  std::vector<int> sizes_;
  std::vector<char> complete_;
  ListCompleter* completer_ = nullptr;
};

// Items grouped by topic (counting sort, items ascending within a topic).
struct TopicIndex {
  std::vector<std::int32_t> start;  // m + 1
  std::vector<std::int32_t> items;  // L

  void build(const std::int64_t* topics, std::size_t L, int m) {
    start.assign(static_cast<std::size_t>(m) + 1, 0);
    for (std::size_t i = 0; i < L; ++i) ++start[static_cast<std::size_t>(topics[i]) + 1];
    for (int c = 0; c < m; ++c) start[c + 1] += start[c];
    items.resize(L);
    std::vector<std::int32_t> fill(start.begin(), start.end() - 1);
    for (std::size_t i = 0; i < L; ++i)
      items[fill[static_cast<std::size_t>(topics[i])]++] = static_cast<std::int32_t>(i);
  }
  int count(int c) const { return start[c + 1] - start[c]; }
  const std::int32_t* begin(int c) const { return items.data() + start[c]; }
  const std::int32_t* end(int c) const { return items.data() + start[c + 1]; }
};

// Top lists from a full click table P[i * stride + s] (the first S columns are used), row by row.
inline void top_lists_from_table(const double* P, std::size_t stride, const std::int64_t* topics, std::size_t L,
                                 const StateSpace& space, TopLists& out, Interrupt* stop = nullptr) {
  out.reset(space);
  const int S = space.size();
  std::vector<int> capacity(static_cast<std::size_t>(S) * space.n_topics());
  for (int s = 0; s < S; ++s)
    for (int c = 0; c < space.n_topics(); ++c)
      capacity[static_cast<std::size_t>(s) * space.n_topics() + c] = space.list_length(s, c);
  for (std::size_t i = 0; i < L; ++i) {
    tick(stop, static_cast<std::size_t>(S));
    const int c = static_cast<int>(topics[i]);
    const double* row = P + i * stride;
    for (int s = 0; s < S; ++s)
      out.offer(s, c, capacity[static_cast<std::size_t>(s) * space.n_topics() + c],
                {static_cast<std::int32_t>(i), row[s], row[s]});
  }
}

// Top lists straight from a model: p(i | s) = link(u_i + G_cs) with u_i = x_i^T theta_x and G_cs
// the topic part, so within a topic the items rank by u in every state (higher unclipped value
// first where the link clips, then lower index). Costs O(L (d_x + K) + S m K) instead of O(L S).
inline void top_lists_from_model(const double* X, const std::int64_t* topics, std::size_t L, const double* theta,
                                 const FeatureLayout& layout, Link link, const StateSpace& space, TopLists& out,
                                 Interrupt* stop = nullptr) {
  const int m = layout.m, K = space.K(), S = space.size();
  std::vector<double> u(L);
  for (std::size_t i = 0; i < L; ++i) {
    double t = 0.0;
    for (int j = 0; j < layout.dx; ++j) t += X[i * layout.dx + j] * theta[j];
    u[i] = t;
  }
  // The K best items of each topic by (u desc, index asc), by insertion.
  std::vector<std::int32_t> best(static_cast<std::size_t>(m) * K);
  std::vector<int> count(m, 0);
  for (std::size_t i = 0; i < L; ++i) {
    const int c = static_cast<int>(topics[i]);
    std::int32_t* l = best.data() + static_cast<std::size_t>(c) * K;
    int& n = count[c];
    if (n == K && !(u[i] > u[l[K - 1]])) continue;  // ties keep the lower index already listed
    int pos = n < K ? n++ : K - 1;
    while (pos > 0 && u[i] > u[l[pos - 1]]) {
      l[pos] = l[pos - 1];
      --pos;
    }
    l[pos] = static_cast<std::int32_t>(i);
  }
  out.reset(space);
  for (int s = 0; s < S; ++s)
    for (int c = 0; c < m; ++c) {
      tick(stop, static_cast<std::size_t>(K));
      double G = 0.0;
      const double* block = theta + layout.block_offset(c);
      layout.for_each_topic_entry(space, s, c, [&](int j, double v) { G += block[j] * v; });
      const int n = std::min(count[c], space.list_length(s, c));
      Candidate* l = out.list(s, c);
      for (int r = 0; r < n; ++r) {
        const std::int32_t item = best[static_cast<std::size_t>(c) * K + r];
        const double eta = u[item] + G;
        l[r] = {item, apply_link(link, eta), eta};
      }
      out.set_size(s, c, n);
    }
}

struct PlanResult {
  std::vector<std::int32_t> cascade;
  std::vector<double> probs;  // click probability at each position
  double value = 0.0;
  std::size_t nodes = 0;  // search nodes expanded (exact) or DP states (topic_dp)
};

namespace detail {

inline bool is_used(const std::int32_t* chosen, int k, std::int32_t item) {
  for (int j = 0; j < k; ++j)
    if (chosen[j] == item) return true;
  return false;
}

}  // namespace detail

// Greedy: at each position the best-ranked unused item over all topics.
inline PlanResult plan_greedy(const StateSpace& space, TopLists& lists, Interrupt* stop = nullptr) {
  const int K = space.K();
  PlanResult out;
  out.cascade.assign(K, -1);
  out.probs.assign(K, 0.0);
  int s = StateSpace::root();
  for (int k = 0; k < K; ++k) {
    tick(stop, static_cast<std::size_t>(space.n_topics()));
    lists.ensure(s);
    Candidate best{-1, -1.0, 0.0};
    int best_topic = -1;
    for (int c = 0; c < space.n_topics(); ++c) {
      const Candidate* l = lists.list(s, c);
      for (int r = 0; r < lists.size(s, c); ++r) {
        if (detail::is_used(out.cascade.data(), k, l[r].item)) continue;
        if (best.item < 0 || ranks_before(l[r], best)) {
          best = l[r];
          best_topic = c;
        }
        break;
      }
    }
    require(best.item >= 0, "K: not enough items to fill a cascade of length ", K);
    out.cascade[k] = best.item;
    out.probs[k] = best.p;
    if (k + 1 < K) s = space.next(s, best_topic);
  }
  out.value = cascade_value(out.probs.data(), K);
  return out;
}

// Exact: depth-first branch and bound over (position, state, used items). Candidates at a node are
// the K - k best unused items of each topic; the bound is the relaxed value R_k(s) of the same MDP
// without the distinct-items constraint (a DP over states only), which never underestimates.
// Children are visited by decreasing bound, so the result is the first optimal cascade in that
// order (ties kept to the first found: only strictly better cascades replace the incumbent).
class ExactSearch {
 public:
  PlanResult run(const StateSpace& space, TopLists& lists, Interrupt* stop = nullptr) {
    space_ = &space;
    lists_ = &lists;
    stop_ = stop;
    K_ = space.K();
    S_ = space.size();
    m_ = space.n_topics();
    relaxed_bounds();
    chosen_.assign(K_, -1);
    probs_.assign(K_, 0.0);
    best_.cascade.assign(K_, -1);
    best_.probs.assign(K_, 0.0);
    best_.value = -1.0;
    best_.nodes = 0;
    if (frontier_.size() < static_cast<std::size_t>(K_)) frontier_.resize(K_);
    search(0, StateSpace::root(), 0.0, 1.0);
    require(best_.cascade[0] >= 0, "K: not enough items to fill a cascade of length ", K_);
    best_.value = cascade_value(best_.probs.data(), K_);
    return best_;
  }

  // R_k(s) for k = 0..K (R_K = 0): exposed for tests of the bound.
  double bound(int k, int s) const { return bound_[static_cast<std::size_t>(k) * S_ + s]; }

 private:
  struct Branch {
    Candidate cand;
    int topic;
    double bound;
  };

  static bool branch_before(const Branch& a, const Branch& b) {
    if (a.bound != b.bound) return a.bound > b.bound;
    return ranks_before(a.cand, b.cand);
  }

  void relaxed_bounds() {
    bound_.assign(static_cast<std::size_t>(K_ + 1) * S_, 0.0);
    for (int k = K_ - 1; k >= 0; --k)
      for (int s = 0; s < S_; ++s) {
        tick(stop_, static_cast<std::size_t>(m_));
        if (space_->depth(s) > k) continue;
        double best = 0.0;
        for (int c = 0; c < m_; ++c) {
          if (lists_->size(s, c) == 0) continue;
          const double p = lists_->list(s, c)[0].p;
          double after = 0.0;
          if (k + 1 < K_) {
            const int t = space_->next(s, c);
            after = t >= 0 ? bound_[static_cast<std::size_t>(k + 1) * S_ + t] : 1.0;
          }
          best = std::max(best, p + (1.0 - p) * after);
        }
        bound_[static_cast<std::size_t>(k) * S_ + s] = best;
      }
  }

  void search(int k, int s, double prefix, double survive) {
    ++best_.nodes;
    tick(stop_, static_cast<std::size_t>(m_));
    lists_->ensure(s);
    std::vector<Branch>& branches = frontier_[k];
    branches.clear();
    const int wanted = K_ - k;
    for (int c = 0; c < m_; ++c) {
      const Candidate* l = lists_->list(s, c);
      const int n = lists_->size(s, c);
      int taken = 0;
      const int t = k + 1 < K_ ? space_->next(s, c) : -1;
      const double after = k + 1 < K_ ? (t >= 0 ? bound_[static_cast<std::size_t>(k + 1) * S_ + t] : 1.0) : 0.0;
      for (int r = 0; r < n && taken < wanted; ++r) {
        if (detail::is_used(chosen_.data(), k, l[r].item)) continue;
        branches.push_back({l[r], c, l[r].p + (1.0 - l[r].p) * after});
        ++taken;
      }
    }
    if (k + 1 == K_) {
      // Last position: the best-ranked candidate is optimal.
      const Branch* top = nullptr;
      for (const Branch& b : branches)
        if (top == nullptr || branch_before(b, *top)) top = &b;
      if (top == nullptr) return;
      chosen_[k] = top->cand.item;
      probs_[k] = top->cand.p;
      const double value = cascade_value(probs_.data(), K_);
      if (value > best_.value) {
        best_.value = value;
        best_.cascade = chosen_;
        best_.probs = probs_;
      }
      return;
    }
    std::sort(branches.begin(), branches.end(), branch_before);
    for (std::size_t b = 0; b < branches.size(); ++b) {  // deeper levels use frontier_[k + 1..]
      const Branch br = branches[b];
      if (best_.value >= 0.0 && prefix + survive * br.bound <= best_.value) break;
      chosen_[k] = br.cand.item;
      probs_[k] = br.cand.p;
      search(k + 1, space_->next(s, br.topic), prefix + survive * br.cand.p, survive * (1.0 - br.cand.p));
    }
    chosen_[k] = -1;
  }

  const StateSpace* space_ = nullptr;
  TopLists* lists_ = nullptr;
  Interrupt* stop_ = nullptr;
  int K_ = 0, S_ = 0, m_ = 0;
  std::vector<double> bound_;
  std::vector<std::int32_t> chosen_;
  std::vector<double> probs_;
  std::vector<std::vector<Branch>> frontier_;
  PlanResult best_;
};

// topic_dp: DP over sets of used topics, one item per topic; exact among cascades whose topics
// are distinct (then items never collide, so the best item of each (topic, state) is free).
// The DP key is (used topics, model state): for "set" and "count" the state is determined by
// the used topics; for "last" it adds the previous topic.
class TopicDP {
 public:
  PlanResult run(const StateSpace& space, const TopLists& lists, Interrupt* stop = nullptr) {
    space_ = &space;
    lists_ = &lists;
    stop_ = stop;
    K_ = space.K();
    int nonempty = 0;
    for (int c = 0; c < space.n_topics(); ++c) nonempty += lists.size(StateSpace::root(), c) > 0;
    require(K_ <= nonempty,
            "K: method 'topic_dp' uses one item per topic and needs K <= the number of topics with items (", nonempty,
            "), got K = ", K_);
    memo_.clear();
    PlanResult out;
    out.cascade.assign(K_, -1);
    out.probs.assign(K_, 0.0);
    value(0, 0, StateSpace::root());
    // Follow the argmax from the root.
    std::uint64_t mask = 0;
    int s = StateSpace::root();
    for (int k = 0; k < K_; ++k) {
      const int c = memo_.at(memo_key(mask, s)).topic;
      const Candidate& top = lists.list(s, c)[0];
      out.cascade[k] = top.item;
      out.probs[k] = top.p;
      mask |= std::uint64_t{1} << c;
      if (k + 1 < K_) s = space.next(s, c);
    }
    out.value = cascade_value(out.probs.data(), K_);
    out.nodes = memo_.size();
    return out;
  }

 private:
  struct Entry {
    double value;
    int topic;
  };
  static std::uint64_t memo_key(std::uint64_t mask, int s) {
    return mask * 0x9E3779B97F4A7C15ULL ^ (static_cast<std::uint64_t>(s) + 0x632BE59BD9B4E019ULL);
  }

  double value(int k, std::uint64_t mask, int s) {
    if (k == K_) return 0.0;
    const std::uint64_t key = memo_key(mask, s);
    auto it = memo_.find(key);
    if (it != memo_.end()) return it->second.value;
    tick(stop_, static_cast<std::size_t>(space_->n_topics()));
    Entry best{-1.0, -1};
    Candidate best_top{-1, 0.0, 0.0};
    for (int c = 0; c < space_->n_topics(); ++c) {
      if ((mask >> c) & 1U) continue;
      if (lists_->size(s, c) == 0) continue;
      const Candidate& top = lists_->list(s, c)[0];
      const double after = k + 1 < K_ ? value(k + 1, mask | (std::uint64_t{1} << c), space_->next(s, c)) : 0.0;
      const double v = top.p + (1.0 - top.p) * after;
      if (v > best.value || (v == best.value && ranks_before(top, best_top))) {
        best = {v, c};
        best_top = top;
      }
    }
    memo_.emplace(key, best);
    return best.value;
  }

  const StateSpace* space_ = nullptr;
  const TopLists* lists_ = nullptr;
  Interrupt* stop_ = nullptr;
  int K_ = 0;
  std::unordered_map<std::uint64_t, Entry> memo_;
};

// Number of orderings L!/(L-K)! (a double: it overflows no integer type in the refusal message).
inline double count_orderings(std::size_t L, int K) {
  double n = 1.0;
  for (int k = 0; k < K; ++k) n *= static_cast<double>(L - static_cast<std::size_t>(k));
  return n;
}

inline std::string format_count(double n) {
  if (n < 1e15) return std::to_string(static_cast<long long>(n));
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3g", n);
  return buffer;
}

// Brute force over all L!/(L-K)! orderings in lexicographic order (the first maximum is kept).
inline PlanResult plan_brute(const double* P, std::size_t stride, std::size_t L, const std::int64_t* topics,
                             const StateSpace& space, double max_orderings, Interrupt* stop = nullptr) {
  const int K = space.K();
  const double n = count_orderings(L, K);
  if (!(n <= max_orderings))
    fail("method 'brute': L!/(L-K)! = ", format_count(n), " orderings (L = ", L, ", K = ", K,
         ") is above the limit max_orderings = ", format_count(max_orderings),
         "; use method 'exact' or raise max_orderings");
  PlanResult best;
  best.cascade.assign(K, -1);
  best.probs.assign(K, 0.0);
  best.value = -1.0;
  std::vector<std::int32_t> chosen(K, -1);
  std::vector<int> states(K + 1, StateSpace::root());
  std::vector<double> probs(K, 0.0);
  std::vector<char> used(L, 0);
  // Iterative depth-first enumeration.
  std::vector<std::int64_t> cursor(K, -1);
  int k = 0;
  while (k >= 0) {
    tick(stop);
    std::int64_t i = cursor[k] + 1;
    if (cursor[k] >= 0) used[static_cast<std::size_t>(cursor[k])] = 0;
    while (i < static_cast<std::int64_t>(L) && used[static_cast<std::size_t>(i)]) ++i;
    if (i >= static_cast<std::int64_t>(L)) {
      cursor[k] = -1;
      --k;
      continue;
    }
    cursor[k] = i;
    used[static_cast<std::size_t>(i)] = 1;
    chosen[k] = static_cast<std::int32_t>(i);
    probs[k] = P[static_cast<std::size_t>(i) * stride + states[k]];
    if (k + 1 == K) {
      ++best.nodes;
      const double v = cascade_value(probs.data(), K);
      if (v > best.value) {
        best.value = v;
        best.cascade = chosen;
        best.probs = probs;
      }
    } else {
      states[k + 1] = space.next(states[k], static_cast<int>(topics[i]));
      ++k;
    }
  }
  return best;
}

}  // namespace paperkernels::cascade
