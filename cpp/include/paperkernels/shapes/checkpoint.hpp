// Ctrl-C inside long loops of paperkernels.shapes.
//
// A Checkpoint is handed to every task that can run long on its own (one big polygon, one large
// raster, a basis build). Loops report the work they did with tick(); every kBudget units it looks
// for a stop request and throws `interrupted`. On the thread that released the GIL it calls the
// Python poll itself, at most every 5 ms of wall time; on a worker thread of parallel_for it reads
// the stop token that parallel_for sets when its own poll fires. Checking never changes what is
// computed, only when the work stops.
#pragma once

#include <chrono>
#include <cstddef>
#include <type_traits>

#include "paperkernels/common/errors.hpp"
#include "paperkernels/common/parallel.hpp"

namespace paperkernels::shapes {

class Checkpoint {
 public:
  // About 10-50 microseconds of inner-loop work between two looks at the clock or the token.
  static constexpr std::size_t kBudget = std::size_t{1} << 15;

  Checkpoint() = default;  // never stops
  explicit Checkpoint(const Poll& poll) : poll_(poll ? &poll : nullptr), next_(clock::now() + kInterval) {}
  explicit Checkpoint(const StopToken& token) : token_(&token) {}

  // Counts `work` units (roughly inner-loop iterations) and checks once kBudget have accumulated.
  void tick(std::size_t work) {
    done_ += work;
    if (done_ >= kBudget) {
      done_ = 0;
      check();
    }
  }

  // Throws `interrupted` if a stop was asked for (polling Python when the interval has passed).
  void check() {
    if (token_ != nullptr && token_->stop_requested()) throw interrupted();
    if (poll_ != nullptr) {
      const auto now = clock::now();
      if (now >= next_) {
        if ((*poll_)()) throw interrupted();
        next_ = clock::now() + kInterval;
      }
    }
  }

 private:
  using clock = std::chrono::steady_clock;
  static constexpr std::chrono::milliseconds kInterval{5};

  const Poll* poll_ = nullptr;
  const StopToken* token_ = nullptr;
  clock::time_point next_{};
  std::size_t done_ = 0;
};

namespace detail {
template <class Fn>
void run_task(Fn& fn, std::size_t i, Checkpoint& checkpoint) {
  if constexpr (std::is_invocable_v<Fn&, std::size_t, Checkpoint&>)
    fn(i, checkpoint);
  else
    fn(i);
}
}  // namespace detail

// Runs fn(i) or fn(i, checkpoint) for i < n on up to `threads` threads. On one thread the tasks
// run on the calling thread, which polls between tasks and, through the checkpoint, inside them;
// on several, parallel_for polls and the tasks' checkpoints read its stop token.
template <class Fn>
void run_parallel(std::size_t n, unsigned threads, const Poll& poll, Fn&& fn) {
  if (n == 0) return;
  if (threads <= 1 || n == 1) {
    Checkpoint checkpoint(poll);
    for (std::size_t i = 0; i < n; ++i) {
      detail::run_task(fn, i, checkpoint);
      if (i + 1 < n) checkpoint.check();
    }
    return;
  }
  parallel_for(
      n, threads,
      [&](std::size_t i, const StopToken& token) {
        Checkpoint checkpoint(token);
        detail::run_task(fn, i, checkpoint);
      },
      poll);
}

}  // namespace paperkernels::shapes
