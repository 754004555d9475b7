#pragma once
/// \file
/// vxsim's exception type: every simulated-program fault (bad instruction, bad access, deadlock,
/// runaway kernel, bad binary) is raised as SimError; the host process never aborts.

#include <string>
#include <utility>

#include <fmt/format.h>

#include "vxsynth/common/error.h"

namespace vxsim {

/// Class of a simulation error; the CLI maps every class to a non-zero exit status.
enum class ErrorKind {
  kConfig,           ///< invalid Config
  kLoader,           ///< unreadable or malformed .vxbin/.elf
  kIllegalInstr,     ///< undecodable or unsupported instruction word
  kDivergence,       ///< strict-divergence violation on a conditional branch
  kMisaligned,       ///< misaligned load/store/AMO or PC
  kOutOfRange,       ///< access outside any mapped space (null page, LMEM overrun, IO misuse)
  kAccessViolation,  ///< runtime ACL flags forbid the access
  kIpdomOverflow,    ///< SPLIT pushed more than NUM_THREADS-1 entries
  kIpdomUnderflow,   ///< JOIN with an empty stack
  kDeadlock,         ///< active warps exist but none can make progress
  kBudget,           ///< instruction budget or wall-clock limit exhausted (runaway kernel?)
  kRunaway,          ///< endless loop detected: the kernel can never finish
  kRace,             ///< local-memory race between two warps (Config::check_races)
  kCsr,              ///< unknown CSR or write to a read-only CSR
  kTcu,              ///< WMMA used with an unsupported format or partial mask
  kRuntime,          ///< host runtime misuse (bad buffer, bad size)
};

/// Raised for every simulated-program fault. `what()` names PC, warp, lane and address where
/// they apply.
class SimError : public vxsynth::Error {
 public:
  SimError(ErrorKind kind, const std::string& message) : vxsynth::Error(message), kind_(kind) {}
  [[nodiscard]] ErrorKind kind() const { return kind_; }

 private:
  ErrorKind kind_;
};

/// `throw sim_error(ErrorKind::kMisaligned, "misaligned load at PC {:#010x}", pc);`
template <typename... Args>
[[nodiscard]] SimError sim_error(ErrorKind kind, fmt::format_string<Args...> format, Args&&... args) {
  return SimError(kind, fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace vxsim
