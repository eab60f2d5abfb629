// The states of the cascade MDP: summaries of the topics shown above a position.
//
// Every state is described by a topic vector z in N^m, the coefficient of each topic in the feature
// map: "set" (z_c = 1 if topic c was shown), "count" (z_c = number of topic-c items shown) and
// "last" (z = one-hot of the previous item's topic; zero before the first position).
// A StateSpace enumerates the states reachable before positions 1..K in breadth-first order (by the
// minimal number of items needed to reach them, topics ascending); that order is the column order
// of every click table.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "paperkernels/common/errors.hpp"

namespace paperkernels::cascade {

enum class StateKind : int { set = 0, count = 1, last = 2 };

inline constexpr int kMaxTopics = 62;       // "set" and "last": topics fit a 64-bit mask
inline constexpr int kMaxCountTopics = 16;  // "count": 4 bits per topic in a 64-bit key
inline constexpr int kMaxCountK = 16;       // "count": counts up to K - 1 <= 15 fit 4 bits

inline const char* state_kind_name(StateKind kind) {
  switch (kind) {
    case StateKind::set:
      return "set";
    case StateKind::count:
      return "count";
    case StateKind::last:
      return "last";
  }
  return "?";
}

inline int max_topics(StateKind kind) { return kind == StateKind::count ? kMaxCountTopics : kMaxTopics; }

// Cooperative interruption of a long single-threaded loop. The loop calls tick(work) as it goes;
// about every 20 ms of wall time the check runs (on the loop's own thread: a Python signal poll, or
// a parallel run's stop token) and `interrupted` is thrown if it asks to stop. Without a check,
// tick() is a counter increment.
class Interrupt {
 public:
  Interrupt() = default;
  explicit Interrupt(std::function<bool()> check) : check_(std::move(check)), last_(std::chrono::steady_clock::now()) {}

  void tick(std::size_t work = 1) {
    work_ += work;
    if (work_ < kWorkPerClockRead) return;
    work_ = 0;
    if (!check_) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_ < std::chrono::milliseconds(20)) return;
    last_ = now;
    if (check_()) throw interrupted();
  }

 private:
  static constexpr std::size_t kWorkPerClockRead = 4096;
  std::function<bool()> check_;
  std::chrono::steady_clock::time_point last_{};
  std::size_t work_ = 0;
};

inline void tick(Interrupt* stop, std::size_t work = 1) {
  if (stop != nullptr) stop->tick(work);
}

// The number of states of depth at most K - 1, capped at `cap`: sum_{j < K} C(m, j) for "set",
// C(m + K - 1, K - 1) for "count" (vectors of m counts summing to at most K - 1), m + 1 for "last"
// (1 when K = 1).
inline std::size_t count_states(StateKind kind, int m, int K, std::size_t cap) {
  const int depth = K - 1;
  unsigned __int128 total = 0;
  switch (kind) {
    case StateKind::last:
      total = depth >= 1 ? static_cast<unsigned>(m) + 1 : 1;
      break;
    case StateKind::set: {
      unsigned __int128 binom = 1;  // C(m, j)
      for (int j = 0; j <= std::min(depth, m) && total <= cap; ++j) {
        total += binom;
        binom = binom * static_cast<unsigned>(m - j) / static_cast<unsigned>(j + 1);
      }
      break;
    }
    case StateKind::count: {
      total = 1;  // C(m + depth, depth), built as C(m + j, j) for j = 1 .. depth
      for (int j = 1; j <= depth && total <= cap; ++j)
        total = total * static_cast<unsigned>(m + j) / static_cast<unsigned>(j);
      break;
    }
  }
  return total > cap ? cap : static_cast<std::size_t>(total);
}

class StateSpace {
 public:
  struct Entry {
    std::int32_t topic;
    std::int32_t value;
  };

  StateSpace(StateKind kind, int n_topics, int K, std::size_t max_states, Interrupt* stop = nullptr)
      : kind_(kind), m_(n_topics), K_(K) {
    require(n_topics >= 1, "n_topics: expected at least 1 topic, got ", n_topics);
    require(n_topics <= max_topics(kind), "n_topics: the '", state_kind_name(kind), "' state kind allows at most ",
            max_topics(kind), " topics, got ", n_topics);
    require(K >= 1, "K: expected a cascade length >= 1, got ", K);
    require(kind != StateKind::count || K <= kMaxCountK, "K: the 'count' state kind allows K <= ", kMaxCountK, ", got ",
            K);
    enumerate(max_states, stop);
  }

  StateKind kind() const { return kind_; }
  int n_topics() const { return m_; }
  int K() const { return K_; }
  int size() const { return static_cast<int>(keys_.size()); }
  static constexpr int root() { return 0; }

  // Index of the state after showing a topic-c item in state s; -1 if it needs K or more items.
  int next(int s, int c) const { return next_[static_cast<std::size_t>(s) * m_ + c]; }
  // Minimal number of items shown to reach s.
  int depth(int s) const { return depth_[s]; }
  // Breadth-first parent and the topic added to it (-1 for the root): z(s) = z(parent) + e_added
  // for "set" and "count", and z(s) = e_added for "last" (whose parent is the root).
  int parent(int s) const { return parent_[s]; }
  int added(int s) const { return added_[s]; }
  std::uint64_t key(int s) const { return keys_[s]; }

