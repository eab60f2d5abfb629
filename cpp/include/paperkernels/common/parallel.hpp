// A small deterministic parallel-for over independent tasks. Task i is identified by its index
// only (it must use random stream i and write its results at index i), so results never depend on
// the number of threads or on scheduling.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "paperkernels/common/errors.hpp"

namespace paperkernels {

// Set when the caller asked to stop (e.g. Ctrl-C). Long tasks may check it inside their loops.
class StopToken {
 public:
  bool stop_requested() const noexcept { return flag_.load(std::memory_order_relaxed); }
  void request_stop() noexcept { flag_.store(true, std::memory_order_relaxed); }

 private:
  std::atomic<bool> flag_{false};
};

// Called every few milliseconds from the thread that started the work; returns true to abort.
using Poll = std::function<bool()>;

inline unsigned hardware_threads() noexcept {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : n;
}

// Runs every task on the calling thread, polling between tasks: the fallback when no worker thread
// can be started.
template <class Task>
void run_inline(std::size_t n_tasks, Task& task, const Poll& poll) {
  StopToken token;
  for (std::size_t i = 0; i < n_tasks; ++i) {
    if (poll && poll()) throw interrupted();
    task(i, static_cast<const StopToken&>(token));
  }
}

// Runs task(i, token) for i in [0, n_tasks) on up to n_threads threads. If a task throws, the
// exception of the lowest-indexed failing task is rethrown after all threads have joined. If poll
// returns true the token is set, remaining tasks are skipped, and `interrupted` is thrown.
template <class Task>
void parallel_for(std::size_t n_tasks, unsigned n_threads, Task&& task, const Poll& poll = {},
                  std::chrono::milliseconds poll_interval = std::chrono::milliseconds(5)) {
  if (n_tasks == 0) return;
  StopToken token;
  n_threads = static_cast<unsigned>(std::max<std::size_t>(1, std::min<std::size_t>(n_threads, n_tasks)));

  if (!poll && n_threads == 1) {
    for (std::size_t i = 0; i < n_tasks; ++i) task(i, static_cast<const StopToken&>(token));
    return;
  }

  std::atomic<std::size_t> next{0};
  std::mutex mutex;
  std::condition_variable done_cv;
  unsigned running = n_threads;
  std::size_t failed_index = n_tasks;
  std::exception_ptr failure;

  auto worker = [&]() {
    for (;;) {
      if (token.stop_requested()) break;
      const std::size_t i = next.fetch_add(1, std::memory_order_relaxed);
      if (i >= n_tasks) break;
      try {
        task(i, static_cast<const StopToken&>(token));
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex);
        if (i < failed_index) {
          failed_index = i;
          failure = std::current_exception();
        }
      }
    }
    std::lock_guard<std::mutex> lock(mutex);
    if (--running == 0) done_cv.notify_all();
  };

  std::vector<std::thread> threads;
  threads.reserve(n_threads);
  for (unsigned t = 0; t < n_threads; ++t) {
    try {
      threads.emplace_back(worker);
    } catch (const std::system_error&) {
      // The system refused another thread (address-space or process limits): the threads already
      // started share the work, which only changes the schedule, never the results.
      std::lock_guard<std::mutex> lock(mutex);
      running -= n_threads - t;
      break;
    }
  }
  if (threads.empty()) {
    run_inline(n_tasks, task, poll);
    return;
  }

  bool aborted = false;
  {
    std::unique_lock<std::mutex> lock(mutex);
    while (running > 0) {
      done_cv.wait_for(lock, poll_interval);
      if (running > 0 && poll && !aborted) {
        lock.unlock();
        if (poll()) {
          aborted = true;
          token.request_stop();
        }
        lock.lock();
      }
    }
  }
  for (auto& thread : threads) thread.join();
  if (aborted) throw interrupted();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace paperkernels
