// Bindings of paperkernels.toptwo: simulated episodes (one or many, in parallel), the incremental
// sampler, characteristic times and the vectorised helpers. Arguments arrive validated from
// python/paperkernels/toptwo.py; the checks here are a backstop.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "bind_common.hpp"
#include "paperkernels/toptwo/characteristic_time.hpp"
#include "paperkernels/toptwo/episode.hpp"
#include "paperkernels/toptwo/sampler.hpp"

namespace py = pybind11;
using namespace paperkernels;
using namespace paperkernels::toptwo;
using paperkernels::bind::carray;

namespace {

Arms parse_arms(const std::string& s) {
  if (s == "bernoulli") return Arms::bernoulli;
  if (s == "gaussian") return Arms::gaussian;
  throw invalid_argument("arms: expected 'bernoulli' or 'gaussian', got '" + s + "'");
}

// Everything that defines the sampler, with ownership of a user threshold array.
struct Config {
  Arms arms = Arms::bernoulli;
  Options options;
  std::vector<double> threshold_values;

  Config(int K, double beta, const std::string& challenger, const std::string& rule, const std::string& tie_break,
         bool forced_exploration, std::int64_t min_pulls, const std::string& arms_, double sigma,
         const std::string& threshold, double delta, const py::object& values, const std::string& leader = "EB",
         bool uniform = false, double ucb_alpha = 1.0, const std::string& tracking = "none",
         std::int64_t weights_every = 1, const std::string& racing = "none", double lil_epsilon = 0.01,
         double lil_beta = 1.0, double lil_lambda = 9.0) {
    arms = parse_arms(arms_);
    if (racing == "none")
      options.racing = Racing::none;
    else if (racing == "LUCB1")
      options.racing = Racing::lucb1;
    else if (racing == "lilUCB")
      options.racing = Racing::lil_ucb;
    else if (racing == "EGE")
      options.racing = Racing::ege;
    else
      throw invalid_argument("racing: expected 'none', 'LUCB1' or 'lilUCB', got '" + racing + "'");
    options.delta = threshold == "array" && !(delta > 0.0 && delta < 1.0) ? 0.5 : delta;
    options.lil_epsilon = lil_epsilon;
    options.lil_beta = lil_beta;
    options.lil_lambda = lil_lambda;
    if (tracking == "none")
      options.tracking = Tracking::none;
    else if (tracking == "C")
      options.tracking = Tracking::c;
    else if (tracking == "D")
      options.tracking = Tracking::d;
    else if (tracking == "FW")
      options.tracking = Tracking::fw;
    else
      throw invalid_argument("tracking: expected 'none', 'C' or 'D', got '" + tracking + "'");
    options.weights_every = weights_every;
    if (leader == "EB")
      options.leader = Leader::eb;
    else if (leader == "TS")
      options.leader = Leader::ts;
    else if (leader == "UCB")
      options.leader = Leader::ucb;
    else
      throw invalid_argument("leader: expected 'EB', 'TS' or 'UCB', got '" + leader + "'");
    options.uniform = uniform;
    options.ucb_alpha = ucb_alpha;
    options.K = K;
    options.beta = beta;
    if (challenger == "TCI")
      options.challenger = Challenger::tci;
    else if (challenger == "TC")
      options.challenger = Challenger::tc;
    else if (challenger == "RS")
      options.challenger = Challenger::rs;
    else
      throw invalid_argument("challenger: expected 'TCI', 'TC' or 'RS', got '" + challenger + "'");
    if (rule == "random")
      options.rule = Rule::random;
    else if (rule == "tracking")
      options.rule = Rule::tracking;
    else
      throw invalid_argument("rule: expected 'random' or 'tracking', got '" + rule + "'");
    if (tie_break == "random")
      options.tie_break = TieBreak::random;
    else if (tie_break == "first")
      options.tie_break = TieBreak::first;
    else
      throw invalid_argument("tie_break: expected 'random' or 'first', got '" + tie_break + "'");
    options.forced_exploration = forced_exploration;
    options.min_pulls = min_pulls;
    options.sigma = sigma;
    if (threshold != "array")
      require(delta > 0.0 && delta < 1.0, "delta: expected a number in (0, 1), got " + std::to_string(delta));
    if (threshold == "gk16") {
      options.threshold = Threshold::gk16(delta);
    } else if (threshold == "union") {
      options.threshold = Threshold::union_bound(delta, K);
    } else if (threshold == "kk21") {
      options.threshold = Threshold::kk21(delta, K);
    } else if (threshold == "array") {
      require(!values.is_none(), "threshold: an array threshold needs its values");
      set_values(values.cast<carray<double>>());
    } else {
      throw invalid_argument("threshold: expected 'gk16', 'union', 'kk21' or 'array', got '" + threshold + "'");
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
py::tuple identify_impl(const Config& config, const std::vector<double>& mu, std::uint64_t seed,
                        std::int64_t max_steps, bool record) {
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
py::tuple run_many_impl(const Config& config, const std::vector<double>& mu, std::uint64_t seed,
                        std::int64_t first_run, std::int64_t n_runs, std::int64_t max_steps, unsigned n_threads) {
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
  require(static_cast<int>(mu.size()) == config.options.K,
          "mu: expected " + std::to_string(config.options.K) + " means, got " + std::to_string(mu.size()));
  for (double m : mu) {
    if (!std::isfinite(m)) throw invalid_argument("mu: expected finite values");
    if (config.arms == Arms::bernoulli && !(m >= 0.0 && m <= 1.0))
      throw invalid_argument("mu: expected values in [0, 1]");
  }
}

// The incremental sampler behind paperkernels.toptwo.TopTwo. Methods lock a mutex, so concurrent
// use from several Python threads is safe (if pointless).
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
    std::lock_guard<std::mutex> lock(mutex_);
    return visit([](auto& s) { return s.t(); });
  }

  // (N, S) without touching the random stream.
  py::tuple counts() {
    std::lock_guard<std::mutex> lock(mutex_);
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
    std::lock_guard<std::mutex> lock(mutex_);
    return visit([](auto& s) { return s.initialised(); });
  }

  int select() {
    std::lock_guard<std::mutex> lock(mutex_);
    return visit([](auto& s) { return s.select(); });
  }

  bool should_stop() {
    std::lock_guard<std::mutex> lock(mutex_);
    return visit([](auto& s) { return s.should_stop(); });
  }

  // Leader of the current state once initialised (may draw the tie-break), the lowest-indexed
  // empirical best before that, -1 while an arm is unpulled.
  int recommendation() {
    std::lock_guard<std::mutex> lock(mutex_);
    return visit([](auto& s) -> int {
      if (s.initialised()) return s.recommend();
      return s.all_pulled() ? s.first_leader() : -1;
    });
  }

  void update(int arm, double reward) {
    std::lock_guard<std::mutex> lock(mutex_);
    update_one(arm, reward);
  }

  // A batch is applied entirely or not at all: every entry (and, for Gaussian arms, every running
  // sum) is checked before the first is recorded, and an interrupted long batch is rolled back.
  void update_many(const carray<std::int64_t>& arms, const carray<double>& rewards) {
    bind::require_ndim(arms, 1, "arm");
    bind::require_ndim(rewards, 1, "reward");
    require(arms.size() == rewards.size(), "arm, reward: expected the same number of arms and rewards, got " +
                                               std::to_string(arms.size()) + " and " + std::to_string(rewards.size()));
    const std::int64_t* a = arms.data();
    const double* x = rewards.data();
    const py::ssize_t n = arms.size();
    for (py::ssize_t i = 0; i < n; ++i) check_update(a[i], x[i]);
    py::gil_scoped_release release;  // before locking: a waiting caller may hold the GIL
    if (n < kPollEvery) {
      std::lock_guard<std::mutex> lock(mutex_);
      apply_batch(a, x, n, nullptr);
      return;
    }
    // A long batch runs on a worker thread while this thread polls for signals without the lock.
    parallel_for(
        1, 1,
        [&](std::size_t, const StopToken& token) {
          std::lock_guard<std::mutex> lock(mutex_);
          apply_batch(a, x, n, &token);
        },
        bind::python_signal_poll());
  }

  // (t, N, S, L, M, generator words, cached leader, cached selection).
  py::tuple get_state() {
    std::lock_guard<std::mutex> lock(mutex_);
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
    std::lock_guard<std::mutex> lock(mutex_);
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
    std::lock_guard<std::mutex> lock(mutex_);
    require(config_.options.threshold.kind() == ThresholdKind::array, "threshold: not an array threshold");
    config_.set_values(values);
    visit([&](auto& s) { s.set_threshold(config_.options.threshold); });
  }

  py::dict state() {
    std::lock_guard<std::mutex> lock(mutex_);
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
  template <class F>
  auto visit(F&& f) -> decltype(std::visit(std::forward<F>(f), std::declval<Variant&>())) {
    return std::visit(std::forward<F>(f), sampler_);
  }

  // The messages are built only on failure (this runs once per entry of a batch).
  void check_update(std::int64_t arm, double reward) const {
    if (!(arm >= 0 && arm < config_.options.K))
      throw invalid_argument("arm: expected an index in [0, " + std::to_string(config_.options.K) + "), got " +
                             std::to_string(arm));
    if (config_.arms == Arms::bernoulli) {
      if (!(reward == 0.0 || reward == 1.0))
        throw invalid_argument("reward: Bernoulli arms expect rewards 0 or 1, got " + std::to_string(reward));
    } else if (!std::isfinite(reward)) {
      throw invalid_argument("reward: expected a finite number, got " + std::to_string(reward));
    }
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
          if (!(sum - sum == 0.0))
            throw invalid_argument("reward: the sum of the rewards of arm " + std::to_string(a[i]) +
                                   " would overflow at entry " + std::to_string(i) + " of the batch; nothing was recorded");
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
  Variant sampler_{
      std::in_place_index<0>, Options{}, std::uint64_t{0}, std::uint64_t{0}};
  std::mutex mutex_;
};

}  // namespace

void bind_toptwo(py::module_& m) {
  py::class_<Config>(m, "Config", "Sampler options, validated (private).")
      .def(py::init<int, double, const std::string&, const std::string&, const std::string&, bool, std::int64_t,
                    const std::string&, double, const std::string&, double, const py::object&, const std::string&, bool,
                    double, const std::string&, std::int64_t, const std::string&, double, double, double>(),
           py::arg("K"), py::arg("beta"), py::arg("challenger"), py::arg("rule"), py::arg("tie_break"),
           py::arg("forced_exploration"), py::arg("min_pulls"), py::arg("arms"), py::arg("sigma"),
           py::arg("threshold"), py::arg("delta"), py::arg("threshold_values") = py::none(),
           py::arg("leader") = "EB", py::arg("uniform") = false, py::arg("ucb_alpha") = 1.0,
           py::arg("tracking") = "none", py::arg("weights_every") = 1, py::arg("racing") = "none",
           py::arg("lil_epsilon") = 0.01, py::arg("lil_beta") = 1.0, py::arg("lil_lambda") = 9.0);

  m.def(
      "identify",
      [](const Config& config, const carray<double>& mu_arr, std::uint64_t seed, std::int64_t max_steps, bool record) {
        const std::vector<double> mu = to_vector(mu_arr, "mu");
        check_mu(config, mu);
        if (config.arms == Arms::bernoulli)
          return identify_impl<Arms::bernoulli>(config, mu, seed, max_steps, record);
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
        require(n_runs >= 1, "n_runs: expected a positive integer, got " + std::to_string(n_runs));
        require(first_run >= 0 && first_run <= (std::int64_t{1} << 62) - n_runs,
                "first_run: expected a non-negative run index below 2**62 - n_runs");
        if (config.arms == Arms::bernoulli)
          return run_many_impl<Arms::bernoulli>(config, mu, seed, first_run, n_runs, max_steps, n_threads);
        return run_many_impl<Arms::gaussian>(config, mu, seed, first_run, n_runs, max_steps, n_threads);
      },
      py::arg("config"), py::arg("mu"), py::arg("seed"), py::arg("n_runs"), py::arg("max_steps"),
      py::arg("n_threads"), py::arg("first_run") = 0,
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
           py::arg("cumulative"), py::arg("weights_left"), py::arg("round"),
           py::arg("elimination"))
      .def("set_threshold_values", &IncrementalSampler::set_threshold_values, py::arg("values"))
      .def("state", &IncrementalSampler::state);

  m.def(
      "characteristic_time",
      [](const carray<double>& mu_arr, double beta, const std::string& arms, double sigma) {
        const std::vector<double> mu = to_vector(mu_arr, "mu");
        CharacteristicTime result;
        const Arms kind = parse_arms(arms);
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
      [](const carray<double>& mu_i, const carray<double>& n_i, const carray<double>& mu_j,
         const carray<double>& n_j, const std::string& arms, double sigma) {
        const py::ssize_t n = mu_i.size();
        require(n_i.size() == n && mu_j.size() == n && n_j.size() == n, "expected arrays of the same size");
        const Arms kind = parse_arms(arms);
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
      [](const std::string& kind, double delta, int K, const carray<std::int64_t>& t) {
        Config config(K, 0.5, "TCI", "random", "random", false, 1, "bernoulli", 1.0, kind, delta, py::none());
        carray<double> out(t.size());
        const std::int64_t* tt = t.data();
        double* o = out.mutable_data();
        bool positive = true;
        chunked(t.size(), [&](py::ssize_t lo, py::ssize_t hi) {
          for (py::ssize_t i = lo; i < hi; ++i) positive &= tt[i] >= 1;
        });
        require(positive, "t: expected positive times");
        const Threshold& c = config.options.threshold;
        chunked(t.size(), [&](py::ssize_t lo, py::ssize_t hi) {
          for (py::ssize_t i = lo; i < hi; ++i) o[i] = c(tt[i]);
        });
        return out;
      },
      py::arg("kind"), py::arg("delta"), py::arg("K"), py::arg("t"), "c(t, delta) of a named threshold.");
}
