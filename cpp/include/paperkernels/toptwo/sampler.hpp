// The beta-EB-TCI top-two sampler as an incremental state machine. The simulated episode
// (episode.hpp) and the Python `TopTwo` object drive this same class, which is why they make the
// same decisions from the same rewards and seed.
//
// Randomness. The sampler owns a xoshiro256** generator (stream `decision_stream(run)` of `seed`)
// and consumes it lazily, at most twice per state (a state is what follows an update):
//   1. `leader()`: one `below(m)` draw when m >= 2 arms tie for the best empirical mean and
//      tie_break is `random`; nothing otherwise.
//   2. `select()` with rule `random`, once the leader is known and forced exploration did not fire:
//      one `uniform()`; the leader is pulled when U <= beta.
// Both results are cached until the next update, so repeated queries consume nothing more.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "paperkernels/common/errors.hpp"
#include "paperkernels/common/random.hpp"
#include "paperkernels/common/simd.hpp"
#include "paperkernels/toptwo/arms.hpp"
#include "paperkernels/toptwo/characteristic_time.hpp"
#include "paperkernels/toptwo/game.hpp"
#include "paperkernels/toptwo/tables.hpp"
#include "paperkernels/toptwo/thresholds.hpp"

PAPERKERNELS_PSABI_OFF

namespace paperkernels::toptwo {

enum class Challenger { tci, tc, rs };            // rs: TTTS re-sampling (Russo 2016)
enum class Leader { eb, ts, ucb };                // empirical best, Thompson sample, UCB index
enum class Tracking { none, c, d, fw };           // Track-and-Stop's C- or D-tracking, Frank-Wolfe sampling
enum class Racing { none, lucb1, lil_ucb, ege };  // algorithms with their own stopping rules
enum class Rule { random, tracking };
enum class TieBreak { random, first };

struct Options {
  int K = 2;
  double beta = 0.5;
  Challenger challenger = Challenger::tci;
  Rule rule = Rule::random;
  TieBreak tie_break = TieBreak::random;
  bool forced_exploration = false;
  std::int64_t min_pulls = 1;
  double sigma = 1.0;  // Gaussian arms only: the known standard deviation
  Threshold threshold;
  Leader leader = Leader::eb;
  bool uniform = false;                // round-robin sampling (least-pulled arm) instead of top-two steps
  double ucb_alpha = 1.0;              // UCB leader: index mu_hat_a + sqrt(2 alpha sigma^2 log t / N_a)
  Tracking tracking = Tracking::none;  // Track-and-Stop (Garivier and Kaufmann 2016)
  std::int64_t weights_every = 1;      // Track-and-Stop: steps between recomputations of w*(mu_hat)
  Racing racing = Racing::none;
  double delta = 0.01;  // LUCB1 and lil'UCB use delta in their confidence bounds
  double lil_epsilon = 0.01, lil_beta = 1.0, lil_lambda = 9.0;
};

// From this many arms on, the leader comes from a tree, the challenger and Z from a bounded index
// (see Sampler::base_cost).
inline constexpr int kIndexedArms = 256;
inline constexpr int kIndexedMaxArms = 1 << 29;  // keeps 2 P (P >= K, a power of two) an int
// Arms per block of the cost index (see Sampler::index_leaf).
inline constexpr std::size_t kBlockArms = 32;

// A rebuild of the cost index costs about this many search steps per arm (see Sampler::index_search).
inline constexpr int kRebuild = 8;

inline int round_up_pow2(int K) {
  int P = 1;
  while (P < K) P *= 2;
  return P;
}

// TTTS re-samples the posterior at most this many times for a challenger; then it takes the TC one.
inline constexpr int kMaxResamples = 10000;

inline const Options& check_options(const Options& o) {
  constexpr double kInfinity = std::numeric_limits<double>::infinity();
  require(o.K >= 2, "K: expected at least 2 arms, got ", o.K);
  require(o.beta > 0.0 && o.beta < 1.0, "beta: expected a number in (0, 1), got ", o.beta);
  require(o.ucb_alpha > 0.0 && o.ucb_alpha < kInfinity, "ucb_alpha: expected a finite positive number, got ",
          o.ucb_alpha);
  require(o.delta > 0.0 && o.delta < 1.0, "delta: expected a number in (0, 1), got ", o.delta);
  require(o.lil_epsilon >= 0.0 && o.lil_epsilon <= 1.0 && o.lil_beta > 0.0 && o.lil_beta <= 1e6 && o.lil_lambda > 0.0 &&
              o.lil_lambda <= 1e12,
          "lil_epsilon, lil_beta, lil_lambda: expected 0 <= epsilon <= 1, beta > 0, lambda > 0");
  require(o.weights_every >= 1, "weights_every: expected a positive integer, got ", o.weights_every);
  require(o.min_pulls >= 1, "min_pulls: expected a positive integer, got ", o.min_pulls);
  require(o.sigma > 0.0 && o.sigma < kInfinity, "sigma: expected a finite positive number, got ", o.sigma);
  // The costs divide by 2 sigma^2, which must be a finite normal number.
  require(2.0 * o.sigma * o.sigma >= std::numeric_limits<double>::min() && 2.0 * o.sigma * o.sigma < kInfinity,
          "sigma: 2 sigma^2 must be a finite positive normal number (sigma within about 1e-154 .. 1e154)");
  return o;
}

// Run r of a seed draws its rewards from stream 2r and its decisions from stream 2r + 1.
inline constexpr std::uint64_t reward_stream(std::uint64_t run) noexcept { return 2 * run; }
inline constexpr std::uint64_t decision_stream(std::uint64_t run) noexcept { return 2 * run + 1; }

// The bound of the cost index (see Sampler::base_cost): W(B, j) >= V_j + C - D g_j for every arm j,
// with g_j = N_j (p - mu_j) / (n1 + N_j), every computed value lowered by a rounding margin.
struct CostBound {
  double C = 0.0, D = 0.0;
  double p = 0.0;       // the leader's mean (rounded; `nudge` covers the rounding of the means)
  double n1 = 0.0;      // the leader's pulls
  double margin = 0.0;  // absolute part of the rounding margin
  double nudge = 0.0;   // Bernoulli: 2^-50, the rounding of p - mu_j
};

// Groups of arms (single arms, or blocks of them) in structure-of-arrays form: group i has the
// smallest keys key_pen[i] (TCI: V_j + log N_j; TC: V_j) and key_w[i] (V_j), the largest N and
// smallest mean of its arms high_n[i] and low_mu[i], and their smallest N and largest mean low_n[i]
// and high_mu[i]. An empty group (the leader's slot, padding) has high_n = 0, low_n = low_mu = +inf,
// high_mu = -inf and infinite keys.
struct Groups {
  std::vector<double> key_pen, key_w, high_n, low_mu, low_n, high_mu;

  void assign(std::size_t size) {
    constexpr double inf = std::numeric_limits<double>::infinity();
    for (auto* v : {&key_pen, &key_w, &low_mu, &low_n}) v->assign(size, inf);
    high_n.assign(size, 0.0);
    high_mu.assign(size, -inf);
  }
  std::size_t size() const noexcept { return high_n.size(); }
};

// Lower bounds of the computed costs (keys `key`) of the arms of groups [first, first + count) of g,
// count a multiple of 8, into lower[0, count): +inf for an empty group, -inf when nothing can be
// said (an infinite key). D g_j is at most D g_max (D > 0) or at most D g_min (D < 0) over a group,
// where g_max and g_min come from its largest N and smallest mean, and its smallest N and largest
// mean. Returns the mask of the groups (of the first 64) whose bound is at most `below`. Lane by
// lane the same IEEE operations in the same order under every instruction set: the same bits.
struct LowerBounds {
  template <simd::Isa I>
  PAPERKERNELS_ALWAYS_INLINE static std::uint64_t run(const CostBound* bound, const Groups* g, const double* key,
                                                      std::size_t first, std::size_t count, double below,
                                                      double* lower) noexcept {
    constexpr int W = simd::width<I>;
    using V = simd::vec<I>;
    constexpr double inf = std::numeric_limits<double>::infinity();
    const CostBound b = *bound;
    const simd::lanes<I> lane_bits = simd::lane_bits<I>();
    simd::lanes<I> bits{};  // the mask's bits, spread over the lanes until the end
    const V zero = V{};
    const double* high_n = g->high_n.data() + first;
    for (std::size_t i = 0; i < count; i += W) {
      const V k = simd::load<W>(key + first + i), n_max = simd::load<W>(high_n + i);
      V spread = zero;
      if (b.D > 0.0) {
        const V mu = simd::load<W>(g->low_mu.data() + first + i);
        spread = (b.D * ((n_max / (b.n1 + n_max)) * ((b.p - mu) + b.nudge))) * (1.0 + 0x1p-40);
      } else if (b.D < 0.0) {
        const V n = simd::load<W>(g->low_n.data() + first + i), mu = simd::load<W>(g->high_mu.data() + first + i);
        const V gap = ((n / (b.n1 + n)) * ((b.p - mu) - b.nudge)) * (1.0 - 0x1p-40);
        spread = gap > 0.0 ? b.D * gap : zero;
      }
      const V magnitude = spread < 0.0 ? -spread : spread;
      const V v = ((k + b.C) - spread) - (b.margin + 0x1p-40 * (k + magnitude));
      const V known = k < inf ? v : zero - inf;
      const V out = n_max == 0.0 ? zero + inf : known;
      simd::store<W>(lower + i, out);
      if (i < 64) bits |= (out <= below) & (lane_bits << i);  // lane l: 2^(i + l) where out <= below
    }
    return simd::fold_bits<I>(bits);
  }
};

// The mask of the values[0, count) at most `below` (count a multiple of 8, at most 64): bit i set
// when values[i] <= below.
struct AtMost {
  template <simd::Isa I>
  PAPERKERNELS_ALWAYS_INLINE static std::uint64_t run(const double* values, std::size_t count, double below) noexcept {
    constexpr int W = simd::width<I>;
    const simd::lanes<I> lane_bits = simd::lane_bits<I>();
    simd::lanes<I> bits{};
    for (std::size_t i = 0; i < count; i += W) bits |= (simd::load<W>(values + i) <= below) & (lane_bits << i);
    return simd::fold_bits<I>(bits);
  }
};

// The first index of the smallest of values[0, count) (count a positive multiple of 8, no NaN).
struct FirstMinimum {
  template <simd::Isa I>
  PAPERKERNELS_ALWAYS_INLINE static std::size_t run(const double* values, std::size_t count) noexcept {
    constexpr int W = simd::width<I>;
    using V = simd::vec<I>;
    V low = simd::load<W>(values);
    for (std::size_t i = W; i < count; i += W) {
      const V x = simd::load<W>(values + i);
      low = x < low ? x : low;
    }
    double least = low[0];
    for (int l = 1; l < W; ++l) least = low[l] < least ? low[l] : least;
    const simd::lanes<I> lane_bits = simd::lane_bits<I>();
    for (std::size_t i = 0;; i += W) {
      const std::uint64_t hits = simd::fold_bits<I>((simd::load<W>(values + i) == least) & lane_bits);
      if (hits != 0) return i + static_cast<std::size_t>(__builtin_ctzll(hits));
    }
  }
};

// Block q of g (kBlockArms groups from q kBlockArms) summarised into group q of `blocks`.
struct SummariseBlock {
  template <simd::Isa I>
  PAPERKERNELS_ALWAYS_INLINE static void run(const Groups* g, std::size_t q, Groups* blocks) noexcept {
    constexpr int W = simd::width<I>;
    using V = simd::vec<I>;
    const std::size_t first = q * kBlockArms;
    auto lanes = [&](const std::vector<double>& v, std::size_t i) { return simd::load<W>(v.data() + first + i); };
    V pen = lanes(g->key_pen, 0), w = lanes(g->key_w, 0), high_n = lanes(g->high_n, 0);
    V low_mu = lanes(g->low_mu, 0), low_n = lanes(g->low_n, 0), high_mu = lanes(g->high_mu, 0);
    for (std::size_t i = W; i < kBlockArms; i += W) {
      V x = lanes(g->key_pen, i);
      pen = x < pen ? x : pen;
      x = lanes(g->key_w, i);
      w = x < w ? x : w;
      x = lanes(g->high_n, i);
      high_n = x > high_n ? x : high_n;
      x = lanes(g->low_mu, i);
      low_mu = x < low_mu ? x : low_mu;
      x = lanes(g->low_n, i);
      low_n = x < low_n ? x : low_n;
      x = lanes(g->high_mu, i);
      high_mu = x > high_mu ? x : high_mu;
    }
    double out[6] = {pen[0], w[0], high_n[0], low_mu[0], low_n[0], high_mu[0]};
    for (int l = 1; l < W; ++l) {
      out[0] = pen[l] < out[0] ? pen[l] : out[0];
      out[1] = w[l] < out[1] ? w[l] : out[1];
      out[2] = high_n[l] > out[2] ? high_n[l] : out[2];
      out[3] = low_mu[l] < out[3] ? low_mu[l] : out[3];
      out[4] = low_n[l] < out[4] ? low_n[l] : out[4];
      out[5] = high_mu[l] > out[5] ? high_mu[l] : out[5];
    }
    blocks->key_pen[q] = out[0];
    blocks->key_w[q] = out[1];
    blocks->high_n[q] = out[2];
    blocks->low_mu[q] = out[3];
    blocks->low_n[q] = out[4];
    blocks->high_mu[q] = out[5];
  }
};

// Everything a sampler needs to continue exactly where it was (every other member is a cache that
// restore() recomputes): counts, sums, tracking counters, the decision generator and the two
// decisions cached for the current state.
template <class Sum>
struct SamplerState {
  std::int64_t t = 0;
  std::vector<std::int64_t> N, L, M;
  std::vector<Sum> S;
  std::uint64_t rng[4] = {0, 0, 0, 0};
  int leader = -1;
  int selection = -1;
  std::vector<double> weights, cumulative;  // Track-and-Stop
  std::int64_t weights_left = 0;
  int pending = -1;  // LUCB1: the second arm of the current round
  bool in_round = false;
  std::int64_t rounds = 0;
  std::vector<double> elimination;  // exponential-gap elimination, packed (see Sampler::ege_pack)
};

template <Arms kind>
class Sampler {
 public:
  // Sum of rewards of an arm: the success count for Bernoulli arms, a double for Gaussian ones.
  using Sum = std::conditional_t<kind == Arms::bernoulli, std::int64_t, double>;

