// Bindings of paperkernels.toptwo: simulated episodes (one or many, in parallel), the incremental
// sampler, characteristic times and the vectorised helpers. Arguments arrive validated from
// python/paperkernels/toptwo/ (options as the enum types registered below); the checks here are a
// backstop.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <mutex>
#include <type_traits>
#include <variant>
#include <vector>

#include "bind_common.hpp"
#include "paperkernels/toptwo/characteristic_time.hpp"
#include "paperkernels/toptwo/episode.hpp"
#include "paperkernels/toptwo/sampler.hpp"
#include "paperkernels/toptwo/thresholds.hpp"

namespace py = pybind11;
using namespace paperkernels;
using namespace paperkernels::toptwo;
using paperkernels::bind::carray;

namespace {

// A named threshold c(t, delta) (the array kind needs its values: see Config).
Threshold named_threshold(ThresholdKind kind, double delta, int K) {
  bind::known(kind, ThresholdKind::array, "threshold");
  require(delta > 0.0 && delta < 1.0, "delta: expected a number in (0, 1), got ", delta);
  require(K >= 2, "K: expected at least 2 arms, got ", K);
  switch (kind) {
    case ThresholdKind::gk16:
      return Threshold::gk16(delta);
    case ThresholdKind::union_bound:
      return Threshold::union_bound(delta, K);
    case ThresholdKind::kk21:
      return Threshold::kk21(delta, K);
    case ThresholdKind::array:
      break;
  }
  fail("threshold: expected a named threshold (gk16, union_bound or kk21)");
}

// Everything that defines the sampler, with ownership of a user threshold array. The options
// arrive as enum members validated once in Python; check_options() is the backstop for the numbers.
struct Config {
  Arms arms = Arms::bernoulli;
  Options options;
  std::vector<double> threshold_values;

  Config(Arms arms_, const Options& options_, ThresholdKind threshold, const py::object& values)
      : arms(arms_), options(options_) {
    if (threshold == ThresholdKind::array) {
      require(!values.is_none(), "threshold: an array threshold needs its values");
      if (!(options.delta > 0.0 && options.delta < 1.0)) options.delta = 0.5;
      set_values(values.cast<carray<double>>());
    } else {
      require(values.is_none(), "threshold: a named threshold takes no values");
      options.threshold = named_threshold(threshold, options.delta, options.K);
    }
    check_options(options);
  }

  Config(const Config& other) : arms(other.arms), options(other.options), threshold_values(other.threshold_values) {
    if (options.threshold.kind() == ThresholdKind::array)
      options.threshold = Threshold::array(threshold_values.data(), static_cast<std::int64_t>(threshold_values.size()));
  }
  Config& operator=(const Config&) = delete;

