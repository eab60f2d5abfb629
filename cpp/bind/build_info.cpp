// What the extension was built with, for benchmark records: compiler, flags, build type, the source
// commit, and the instruction set the SIMD kernels use (simd.hpp).
#include <pybind11/pybind11.h>

#include <string>

#include "paperkernels/common/simd.hpp"

namespace py = pybind11;

#ifndef PAPERKERNELS_COMPILER_ID
#define PAPERKERNELS_COMPILER_ID "unknown"
#endif
#ifndef PAPERKERNELS_COMPILER_VERSION
#define PAPERKERNELS_COMPILER_VERSION "unknown"
#endif
#ifndef PAPERKERNELS_CXX_FLAGS
#define PAPERKERNELS_CXX_FLAGS ""
#endif
#ifndef PAPERKERNELS_BUILD_TYPE
#define PAPERKERNELS_BUILD_TYPE ""
#endif
#ifndef PAPERKERNELS_GIT_COMMIT
#define PAPERKERNELS_GIT_COMMIT ""
#endif

void bind_build_info(py::module_& m) {
  m.def(
      "build_info",
      []() {
        py::dict info;
        info["compiler_id"] = PAPERKERNELS_COMPILER_ID;
        info["compiler_version"] = PAPERKERNELS_COMPILER_VERSION;
#if defined(__VERSION__)
        info["compiler_banner"] = __VERSION__;
#endif
        info["cxx_flags"] = PAPERKERNELS_CXX_FLAGS;
        info["build_type"] = PAPERKERNELS_BUILD_TYPE;
        info["git_commit"] = PAPERKERNELS_GIT_COMMIT;  // of the source tree when CMake configured it
        info["cxx_standard"] = static_cast<long>(__cplusplus);
        info["isa"] = paperkernels::simd::name(paperkernels::simd::active());  // paperkernels.set_isa
        info["dispatch"] = true;
#if !defined(PAPERKERNELS_SIMD_X86)
        info["dispatch"] = false;
#endif
        return info;
      },
      "Compiler id and version, compile flags, build type, and the instruction set ('avx512', 'avx2', "
      "'sse2') the kernels use now (the widest this CPU runs unless paperkernels.set_isa chose another).");
}