  Sampler(const Options& options, std::uint64_t seed, std::uint64_t run = 0)
      : opt_(check_options(options)),
        K_(options.K),
        rng_(seed, decision_stream(run)),
        n_log_n_(n_log_n_table()),
        log_n_(log_n_table()),
        N_(K_, 0),
        S_(K_, Sum{0}),
        own_(K_, 0.0),
        inv_n_(K_, 0.0),
        log_count_(K_, 0.0),
        log_s_(kind == Arms::bernoulli ? K_ : 0, 0.0),
        log_f_(kind == Arms::bernoulli ? K_ : 0, 0.0),
        L_(K_, 0),
        M_(K_, 0),
        w_(K_, 0.0),
        penalised_(K_, 0.0),
        tas_weights_(opt_.tracking == Tracking::none ? 0 : K_, 0.0),
        tas_cumulative_(opt_.tracking == Tracking::none ? 0 : K_, 0.0),
        unpulled_(K_),
        below_min_(K_),
        two_sigma2_(2.0 * options.sigma * options.sigma),
        special_select_(opt_.uniform || opt_.tracking != Tracking::none || opt_.racing != Racing::none ||
                        opt_.leader != Leader::eb || opt_.challenger == Challenger::rs),
        special_update_(opt_.racing == Racing::lucb1 || opt_.racing == Racing::ege),
        indexed_(options.K >= kIndexedArms && options.K <= kIndexedMaxArms),
        pow2_(indexed_ ? round_up_pow2(options.K) : 1) {}

  int K() const noexcept { return K_; }
  std::int64_t t() const noexcept { return t_; }
  std::int64_t N(int a) const { return N_[a]; }
  Sum S(int a) const { return S_[a]; }
  std::int64_t L(int a) const { return L_[a]; }
  std::int64_t M(int a) const { return M_[a]; }
  const Options& options() const noexcept { return opt_; }

  // Every arm has min_pulls pulls: the top-two steps (and stopping) have begun.
  bool initialised() const noexcept { return below_min_ == 0; }
  bool all_pulled() const noexcept { return unpulled_ == 0; }

  void set_threshold(const Threshold& threshold) {
    opt_.threshold = threshold;
    c_floor_ = -std::numeric_limits<double>::infinity();
  }

  // Empirical best arm of the current state, ties resolved by the tie_break option (see the top).
  int leader() {
    if (leader_ < 0) {
      if (!all_pulled()) throw invalid_argument("leader: every arm must have been pulled at least once");
      know_maximisers();
      leader_ = first_max_;
      if (n_max_ > 1 && opt_.tie_break == TieBreak::random) {
        std::uint64_t k = rng_.below(n_max_);
        if (__builtin_expect(indexed_, 0)) {
          leader_ = tree_pick(k);
        } else {
          for (int i = first_max_;; ++i)
            if (compare(i, first_max_) == 0 && k-- == 0) {
              leader_ = i;
              break;
            }
        }
      }
    }
    return leader_;
  }

  // Lowest-indexed empirical best arm; consumes no randomness.
  int first_leader() {
    if (!all_pulled()) throw invalid_argument("leader: every arm must have been pulled at least once");
    know_maximisers();
    return first_max_;
  }

  // GLR statistic Z = min_{j != B} W(B, j).
  double statistic() {
    if (__builtin_expect(indexed_, 0)) {
      index_statistic();
    } else {
      evaluate();
    }
    return z_;
  }

  // TCI (or TC) challenger of the current leader, lowest index on ties.
  int challenger() {
    if (__builtin_expect(indexed_, 0)) {
      index_challenger();
    } else {
      evaluate();
    }
    return challenger_;
  }

  // W(B, j) for the current leader B (0 for j == B).
  double cost(int j) {
    if (__builtin_expect(indexed_, 0)) {
      const int B = leader();
      return j == B ? 0.0 : pair_cost(B, j);
    }
    evaluate();
    return j == w_leader_ ? 0.0 : w_[j];
  }

  double threshold_now() const { return opt_.threshold(t_); }

  // Z > c(t, delta), decided exactly but cheaply:
  //  - Z <= W(B, k) for any k, so while the cost of the arm k that attained Z at the last full
  //    evaluation (the "witness") stays at or below the threshold, nothing else is computed;
  //  - for the named (non-decreasing) thresholds c(t) is recomputed only when a cost exceeds a
  //    lower bound of it kept from an earlier step (c_floor_ sits 1e-12, relative, below a value
  //    already reached, far more than the rounding error of the formulas).
  bool should_stop() {
    if (!initialised()) return false;
    if (__builtin_expect(opt_.racing != Racing::none, 0)) return racing_stop();
    const bool monotone = opt_.threshold.non_decreasing();
    if (!(indexed_ ? statistic_known_ : evaluated_)) {
      const double bound = monotone ? c_floor_ : opt_.threshold(t_);
      const double witness = witness_cost();
      if (!(witness > bound)) return false;
    }
    statistic();
    if (!monotone) return z_ > opt_.threshold(t_);
    if (!(z_ > c_floor_)) return false;
    const double c = opt_.threshold(t_);
    if (z_ > c) return true;
    c_floor_ = c - 1e-12 * std::fabs(c);
    return false;
  }

  // The arm to pull next (cached until the next update).
  int select() {
    if (selection_ >= 0) return selection_;
    if (!initialised()) {
      selection_ = least_pulled();
      return selection_;
    }
    if (__builtin_expect(special_select_, 0)) {
      selection_ = select_special();
      return selection_;
    }
    // beta-EB-TCI / EB-TC: the hot path of the simulations.
    const int B = leader();
    if (opt_.forced_exploration) {
      const int a = least_pulled();
      // N_a < sqrt(t / K)  <=>  N_a^2 K < t, decided in integers.
      const auto n = static_cast<unsigned __int128>(N_[a]);
      if (n * n * static_cast<unsigned>(K_) < static_cast<unsigned __int128>(t_)) {
        selection_ = a;
        return selection_;
      }
    }
    // The challenger (hence the costs) is computed only when it is pulled.
    if (opt_.rule == Rule::random) {
      selection_ = rng_.uniform() <= opt_.beta ? B : challenger();
    } else {
      ++L_[B];
      if (static_cast<double>(M_[B]) < opt_.beta * static_cast<double>(L_[B])) {
        ++M_[B];
        selection_ = B;
      } else {
        selection_ = challenger();
      }
    }
    return selection_;
  }

  // Every other rule (uniform, Track-and-Stop, FWS, LUCB1, lil'UCB, EGE, Thompson or UCB leaders, TTTS
  // re-sampling); kept out of line so that the hot path above stays small.
  [[gnu::noinline]] int select_special() {
    if (opt_.uniform) return least_pulled();
    if (opt_.tracking != Tracking::none) return track();
    if (opt_.racing == Racing::lucb1) {
      if (pending_ >= 0) {
        const int second = pending_;
        pending_ = -1;
        return second;
      }
      const int h = leader();
      const int l = lucb_challenger(h, rounds_ + 1);
      ++rounds_;
      in_round_ = true;
      pending_ = l;
      return h;
    }
    if (opt_.racing == Racing::lil_ucb) return lil_argmax();
    if (opt_.racing == Racing::ege) {
      if (ege_.round == 0) ege_start_round(1);
      return ege_.winner >= 0 ? ege_.winner : ege_.list[ege_.pos];
    }
    const int E = leader();
    if (opt_.forced_exploration) {
      const int a = least_pulled();
      const auto n = static_cast<unsigned __int128>(N_[a]);
      if (n * n * static_cast<unsigned>(K_) < static_cast<unsigned __int128>(t_)) return a;
    }
    const int B = opt_.leader == Leader::eb ? E : opt_.leader == Leader::ts ? posterior_argmax() : ucb_argmax();
    if (opt_.rule == Rule::random) return rng_.uniform() <= opt_.beta ? B : challenger_of(B, E);
    ++L_[B];
    if (static_cast<double>(M_[B]) < opt_.beta * static_cast<double>(L_[B])) {
      ++M_[B];
      return B;
    }
    return challenger_of(B, E);
  }

