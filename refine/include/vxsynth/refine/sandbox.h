#pragma once
/// \file
/// The refinement sandbox (paper §3.3; docs/signature.md §2): the constraint set that
/// every revision is validated against before it is built, run or profiled, whatever agent wrote it.
///
/// Three layers, each a table of rules with a stable id that the record's rejection reason names:
///  1. file rules: only the named files may change (and the swap target never);
///  2. source rules: no vendor-library calls, no atomics, no reading of stored outputs;
///  3. fixed properties: engine class, data types, block size and shape, re-checked from what the
///     candidate's own launch and counters report (not from what its sources claim).
/// Time limits on builds and runs are part of the rules and enforced by the process runner.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "vxsynth/core/context.h"

namespace vxsynth::refine {

/// A candidate pair's files: path relative to the candidate root ("cuda/candidate.cu",
/// "vortex/kernel.cpp", …) → content.
using SourceTree = std::map<std::string, std::string>;

/// The constraint set of one reconstruction, fixed before refinement (paper §3.3).
struct SandboxRules {
  /// The files an agent may change; any other change (edit, addition, removal) is rejected.
  std::vector<std::string> editable;
  /// Files that define the operator swap (which framework call at which shape the CUDA candidate
  /// replaces); changing one is rejected as "swap_target".
  std::vector<std::string> swap_target_files;
  /// Names under which sampled reference outputs are stored (e.g. "ref_output.bin"); a candidate
  /// that mentions one is rejected as "stored_output".
  std::vector<std::string> stored_output_names;
  /// Wall-clock limits (seconds) on one build and one run of a candidate. Defaults are generous
  /// for the small shapes the CPU path runs (a seed build + vxsim run takes a few seconds here).
  double build_timeout_s = 300.0;
  double run_timeout_s = 600.0;
};

/// The default editable files and swap-target files of a candidate pair in vxsynth's layout
/// (docs/reconstruct.md "Candidate layout").
[[nodiscard]] SandboxRules default_rules();

/// One broken rule.
struct Violation {
  std::string rule;     ///< rule id: "edit_outside_named_files", "swap_target", "vendor_library",
                        ///< "atomics", "stored_output", "fixed_property"
  std::string file;     ///< candidate file, empty for launch/counter checks
  int line = 0;         ///< 1-based source line, 0 when not from a source
  std::string what;     ///< what was found, e.g. "atomicAdd(" or "block size 256 ≠ 128"
  /// "rule: file:line: what" — the record's rejection reason.
  [[nodiscard]] std::string message() const;
};

/// One row of the source-rule table (exposed for docs and tests).
struct SourceRule {
  const char* rule;        ///< rule id
  const char* pattern;     ///< ECMAScript regex, matched per line after comments are blanked
  const char* applies_to;  ///< "all", "device" (kernel sources: *.cu, kernel.cpp), or "host"
  const char* why;         ///< the paper/doc clause it enforces
};
[[nodiscard]] const std::vector<SourceRule>& source_rule_table();

/// Checks a candidate against the retained pair: file rules, then source rules on every changed
/// or added file (the seed is checked whole by passing an empty `retained`). Comments are ignored;
/// string literals are scanned (inline asm lives there). Returns all violations, empty = clean.
[[nodiscard]] std::vector<Violation> check_sources(const SourceTree& retained,
                                                   const SourceTree& candidate,
                                                   const SandboxRules& rules);

/// Properties a candidate exhibited in its own run (launch geometry and counters), as reported by
/// the profile backend. Unset fields were not observable by that backend and are not checked.
struct ObservedProperties {
  std::optional<uint32_t> block_size;           ///< threads per block of the launch
  std::optional<core::EngineClass> engine;      ///< from counters: tensor pipe / TCU busy > 0
  std::optional<core::DType> operand_type;      ///< from the launch arguments' element type
  std::optional<core::DType> accumulator_type;
  std::optional<core::GemmShape> gemm;          ///< the shape the launch computed
  std::optional<core::ConvShape> conv;
  std::optional<double> atomics_per_inst;       ///< counter: must be 0 (sandbox forbids atomics)
};

/// What the candidate must keep (docs/signature.md §2). Derived from the reference
/// context with the Vortex adaptation of paper §3.3: a TF32 tensor-core reference becomes FP16 on
/// the Vortex side (`for_vortex` = true).
struct FixedProperties {
  core::EngineClass engine = core::EngineClass::kSimt;
  core::DType operand_type = core::DType::kFp32;
  core::DType accumulator_type = core::DType::kFp32;
  uint32_t block_size = 0;
  std::optional<core::GemmShape> gemm;
  std::optional<core::ConvShape> conv;
};
[[nodiscard]] FixedProperties fixed_properties(const core::ReferenceContext& ctx, bool for_vortex);

/// Compares observed with fixed properties; also rejects any atomic instruction counted.
[[nodiscard]] std::vector<Violation> check_fixed_properties(const FixedProperties& fixed,
                                                            const ObservedProperties& observed);

}  // namespace vxsynth::refine
