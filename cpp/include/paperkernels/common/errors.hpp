// Exceptions that the bindings translate: invalid_argument -> ValueError (message intact),
// interrupted -> KeyboardInterrupt (or whatever the Python signal handler raised).
#pragma once

#include <stdexcept>
#include <string>

namespace paperkernels {

struct invalid_argument : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

struct interrupted : std::runtime_error {
  interrupted() : std::runtime_error("interrupted") {}
};

inline void require(bool condition, const std::string& message) {
  if (!condition) throw invalid_argument(message);
}

}  // namespace paperkernels