  void set_values(const carray<double>& values) {
    bind::require_ndim(values, 1, "threshold");
    threshold_values.assign(values.data(), values.data() + values.size());
    bool any_nan = false;
    for (double c : threshold_values) any_nan |= std::isnan(c);
    require(!any_nan, "threshold: expected no NaN values");
    options.threshold = Threshold::array(threshold_values.data(), static_cast<std::int64_t>(threshold_values.size()));
  }
};

Config make_config(int K, double beta, Challenger challenger, Rule rule, TieBreak tie_break, bool forced_exploration,
                   std::int64_t min_pulls, Arms arms, double sigma, ThresholdKind threshold, double delta,
                   const py::object& threshold_values, Leader leader, bool uniform, double ucb_alpha, Tracking tracking,
                   std::int64_t weights_every, Racing racing, double lil_epsilon, double lil_beta, double lil_lambda) {
  bind::known(challenger, Challenger::rs, "challenger");
  bind::known(rule, Rule::tracking, "rule");
  bind::known(tie_break, TieBreak::first, "tie_break");
  bind::known(arms, Arms::gaussian, "arms");
  bind::known(threshold, ThresholdKind::array, "threshold");
  bind::known(leader, Leader::ucb, "leader");
  bind::known(tracking, Tracking::fw, "tracking");
  bind::known(racing, Racing::ege, "racing");
  Options o;
  o.K = K;
  o.beta = beta;
  o.challenger = challenger;
  o.rule = rule;
  o.tie_break = tie_break;
  o.forced_exploration = forced_exploration;
  o.min_pulls = min_pulls;
  o.sigma = sigma;
  o.leader = leader;
  o.uniform = uniform;
  o.ucb_alpha = ucb_alpha;
  o.tracking = tracking;
  o.weights_every = weights_every;
  o.racing = racing;
  o.delta = delta;
  o.lil_epsilon = lil_epsilon;
  o.lil_beta = lil_beta;
  o.lil_lambda = lil_lambda;
  return Config(arms, o, threshold, threshold_values);
}

// Runs f(start, stop) over [0, n) in chunks with the GIL released, checking for signals (Ctrl-C)
// between chunks, so long elementwise loops stay interruptible.
template <class F>
void chunked(py::ssize_t n, F&& f) {
  constexpr py::ssize_t kChunk = py::ssize_t{1} << 18;
  for (py::ssize_t start = 0; start < n; start += kChunk) {
    const py::ssize_t stop = std::min(n, start + kChunk);
    {
      py::gil_scoped_release release;
      f(start, stop);
    }
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
  }
}

std::vector<double> to_vector(const carray<double>& a, const char* name) {
  bind::require_ndim(a, 1, name);
  return std::vector<double>(a.data(), a.data() + a.size());
}

template <Arms kind>
py::tuple identify_impl(const Config& config, const std::vector<double>& mu, std::uint64_t seed, std::int64_t max_steps,
                        bool record) {
  Environment<kind> env(mu, config.options.sigma);
  Sampler<kind> sampler(config.options, seed, 0);
  Xoshiro256 rewards(seed, reward_stream(0));
  std::vector<std::int64_t> arms_seen;
  std::vector<double> rewards_seen;
  EpisodeResult result;
  {
    py::gil_scoped_release release;
    parallel_for(
        1, 1,
        [&](std::size_t, const StopToken& token) {
          if (record)
            result = run_episode(sampler, env, rewards, max_steps, &token, [&](int a, auto x) {
              arms_seen.push_back(a);
              rewards_seen.push_back(static_cast<double>(x));
            });
          else
            result = run_episode(sampler, env, rewards, max_steps, &token, [](int, auto) {});
        },
        bind::python_signal_poll());
  }
  const int K = sampler.K();
  carray<std::int64_t> N(K);
  using SumArray = carray<typename Sampler<kind>::Sum>;
  SumArray S(K);
  for (int a = 0; a < K; ++a) {
    N.mutable_data()[a] = sampler.N(a);
    S.mutable_data()[a] = sampler.S(a);
  }
  py::object arms_out = py::none(), rewards_out = py::none();
  if (record) {
    carray<std::int64_t> arms_arr(static_cast<py::ssize_t>(arms_seen.size()));
    carray<double> rewards_arr(static_cast<py::ssize_t>(rewards_seen.size()));
    std::copy(arms_seen.begin(), arms_seen.end(), arms_arr.mutable_data());
    std::copy(rewards_seen.begin(), rewards_seen.end(), rewards_arr.mutable_data());
    arms_out = arms_arr;
    rewards_out = rewards_arr;
  }
  return py::make_tuple(result.recommendation, result.tau, N, S, result.hit_max_steps, arms_out, rewards_out);
}

template <Arms kind>
py::tuple run_many_impl(const Config& config, const std::vector<double>& mu, std::uint64_t seed, std::int64_t first_run,
                        std::int64_t n_runs, std::int64_t max_steps, unsigned n_threads) {
  const int K = config.options.K;
  using Sum = typename Sampler<kind>::Sum;
  carray<std::int64_t> tau(n_runs), recommendation(n_runs);
  carray<std::int64_t> N({static_cast<py::ssize_t>(n_runs), static_cast<py::ssize_t>(K)});
  carray<Sum> S({static_cast<py::ssize_t>(n_runs), static_cast<py::ssize_t>(K)});
  carray<bool> hit(n_runs);
  auto* tau_p = tau.mutable_data();
  auto* rec_p = recommendation.mutable_data();
  auto* N_p = N.mutable_data();
  auto* S_p = S.mutable_data();
  auto* hit_p = hit.mutable_data();
  const Environment<kind> env(mu, config.options.sigma);
  {
    py::gil_scoped_release release;
    parallel_for(
        static_cast<std::size_t>(n_runs), n_threads,
        [&](std::size_t r, const StopToken& token) {
          const auto run = static_cast<std::uint64_t>(first_run) + r;
          Sampler<kind> sampler(config.options, seed, run);
          Xoshiro256 rewards(seed, reward_stream(run));
          const EpisodeResult result = run_episode(sampler, env, rewards, max_steps, &token, [](int, auto) {});
          if (result.aborted) return;
          tau_p[r] = result.tau;
          rec_p[r] = result.recommendation;
          hit_p[r] = result.hit_max_steps;
          for (int a = 0; a < K; ++a) {
            N_p[r * K + a] = sampler.N(a);
            S_p[r * K + a] = sampler.S(a);
          }
        },
        bind::python_signal_poll());
  }
  return py::make_tuple(tau, recommendation, N, S, hit);
}

void check_mu(const Config& config, const std::vector<double>& mu) {
  require(static_cast<int>(mu.size()) == config.options.K, "mu: expected ", config.options.K, " means, got ",
          mu.size());
  for (double m : mu) {
    if (!std::isfinite(m)) throw invalid_argument("mu: expected finite values");
    if (config.arms == Arms::bernoulli && !(m >= 0.0 && m <= 1.0))
      throw invalid_argument("mu: expected values in [0, 1]");
  }
}

// The incremental sampler behind paperkernels.toptwo.TopTwo. Methods lock a mutex, so concurrent
// use from several Python threads is safe (if pointless). No caller waits for the mutex while
// holding the GIL (see lock): the holder may need the GIL to finish (it builds numpy arrays under
// the lock, and a long batch polls for Ctrl-C), which would deadlock the two.
class IncrementalSampler {
  using Variant = std::variant<Sampler<Arms::bernoulli>, Sampler<Arms::gaussian>>;