  [[gnu::noinline]] bool racing_stop() {
    if (opt_.racing == Racing::lucb1) return lucb_stop();
    if (opt_.racing == Racing::lil_ucb) return lil_stop();
    return ege_.winner >= 0;
  }

  // After an update: LUCB1's round bookkeeping and EGE's phase statistics.
  [[gnu::noinline]] void update_special(int arm, double reward) {
    if (in_round_ && pending_ < 0) in_round_ = false;  // LUCB1: the round's second pull is recorded
    if (opt_.racing == Racing::ege) ege_record(arm, reward);
  }

  // The recommendation at stopping: the empirical leader, or the most-pulled arm for lil'UCB.
  int recommend() {
    if (opt_.racing == Racing::lil_ucb) return most_pulled();
    if (opt_.racing == Racing::ege) return ege_.winner >= 0 ? ege_.winner : first_leader();
    return leader();
  }

  // Sub-Gaussian variance of the rewards: 1/4 for Bernoulli arms (Hoeffding), sigma^2 for Gaussian ones.
  double variance() const { return kind == Arms::bernoulli ? 0.25 : opt_.sigma * opt_.sigma; }

  // LUCB1 (Kalyanakrishnan, Tewari, Auer, Stone 2012) at round r: confidence width
  // beta(u, r) = sqrt(2 var log(k1 K r^4 / delta) / u) with k1 = 5/4 (var = 1/4 gives the paper's
  // sqrt(log(k1 K r^4 / delta) / (2u)) for rewards in [0, 1]).
  double lucb_width(std::int64_t n, std::int64_t r) const {
    const double rr = static_cast<double>(r);
    const double log_term = std::log((((1.25 * static_cast<double>(K_)) * (rr * rr)) * (rr * rr)) / opt_.delta);
    return std::sqrt(((2.0 * variance()) * log_term) / static_cast<double>(n));
  }

  // argmax_{j != h} mu_hat_j + beta(N_j, r), lowest index on ties.
  int lucb_challenger(int h, std::int64_t r) const {
    int best = -1;
    double top = 0.0;
    for (int j = 0; j < K_; ++j) {
      if (j == h) continue;
      const double ucb = mean(j) + lucb_width(N_[j], r);
      if (best < 0 || ucb > top) {
        top = ucb;
        best = j;
      }
    }
    return best;
  }

  // At the start of a round: stop when LCB(h) > UCB(l) (the paper's rule with epsilon = 0).
  bool lucb_stop() {
    const int h = leader();  // drawn at every state, like the other samplers' stopping checks
    if (in_round_) return false;
    const std::int64_t r = rounds_ + 1;
    const int l = lucb_challenger(h, r);
    return mean(h) - lucb_width(N_[h], r) > mean(l) + lucb_width(N_[l], r);
  }

  // lil'UCB (Jamieson, Malloy, Nowak, Bubeck 2014): argmax_a mu_hat_a + (1 + beta)(1 + sqrt(eps))
  // sqrt(2 var (1 + eps) log(max(log((1 + eps) N_a), 1) / delta) / N_a), lowest index on ties.
  int lil_argmax() const {
    const double eps = opt_.lil_epsilon;
    const double factor = (1.0 + opt_.lil_beta) * (1.0 + std::sqrt(eps));
    const double scale = (2.0 * variance()) * (1.0 + eps);
    int best = 0;
    double top = -std::numeric_limits<double>::infinity();
    for (int a = 0; a < K_; ++a) {
      const double n = static_cast<double>(N_[a]);
      const double inner = std::max(std::log((1.0 + eps) * n), 1.0);
      const double index = mean(a) + factor * std::sqrt((scale * std::log(inner / opt_.delta)) / n);
      if (index > top) {
        top = index;
        best = a;
      }
    }
    return best;
  }

  int most_pulled() const {
    int a = 0;
    for (int j = 1; j < K_; ++j)
      if (N_[j] > N_[a]) a = j;
    return a;
  }

  // Stop when some arm has N_i >= 1 + lambda sum_{j != i} N_j (it can only be the most-pulled arm).
  bool lil_stop() const {
    const int i = most_pulled();
    return static_cast<double>(N_[i]) >= 1.0 + opt_.lil_lambda * static_cast<double>(t_ - N_[i]);
  }

  // ---- Exponential-gap elimination (Karnin, Koren, Somekh 2013, Algorithm 2) with median
  // elimination (Even-Dar, Mannor, Mansour 2006) as its subroutine. Each phase pulls every arm of its
  // set `need` times, arm after arm in index order; the phase's means use only the phase's pulls.

  struct Elimination {
    std::int64_t round = 0;  // r (0: not started)
    bool in_me = false;      // inside median elimination
    double eps_r = 0, delta_r = 0, eps_l = 0, delta_l = 0;
    std::vector<int> active, me, list;
    std::size_t pos = 0;
    std::int64_t done = 0, need = 0;
    std::vector<double> sum, main_mean;
    int winner = -1;
  };

  // Pulls per arm for a Hoeffding width: the bound for rewards in [0, 1], times 4 var (1 for
  // Bernoulli arms, 4 sigma^2 for Gaussian ones), rounded up and capped at 2^62.
  std::int64_t ege_count(double raw) const {
    const double x = std::ceil((4.0 * variance()) * raw);
    if (!(x < 4.0e18)) return std::int64_t{1} << 62;
    return x < 1.0 ? 1 : static_cast<std::int64_t>(x);
  }

  void ege_block(const std::vector<int>& arms, std::int64_t need) {
    ege_.list = arms;
    ege_.pos = 0;
    ege_.done = 0;
    ege_.need = need;
    std::fill(ege_.sum.begin(), ege_.sum.end(), 0.0);
  }

  // Round r: eps_r = 2^-r / 4, delta_r = delta / (50 r^3), (2 / eps_r^2) log(2 / delta_r) pulls per arm.
  void ege_start_round(std::int64_t r) {
    if (ege_.round == 0) {
      ege_.active.resize(static_cast<std::size_t>(K_));
      for (int a = 0; a < K_; ++a) ege_.active[a] = a;
      ege_.sum.assign(static_cast<std::size_t>(K_), 0.0);
      ege_.main_mean.assign(static_cast<std::size_t>(K_), 0.0);
    }
    ege_.round = r;
    ege_.in_me = false;
    const double rr = static_cast<double>(r);
    ege_.eps_r = std::ldexp(0.25, -static_cast<int>(std::min<std::int64_t>(r, 1000)));
    ege_.delta_r = opt_.delta / (((50.0 * rr) * rr) * rr);
    ege_block(ege_.active, ege_count((2.0 / (ege_.eps_r * ege_.eps_r)) * std::log(2.0 / ege_.delta_r)));
  }

  // Median elimination's sub-round: (1 / (eps_l / 2)^2) log(3 / delta_l) pulls per arm.
  void ege_start_me_block() {
    const double half = 0.5 * ege_.eps_l;
    ege_block(ege_.me, ege_count((1.0 / (half * half)) * std::log(3.0 / ege_.delta_l)));
  }

  void ege_record(int arm, double reward) {
    if (ege_.round == 0 || ege_.winner >= 0 || arm != ege_.list[ege_.pos]) return;
    ege_.sum[arm] += reward;
    if (++ege_.done < ege_.need) return;
    ege_.done = 0;
    if (++ege_.pos < ege_.list.size()) return;
    const double n = static_cast<double>(ege_.need);
    if (!ege_.in_me) {
      for (int a : ege_.active) ege_.main_mean[a] = ege_.sum[a] / n;
      // median elimination on S_r with (eps_r / 2, delta_r): eps_1 = eps_r / 8, delta_1 = delta_r / 2
      ege_.in_me = true;
      ege_.me = ege_.active;
      ege_.eps_l = ege_.eps_r / 8.0;
      ege_.delta_l = ege_.delta_r / 2.0;
    } else {
      // keep the better half (ceil), by mean, lowest index on ties, then back in index order
      std::vector<int>& me = ege_.me;
      std::sort(me.begin(), me.end(), [&](int i, int j) {
        const double mi = ege_.sum[i] / n, mj = ege_.sum[j] / n;
        return mi > mj || (mi == mj && i < j);
      });
      me.resize((me.size() + 1) / 2);
      std::sort(me.begin(), me.end());
      ege_.eps_l = 0.75 * ege_.eps_l;
      ege_.delta_l = 0.5 * ege_.delta_l;
    }
    if (ege_.me.size() > 1) {
      ege_start_me_block();
      return;
    }
    // S_{r+1} = S_r without the arms whose mean is below that of median elimination's arm minus eps_r
    const double floor = ege_.main_mean[ege_.me[0]] - ege_.eps_r;
    std::vector<int> kept;
    for (int a : ege_.active)
      if (!(ege_.main_mean[a] < floor)) kept.push_back(a);
    ege_.active = kept;
    ege_.in_me = false;
    if (ege_.active.size() == 1)
      ege_.winner = ege_.active[0];
    else
      ege_start_round(ege_.round + 1);
  }

  // The elimination state as doubles (every integer is below 2^53): round, in_me, eps_r, delta_r,
  // eps_l, delta_l, pos, done, need, winner, then active, me and list (each as size, entries), then
  // sum and main_mean (K entries each, when started).
  std::vector<double> ege_pack() const {
    std::vector<double> out;
    if (opt_.racing != Racing::ege) return out;
    const Elimination& e = ege_;
    out = {static_cast<double>(e.round),
           e.in_me ? 1.0 : 0.0,
           e.eps_r,
           e.delta_r,
           e.eps_l,
           e.delta_l,
           static_cast<double>(e.pos),
           static_cast<double>(e.done),
           static_cast<double>(e.need),
           static_cast<double>(e.winner)};
    for (const std::vector<int>* v : {&e.active, &e.me, &e.list}) {
      out.push_back(static_cast<double>(v->size()));
      for (int a : *v) out.push_back(static_cast<double>(a));
    }
    out.insert(out.end(), e.sum.begin(), e.sum.end());
    out.insert(out.end(), e.main_mean.begin(), e.main_mean.end());
    return out;
  }

