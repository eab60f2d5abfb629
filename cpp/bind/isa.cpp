// The instruction set of the SIMD kernels: paperkernels.set_isa / get_isa / show_config.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <utility>
#include <vector>

#include "paperkernels/common/simd.hpp"

namespace py = pybind11;
using namespace paperkernels;

void bind_isa(py::module_& m) {
  m.def(
      "get", [] { return std::string(simd::name(simd::active())); },
      "The instruction set the SIMD kernels use: 'avx512', 'avx2' or 'sse2'.");
  m.def(
      "set", [](const std::string& isa) { simd::set_active(simd::parse(isa)); }, py::arg("isa"),
      "Makes every SIMD kernel use `isa` ('avx512', 'avx2' or 'sse2'); ValueError when the CPU lacks it.");
  m.def(
      "supported",
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