 public:
  IncrementalSampler(const Config& config, std::uint64_t seed) : config_(config) {
    if (config_.arms == Arms::bernoulli)
      sampler_.emplace<Sampler<Arms::bernoulli>>(config_.options, seed, 0);
    else
      sampler_.emplace<Sampler<Arms::gaussian>>(config_.options, seed, 0);
  }

  int K() const { return config_.options.K; }

  std::int64_t t() {
    const auto lock = lock_with_gil();
    return visit([](auto& s) { return s.t(); });
  }

  // (N, S) without touching the random stream.
  py::tuple counts() {
    const auto lock = lock_with_gil();
    return visit([](auto& s) {
      carray<std::int64_t> N(s.K());
      carray<double> S(s.K());
      for (int a = 0; a < s.K(); ++a) {
        N.mutable_data()[a] = s.N(a);
        S.mutable_data()[a] = static_cast<double>(s.S(a));
      }
      return py::make_tuple(N, S);
    });
  }

  bool initialised() {
    const auto lock = lock_with_gil();
    return visit([](auto& s) { return s.initialised(); });
  }

  int select() {
    const auto lock = lock_with_gil();
    return visit([](auto& s) { return s.select(); });
  }

  bool should_stop() {
    const auto lock = lock_with_gil();
    return visit([](auto& s) { return s.should_stop(); });
  }

  // Leader of the current state once initialised (may draw the tie-break), the lowest-indexed
  // empirical best before that, -1 while an arm is unpulled.
  int recommendation() {
    const auto lock = lock_with_gil();
    return visit([](auto& s) -> int {
      if (s.initialised()) return s.recommend();
      return s.all_pulled() ? s.first_leader() : -1;
    });
  }

