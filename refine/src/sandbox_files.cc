// File rules (docs/sandbox.md "File rules"): which files an agent may change, and the raw-text
// source rules on the ones it changed.
#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "sandbox_scan.h"

namespace vxsynth::refine {
namespace {

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

bool is_c_family(const std::string& p) {
  for (const char* ext : {".cu", ".cuh", ".cpp", ".h", ".cc", ".hpp"})
    if (p.ends_with(ext)) return true;
  return false;
}

// The raw-text pass of the source rules: comments blanked in C/C++/CUDA files, literals joined.
void scan_raw(const std::string& path, const std::string& content, const SandboxRules& rules,
              std::vector<Violation>& out) {
  const std::string code = is_c_family(path) ? detail::blank_comments(content) : content;
  detail::scan(path, detail::join_adjacent_literals(detail::with_lines(code)), rules, out);
}

}  // namespace

std::string Violation::message() const {
  if (file.empty()) return fmt::format("{}: {}", rule, what);
  if (line == 0) return fmt::format("{}: {}: {}", rule, file, what);
  return fmt::format("{}: {}:{}: {}", rule, file, line, what);
}

SandboxRules default_rules() {
  SandboxRules r;
  r.editable = {"cuda/candidate.cu", "vortex/kernel.cpp", "vortex/main.cpp", "vortex/common.h"};
  r.swap_target_files = {"cuda/swap.json"};
  r.stored_output_names = {"ref_output", "reference_output", "outputs.bin"};
  return r;
}

std::vector<Violation> check_sources(const SourceTree& expected, const SourceTree& candidate,
                                     const SandboxRules& rules) {
  std::vector<Violation> out;
  std::set<std::string> paths;
  for (const auto& [p, _] : expected) paths.insert(p);
  for (const auto& [p, _] : candidate) paths.insert(p);
  for (const std::string& p : paths) {
    const auto old_it = expected.find(p);
    const auto new_it = candidate.find(p);
    const bool was = old_it != expected.end();
    const bool is = new_it != candidate.end();
    if (was && is && old_it->second == new_it->second) continue;  // unchanged
    if (!expected.empty()) {
      if (contains(rules.swap_target_files, p)) {
        out.push_back({"swap_target", p, 0, "the operator-swap target may not change"});
        continue;
      }
      // Byte for byte: a line that looks like a comment can be code to the tool reading the file
      // (a Makefile line starting with a tab and '#' is a recipe that make runs).
      if (!contains(rules.editable, p)) {
        out.push_back({"edit_outside_named_files", p, 0, was && is ? "changed" : (is ? "added" : "removed")});
        continue;
      }
      if (!is) {
        out.push_back({"edit_outside_named_files", p, 0, "a named file may not be removed"});
        continue;
      }
    }
    // The code rules apply to the editable files: everything else is the harness's own rendering
    // (the fixed runtime, which does the file I/O; the swap target, reference data naming the
    // reference kernel and op stack, e.g. "cutlass::Kernel2<…>" or "aten::cudnn_convolution").
    if (is && contains(rules.editable, p)) scan_raw(p, new_it->second, rules, out);
  }
  return out;
}

}  // namespace vxsynth::refine
