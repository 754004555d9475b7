#pragma once
// Shared text formatting for the cli subcommands.

#include <optional>
#include <string>

#include "vxsynth/core/context.h"
#include "vxsynth/core/signature.h"

namespace vxsynth::cli {

/// A metric value in its table unit ("12.50 %", "1.23e+12 byte/s", "0.998"); "NA" for nullopt.
std::string format_metric(core::MetricId id, const std::optional<double>& v);

/// The context's shape: "M=4096 N=4096 K=4096", "B=8 M=… ", "N=1 C=64 H=56 W=56 K=64 R=3 S=3 s=1,1 p=1,1 d=1,1 g=1"; "-" if none.
std::string shape_string(const core::ReferenceContext& c);

/// `s` cut to at most `width` characters, ending in "..." when it was longer. The cut falls between
/// tokens (after "<", ",", " ", "(" …), never inside an identifier or a number, unless no token
/// boundary lies in the last half of the room.
std::string clip(const std::string& s, std::size_t width);

}  // namespace vxsynth::cli