  void update(int arm, double reward) {
    const auto lock = lock_with_gil();
    update_one(arm, reward);
  }

  // A batch is applied entirely or not at all: every entry (and, for Gaussian arms, every running
  // sum) is checked before the first is recorded, and an interrupted long batch is rolled back.
  void update_many(const carray<std::int64_t>& arms, const carray<double>& rewards) {
    bind::require_ndim(arms, 1, "arm");
    bind::require_ndim(rewards, 1, "reward");
    require(arms.size() == rewards.size(), "arm, reward: expected the same number of arms and rewards, got ",
            arms.size(), " and ", rewards.size());
    const std::int64_t* a = arms.data();
    const double* x = rewards.data();
    const py::ssize_t n = arms.size();
    for (py::ssize_t i = 0; i < n; ++i) check_update(a[i], x[i]);
    py::gil_scoped_release release;  // before locking: a waiting caller may hold the GIL
    if (n < kPollEvery) {
      std::lock_guard<std::mutex> lock(mutex_);  // GIL released above
      apply_batch(a, x, n, nullptr);
      return;
    }
    // A long batch runs on a worker thread while this thread polls for signals without the lock.
    parallel_for(
        1, 1,
        [&](std::size_t, const StopToken& token) {
          std::lock_guard<std::mutex> lock(mutex_);  // a worker thread, without the GIL
          apply_batch(a, x, n, &token);
        },
        bind::python_signal_poll());
  }

  // (t, N, S, L, M, generator words, cached leader, cached selection).
  py::tuple get_state() {
    const auto lock = lock_with_gil();
    return visit([](auto& s) -> py::tuple {
      const auto st = s.snapshot();
      using Sum = typename std::decay_t<decltype(st.S)>::value_type;
      const int K = s.K();
      carray<std::int64_t> N(K), L(K), M(K);
      carray<Sum> S(K);
      std::copy(st.N.begin(), st.N.end(), N.mutable_data());
      std::copy(st.L.begin(), st.L.end(), L.mutable_data());
      std::copy(st.M.begin(), st.M.end(), M.mutable_data());
      std::copy(st.S.begin(), st.S.end(), S.mutable_data());
      py::tuple rng = py::make_tuple(st.rng[0], st.rng[1], st.rng[2], st.rng[3]);
      carray<double> weights(static_cast<py::ssize_t>(st.weights.size()));
      carray<double> cumulative(static_cast<py::ssize_t>(st.cumulative.size()));
      std::copy(st.weights.begin(), st.weights.end(), weights.mutable_data());
      std::copy(st.cumulative.begin(), st.cumulative.end(), cumulative.mutable_data());
      carray<double> elimination(static_cast<py::ssize_t>(st.elimination.size()));
      std::copy(st.elimination.begin(), st.elimination.end(), elimination.mutable_data());
      return py::make_tuple(st.t, N, S, L, M, rng, st.leader, st.selection, weights, cumulative, st.weights_left,
                            py::make_tuple(st.pending, st.in_round, st.rounds), elimination);
    });
  }

