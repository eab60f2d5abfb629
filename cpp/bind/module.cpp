// The single extension module, paperkernels._core: one submodule per library module
// (_core.toptwo, _core.cascade, ...), each bound in its own file, plus the shared pieces
// (_core.common: random streams and the parallel-for; _core.isa: the SIMD dispatch).
#include <pybind11/pybind11.h>

#include "paperkernels/common/errors.hpp"

namespace py = pybind11;

void bind_common(py::module_& m);
void bind_isa(py::module_& m);
#ifdef PAPERKERNELS_TEST_HOOKS
void bind_testing(py::module_& m);
#endif
void bind_shapes(py::module_& m);
void bind_greedy(py::module_& m);
void bind_relu(py::module_& m);
void bind_cascade(py::module_& m);
void bind_toptwo(py::module_& m);
void bind_build_info(py::module_& m);

PYBIND11_MODULE(_core, m) {
  m.doc() = "paperkernels C++ core (private: import paperkernels instead)";
#ifdef PAPERKERNELS_VERSION
  m.attr("__version__") = PAPERKERNELS_VERSION;
#endif

  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const paperkernels::interrupted&) {
      // The signal handler's exception (normally KeyboardInterrupt) is already set; keep it.
      if (!PyErr_Occurred()) PyErr_SetNone(PyExc_KeyboardInterrupt);
    } catch (const paperkernels::invalid_argument& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });

  py::module_ common_module = m.def_submodule("common", "Random streams and the deterministic parallel-for.");
  bind_common(common_module);
  py::module_ isa_module = m.def_submodule("isa", "The instruction set of the SIMD kernels.");
  bind_isa(isa_module);
  py::module_ shapes_module = m.def_submodule("shapes", "Zernike moments and XShapeEnc codes.");
  bind_shapes(shapes_module);
  py::module_ greedy_module = m.def_submodule("greedy", "Greedy forward-selection ensembles.");
  bind_greedy(greedy_module);
  py::module_ relu_module = m.def_submodule("relu", "Canonical forms of ReLU networks.");
  bind_relu(relu_module);
  py::module_ cascade_module = m.def_submodule("cascade", "Topic-dependent cascading bandits.");
  bind_cascade(cascade_module);
  py::module_ toptwo_module = m.def_submodule("toptwo", "Fixed-confidence best-arm identification episodes.");
  bind_toptwo(toptwo_module);
  bind_build_info(m);
#ifdef PAPERKERNELS_TEST_HOOKS
  // Fault injection for the test suite only (never in a release build: see cpp/CMakeLists.txt).
  py::module_ testing_module = m.def_submodule("testing", "Test-only hooks.");
  bind_testing(testing_module);
#endif
}
