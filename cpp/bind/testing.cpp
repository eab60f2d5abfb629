// Fault injection and work loads for the test suite (deterministic parallel-for, error translation,
// interruption). Compiled only with PAPERKERNELS_TEST_HOOKS (developer and sanitizer builds).
#ifdef PAPERKERNELS_TEST_HOOKS
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>

#include "bind_common.hpp"
#include "paperkernels/common/random.hpp"

namespace py = pybind11;
using namespace paperkernels;
using paperkernels::bind::carray;

void bind_testing(py::module_& m) {
  m.def(
      "random_bernoulli_counts",
      [](std::uint64_t seed, double p, py::ssize_t n_streams, py::ssize_t n_draws, unsigned n_threads) {
        require(p >= 0.0 && p <= 1.0, "p: expected a probability in [0, 1], got ", p);
        require(n_streams >= 0 && n_draws >= 0, "n_streams, n_draws: expected non-negative counts");
        carray<std::int64_t> out(n_streams);
        auto* data = out.mutable_data();
        const std::uint64_t threshold = bernoulli_threshold(p);
        {
          py::gil_scoped_release release;
          parallel_for(
              static_cast<std::size_t>(n_streams), n_threads,
              [&](std::size_t r, const StopToken&) {
                Xoshiro256 rng(seed, r);
                std::int64_t successes = 0;
                for (py::ssize_t i = 0; i < n_draws; ++i) successes += rng.bernoulli(threshold);
                data[r] = successes;
              },
              bind::python_signal_poll());
        }
        return out;
      },
      py::arg("seed"), py::arg("p"), py::arg("n_streams"), py::arg("n_draws"), py::arg("n_threads"),
      "Success counts of n_draws Bernoulli(p) draws on each of n_streams streams, in parallel.");

  m.def(
      "parallel_stream_sums",
      [](std::uint64_t seed, py::ssize_t n_tasks, py::ssize_t n_draws, unsigned n_threads) {
        require(n_tasks >= 0 && n_draws >= 0, "n_tasks, n_draws: expected non-negative counts");
        carray<double> out(n_tasks);
        auto* data = out.mutable_data();
        {
          py::gil_scoped_release release;
          parallel_for(
              static_cast<std::size_t>(n_tasks), n_threads,
              [&](std::size_t r, const StopToken&) {
                Xoshiro256 rng(seed, r);
                double sum = 0.0;
                for (py::ssize_t i = 0; i < n_draws; ++i) sum += rng.normal();
                data[r] = sum;
              },
              bind::python_signal_poll());
        }
        return out;
      },
      py::arg("seed"), py::arg("n_tasks"), py::arg("n_draws"), py::arg("n_threads"),
      "Per-task sums of n_draws standard normals from stream r, computed by the parallel-for.");

  m.def(
      "parallel_fail_at",
      [](py::ssize_t n_tasks, py::ssize_t fail_from, unsigned n_threads) {
        py::gil_scoped_release release;
        parallel_for(
            static_cast<std::size_t>(n_tasks), n_threads,
            [&](std::size_t r, const StopToken&) {
              if (static_cast<py::ssize_t>(r) >= fail_from) fail("task ", r, " failed");
            },
            bind::python_signal_poll());
      },
      py::arg("n_tasks"), py::arg("fail_from"), py::arg("n_threads"),
      "Raises ValueError from task fail_from (the lowest failing index), whatever the thread count.");

  m.def(
      "parallel_busy_wait",
      [](py::ssize_t n_tasks, double seconds_per_task, unsigned n_threads) {
        py::gil_scoped_release release;
        parallel_for(
            static_cast<std::size_t>(n_tasks), n_threads,
            [&](std::size_t, const StopToken& token) {
              const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds_per_task);
              while (std::chrono::steady_clock::now() < end && !token.stop_requested())
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            },
            bind::python_signal_poll());
      },
      py::arg("n_tasks"), py::arg("seconds_per_task"), py::arg("n_threads"),
      "Sleeps in every task, checking for a stop request: for tests of Ctrl-C handling.");
}
#endif