  void set_state(std::int64_t t, const carray<std::int64_t>& N, const carray<double>& S, const carray<std::int64_t>& L,
                 const carray<std::int64_t>& M, const py::tuple& rng_words, int leader, int selection,
                 const carray<double>& weights, const carray<double>& cumulative, std::int64_t weights_left,
                 const py::tuple& round, const carray<double>& elimination) {
    require(round.size() == 3, "state: expected the round state (pending, in_round, rounds)");
    const int pending = round[0].cast<int>();
    const bool in_round = round[1].cast<bool>();
    const std::int64_t rounds = round[2].cast<std::int64_t>();
    require(rng_words.size() == 4, "state: expected four generator words");
    std::uint64_t rng[4];
    for (int w = 0; w < 4; ++w) rng[w] = rng_words[w].cast<std::uint64_t>();
    const auto lock = lock_with_gil();
    visit([&](auto& s) {
      using Sum = typename std::decay_t<decltype(s)>::Sum;
      SamplerState<Sum> st;
      st.t = t;
      st.N.assign(N.data(), N.data() + N.size());
      st.L.assign(L.data(), L.data() + L.size());
      st.M.assign(M.data(), M.data() + M.size());
      for (py::ssize_t i = 0; i < S.size(); ++i) {
        const double v = S.data()[i];
        if constexpr (std::is_integral_v<Sum>) {
          require(v >= 0.0 && v <= 9.0e15 && v == std::floor(v), "state: inconsistent success counts");
        }
        st.S.push_back(static_cast<Sum>(v));
      }
      for (int w = 0; w < 4; ++w) st.rng[w] = rng[w];
      st.leader = leader;
      st.selection = selection;
      st.weights.assign(weights.data(), weights.data() + weights.size());
      st.cumulative.assign(cumulative.data(), cumulative.data() + cumulative.size());
      st.weights_left = weights_left;
      st.pending = pending;
      st.in_round = in_round;
      st.rounds = rounds;
      st.elimination.assign(elimination.data(), elimination.data() + elimination.size());
      s.restore(st);
    });
  }

  void set_threshold_values(const carray<double>& values) {
    const auto lock = lock_with_gil();
    require(config_.options.threshold.kind() == ThresholdKind::array, "threshold: not an array threshold");
    config_.set_values(values);
    visit([&](auto& s) { s.set_threshold(config_.options.threshold); });
  }

  py::dict state() {
    const auto lock = lock_with_gil();
    return visit([&](auto& s) {
      const int K = s.K();
      carray<std::int64_t> N(K), L(K), M(K);
      carray<double> S(K);
      for (int a = 0; a < K; ++a) {
        N.mutable_data()[a] = s.N(a);
        S.mutable_data()[a] = static_cast<double>(s.S(a));
        L.mutable_data()[a] = s.L(a);
        M.mutable_data()[a] = s.M(a);
      }
      py::dict d;
      d["t"] = s.t();
      d["N"] = N;
      d["S"] = S;
      d["L"] = L;
      d["M"] = M;
      d["initialised"] = s.initialised();
      if (s.initialised()) {
        carray<double> W(K);
        const int B = s.leader();
        for (int j = 0; j < K; ++j) W.mutable_data()[j] = s.cost(j);
        d["leader"] = B;
        d["W"] = W;
        d["Z"] = s.statistic();
        d["challenger"] = s.challenger();
        d["threshold"] = s.threshold_now();
        d["should_stop"] = s.should_stop();
      }
      return d;
    });
  }

 private:
  // The mutex, for a caller that holds the GIL: taken at once when free, otherwise waited for with
  // the GIL released, so that the holder can take the GIL to finish.
  std::unique_lock<std::mutex> lock_with_gil() {
    std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
    if (!lock.owns_lock()) {
      py::gil_scoped_release release;
      lock.lock();
    }
    return lock;
  }

  template <class F>
  auto visit(F&& f) -> decltype(std::visit(std::forward<F>(f), std::declval<Variant&>())) {
    return std::visit(std::forward<F>(f), sampler_);
  }

  // The messages are built only on failure (this runs once per entry of a batch).
  void check_update(std::int64_t arm, double reward) const {
    require(arm >= 0 && arm < config_.options.K, "arm: expected an index in [0, ", config_.options.K, "), got ", arm);
    if (config_.arms == Arms::bernoulli)
      require(reward == 0.0 || reward == 1.0, "reward: Bernoulli arms expect rewards 0 or 1, got ", reward);
    else
      require(std::isfinite(reward), "reward: expected a finite number, got ", reward);
  }

  static constexpr py::ssize_t kPollEvery = py::ssize_t{1} << 16;

