#pragma once
// The scanner behind the source rules (sandbox_source_rules.cc), shared by the raw-text check
// (sandbox_files.cc) and the preprocessed-text check (sandbox_artefacts.cc).

#include <string>
#include <vector>

#include "vxsynth/refine/sandbox.h"

namespace vxsynth::refine::detail {

// Text to scan and, per character, the 1-based source line it came from.
struct ScanText {
  std::string text;
  std::vector<int> line;
};

// C/C++ source with // and /* */ comments blanked (newlines and string literals kept).
[[nodiscard]] std::string blank_comments(const std::string& src);

// `code` with its line numbers (counted from 1).
[[nodiscard]] ScanText with_lines(const std::string& code);

// Adjacent string literals joined ("cub" "las" → "cublas"), as translation phase 6 does: the
// compiler sees one literal, so the rules do too.
[[nodiscard]] ScanText join_adjacent_literals(const ScanText& in);

// True for kernel sources (*.cu, *.cuh, kernel.cpp): the rules marked "device" apply to them.
[[nodiscard]] bool is_device_file(const std::string& path);

// Every source rule that applies to `path` and every stored-output name, over `t`; one violation
// per rule row and file (its first match).
void scan(const std::string& path, const ScanText& t, const SandboxRules& rules, std::vector<Violation>& out);

}  // namespace vxsynth::refine::detail
