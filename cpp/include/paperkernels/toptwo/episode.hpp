// One simulated best-arm-identification episode: the sampler of sampler.hpp against Bernoulli or
// Gaussian arms whose rewards come from stream `reward_stream(run)` of the seed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "paperkernels/common/errors.hpp"
#include "paperkernels/common/parallel.hpp"
#include "paperkernels/common/random.hpp"
#include "paperkernels/toptwo/sampler.hpp"

namespace paperkernels::toptwo {

template <Arms kind>
struct Environment;

template <>
struct Environment<Arms::bernoulli> {
  explicit Environment(const std::vector<double>& mu, double = 1.0) {
    thresholds.reserve(mu.size());
    for (double p : mu) thresholds.push_back(bernoulli_threshold(p));
  }
  // X = 1 with probability mu_a, decided by comparing one 64-bit draw with a precomputed threshold.
  std::int64_t draw(int a, Xoshiro256& rng) const { return rng.bernoulli(thresholds[a]) ? 1 : 0; }
  std::vector<std::uint64_t> thresholds;
};

template <>
struct Environment<Arms::gaussian> {
  Environment(const std::vector<double>& mu_, double sigma_) : mu(mu_), sigma(sigma_) {}
  // X = mu_a + sigma * Z with Z from Xoshiro256::normal().
  double draw(int a, Xoshiro256& rng) const { return mu[a] + sigma * rng.normal(); }
  std::vector<double> mu;
  double sigma;
};

struct EpisodeResult {
  int recommendation = -1;
  std::int64_t tau = 0;
  bool hit_max_steps = false;
  bool aborted = false;  // the stop token was set; the result is meaningless
};

// Runs until Z > c(t, delta) or t == max_steps (the stopping rule is checked at max_steps too).
// `observe(arm, reward)` sees every pull before it is recorded (a no-op unless recording).
template <Arms kind, class Observe>
EpisodeResult run_episode(Sampler<kind>& sampler, const Environment<kind>& env, Xoshiro256& rewards,
                          std::int64_t max_steps, const StopToken* token, Observe&& observe) {
  const std::int64_t initial = sampler.options().K * sampler.options().min_pulls;
  require(max_steps >= initial, "max_steps: expected at least K * min_pulls = ", initial, ", got ", max_steps);
  EpisodeResult result;
  // The stop token is read every 2^14 pulls, or every pull for the rules whose steps can take
  // milliseconds (Track-and-Stop's weights, TTTS's re-sampling).
  const auto& o = sampler.options();
  const std::int64_t poll_mask = o.tracking != Tracking::none || o.challenger == Challenger::rs ? 0 : 0x3FFF;
  for (;;) {
    if (sampler.initialised()) {
      if (sampler.should_stop()) break;
      if (sampler.t() >= max_steps) {
        result.hit_max_steps = true;
        break;
      }
    }
    const int a = sampler.select();
    const auto x = env.draw(a, rewards);
    observe(a, x);
    sampler.update(a, x);
    if ((sampler.t() & poll_mask) == 0 && token != nullptr && token->stop_requested()) {
      result.aborted = true;
      return result;
    }
  }
  result.recommendation = sampler.recommend();
  result.tau = sampler.t();
  return result;
}

}  // namespace paperkernels::toptwo
