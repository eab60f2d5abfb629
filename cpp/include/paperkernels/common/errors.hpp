// Exceptions that the bindings translate: invalid_argument -> ValueError (message intact),
// interrupted -> KeyboardInterrupt (or whatever the Python signal handler raised).
#pragma once

#include <charconv>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace paperkernels {

struct invalid_argument : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

struct interrupted : std::runtime_error {
  interrupted() : std::runtime_error("interrupted") {}
};

namespace detail {

// Doubles print as the shortest text that reads back to the same value (0.1, 1e-300, not
// std::to_string's 0.000000); integers and text as usual.
inline void append_part(std::string& out, double value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.append(buffer, result.ptr);
}
inline void append_part(std::string& out, const std::string& text) { out += text; }
inline void append_part(std::string& out, const char* text) { out += text; }
inline void append_part(std::string& out, char c) { out += c; }
template <class Integer, std::enable_if_t<std::is_integral_v<Integer>, int> = 0>
void append_part(std::string& out, Integer value) {
  out += std::to_string(value);
}
inline void append_part(std::string& out, bool value) { out += value ? "true" : "false"; }
inline void append_part(std::string& out, float value) { append_part(out, static_cast<double>(value)); }

}  // namespace detail

// Throws invalid_argument whose message is the parts concatenated: fail("k: expected <= ", p, ", got ", k).
template <class... Parts>
[[noreturn]] void fail(const Parts&... parts) {
  std::string message;
  (detail::append_part(message, parts), ...);
  throw invalid_argument(message);
}

// require(condition, parts...): the message is built only when the condition fails, so hot paths
// pay for the test alone. Pass the pieces, not a prebuilt string: require(n >= 0, "n: got ", n).
template <class... Parts>
inline void require(bool condition, const Parts&... parts) {
  if (!condition) fail(parts...);
}

}  // namespace paperkernels