  void ege_unpack(const std::vector<double>& in) {
    Elimination e;
    if (opt_.racing != Racing::ege) {
      if (!in.empty()) throw invalid_argument("state: elimination state for another sampler");
      ege_ = e;
      return;
    }
    auto bad = []() { return invalid_argument("state: inconsistent elimination state"); };
    if (in.size() < 13) throw bad();
    auto integer = [&](double x, double lo, double hi) {
      if (!(x >= lo && x <= hi && x == std::floor(x))) throw bad();
      return static_cast<std::int64_t>(x);
    };
    e.round = integer(in[0], 0, 1e15);
    e.in_me = integer(in[1], 0, 1) == 1;
    e.eps_r = in[2];
    e.delta_r = in[3];
    e.eps_l = in[4];
    e.delta_l = in[5];
    e.pos = static_cast<std::size_t>(integer(in[6], 0, K_));
    e.done = integer(in[7], 0, 4.7e18);
    e.need = integer(in[8], 0, 4.7e18);
    e.winner = static_cast<int>(integer(in[9], -1, K_ - 1));
    std::size_t at = 10;
    for (std::vector<int>* v : {&e.active, &e.me, &e.list}) {
      if (at >= in.size()) throw bad();
      const auto n = static_cast<std::size_t>(integer(in[at++], 0, K_));
      if (at + n > in.size()) throw bad();
      for (std::size_t i = 0; i < n; ++i) v->push_back(static_cast<int>(integer(in[at++], 0, K_ - 1)));
    }
    const std::size_t per_arm = e.round == 0 ? 0 : static_cast<std::size_t>(K_);
    if (in.size() != at + 2 * per_arm) throw bad();
    e.sum.assign(in.begin() + static_cast<std::ptrdiff_t>(at), in.begin() + static_cast<std::ptrdiff_t>(at + per_arm));
    e.main_mean.assign(in.begin() + static_cast<std::ptrdiff_t>(at + per_arm), in.end());
    for (double x : e.sum)
      if (!std::isfinite(x)) throw bad();
    if (e.round > 0 && e.winner < 0 &&
        (e.list.empty() || e.pos >= e.list.size() || e.done >= e.need || e.need < 1 || e.active.size() < 2 ||
         e.list != (e.in_me ? e.me : e.active) || (e.in_me && e.me.size() < 2)))
      throw bad();
    for (const std::vector<int>* v : {&e.active, &e.me})
      for (std::size_t i = 1; i < v->size(); ++i)
        if (!((*v)[i - 1] < (*v)[i])) throw bad();
    for (double x : {e.eps_r, e.delta_r, e.eps_l, e.delta_l})
      if (!(x >= 0.0 && x <= 1.0)) throw bad();
    ege_ = e;
  }

  // Track-and-Stop's sampling rule (Garivier and Kaufmann 2016, Section 3.1).
  int track() {
    if (opt_.tracking == Tracking::fw) return frank_wolfe();
    if (tas_weights_left_ == 0) {
      optimal_weights();
      tas_weights_left_ = opt_.weights_every;
    }
    --tas_weights_left_;
    const double tt = static_cast<double>(t_);
    if (opt_.tracking == Tracking::d) {
      // Forced exploration: the least-pulled arm of U_t = {a : N_a < sqrt(t) - K/2}, lowest index on ties.
      const double floor = std::sqrt(tt) - 0.5 * static_cast<double>(K_);
      int a = -1;
      for (int j = 0; j < K_; ++j)
        if (static_cast<double>(N_[j]) < floor && (a < 0 || N_[j] < N_[a])) a = j;
      if (a >= 0) return a;
      // D-tracking: argmax_a t w_a - N_a.
      int best = 0;
      double top = -std::numeric_limits<double>::infinity();
      for (int j = 0; j < K_; ++j) {
        const double v = tt * tas_weights_[j] - static_cast<double>(N_[j]);
        if (v > top) {
          top = v;
          best = j;
        }
      }
      return best;
    }
    // C-tracking: add w^eps = (1 - K eps) w + eps, eps = 1 / (2 sqrt(K^2 + t)), to the running sums
    // and pull argmax_a sum_a - N_a.
    const double k = static_cast<double>(K_);
    const double eps = 0.5 / std::sqrt(k * k + tt);
    const double keep = 1.0 - k * eps;
    int best = 0;
    double top = -std::numeric_limits<double>::infinity();
    for (int j = 0; j < K_; ++j) {
      tas_cumulative_[j] += keep * tas_weights_[j] + eps;
      const double v = tas_cumulative_[j] - static_cast<double>(N_[j]);
      if (v > top) {
        top = v;
        best = j;
      }
    }
    return best;
  }

  // Frank-Wolfe sampling (Wang, Tzeng, Proutiere 2021, Algorithm 1). tas_weights_ holds the iterate x
  // (uniform at the first step, marked by tas_weights_left_ = 1); s = t + 1 is the index of this pull.
  int frank_wolfe() {
    const double k = static_cast<double>(K_);
    if (tas_weights_left_ == 0) {
      std::fill(tas_weights_.begin(), tas_weights_.end(), 1.0 / k);
      tas_weights_left_ = 1;
    }
    std::vector<double>& x = tas_weights_;
    const std::int64_t step = t_ + 1;
    const double s = static_cast<double>(step);
    // Forced exploration: at steps s = K m^2, while the empirical best is not unique, and while a
    // Bernoulli mean sits at 0 or 1 (where the gradients are undefined).
    bool forced = false;
    if (step % K_ == 0) {
      const auto m = static_cast<std::uint64_t>(step / K_);
      auto r = static_cast<std::uint64_t>(std::sqrt(static_cast<double>(m)));
      while (r * r > m) --r;
      while ((r + 1) * (r + 1) <= m) ++r;
      forced = r * r == m;
    }
    const EmpiricalBest empirical = empirical_best();
    const std::vector<double>& mu = empirical.mu;
    const int best = empirical.best, ties = empirical.ties;
    if constexpr (kind == Arms::bernoulli)
      for (double v : mu) forced = forced || !(v > 0.0 && v < 1.0);
    std::vector<double> z(static_cast<std::size_t>(K_), 1.0 / k);
    if (!forced && ties == 1) {
      // C_j(x) = x_b d(mu_b, m_j) + x_j d(mu_j, m_j), m_j = (x_b mu_b + x_j mu_j) / (x_b + x_j); its
      // gradient is d(mu_b, m_j) at b and d(mu_j, m_j) at j. The r-subdifferential keeps the j with
      // C_j < min C + r, r = s^-0.9 / K.
      const int b = best;
      std::vector<double> f(static_cast<std::size_t>(K_), 0.0), gb(f), gj(f);
      double F = std::numeric_limits<double>::infinity();
      for (int j = 0; j < K_; ++j) {
        if (j == b) continue;
        const double m = (x[b] * mu[b] + x[j] * mu[j]) / (x[b] + x[j]);
        gb[j] = divergence(mu[b], m);
        gj[j] = divergence(mu[j], m);
        f[j] = x[b] * gb[j] + x[j] * gj[j];
        F = f[j] < F ? f[j] : F;
      }
      const double r = std::pow(s, -0.9) / k;
      std::vector<int> H;
      for (int j = 0; j < K_; ++j)
        if (j != b && f[j] < F + r) H.push_back(j);
      const int J = static_cast<int>(H.size());
      std::vector<double> M(static_cast<std::size_t>(K_) * static_cast<std::size_t>(J), 0.0);
      for (int c = 0; c < J; ++c) {
        const int j = H[c];
        const double inner = x[b] * gb[j] + x[j] * gj[j];
        for (int a = 0; a < K_; ++a) M[a * J + c] = -inner;
        M[b * J + c] = gb[j] - inner;
        M[j * J + c] = gj[j] - inner;
      }
      z = solve_matrix_game(M, K_, J);
    }
    const double keep = (s - 1.0) / s;
    for (int a = 0; a < K_; ++a) x[a] = keep * x[a] + z[a] / s;
    // Pull argmax_a x_a / N_a (the arm most behind the iterate), lowest index on ties.
    int pick = 0;
    double top = -1.0;
    for (int a = 0; a < K_; ++a) {
      const double ratio = x[a] / static_cast<double>(N_[a]);
      if (ratio > top) {
        top = ratio;
        pick = a;
      }
    }
    return pick;
  }

  // d(p, q): the Bernoulli KL divergence, or (p - q)^2 / (2 sigma^2) for Gaussian arms.
  double divergence(double p, double q) const {
    if constexpr (kind == Arms::bernoulli) {
      return kl_bernoulli(p, q);
    } else {
      return ((p - q) * (p - q)) / (2.0 * opt_.sigma * opt_.sigma);
    }
  }

  // w*(mu_hat) by the characteristic-time solver; uniform weights while the empirical best is not
  // unique or the solver cannot place it (e.g. every mean at 0 or 1).
  void optimal_weights() {
    const EmpiricalBest empirical = empirical_best();
    const std::vector<double>& m = empirical.mu;
    if (empirical.ties == 1) {
      try {
        CharacteristicSolver solver(m, kind, opt_.sigma);
        const CharacteristicTime r = solver.optimal();
        bool ok = r.weights.size() == m.size();
        for (double w : r.weights) ok = ok && w >= 0.0 && w <= 1.0;
        if (ok) {
          tas_weights_ = r.weights;
          return;
        }
      } catch (const std::exception&) {
      }
    }
    std::fill(tas_weights_.begin(), tas_weights_.end(), 1.0 / static_cast<double>(K_));
  }

  // Gamma(shape) for shape >= 1 by Marsaglia and Tsang (2000): one normal and one uniform per attempt.
  double gamma(double shape) {
    const double d = shape - 1.0 / 3.0;
    const double c = 1.0 / std::sqrt(9.0 * d);
    for (;;) {
      double x, v;
      do {
        x = rng_.normal();
        v = 1.0 + c * x;
      } while (!(v > 0.0));
      v = v * v * v;
      const double u = rng_.uniform();
      const double x2 = x * x;
      if (u < 1.0 - 0.0331 * (x2 * x2)) return d * v;
      if (u > 0.0 && std::log(u) < 0.5 * x2 + d * ((1.0 - v) + std::log(v))) return d * v;
    }
  }

  // One draw from arm a's posterior: Beta(S_a + 1, N_a - S_a + 1) (uniform prior) for Bernoulli arms,
  // N(mu_hat_a, sigma^2 / N_a) (flat prior) for Gaussian ones.
  double posterior_draw(int a) {
    if constexpr (kind == Arms::bernoulli) {
      const double x = gamma(static_cast<double>(S_[a]) + 1.0);
      const double y = gamma(static_cast<double>(N_[a] - S_[a]) + 1.0);
      return x / (x + y);
    } else {
      return own_[a] + (opt_.sigma / std::sqrt(static_cast<double>(N_[a]))) * rng_.normal();
    }
  }

  // Arm of the largest posterior draw (arms drawn in index order, lowest index on ties).
  int posterior_argmax() {
    int best = 0;
    double top = posterior_draw(0);
    for (int a = 1; a < K_; ++a) {
      const double theta = posterior_draw(a);
      if (theta > top) {
        top = theta;
        best = a;
      }
    }
    return best;
  }

