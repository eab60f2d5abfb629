// Bindings of the shared C++ core: the PRNG streams (so that a reference implementation can check
// that it replays the same draws) and the hardware thread count.
#include <cstdint>
#include <string>

#include "bind_common.hpp"
#include "paperkernels/common/random.hpp"

namespace py = pybind11;
using namespace paperkernels;
using paperkernels::bind::carray;

void bind_common(py::module_& m) {
  m.def(
      "random_uint64",
      [](std::uint64_t seed, std::uint64_t stream, py::ssize_t n) {
        require(n >= 0, "n: expected a non-negative count, got ", n);
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
        require(n >= 0, "n: expected a non-negative count, got ", n);
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

  m.def("hardware_threads", &hardware_threads, "Number of hardware threads seen by the C++ core.");
}
