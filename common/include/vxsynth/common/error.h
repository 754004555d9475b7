#pragma once
/// \file
/// The project's one exception type for bad input and failed checks.

#include <stdexcept>
#include <string>

#include <fmt/format.h>

namespace vxsynth {

/// Raised for bad input (a file, field, line, instruction, PC, warp or lane is named in the message)
/// and for checks that fail. Command-line front ends print `what()` and exit non-zero; library code
/// never aborts the host process on bad input.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Builds an Error with a fmt-style message: `throw make_error("{}:{}: bad field '{}'", file, line, f);`
template <typename... Args>
[[nodiscard]] Error make_error(fmt::format_string<Args...> format, Args&&... args) {
  return Error(fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace vxsynth