  // Arm of the largest index mu_hat_a + sqrt(2 alpha sigma^2 log t / N_a) (sigma^2 = 1/4 for
  // Bernoulli arms, their sub-Gaussian variance), lowest index on ties.
  int ucb_argmax() const {
    const double variance = kind == Arms::bernoulli ? 0.25 : opt_.sigma * opt_.sigma;
    const double scale = 2.0 * opt_.ucb_alpha * variance * std::log(static_cast<double>(t_));
    int best = 0;
    double top = -std::numeric_limits<double>::infinity();
    for (int a = 0; a < K_; ++a) {
      const double index = mean(a) + std::sqrt(scale / static_cast<double>(N_[a]));
      if (index > top) {
        top = index;
        best = a;
      }
    }
    return best;
  }

  // The empirical means, the first arm with the largest one and how many arms share that value.
  struct EmpiricalBest {
    std::vector<double> mu;
    int best = 0;
    int ties = 1;
  };
  EmpiricalBest empirical_best() const {
    EmpiricalBest out;
    out.mu.resize(static_cast<std::size_t>(K_));
    for (int a = 0; a < K_; ++a) {
      out.mu[a] = mean(a);
      if (a == 0) continue;
      if (out.mu[a] > out.mu[out.best]) {
        out.best = a;
        out.ties = 1;
      } else if (out.mu[a] == out.mu[out.best]) {
        ++out.ties;
      }
    }
    return out;
  }

  double mean(int a) const {
    if constexpr (kind == Arms::bernoulli)
      return static_cast<double>(S_[a]) / static_cast<double>(N_[a]);
    else
      return own_[a];
  }

  // Challenger of the sampling leader B (E is the empirical leader, whose costs are cached).
  int challenger_of(int B, int E) {
    if (opt_.challenger == Challenger::rs) {
      for (int r = 0; r < kMaxResamples; ++r) {
        const int c = posterior_argmax();
        if (c != B) return c;
      }
    }
    if (B == E) return challenger();
    // argmin_{j != B} W(B, j) (+ log N_j for TCI), W(B, j) = 0 unless mu_hat_B > mu_hat_j.
    const bool penalise = opt_.challenger == Challenger::tci;
    double best = std::numeric_limits<double>::infinity();
    int c = -1;
    for (int j = 0; j < K_; ++j) {
      if (j == B) continue;
      const double w = compare(B, j) > 0 ? pair_cost(B, j) : 0.0;
      const double p = penalise ? w + log_count_[j] : w;
      if (p < best || c < 0) {
        best = p;
        c = j;
      }
    }
    return c;
  }

  SamplerState<Sum> snapshot() const {
    static_assert(std::is_trivially_copyable_v<Xoshiro256> && sizeof(Xoshiro256) == 4 * sizeof(std::uint64_t),
                  "the generator state is four words");
    SamplerState<Sum> out;
    out.t = t_;
    out.N = N_;
    out.S = S_;
    out.L = L_;
    out.M = M_;
    std::memcpy(out.rng, &rng_, sizeof(out.rng));
    out.leader = leader_;
    out.selection = selection_;
    out.weights = tas_weights_;
    out.cumulative = tas_cumulative_;
    out.weights_left = tas_weights_left_;
    out.pending = pending_;
    out.in_round = in_round_;
    out.rounds = rounds_;
    out.elimination = ege_pack();
    return out;
  }

  // Continues from a snapshot (checked for consistency: it may come from an untrusted pickle).
  void restore(const SamplerState<Sum>& st) {
    const auto K = static_cast<std::size_t>(K_);
    if (st.N.size() != K || st.S.size() != K || st.L.size() != K || st.M.size() != K)
      fail("state: expected per-arm arrays of ", K_, " entries");
    std::int64_t total = 0;
    for (std::size_t a = 0; a < K; ++a) {
      if (st.N[a] < 0 || st.L[a] < 0 || st.M[a] < 0 || st.M[a] > st.L[a])
        throw invalid_argument("state: inconsistent counts");
      if constexpr (kind == Arms::bernoulli) {
        if (st.S[a] < 0 || st.S[a] > st.N[a]) throw invalid_argument("state: inconsistent success counts");
      } else {
        if (!(st.S[a] - st.S[a] == 0.0)) throw invalid_argument("state: non-finite reward sums");
        if (st.N[a] == 0 && st.S[a] != 0.0) throw invalid_argument("state: inconsistent reward sums");
      }
      if (st.N[a] > std::numeric_limits<std::int64_t>::max() - total) throw invalid_argument("state: counts overflow");
      total += st.N[a];
    }
    if (total != st.t) throw invalid_argument("state: t differs from the sum of the counts");
    if ((st.rng[0] | st.rng[1] | st.rng[2] | st.rng[3]) == 0) throw invalid_argument("state: invalid generator state");
    if (st.leader < -1 || st.leader >= K_ || st.selection < -1 || st.selection >= K_)
      throw invalid_argument("state: cached decisions out of range");
    if (st.weights.size() != tas_weights_.size() || st.cumulative.size() != tas_cumulative_.size() ||
        st.weights_left < 0 || st.weights_left > opt_.weights_every)
      throw invalid_argument("state: inconsistent tracking state");
    for (double w : st.weights)
      if (!(w >= 0.0 && w <= 1.0)) throw invalid_argument("state: inconsistent tracking weights");
    for (double c : st.cumulative)
      if (!std::isfinite(c)) throw invalid_argument("state: inconsistent tracking sums");
    if (st.pending < -1 || st.pending >= K_ || st.rounds < 0 || (st.pending >= 0 && !st.in_round))
      throw invalid_argument("state: inconsistent round state");
    ege_unpack(st.elimination);
    pending_ = st.pending;
    in_round_ = st.in_round;
    rounds_ = st.rounds;
    tas_weights_ = st.weights;
    tas_cumulative_ = st.cumulative;
    tas_weights_left_ = st.weights_left;
    t_ = st.t;
    N_ = st.N;
    S_ = st.S;
    L_ = st.L;
    M_ = st.M;
    std::memcpy(static_cast<void*>(&rng_), st.rng, sizeof(st.rng));
    unpulled_ = below_min_ = 0;
    for (int a = 0; a < K_; ++a) {
      unpulled_ += N_[a] == 0;
      below_min_ += N_[a] < opt_.min_pulls;
    }
    if (st.leader >= 0 && !(unpulled_ == 0)) throw invalid_argument("state: a leader before every arm was pulled");
    direct_limit_ = 0;
    direct_n_log_n_ = direct_log_ = nullptr;
    raise_direct_limit();
    for (int a = 0; a < K_; ++a) {
      if (N_[a] > 0) {
        refresh_arm(a);
      } else {
        own_[a] = inv_n_[a] = log_count_[a] = 0.0;
        if constexpr (kind == Arms::bernoulli) log_s_[a] = log_f_[a] = 0.0;
      }
    }
    maximisers_known_ = false;
    first_max_ = 0;
    n_max_ = 1;
    tree_valid_ = index_valid_ = false;
    statistic_known_ = challenger_known_ = false;
    dirty_ = kAllDirty;
    leader_ = -1;
    if (st.leader >= 0) {  // the cached leader must be a maximiser of the restored counts
      find_maximisers();
      if (compare(st.leader, first_max_) != 0)
        throw invalid_argument("state: the cached leader is not an empirical best arm");
    }
    leader_ = st.leader;
    selection_ = st.selection;
    w_leader_ = -1;
    witness_ = -1;
    evaluated_ = false;
    z_ = 0.0;
    challenger_ = -1;
    c_floor_ = -std::numeric_limits<double>::infinity();
  }

  // Records one reward of `arm` (Bernoulli: 0 or 1; the caller checks). A refused reward changes nothing.
  [[gnu::always_inline]] inline void update(int arm, Sum reward) {
    if (arm < 0 || arm >= K_) fail("arm: expected an index in [0, ", K_, "), got ", arm);
    if constexpr (kind == Arms::gaussian) {
      const double next = S_[arm] + reward;
      if (!(next - next == 0.0)) fail("reward: the sum of the rewards of arm ", arm, " would overflow");
    }
    // The maximiser set changes only through `arm`: follow it unless a rescan is unavoidable.
    const bool follow = maximisers_known_;
    const bool was_max = follow && same_mean(arm, first_max_);
    const Sum max_s = S_[first_max_];  // the largest mean before the update
    const std::int64_t max_n = N_[first_max_];
    const double max_own = own_[first_max_];
    ++N_[arm];
    S_[arm] += reward;
    ++t_;
    if (t_ >= direct_limit_) raise_direct_limit();
    if (N_[arm] == 1) --unpulled_;
    if (N_[arm] == opt_.min_pulls) --below_min_;
    if constexpr (kind == Arms::bernoulli)
      refresh_arm(arm, reward != 0, reward == 0);
    else
      refresh_arm(arm);
    if (__builtin_expect(indexed_, 0)) {
      // Many arms: the tournament tree and the cost index follow the one arm that changed.
      indexed_update(arm, kind == Arms::bernoulli && reward != 0);
      leader_ = -1;
      selection_ = -1;
      statistic_known_ = challenger_known_ = false;
      if (__builtin_expect(special_update_, 0)) update_special(arm, static_cast<double>(reward));
      return;
    }
    if (follow) {
      const int up = compare_with(arm, max_s, max_n, max_own);  // new mean of arm vs the old maximum
      const bool gain = up > 0;                                 // arm alone above the old maximum
      const bool join = up == 0 && !was_max;                    // arm reaches the old maximum
      const bool leave = up < 0 && was_max;                     // arm drops below it
      const bool rescan = leave && (n_max_ == 1 || first_max_ == arm);
      n_max_ = gain ? 1 : n_max_ + static_cast<std::uint64_t>(join) - static_cast<std::uint64_t>(leave && !rescan);
      first_max_ = gain || (join && arm < first_max_) ? arm : first_max_;
      maximisers_known_ = !rescan;
    }
    leader_ = -1;
    selection_ = -1;
    evaluated_ = false;
    if (__builtin_expect(special_update_, 0)) update_special(arm, static_cast<double>(reward));
    if (arm == w_leader_ || (dirty_ != kClean && dirty_ != arm))
      dirty_ = kAllDirty;
    else
      dirty_ = arm;
  }

 private:
  // Sign of mu_hat_i - mu_hat_j; exact for Bernoulli arms (S_i N_j vs S_j N_i in integers: 64-bit
  // products while every count is below 2^31, 128-bit ones after).
  int compare(int i, int j) const {
    if constexpr (kind == Arms::bernoulli) {
      if (t_ < kSmallCounts) {
        const std::int64_t lhs = S_[i] * N_[j], rhs = S_[j] * N_[i];
        return (lhs > rhs) - (lhs < rhs);
      }
      const __int128 lhs = static_cast<__int128>(S_[i]) * N_[j];
      const __int128 rhs = static_cast<__int128>(S_[j]) * N_[i];
      return (lhs > rhs) - (lhs < rhs);
    } else {
      return (own_[i] > own_[j]) - (own_[i] < own_[j]);
    }
  }

