// The uniformly random baseline.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <type_traits>
#include <utility>
#include <vector>

#include "paperkernels/cascade/learners/common.hpp"
#include "paperkernels/common/errors.hpp"
#include "paperkernels/common/random.hpp"

namespace paperkernels::cascade {

// Uniformly random cascade (a partial Fisher-Yates shuffle with the learner's own stream).
class RandomLearner final : public Learner {
 public:
  RandomLearner(const LearnerConfig& cfg, std::uint64_t seed, std::uint64_t stream, Interrupt* stop = nullptr)
      : Learner(cfg, stop), rng_(seed, stream) {}

  void select(const ItemsView& items, std::int32_t* cascade) override {
    check_items(items, false);
    perm_.resize(items.L);
    std::iota(perm_.begin(), perm_.end(), 0);
    for (int k = 0; k < config_.K; ++k) {
      const std::size_t j =
          static_cast<std::size_t>(k) + static_cast<std::size_t>(rng_.below(items.L - static_cast<std::size_t>(k)));
      std::swap(perm_[k], perm_[j]);
      cascade[k] = perm_[k];
    }
  }
  void update(const ItemsView&, const std::int32_t*, int) override { ++rounds_; }

  // The generator is four 64-bit words (trivially copyable): saved and restored as they are.
  static_assert(std::is_trivially_copyable_v<Xoshiro256> && sizeof(Xoshiro256) == 4 * sizeof(std::uint64_t),
                "the random baseline pickles its generator as four words");
  void save(LearnerState& out) const override {
    Learner::save(out);
    out.rng.assign(4, 0);
    std::memcpy(out.rng.data(), &rng_, sizeof rng_);
  }
  void load(const LearnerState& in) override {
    require(in.rng.size() == 4, "state: expected the four words of the random generator");
    Learner::load(in);
    std::memcpy(static_cast<void*>(&rng_), in.rng.data(), sizeof rng_);
  }

 private:
  Xoshiro256 rng_;
  std::vector<std::int32_t> perm_;
};

}  // namespace paperkernels::cascade
