#pragma once
// Shared text formatting for the cli subcommands.

#include <filesystem>
#include <optional>
#include <string>

#include "vxsynth/core/context.h"
#include "vxsynth/core/signature.h"

namespace vxsynth::cli {

/// This executable (/proc/self/exe); empty when it cannot be read.
std::filesystem::path self_executable();

/// <build>/sdk next to <build>/cli/vxsynth, the layout of a vxsynth build tree (the SDK's sdk.mk).
std::filesystem::path default_sdk_dir();

/// The python/ folder holding the vxsynth_torch package, resolved when the program runs: the
/// environment's VXSYNTH_PYTHON_DIR when set, else python/ of the nearest directory above this
/// executable that has python/vxsynth_torch/workloads/ (a build tree's <source>/build/<preset>/cli/
/// vxsynth, a device pack's <checkout>/.devcarry/vxdev/bin/vxsynth). Empty when neither is found.
/// `from` names where the result came from, for messages ("VXSYNTH_PYTHON_DIR", "above <exe>").
std::filesystem::path default_python_dir(std::string& from);

/// True when `dir` holds the vxsynth_torch package (dir/vxsynth_torch/__init__.py).
bool has_vxsynth_torch(const std::filesystem::path& dir);

/// A metric value in its table unit ("12.50 %", "1.23e+12 byte/s", "0.998"); "NA" for nullopt.
std::string format_metric(core::MetricId id, const std::optional<double>& v);

/// The context's shape (core::shape_string: "M=4096 N=4096 K=4096", "B=8 M=… ", "N=1 C=64 … g=1"; "-" if none).
using core::shape_string;

/// `s` cut to at most `width` characters, ending in "..." when it was longer. The cut falls between
/// tokens (after "<", ",", " ", "(" …), never inside an identifier or a number, unless no token
/// boundary lies in the last half of the room.
std::string clip(const std::string& s, std::size_t width);

}  // namespace vxsynth::cli