  // Sign of mu_hat_a - m, for m = s / n (Bernoulli arms) or m = own (Gaussian arms).
  int compare_with(int a, Sum s, std::int64_t n, double own) const {
    if constexpr (kind == Arms::bernoulli) {
      (void)own;
      if (t_ < kSmallCounts) {
        const std::int64_t lhs = S_[a] * n, rhs = s * N_[a];
        return (lhs > rhs) - (lhs < rhs);
      }
      const __int128 lhs = static_cast<__int128>(S_[a]) * n;
      const __int128 rhs = static_cast<__int128>(s) * N_[a];
      return (lhs > rhs) - (lhs < rhs);
    } else {
      (void)s;
      (void)n;
      return (own_[a] > own) - (own_[a] < own);
    }
  }

  void find_maximisers() {
    int best = 0;  // lowest index among the maximisers seen so far
    std::uint64_t count = 1;
    if constexpr (kind == Arms::bernoulli) {
      if (t_ < kSmallCounts) {  // the same comparisons as compare(), in 64-bit products
        const std::int64_t* N = N_.data();
        const std::int64_t* S = S_.data();
        for (int i = 1; i < K_; ++i) {
          const std::int64_t lhs = S[i] * N[best], rhs = S[best] * N[i];
          if (lhs > rhs) {
            best = i;
            count = 1;
          } else if (lhs == rhs) {
            ++count;
          }
        }
        first_max_ = best;
        n_max_ = count;
        maximisers_known_ = true;
        return;
      }
    }
    for (int i = 1; i < K_; ++i) {
      const int c = compare(i, best);
      if (c > 0) {
        best = i;
        count = 1;
      } else if (c == 0) {
        ++count;
      }
    }
    first_max_ = best;
    n_max_ = count;
    maximisers_known_ = true;
  }

  int least_pulled() const {
    int a = 0;
    for (int i = 1; i < K_; ++i)
      if (N_[i] < N_[a]) a = i;
    return a;
  }

  // While t < direct_limit_, every count indexes the tables directly (and fits 64-bit products).
  void raise_direct_limit() {
    const bool n_log_n_covered = n_log_n_.cover(t_);
    const bool log_covered = log_n_.cover(t_);
    if (n_log_n_covered && log_covered && t_ < kSmallCounts) {
      direct_n_log_n_ = n_log_n_.data();
      direct_log_ = log_n_.data();
      direct_limit_ = std::min(std::min(n_log_n_.size(), log_n_.size()), kSmallCounts);
    } else {
      direct_limit_ = std::numeric_limits<std::int64_t>::max();  // never again
      direct_n_log_n_ = direct_log_ = nullptr;
    }
  }

  bool direct() const noexcept { return direct_n_log_n_ != nullptr; }

  double table_n_log_n(std::int64_t n) { return direct() ? direct_n_log_n_[n] : n_log_n_(n); }

  // Arm a's cached functions of its counts: log N_a, and for Bernoulli arms log S_a, log F_a
  // (F_a = N_a - S_a) and G(S_a, N_a) = N_a log N_a - S_a log S_a - F_a log F_a, every product n log n
  // formed as the n log n table forms it (n times log n), so the bits do not depend on where a log
  // came from. A pull changes N_a and only one of S_a and F_a (`s_grew`, `f_grew`): two logs instead
  // of four, which matters past the tables' 2^18 entries, where each log is a libm call.
  void refresh_arm(int a) { refresh_arm(a, true, true); }
  void refresh_arm(int a, bool s_grew, bool f_grew) {
    const double log_n = log_of(N_[a]);
    log_count_[a] = log_n;
    if constexpr (kind == Arms::bernoulli) {
      const std::int64_t n = N_[a], s = S_[a], f = n - s;
      if (s_grew) log_s_[a] = log_of(s);
      if (f_grew) log_f_[a] = log_of(f);
      own_[a] =
          (static_cast<double>(n) * log_n - static_cast<double>(s) * log_s_[a]) - static_cast<double>(f) * log_f_[a];
    } else {
      if (!(S_[a] - S_[a] == 0.0)) throw invalid_argument("reward: the sum of rewards of an arm overflowed");
      own_[a] = S_[a] / static_cast<double>(N_[a]);  // empirical mean
      inv_n_[a] = 1.0 / static_cast<double>(N_[a]);
    }
  }

  // mu_hat_i == mu_hat_j, exactly.
  bool same_mean(int i, int j) const {
    if constexpr (kind == Arms::bernoulli) {
      if (t_ < kSmallCounts) return S_[i] * N_[j] == S_[j] * N_[i];
      return static_cast<__int128>(S_[i]) * N_[j] == static_cast<__int128>(S_[j]) * N_[i];
    } else {
      return own_[i] == own_[j];
    }
  }

  // Transportation cost W(B, j) for the leader B (a maximiser, so mu_hat_B >= mu_hat_j: W is 0
  // exactly when the means are equal).
  double pair_cost(int B, int j) {
    if constexpr (kind == Arms::bernoulli) {
      if (same_mean(B, j)) return 0.0;
      const std::int64_t n = N_[B] + N_[j];
      const std::int64_t s = S_[B] + S_[j];
      const double g = (table_n_log_n(n) - table_n_log_n(s)) - table_n_log_n(n - s);
      const double w = (g - own_[B]) - own_[j];
      return w < 0.0 ? 0.0 : w;
    } else {
      if (same_mean(B, j)) return 0.0;
      const double d = own_[B] - own_[j];
      return d * d / (two_sigma2_ * (inv_n_[B] + inv_n_[j]));
    }
  }

  void refresh_cost(int B, int j) {
    w_[j] = pair_cost(B, j);
    penalised_[j] = opt_.challenger == Challenger::tci ? w_[j] + log_count_[j] : w_[j];
  }

  // Costs of the current leader (recomputing only those that changed), Z and the challenger.
  // W(B, k), computed afresh, for the witness k of the current leader (+inf if there is none yet).
  double witness_cost() {
    const int B = leader();
    if (B != w_leader_ || witness_ < 0) return std::numeric_limits<double>::infinity();
    return pair_cost(B, witness_);
  }

  [[gnu::always_inline]] inline void evaluate() {
    if (evaluated_) return;
    const int B = leader();
    if (B != w_leader_) {
      dirty_ = kAllDirty;
      w_leader_ = B;
    }
    if (dirty_ == kAllDirty) {
      const bool done = refresh_all_fast(B);
      if (!done)
        for (int j = 0; j < K_; ++j)
          if (j != B) refresh_cost(B, j);
      w_[B] = penalised_[B] = std::numeric_limits<double>::infinity();  // never the minimum
      dirty_ = kClean;
      if (done) {
        evaluated_ = true;
        return;
      }
    } else if (dirty_ != kClean) {
      refresh_cost(B, dirty_);
    }
    dirty_ = kClean;
    // Z = min_j W and the lowest index of min_j penalised (two accumulators each, to shorten the
    // dependency chains; min is exact, so the order does not matter).
    const double* w = w_.data();
    const double* penalised = penalised_.data();
    constexpr double inf = std::numeric_limits<double>::infinity();
    double z0 = inf, z1 = inf, p0 = inf, p1 = inf;
    int j = 0;
    for (; j + 1 < K_; j += 2) {
      z0 = w[j] < z0 ? w[j] : z0;
      z1 = w[j + 1] < z1 ? w[j + 1] : z1;
      p0 = penalised[j] < p0 ? penalised[j] : p0;
      p1 = penalised[j + 1] < p1 ? penalised[j + 1] : p1;
    }
    if (j < K_) {
      z0 = w[j] < z0 ? w[j] : z0;
      p0 = penalised[j] < p0 ? penalised[j] : p0;
    }
    const double smallest = p1 < p0 ? p1 : p0;
    // The leader's own entries are +inf: skip it explicitly, for the case where every cost is
    // infinite (Gaussian gaps whose square overflows).
    int c = 0;
    while (c == B || !(penalised[c] == smallest)) ++c;
    z_ = z1 < z0 ? z1 : z0;
    int k = 0;
    while (k == B || !(w[k] == z_)) ++k;
    challenger_ = c;
    witness_ = k;
    evaluated_ = true;
  }

  // All costs of a Bernoulli leader, with Z and the challenger, in one tight loop, when the tables
  // are read directly (see raise_direct_limit); false (nothing done) otherwise.
  bool refresh_all_fast(int B) {
    if constexpr (kind != Arms::bernoulli) {
      (void)B;
      return false;
    } else {
      if (!direct()) return false;
      const double* table = direct_n_log_n_;
      const std::int64_t* N = N_.data();
      const std::int64_t* S = S_.data();
      const double* G = own_.data();
      const double* log_count = log_count_.data();
      double* w = w_.data();
      double* penalised = penalised_.data();
      const std::int64_t NB = N[B], SB = S[B];
      const double GB = G[B];
      const bool penalise = opt_.challenger == Challenger::tci;
      double z = std::numeric_limits<double>::infinity();
      double best = z;
      int c = -1, k = -1;
      for (int j = 0; j < K_; ++j) {
        if (j == B) continue;
        double wj = 0.0;
        if (S[j] * NB != SB * N[j]) {  // same formula as pair_cost
          const std::int64_t n = NB + N[j], s = SB + S[j];
          const double g = (table[n] - table[s]) - table[n - s];
          wj = (g - GB) - G[j];
          wj = wj < 0.0 ? 0.0 : wj;
        }
        const double pj = penalise ? wj + log_count[j] : wj;
        w[j] = wj;
        penalised[j] = pj;
        const bool lower = wj < z;
        z = lower ? wj : z;
        k = lower ? j : k;
        const bool better = pj < best;  // strict: the lowest index wins ties
        best = better ? pj : best;
        c = better ? j : c;
      }
      z_ = z;
      challenger_ = c;
      witness_ = k;
      return true;
    }
  }

  // ---- Many arms (K >= kIndexedArms). The leader comes from a tournament tree and the challenger
  // and Z from a bounded index over the arms; both return exactly what the scans above return.

  // `rose`: the arm's mean did not drop (a Bernoulli success).
  [[gnu::noinline]] void indexed_update(int arm, bool rose) {
    if (tree_valid_) tree_update(arm, rose);
    if (index_valid_ && arm != index_leader_) index_update(arm);
  }

  void know_maximisers() {
    if (__builtin_expect(indexed_, 0)) {
      if (!tree_valid_) tree_build();
      first_max_ = tree_arm_[1];
      n_max_ = tree_count_[1];
    } else if (!maximisers_known_) {
      find_maximisers();
    }
  }

  // Tournament tree (heap layout, arm a at leaf P + a): node i holds the lowest index among the
  // arms of its subtree with the largest empirical mean (-1: none) and how many of them share that
  // mean, decided by compare(), which is exact. The root is (first_max_, n_max_) of find_maximisers().
  void tree_merge(int i) {
    const int l = 2 * i, r = l + 1;
    const int la = tree_arm_[l], ra = tree_arm_[r];
    int arm = la;
    std::uint64_t count = tree_count_[l];
    if (la < 0) {
      arm = ra;
      count = tree_count_[r];
    } else if (ra >= 0) {
      const int c = compare(la, ra);
      if (c < 0) {
        arm = ra;
        count = tree_count_[r];
      } else if (c == 0) {
        count += tree_count_[r];
      }
    }
    tree_arm_[i] = arm;
    tree_count_[i] = count;
  }

