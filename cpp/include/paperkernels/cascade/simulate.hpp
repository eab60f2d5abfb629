// The bandit loop: several learners facing the same random clicks, several runs in parallel.
//
// Run r draws u[t, i] ~ U(0, 1) for every round t and item i from stream r of `seed` (a row of L
// uniforms per round, items in order); the item at position k of a cascade is clicked iff
// u[t, item] < p(item | s_k), and the user stops at the first click. Learner j of run r draws its
// own randomness (the random baseline) from stream (j + 1) * 2^32 + r. The expected regret of a
// round is R(A*) - R(A_t) under the true click table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "paperkernels/cascade/learners.hpp"
#include "paperkernels/cascade/model.hpp"
#include "paperkernels/cascade/state_space.hpp"
#include "paperkernels/common/parallel.hpp"
#include "paperkernels/common/random.hpp"

namespace paperkernels::cascade {

struct Environment {
  ItemsView items;
  const double* P;  // true click table, L x S (S = space.size())
  const StateSpace* space;
  double optimal_value;
};

struct SimulationOutput {
  double* regret;          // n_learners x n_runs x T
  std::int32_t* cascades;  // n_learners x n_runs x T x K, or null
  std::int8_t* clicks;     // n_learners x n_runs x T (first click position, -1 none), or null
};

inline std::uint64_t learner_stream(std::size_t learner, std::size_t run) {
  return (static_cast<std::uint64_t>(learner + 1) << 32) + static_cast<std::uint64_t>(run);
}

// One run: all learners, T rounds, written at slot `run` of out (which holds n_runs runs). Its random
// streams are those of run first_run + run, so a batch of runs split into consecutive ranges gives
// the same runs. Returns early (leaving zeros) if a stop was requested.
inline void simulate_run(const Environment& env, const std::vector<LearnerConfig>& configs, std::int64_t T,
                         std::uint64_t seed, std::size_t first_run, std::size_t run, std::size_t n_runs,
                         const SimulationOutput& out, const StopToken& token) {
  const std::size_t L = env.items.L;
  const int K = env.space->K();
  const int S = env.space->size();
  const std::size_t n_learners = configs.size();
  // Long learner set-ups and select() calls stop with the run when a stop is requested.
  Interrupt stop([&token] { return token.stop_requested(); });
  std::vector<std::unique_ptr<Learner>> learners;
  const std::size_t stream_run = first_run + run;
  for (std::size_t j = 0; j < n_learners; ++j)
    learners.push_back(make_learner(configs[j], seed, learner_stream(j, stream_run), &stop));
  Xoshiro256 rng(seed, stream_run);
  std::vector<double> u(L);
  std::vector<std::int32_t> cascade(K);
  std::vector<double> probs(K);
  for (std::int64_t t = 0; t < T; ++t) {
    if ((t & 63) == 0 && token.stop_requested()) return;
    for (std::size_t i = 0; i < L; ++i) u[i] = rng.uniform();
    for (std::size_t j = 0; j < n_learners; ++j) {
      learners[j]->select(env.items, cascade.data());
      int s = StateSpace::root();
      int first_click = -1;
      for (int k = 0; k < K; ++k) {
        const std::size_t item = static_cast<std::size_t>(cascade[k]);
        probs[k] = env.P[item * S + s];
        if (first_click < 0 && u[item] < probs[k]) first_click = k;
        if (k + 1 < K) s = env.space->next(s, static_cast<int>(env.items.topics[item]));
      }
      const std::size_t slot = (j * n_runs + run) * static_cast<std::size_t>(T) + static_cast<std::size_t>(t);
      out.regret[slot] = env.optimal_value - cascade_value(probs.data(), K);
      if (out.cascades) std::copy(cascade.begin(), cascade.end(), out.cascades + slot * K);
      if (out.clicks) out.clicks[slot] = static_cast<std::int8_t>(first_click);
      learners[j]->update(env.items, cascade.data(), first_click);
    }
  }
}

}  // namespace paperkernels::cascade