  // Caller holds the lock. Checks the running sums of Gaussian arms first; with a token, polls it
  // every kPollEvery entries and restores the state it started from when asked to stop.
  void apply_batch(const std::int64_t* a, const double* x, py::ssize_t n, const StopToken* token) {
    visit([&](auto& s) {
      using S_t = std::decay_t<decltype(s)>;
      using Sum = typename S_t::Sum;
      if constexpr (std::is_same_v<Sum, double>) {
        std::vector<double> sums(static_cast<std::size_t>(s.K()));
        for (int k = 0; k < s.K(); ++k) sums[k] = s.S(k);
        for (py::ssize_t i = 0; i < n; ++i) {
          double& sum = sums[static_cast<std::size_t>(a[i])];
          sum += x[i];
          require(sum - sum == 0.0, "reward: the sum of the rewards of arm ", a[i], " would overflow at entry ", i,
                  " of the batch; nothing was recorded");
        }
      }
      if (token == nullptr) {
        for (py::ssize_t i = 0; i < n; ++i) s.update(static_cast<int>(a[i]), static_cast<Sum>(x[i]));
        return;
      }
      const S_t backup = s;
      for (py::ssize_t i = 0; i < n; ++i) {
        if ((i & (kPollEvery - 1)) == 0 && token->stop_requested()) {
          s = backup;
          return;
        }
        s.update(static_cast<int>(a[i]), static_cast<Sum>(x[i]));
      }
    });
  }

  void update_one(int arm, double reward) {
    check_update(arm, reward);
    visit([&](auto& s) {
      using Sum = typename std::decay_t<decltype(s)>::Sum;
      s.update(arm, static_cast<Sum>(reward));
    });
  }

  Config config_;
  Variant sampler_{std::in_place_index<0>, Options{}, std::uint64_t{0}, std::uint64_t{0}};
  std::mutex mutex_;
};

}  // namespace