  // Only once every arm has a pull (compare() orders the means of pulled arms).
  void tree_build() {
    const int P = pow2_;
    tree_arm_.assign(static_cast<std::size_t>(2 * P), -1);
    tree_count_.assign(static_cast<std::size_t>(2 * P), 0);
    for (int a = 0; a < K_; ++a) {
      tree_arm_[P + a] = a;
      tree_count_[P + a] = 1;
    }
    for (int i = P - 1; i >= 1; --i) tree_merge(i);
    tree_valid_ = true;
  }

  // Up from a's leaf until a node keeps its winner and count, the winner not being a (whose mean
  // changed): the nodes above depend on nothing else that changed. The unique best arm whose mean
  // did not drop (`rose`) stays the unique best of every subtree that holds it: no node changes.
  void tree_update(int a, bool rose) {
    if (rose && tree_arm_[1] == a && tree_count_[1] == 1) return;
    for (int i = (pow2_ + a) / 2; i >= 1; i /= 2) {
      const int arm = tree_arm_[i];
      const std::uint64_t count = tree_count_[i];
      tree_merge(i);
      if (tree_arm_[i] == arm && tree_count_[i] == count && arm != a) return;
    }
  }

  // The k-th (from 0, in index order) arm whose mean equals the largest one.
  int tree_pick(std::uint64_t k) const {
    const int top = tree_arm_[1];
    int i = 1;
    while (i < pow2_) {
      const int l = 2 * i;
      if (tree_arm_[l] >= 0 && compare(tree_arm_[l], top) == 0) {
        if (k < tree_count_[l]) {
          i = l;
          continue;
        }
        k -= tree_count_[l];
      }
      i = l + 1;
    }
    return i - pow2_;
  }

  // The cost index. At its last rebuild the leader B had N_B = n0 and sums s0 (Bernoulli: successes,
  // G0 = G(s0, n0); Gaussian: mean mu0). For every other arm j it keeps (see index_keys) the base
  // cost V_j = W computed with B's counts at the rebuild and j's current counts
  // (refreshed whenever j is pulled), its penalised form V_j + log N_j (TCI), and for each block of
  // arms the smallest keys, the smallest and largest N_j and means. Pulls of B change no entry. For a
  // leader B (B itself or a later leader whose counts contain B's base counts, see index_ready) with
  // counts n1 = N_B, s1 and mean mu1:
  //
  //   W(B, j) >= V_j + C - D g_j,   g_j = N_j (mu1 - mu_j) / (n1 + N_j) >= 0,
  //
  // with C and D >= 0 that depend on B alone (index_bounds) and g_j bounded on a block from its
  // largest N_j and smallest mean (g_j increases with N_j and decreases with mu_j). Derivation:
  // write x = (s, n) for counts, F(x) = n log n - s log s - (n - s) log(n - s) (Bernoulli; W(B, j) =
  // F(x_B + x_j) - F(x_B) - F(x_j)) or F(x) = s^2 / n (Gaussian, 2 sigma^2 W = F(x_B) + F(x_j) -
  // F(x_B + x_j)), both homogeneous, F concave (Bernoulli) or convex (Gaussian), with a gradient
  // that depends on the mean s / n only. Moving B from x0 to x1 (dx = (ds, dn)) changes W by
  //   Bernoulli: [F(x1 + x_j) - F(x0 + x_j)] - [F(x1) - F(x0)] >= grad F(x1 + x_j) . dx - Lambda
  //     = psi(m_j) - Lambda,  psi(m) = -ds log m - (dn - ds) log(1 - m),  Lambda = G(s1, n1) - G0,
  //   where m_j = mu1 - g_j is the pooled mean of B and j (concavity of F); psi is convex, so
  //   psi(m_j) >= psi(mu1) - psi'(mu1) g_j: C = psi(mu1) - Lambda, D = max(psi'(mu1), 0) with
  //   psi'(mu1) = (dn s1 - ds n1) n1 / (s1 (n1 - s1)). (If s1 = 0 or s1 = n1, psi >= 0: C = -Lambda,
  //   D = 0.)
  //   Gaussian: [F(x1) - F(x0)] - [F(x1 + x_j) - F(x0 + x_j)] >= Lambda - phi(m_j), phi(m) =
  //   2 m ds - m^2 dn (convexity of F), phi concave: phi(m_j) <= phi(mu1) - phi'(mu1) g_j, which
  //   simplifies to C = -n0 (mu1 - mu0)^2 / (2 sigma^2), D = 2 n0 max(mu0 - mu1, 0) / (2 sigma^2).
  // Both C and D g_j are small while N_j << n1 (light arms barely feel the leader's pulls), so the
  // bound is tight and a search visits few blocks. Every bound is lowered by a margin far above
  // the rounding errors of the computed costs (Bernoulli: 2^-40 t log t against errors below
  // 2^-46 t log t; Gaussian: 2^-40 relative against errors below 2^-48 relative), so a block or an
  // arm is skipped only when every arm in it has a computed cost above the best computed cost found; the
  // arms that are not skipped are evaluated with pair_cost() exactly as the scans do, and ties keep
  // the lowest index. When the searches get expensive compared to a rebuild (the bounds loosen as
  // B gathers pulls) the index is rebuilt from B's current counts.
  double base_cost(int j) {
    if constexpr (kind == Arms::bernoulli) {
      return bernoulli_base_cost([this](std::int64_t n) { return table_n_log_n(n); }, j);
    } else {
      const double d = index_own0_ - own_[j];
      return d * d / (two_sigma2_ * (index_inv_n0_ + inv_n_[j]));
    }
  }

  // The index is flat: the arms in blocks of kBlockArms consecutive indices (the last block padded
  // with empty slots), each arm a group of one (its keys, N_j and mean), each block a group
  // summarising its arms (see Groups). A search bounds every block in one vectorised pass, then
  // bounds the arms of the blocks that may hold the minimum and evaluates the arms whose bound
  // does not exceed the best cost found; a pull refreshes one arm and its block. The leader's own
  // slot and the padding are empty: never bounded, never evaluated.
  static constexpr double kInf = std::numeric_limits<double>::infinity();

  // Bernoulli base cost, n log n read through `n_log_n` (see base_cost).
  template <class Table>
  double bernoulli_base_cost(const Table& n_log_n, int j) {
    const std::int64_t n = index_n0_ + N_[j], s = index_s0_ + S_[j];
    const double g = (n_log_n(n) - n_log_n(s)) - n_log_n(n - s);
    const double w = (g - index_own0_) - own_[j];
    return w < 0.0 ? 0.0 : w;
  }

  // Arm j's base costs (what a rebuild changes) and its counts (what only its pulls change).
  void index_keys(int j) { index_keys(j, base_cost(j)); }
  void index_keys(int j, double w) {
    const std::size_t i = static_cast<std::size_t>(j);
    arms_.key_w[i] = w;
    arms_.key_pen[i] = opt_.challenger == Challenger::tci ? w + log_count_[j] : w;
  }
  void index_counts(int j) {
    const std::size_t i = static_cast<std::size_t>(j);
    arms_.high_n[i] = arms_.low_n[i] = static_cast<double>(N_[j]);
    arms_.low_mu[i] = arms_.high_mu[i] = mean(j);
  }
  void index_empty(int j) {
    const std::size_t i = static_cast<std::size_t>(j);
    arms_.key_pen[i] = arms_.key_w[i] = arms_.low_n[i] = arms_.low_mu[i] = kInf;
    arms_.high_n[i] = 0.0;
    arms_.high_mu[i] = -kInf;
  }
  void index_summarise(std::size_t q) { simd::dispatch<SummariseBlock>(simd::active(), &arms_, q, &blocks_); }

  void index_build(int B) {
    const std::size_t blocks = (static_cast<std::size_t>(K_) + kBlockArms - 1) / kBlockArms;
    const bool fresh = arms_.size() != blocks * kBlockArms;
    if (fresh) {  // the slots past K, and the blocks past the last, stay empty
      arms_.assign(blocks * kBlockArms);
      blocks_.assign((blocks + 7) / 8 * 8);  // LowerBounds takes groups of 8
      block_lower_.assign(blocks_.size(), 0.0);
      n_blocks_ = blocks;
    }
    const int previous = index_leader_;
    index_leader_ = B;
    index_n0_ = N_[B];
    index_s0_ = S_[B];
    index_own0_ = own_[B];
    index_inv_n0_ = inv_n_[B];
    index_keys_except(B);
    index_empty(B);
    if (fresh) {
      for (int j = 0; j < K_; ++j)
        if (j != B) index_counts(j);
    } else if (previous >= 0 && previous != B) {
      index_counts(previous);
    }
    for (std::size_t q = 0; q < blocks; ++q) index_summarise(q);
    index_valid_ = true;
    index_stale_ = false;
    index_searches_ = 0;
    index_work_ = 0;
  }

  // index_keys(j) for every arm j != B. With direct tables, Bernoulli base costs read the table
  // itself, without base_cost's choice of table per read, in two loops around B (a test of j per
  // arm cost 3 % of a K = 1000 run's instructions).
  void index_keys_except(int B) {
    if constexpr (kind == Arms::bernoulli) {
      if (direct()) {
        const double* table = direct_n_log_n_;
        const auto direct_table = [table](std::int64_t n) { return table[n]; };
        for (int j = 0; j < B; ++j) index_keys(j, bernoulli_base_cost(direct_table, j));
        for (int j = B + 1; j < K_; ++j) index_keys(j, bernoulli_base_cost(direct_table, j));
        return;
      }
    }
    for (int j = 0; j < K_; ++j)
      if (j != B) index_keys(j);
  }

  void index_update(int j) {
    index_keys(j);
    index_counts(j);
    index_summarise(static_cast<std::size_t>(j) / kBlockArms);
  }

  double log_of(std::int64_t n) { return direct() ? direct_log_[n] : log_n_(n); }

