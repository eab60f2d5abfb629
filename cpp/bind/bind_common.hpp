// Helpers shared by the binding files (pybind11 lives only under cpp/bind).
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstddef>
#include <string>

#include "paperkernels/common/errors.hpp"
#include "paperkernels/common/parallel.hpp"

namespace paperkernels::bind {

namespace py = pybind11;

// A Poll for parallel_for that runs Python's signal handlers. It must be called from the thread
// that released the GIL; if a handler raised (KeyboardInterrupt on Ctrl-C), the Python error stays
// set on this thread and the `interrupted` translator leaves it in place.
inline Poll python_signal_poll() {
  return []() {
    py::gil_scoped_acquire acquire;
    return PyErr_CheckSignals() != 0;
  };
}

// C-contiguous array of T: the Python layer validates and converts, this only asserts it did.
template <class T>
using carray = py::array_t<T, py::array::c_style>;

// The options arrive as enum members. pybind11 also lets Python build a member from any integer
// (Enum(7)): such a value names no option and is refused. `last` is the enum's last member.
template <class Enum>
Enum known(Enum value, Enum last, const char* name) {
  const auto v = static_cast<long long>(value);
  require(v >= 0 && v <= static_cast<long long>(last), name, ": expected a member of the enum, got the value ", v);
  return value;
}

template <class T>
void require_ndim(const carray<T>& a, py::ssize_t ndim, const char* name) {
  require(a.ndim() == ndim, name, ": expected a ", ndim, "-d array, got ", a.ndim(), "-d");
}

}  // namespace paperkernels::bind
