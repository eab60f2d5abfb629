// Learners for the topic-order cascading bandit, one file each under learners/:
//   topic_ucb.hpp  TopicUCB, the paper's optimistic learner (plans with optimistic, order-dependent
//                  click probabilities);
//   lin_ucb.hpp    CascadeLinUCB on x only (topic-agnostic);
//   ucb1_kl.hpp    CascadeUCB1 and CascadeKL-UCB (per-item indices);
//   random.hpp     uniformly random cascades;
//   common.hpp     the configuration, saved state, base class and shared numerics.
// make_learner builds the one a configuration names.
#pragma once

#include <cstdint>
#include <memory>

#include "paperkernels/cascade/learners/common.hpp"
#include "paperkernels/cascade/learners/lin_ucb.hpp"
#include "paperkernels/cascade/learners/random.hpp"
#include "paperkernels/cascade/learners/topic_ucb.hpp"
#include "paperkernels/cascade/learners/ucb1_kl.hpp"
#include "paperkernels/common/errors.hpp"

namespace paperkernels::cascade {

// `stop` (may be null) is polled while the learner builds its state space and during long select() calls.
inline std::unique_ptr<Learner> make_learner(const LearnerConfig& cfg, std::uint64_t seed, std::uint64_t stream,
                                             Interrupt* stop = nullptr) {
  switch (cfg.type) {
    case LearnerType::topic_ucb:
      return std::make_unique<TopicUCB>(cfg, stop);
    case LearnerType::lin_ucb:
      return std::make_unique<LinUCB>(cfg, stop);
    case LearnerType::ucb1:
    case LearnerType::kl_ucb:
      return std::make_unique<ItemUCB>(cfg, stop);
    case LearnerType::random:
      return std::make_unique<RandomLearner>(cfg, seed, stream, stop);
  }
  throw invalid_argument("learner: unknown type");
}

}  // namespace paperkernels::cascade