  CostBound index_bounds(int B) {
    CostBound b;
    b.n1 = static_cast<double>(N_[B]);
    const std::int64_t dn = N_[B] - index_n0_;
    if constexpr (kind == Arms::bernoulli) {
      const std::int64_t s1 = S_[B], n1 = N_[B], ds = s1 - index_s0_;
      const double lambda = own_[B] - index_own0_;
      double scale = (std::fabs(own_[B]) + std::fabs(index_own0_)) + static_cast<double>(dn);
      b.C = -lambda;
      if (dn > 0 && s1 > 0 && s1 < n1) {
        const double log_n1 = log_count_[B];
        const double a = static_cast<double>(ds) * (log_s_[B] - log_n1);
        const double c = static_cast<double>(dn - ds) * (log_f_[B] - log_n1);
        b.C = (-a - c) - lambda;
        const __int128 num = static_cast<__int128>(dn) * s1 - static_cast<__int128>(ds) * n1;
        b.D = (static_cast<double>(num) * b.n1) / (static_cast<double>(s1) * static_cast<double>(n1 - s1));
        scale += std::fabs(a) + std::fabs(c);
      }
      b.p = static_cast<double>(s1) / b.n1;
      // Every table value used is at most t log t <= t bits(t) ln 2.
      const auto t = static_cast<std::uint64_t>(t_);
      const double t_log_t = static_cast<double>(t) * (64 - __builtin_clzll(t | 1)) * 0.6931471805599453;
      b.margin = 0x1p-40 * ((t_log_t + scale) + 1.0);
      b.nudge = 0x1p-50;
    } else {
      const double n0 = static_cast<double>(index_n0_);
      const double d = own_[B] - index_own0_;
      b.C = -(n0 * (d * d)) / two_sigma2_;
      b.D = (2.0 * n0 * -d) / two_sigma2_;
      b.p = own_[B];
      b.margin = 0x1p-40 * std::fabs(b.C) + 0x1p-40 * std::numeric_limits<double>::min();
      if (!(std::isfinite(b.C) && std::isfinite(b.D))) b.C = -kInf;
    }
    return b;
  }

  // Whether value v of arm j ranks before the best (value, arm) so far (arm < 0: none yet): the
  // smaller value, the lower index among equal values.
  static bool ranks_first(double v, int j, double best, int arm) noexcept {
    return v < best || (v == best && (arm < 0 || j < arm));
  }

  // The arms of block q against the best (value, arm) so far.
  template <class Value>
  void index_visit(std::size_t q, int B, const CostBound& b, const double* key, Value& value, double& best, int& arm,
                   std::int64_t& work) {
    static_assert(kBlockArms <= 64 && kBlockArms % 8 == 0, "LowerBounds masks at most 64 groups of 8");
    const std::size_t first = q * kBlockArms;
    double lower[kBlockArms];
    std::uint64_t candidates = simd::dispatch<LowerBounds>(simd::active(), &b, static_cast<const Groups*>(&arms_), key,
                                                           first, kBlockArms, best, static_cast<double*>(lower));
    work += kBlockArms;
    const std::int64_t* counts = N_.data();
    const Sum* sums = S_.data();
    std::int64_t arm_count = arm >= 0 ? counts[arm] : -1;  // no arm has -1 pulls
    Sum arm_sum = arm >= 0 ? sums[arm] : Sum{0};
    for (; candidates != 0; candidates &= candidates - 1) {
      const std::size_t i = static_cast<std::size_t>(__builtin_ctzll(candidates));
      if (!(lower[i] <= best)) continue;  // best may have dropped since the mask was taken
      const int j = static_cast<int>(first + i);
      if (j == B) continue;
      // An arm with the counts of the best arm so far has its cost: it wins only by a lower index.
      if (counts[j] == arm_count && sums[j] == arm_sum) {
        if (j < arm) arm = j;
        continue;
      }
      const double v = value(j);
      work += 8;
      if (ranks_first(v, j, best, arm)) {
        best = v;
        arm = j;
        arm_count = counts[j];
        arm_sum = sums[j];
      }
    }
  }

  // The arm j != B of the smallest value(j) (the lowest index among equal values), and that value:
  // key_of selects the key (Groups::key_pen or key_w) bounding value(j). The block of the smallest
  // bound is visited first, to start from a good best cost.
  template <class Value>
  int index_search(int B, const CostBound& b, std::vector<double> Groups::*key_of, Value&& value, double& best,
                   int hint) {
    best = kInf;
    int arm = -1;
    if (B != index_leader_) {  // the base leader has no entry: evaluate it first
      best = value(index_leader_);
      arm = index_leader_;
    }
    // The answer of the previous search (often the answer again) sets the bar before any block.
    if (hint >= 0 && hint != B && hint != arm) {
      const double v = value(hint);
      if (ranks_first(v, hint, best, arm)) {
        best = v;
        arm = hint;
      }
    }
    double* lower = block_lower_.data();
    simd::dispatch<LowerBounds>(simd::active(), &b, static_cast<const Groups*>(&blocks_), (blocks_.*key_of).data(),
                                std::size_t{0}, blocks_.size(), kInf, lower);
    std::int64_t work = static_cast<std::int64_t>(n_blocks_);
    // The first block of the smallest bound (the padding past n_blocks_ is +inf: never first).
    const std::size_t start =
        simd::dispatch<FirstMinimum>(simd::active(), static_cast<const double*>(lower), blocks_.size());
    const double* key = (arms_.*key_of).data();
    if (lower[start] <= best) {
      index_visit(start, B, b, key, value, best, arm, work);
      // The other blocks in index order, each while its bound is at most the best value: those above
      // it now stay above it (best only drops), the others are tested again when reached.
      for (std::size_t q0 = 0; q0 < n_blocks_; q0 += 64) {
        const std::size_t count = std::min<std::size_t>(64, blocks_.size() - q0);  // a multiple of 8
        for (std::uint64_t m =
                 simd::dispatch<AtMost>(simd::active(), static_cast<const double*>(lower + q0), count, best);
             m != 0; m &= m - 1) {
          const std::size_t q = q0 + static_cast<std::size_t>(__builtin_ctzll(m));
          if (q != start && q < n_blocks_ && lower[q] <= best) index_visit(q, B, b, key, value, best, arm, work);
        }
      }
    }
    // Rebuild when a search costs more than the average search since the last rebuild, the
    // rebuild included (a rebuild costs about kRebuild K).
    ++index_searches_;
    index_work_ += work;
    if (work * index_searches_ > index_work_ + kRebuild * static_cast<std::int64_t>(K_)) index_stale_ = true;
    return arm;
  }

  // A new leader keeps the index when its counts contain the base counts (Bernoulli: at least as
  // many successes and as many failures; Gaussian: at least as many pulls), which is all the bounds
  // need (dn, ds and dn - ds >= 0); its own entry is skipped and the base leader evaluated apart.
  void index_ready(int B) {
    bool keep = index_valid_ && !index_stale_;
    if (keep && B != index_leader_) {
      if constexpr (kind == Arms::bernoulli)
        keep = S_[B] >= index_s0_ && N_[B] - S_[B] >= index_n0_ - index_s0_;
      else
        keep = N_[B] >= index_n0_;
    }
    if (!keep) index_build(B);
  }

  [[gnu::noinline]] void index_challenger() {
    if (challenger_known_) return;
    const int B = leader();
    index_ready(B);
    const CostBound b = index_bounds(B);
    const bool penalise = opt_.challenger == Challenger::tci;
    double best;
    challenger_ = index_search(
        B, b, &Groups::key_pen,
        [&](int j) {
          const double w = pair_cost(B, j);
          return penalise ? w + log_count_[j] : w;
        },
        best, challenger_);
    challenger_known_ = true;
  }

  [[gnu::noinline]] void index_statistic() {
    if (statistic_known_) return;
    const int B = leader();
    index_ready(B);
    const CostBound b = index_bounds(B);
    witness_ = index_search(
        B, b, &Groups::key_w, [&](int j) { return pair_cost(B, j); }, z_, witness_);
    w_leader_ = B;
    statistic_known_ = true;
  }

  Options opt_;
  int K_;
  Xoshiro256 rng_;
  TableReader n_log_n_;
  TableReader log_n_;

  std::vector<std::int64_t> N_;
  std::vector<Sum> S_;
  std::vector<double> own_;             // Bernoulli: G(S_a, N_a); Gaussian: empirical mean
  std::vector<double> inv_n_;           // Gaussian: 1 / N_a
  std::vector<double> log_count_;       // log N_a
  std::vector<double> log_s_, log_f_;   // Bernoulli: log S_a and log(N_a - S_a) (0 for a zero count)
  std::vector<std::int64_t> L_;         // tracking: rounds as leader
  std::vector<std::int64_t> M_;         // tracking: pulls decided while leader
  std::vector<double> w_;               // W(w_leader_, j) (+inf at j = w_leader_), up to date unless dirty_
  std::vector<double> penalised_;       // W + log N_j (TCI) or W (TC)
  std::vector<double> tas_weights_;     // Track-and-Stop: w*(mu_hat) of the last recomputation
  std::vector<double> tas_cumulative_;  // C-tracking: sum of the projected weights so far
  std::int64_t tas_weights_left_ = 0;   // selections before the next recomputation
  int pending_ = -1;                    // LUCB1: second arm of the round, returned by the next select()
  bool in_round_ = false;               // LUCB1: between the first pull of a round and the update of its second
  std::int64_t rounds_ = 0;             // LUCB1: rounds started
  Elimination ege_;                     // exponential-gap elimination
  std::int64_t t_ = 0;
  int unpulled_;
  int below_min_;
  double two_sigma2_;
  bool special_select_;  // not the EB leader with a TC/TCI challenger: select_special()
  bool special_update_;  // LUCB1 or EGE: update_special() after each update

  // The maximiser set of the current state: its lowest index and its size (when known).
  bool maximisers_known_ = false;
  int first_max_ = 0;
  std::uint64_t n_max_ = 1;

  static constexpr std::int64_t kSmallCounts = std::int64_t{1} << 31;
  std::int64_t direct_limit_ = 0;
  const double* direct_n_log_n_ = nullptr;
  const double* direct_log_ = nullptr;
  static constexpr int kClean = -1;     // every cached cost is current
  static constexpr int kAllDirty = -2;  // every cached cost must be recomputed
  int dirty_ = kAllDirty;               // otherwise: the one arm whose cost must be recomputed

  int leader_ = -1;     // cached for the current state
  int selection_ = -1;  // cached for the current state
  int w_leader_ = -1;   // leader the cached costs refer to
  int witness_ = -1;    // an arm attaining Z at the last full evaluation for w_leader_
  bool evaluated_ = false;
  double z_ = 0.0;
  int challenger_ = -1;

  // Many arms: the tournament tree and the cost index (see know_maximisers and base_cost).
  bool indexed_;
  int pow2_;  // leaves of both trees: the smallest power of two >= K
  bool tree_valid_ = false;
  std::vector<int> tree_arm_;
  std::vector<std::uint64_t> tree_count_;
  bool index_valid_ = false;
  bool index_stale_ = false;
  int index_leader_ = -1;
  std::int64_t index_n0_ = 0;
  Sum index_s0_ = Sum{0};
  double index_own0_ = 0.0, index_inv_n0_ = 0.0;
  Groups arms_;    // group j: arm j
  Groups blocks_;  // group q: arms q kBlockArms, ..., (q + 1) kBlockArms - 1
  std::size_t n_blocks_ = 0;
  std::vector<double> block_lower_;  // a search's bounds of the blocks
  std::int64_t index_searches_ = 0, index_work_ = 0;
  bool statistic_known_ = false;
  bool challenger_known_ = false;
  double c_floor_ = -std::numeric_limits<double>::infinity();
};

}  // namespace paperkernels::toptwo

PAPERKERNELS_PSABI_ON
