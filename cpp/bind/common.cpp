// Bindings of the shared C++ core, used by the foundation tests (PRNG streams, the deterministic
// parallel-for, error translation and interruption).
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <pybind11/stl.h>

#include "bind_common.hpp"
#include "paperkernels/common/random.hpp"
#include "paperkernels/common/simd.hpp"

namespace py = pybind11;
using namespace paperkernels;
using paperkernels::bind::carray;

void bind_common(py::module_& m) {
  m.def(
      "random_uint64",
      [](std::uint64_t seed, std::uint64_t stream, py::ssize_t n) {
        require(n >= 0, "n: expected a non-negative count, got " + std::to_string(n));
        carray<std::uint64_t> out(n);
        auto* data = out.mutable_data();
        {
          py::gil_scoped_release release;
          Xoshiro256 rng(seed, stream);
          for (py::ssize_t i = 0; i < n; ++i) data[i] = rng.next();
        }
        return out;
      },
      py::arg("seed"), py::arg("stream"), py::arg("n"),
      "First n raw 64-bit outputs of stream `stream` of `seed` (xoshiro256**).");

  m.def(
      "random_uniform",
      [](std::uint64_t seed, std::uint64_t stream, py::ssize_t n) {
        require(n >= 0, "n: expected a non-negative count, got " + std::to_string(n));
        carray<double> out(n);
        auto* data = out.mutable_data();
        {
          py::gil_scoped_release release;
          Xoshiro256 rng(seed, stream);
          for (py::ssize_t i = 0; i < n; ++i) data[i] = rng.uniform();
        }
        return out;
      },
      py::arg("seed"), py::arg("stream"), py::arg("n"), "First n uniforms on [0, 1) of a stream.");

  m.def(
      "random_bernoulli_counts",
      [](std::uint64_t seed, double p, py::ssize_t n_streams, py::ssize_t n_draws, unsigned n_threads) {
        require(p >= 0.0 && p <= 1.0, "p: expected a probability in [0, 1], got " + std::to_string(p));
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
              if (static_cast<py::ssize_t>(r) >= fail_from)
                throw invalid_argument("task " + std::to_string(r) + " failed");
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

  m.def("hardware_threads", &hardware_threads, "Number of hardware threads seen by the C++ core.");

  // The instruction set of the SIMD kernels (paperkernels.set_isa / get_isa / show_config).
  m.def(
      "isa_get", [] { return std::string(simd::name(simd::active())); },
      "The instruction set the SIMD kernels use: 'avx512', 'avx2' or 'sse2'.");
  m.def(
      "isa_set", [](const std::string& isa) { simd::set_active(simd::parse(isa)); }, py::arg("isa"),
      "Makes every SIMD kernel use `isa` ('avx512', 'avx2' or 'sse2'); ValueError when the CPU lacks it.");
  m.def(
      "isa_supported",
      [] {
        std::vector<std::string> out;
        for (auto isa : {simd::Isa::avx512, simd::Isa::avx2, simd::Isa::sse2})
          if (simd::supported(isa)) out.emplace_back(simd::name(isa));
        return out;
      },
      "The instruction sets this CPU runs, widest first.");
  m.def(
      "cpu_features",
      [] {
        std::vector<std::pair<std::string, bool>> out;
#ifdef PAPERKERNELS_SIMD_X86
        __builtin_cpu_init();
#define PAPERKERNELS_FEATURE(name) out.emplace_back(name, __builtin_cpu_supports(name) != 0)
        PAPERKERNELS_FEATURE("sse2");
        PAPERKERNELS_FEATURE("sse3");
        PAPERKERNELS_FEATURE("ssse3");
        PAPERKERNELS_FEATURE("sse4.1");
        PAPERKERNELS_FEATURE("sse4.2");
        PAPERKERNELS_FEATURE("popcnt");
        PAPERKERNELS_FEATURE("avx");
        PAPERKERNELS_FEATURE("avx2");
        PAPERKERNELS_FEATURE("fma");
        PAPERKERNELS_FEATURE("bmi2");
        PAPERKERNELS_FEATURE("avx512f");
        PAPERKERNELS_FEATURE("avx512dq");
        PAPERKERNELS_FEATURE("avx512bw");
        PAPERKERNELS_FEATURE("avx512vl");
#undef PAPERKERNELS_FEATURE
#endif
        return out;
      },
      "(name, present) for the x86-64 features the kernels care about (empty elsewhere).");
}