  // Non-zero entries of z(s), topics ascending.
  const Entry* z_begin(int s) const { return z_.data() + z_offset_[s]; }
  const Entry* z_end(int s) const { return z_.data() + z_offset_[s + 1]; }
  int z(int s, int c) const {
    for (const Entry* e = z_begin(s); e != z_end(s); ++e)
      if (e->topic == c) return e->value;
    return 0;
  }

  // How many of the best items of topic c, ranked by click probability in state s, a cascade of
  // length K can use at a position whose state is s (the exchange argument behind exact pruning:
  // with j items shown and u of them of topic c, only the K - j best unused items of topic c can
  // be optimal, i.e. the K - j + u best overall).
  int list_length(int s, int c) const {
    switch (kind_) {
      case StateKind::set: {
        const int shown = depth_[s];  // |s| distinct topics, at least one item each
        return K_ - shown + (z(s, c) ? 1 : 0);
      }
      case StateKind::count:
        return K_ - depth_[s] + z(s, c);
      case StateKind::last:
        return K_;
    }
    return K_;
  }

  // State index of a key, or -1.
  int find(std::uint64_t key) const {
    auto it = index_.find(key);
    return it == index_.end() ? -1 : it->second;
  }

  // Key of a topic vector (validated by the caller): set -> mask, count -> 4-bit counts, last ->
  // 0 (none) or topic + 1.
  std::uint64_t key_of(const std::int64_t* zvec) const {
    std::uint64_t key = 0;
    for (int c = 0; c < m_; ++c) {
      if (zvec[c] == 0) continue;
      switch (kind_) {
        case StateKind::set:
          key |= std::uint64_t{1} << c;
          break;
        case StateKind::count:
          key |= static_cast<std::uint64_t>(zvec[c]) << (4 * c);
          break;
        case StateKind::last:
          key = static_cast<std::uint64_t>(c) + 1;
          break;
      }
    }
    return key;
  }

 private:
  std::uint64_t child_key(std::uint64_t key, int c) const {
    switch (kind_) {
      case StateKind::set:
        return key | (std::uint64_t{1} << c);
      case StateKind::count:
        return key + (std::uint64_t{1} << (4 * c));
      case StateKind::last:
        return static_cast<std::uint64_t>(c) + 1;
    }
    return key;
  }

  // Breadth first: parents in list order, topics ascending; a child's index is recorded in next_
  // as it is found (a topic already in a "set" state leads back to the state itself).
  void enumerate(std::size_t max_states, Interrupt* stop) {
    // Every table reserved once: growing them (the hash map above all, which rehashes a million
    // states in one step) would stall Ctrl-C for up to a second.
    const std::size_t expected = count_states(kind_, m_, K_, max_states);
    keys_.reserve(expected);
    depth_.reserve(expected);
    parent_.reserve(expected);
    added_.reserve(expected);
    index_.reserve(expected);
    keys_.push_back(0);
    depth_.push_back(0);
    parent_.push_back(-1);
    added_.push_back(-1);
    index_.emplace(0, 0);
    std::vector<std::int32_t> next;
    next.reserve(expected * static_cast<std::size_t>(m_));
    for (std::size_t s = 0; s < keys_.size(); ++s) {
      tick(stop, static_cast<std::size_t>(m_));
      next.resize((s + 1) * m_, -1);
      for (int c = 0; c < m_; ++c) {
        const std::uint64_t key = child_key(keys_[s], c);
        if (key == keys_[s]) {
          next[s * m_ + c] = static_cast<std::int32_t>(s);
          continue;
        }
        const auto found = index_.find(key);
        if (found != index_.end()) {
          next[s * m_ + c] = found->second;
          continue;
        }
        const int child_depth = kind_ == StateKind::last ? 1 : depth_[s] + 1;
        if (child_depth > K_ - 1) continue;
        if (keys_.size() >= max_states)
          fail("K, n_topics: the '", state_kind_name(kind_), "' state space with ", m_, " topics and K = ", K_,
               " has more than ", max_states, " states (max_states)");
        next[s * m_ + c] = static_cast<std::int32_t>(keys_.size());
        index_.emplace(key, static_cast<int>(keys_.size()));
        keys_.push_back(key);
        depth_.push_back(child_depth);
        parent_.push_back(kind_ == StateKind::last ? 0 : static_cast<int>(s));
        added_.push_back(c);
      }
    }
    const std::size_t S = keys_.size();
    next_ = std::move(next);
    z_offset_.assign(S + 1, 0);
    z_.reserve(S * static_cast<std::size_t>(std::min(m_, std::max(K_ - 1, 1))));
    for (std::size_t s = 0; s < S; ++s) {
      tick(stop, static_cast<std::size_t>(m_));
      const std::uint64_t key = keys_[s];
      for (int c = 0; c < m_; ++c) {
        int value = 0;
        switch (kind_) {
          case StateKind::set:
            value = static_cast<int>((key >> c) & 1U);
            break;
          case StateKind::count:
            value = static_cast<int>((key >> (4 * c)) & 15U);
            break;
          case StateKind::last:
            value = key == static_cast<std::uint64_t>(c) + 1 ? 1 : 0;
            break;
        }
        if (value) z_.push_back({c, value});
      }
      z_offset_[s + 1] = static_cast<std::int32_t>(z_.size());
    }
  }

  StateKind kind_;
  int m_;
  int K_;
  std::vector<std::uint64_t> keys_;
  std::vector<int> depth_, parent_, added_;
  std::vector<std::int32_t> next_;
  std::vector<std::int32_t> z_offset_;
  std::vector<Entry> z_;
  std::unordered_map<std::uint64_t, int> index_;
};

}  // namespace paperkernels::cascade
