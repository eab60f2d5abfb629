// The single extension module, paperkernels._core. Each module's bindings live in their own file.
#include <pybind11/pybind11.h>

#include "paperkernels/common/errors.hpp"

namespace py = pybind11;

void bind_common(py::module_& m);
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

  bind_common(m);
  bind_shapes(m);
  bind_greedy(m);
  bind_relu(m);
  bind_cascade(m);
  bind_toptwo(m);
  bind_build_info(m);
}