void bind_toptwo(py::module_& m) {
  // From this many arms on the sampler takes the leader from a tree and the challenger from the
  // cost index (the benchmarks time that path under every instruction set).
  m.attr("indexed_arms") = kIndexedArms;
  // The options as enum types: Python validates the user's strings once and passes members, so no
  // string is parsed and no bare integer is cast here.
  py::enum_<Arms>(m, "Arms", "Reward distributions of the arms.")
      .value("bernoulli", Arms::bernoulli)
      .value("gaussian", Arms::gaussian);
  py::enum_<Challenger>(m, "Challenger", "Challenger of a top-two step.")
      .value("tci", Challenger::tci)
      .value("tc", Challenger::tc)
      .value("rs", Challenger::rs);
  py::enum_<Leader>(m, "Leader", "Leader of a top-two step.")
      .value("eb", Leader::eb)
      .value("ts", Leader::ts)
      .value("ucb", Leader::ucb);
  py::enum_<Tracking>(m, "Tracking", "Tracking of optimal weights (Track-and-Stop, Frank-Wolfe sampling).")
      .value("none", Tracking::none)
      .value("c", Tracking::c)
      .value("d", Tracking::d)
      .value("fw", Tracking::fw);
  py::enum_<Racing>(m, "Racing", "Algorithms with their own stopping rule.")
      .value("none", Racing::none)
      .value("lucb1", Racing::lucb1)
      .value("lil_ucb", Racing::lil_ucb)
      .value("ege", Racing::ege);
  py::enum_<Rule>(m, "Rule", "Choice between leader and challenger.")
      .value("random", Rule::random)
      .value("tracking", Rule::tracking);
  py::enum_<TieBreak>(m, "TieBreak", "Resolution of ties for the leader.")
      .value("random", TieBreak::random)
      .value("first", TieBreak::first);
  py::enum_<ThresholdKind>(m, "ThresholdKind", "Stopping thresholds c(t, delta).")
      .value("gk16", ThresholdKind::gk16)
      .value("union_bound", ThresholdKind::union_bound)
      .value("kk21", ThresholdKind::kk21)
      .value("array", ThresholdKind::array);

  py::class_<Config>(m, "Config", "Sampler options, validated (private).")
      .def(py::init(&make_config), py::kw_only(), py::arg("K"), py::arg("beta"), py::arg("challenger"), py::arg("rule"),
           py::arg("tie_break"), py::arg("forced_exploration"), py::arg("min_pulls"), py::arg("arms"), py::arg("sigma"),
           py::arg("threshold"), py::arg("delta"), py::arg("threshold_values"), py::arg("leader"), py::arg("uniform"),
           py::arg("ucb_alpha"), py::arg("tracking"), py::arg("weights_every"), py::arg("racing"),
           py::arg("lil_epsilon"), py::arg("lil_beta"), py::arg("lil_lambda"));

  m.def(
      "identify",
      [](const Config& config, const carray<double>& mu_arr, std::uint64_t seed, std::int64_t max_steps, bool record) {
        const std::vector<double> mu = to_vector(mu_arr, "mu");
        check_mu(config, mu);
        if (config.arms == Arms::bernoulli) return identify_impl<Arms::bernoulli>(config, mu, seed, max_steps, record);
        return identify_impl<Arms::gaussian>(config, mu, seed, max_steps, record);
      },
      py::arg("config"), py::arg("mu"), py::arg("seed"), py::arg("max_steps"), py::arg("record"),
      "One episode: (recommendation, tau, N, S, hit_max_steps, arms or None, rewards or None).");

  m.def(
      "run_many",
      [](const Config& config, const carray<double>& mu_arr, std::uint64_t seed, std::int64_t n_runs,
         std::int64_t max_steps, unsigned n_threads, std::int64_t first_run) {
        const std::vector<double> mu = to_vector(mu_arr, "mu");
        check_mu(config, mu);
        require(n_runs >= 1, "n_runs: expected a positive integer, got ", n_runs);
        require(first_run >= 0 && first_run <= (std::int64_t{1} << 62) - n_runs,
                "first_run: expected a non-negative run index below 2**62 - n_runs");
        if (config.arms == Arms::bernoulli)
          return run_many_impl<Arms::bernoulli>(config, mu, seed, first_run, n_runs, max_steps, n_threads);
        return run_many_impl<Arms::gaussian>(config, mu, seed, first_run, n_runs, max_steps, n_threads);
      },
      py::arg("config"), py::arg("mu"), py::arg("seed"), py::arg("n_runs"), py::arg("max_steps"), py::arg("n_threads"),
      py::arg("first_run") = 0,
      "Episodes r = first_run .. first_run + n_runs - 1 in parallel: (tau, recommendation, N, S, hit_max_steps).");

  py::class_<IncrementalSampler>(m, "Sampler", "Incremental top-two sampler (private).")
      .def(py::init<const Config&, std::uint64_t>(), py::arg("config"), py::arg("seed"))
      .def_property_readonly("K", &IncrementalSampler::K)
      .def_property_readonly("t", &IncrementalSampler::t)
      .def_property_readonly("initialised", &IncrementalSampler::initialised)
      .def("counts", &IncrementalSampler::counts)
      .def("select", &IncrementalSampler::select)
      .def("should_stop", &IncrementalSampler::should_stop)
      .def("recommendation", &IncrementalSampler::recommendation)
      .def("update", &IncrementalSampler::update, py::arg("arm"), py::arg("reward"))
      .def("update_many", &IncrementalSampler::update_many, py::arg("arms"), py::arg("rewards"))
      .def("get_state", &IncrementalSampler::get_state)
      .def("set_state", &IncrementalSampler::set_state, py::arg("t"), py::arg("N"), py::arg("S"), py::arg("L"),
           py::arg("M"), py::arg("rng"), py::arg("leader"), py::arg("selection"), py::arg("weights"),
           py::arg("cumulative"), py::arg("weights_left"), py::arg("round"), py::arg("elimination"))
      .def("set_threshold_values", &IncrementalSampler::set_threshold_values, py::arg("values"))
      .def("state", &IncrementalSampler::state);

  m.def(
      "characteristic_time",
      [](const carray<double>& mu_arr, double beta, Arms kind, double sigma) {
        bind::known(kind, Arms::gaussian, "arms");
        const std::vector<double> mu = to_vector(mu_arr, "mu");
        CharacteristicTime result;
        {
          py::gil_scoped_release release;
          parallel_for(
              1, 1,
              [&](std::size_t, const StopToken& token) {
                CharacteristicSolver solver(mu, kind, sigma);
                solver.set_stop_token(&token);
                result = std::isnan(beta) ? solver.optimal() : solver.at(beta);
              },
              bind::python_signal_poll());
        }
        carray<double> weights(static_cast<py::ssize_t>(result.weights.size()));
        std::copy(result.weights.begin(), result.weights.end(), weights.mutable_data());
        return py::make_tuple(result.T, weights, result.beta, result.best);
      },
      py::arg("mu"), py::arg("beta"), py::arg("arms"), py::arg("sigma"),
      "(T, weights, beta, best): T*_beta for the given beta, or T* (beta optimised) when beta is NaN.");

  m.def(
      "matrix_game",
      [](const carray<double>& M) {
        bind::require_ndim(M, 2, "M");
        const int K = static_cast<int>(M.shape(0)), J = static_cast<int>(M.shape(1));
        require(K >= 1 && J >= 1, "M: expected a non-empty matrix");
        const std::vector<double> values(M.data(), M.data() + M.size());
        const std::vector<double> z = solve_matrix_game(values, K, J);
        carray<double> out(K);
        std::copy(z.begin(), z.end(), out.mutable_data());
        return out;
      },
      py::arg("M"), "Optimal row strategy of the zero-sum game max_z min_j (M^T z)_j (private).");

  m.def(
      "kl_bernoulli",
      [](const carray<double>& p, const carray<double>& q) {
        require(p.size() == q.size(), "p, q: expected arrays of the same size");
        carray<double> out(p.size());
        const double* pp = p.data();
        const double* qq = q.data();
        double* o = out.mutable_data();
        const py::ssize_t n = p.size();
        chunked(n, [&](py::ssize_t lo, py::ssize_t hi) {
          for (py::ssize_t i = lo; i < hi; ++i) o[i] = kl_bernoulli(pp[i], qq[i]);
        });
        return out;
      },
      py::arg("p"), py::arg("q"), "Elementwise Bernoulli KL divergence of flat arrays.");

  m.def(
      "transportation_cost",
      [](const carray<double>& mu_i, const carray<double>& n_i, const carray<double>& mu_j, const carray<double>& n_j,
         Arms kind, double sigma) {
        const py::ssize_t n = mu_i.size();
        require(n_i.size() == n && mu_j.size() == n && n_j.size() == n, "expected arrays of the same size");
        carray<double> out(n);
        const double *a = mu_i.data(), *b = n_i.data(), *c = mu_j.data(), *d = n_j.data();
        double* o = out.mutable_data();
        chunked(n, [&](py::ssize_t lo, py::ssize_t hi) {
          for (py::ssize_t i = lo; i < hi; ++i) o[i] = transportation_cost(a[i], b[i], c[i], d[i], kind, sigma);
        });
        return out;
      },
      py::arg("mu_i"), py::arg("n_i"), py::arg("mu_j"), py::arg("n_j"), py::arg("arms"), py::arg("sigma"),
      "Elementwise transportation cost W(i, j) of flat arrays.");

  m.def(
      "threshold",
      [](ThresholdKind kind, double delta, int K, const carray<std::int64_t>& t) {
        const Threshold c = named_threshold(kind, delta, K);
        carray<double> out(t.size());
        const std::int64_t* tt = t.data();
        double* o = out.mutable_data();
        bool positive = true;
        chunked(t.size(), [&](py::ssize_t lo, py::ssize_t hi) {
          for (py::ssize_t i = lo; i < hi; ++i) positive &= tt[i] >= 1;
        });
        require(positive, "t: expected positive times");
        chunked(t.size(), [&](py::ssize_t lo, py::ssize_t hi) {
          for (py::ssize_t i = lo; i < hi; ++i) o[i] = c(tt[i]);
        });
        return out;
      },
      py::arg("kind"), py::arg("delta"), py::arg("K"), py::arg("t"), "c(t, delta) of a named threshold.");
}
