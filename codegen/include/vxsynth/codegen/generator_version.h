#pragma once
/// \file
/// Version of the candidate generator's output. A reconstruction records it with every revision
/// (`tool_versions["vxsynth-codegen"]` in record.jsonl), so that a committed run's sources can be
/// regenerated from its design points and checked against the recorded hashes
/// (refine/tests/evidence_regen_test.cc; docs/reconstruct.md#evidence-as-data).
///
/// Raise it by one whenever the text that emit_cuda / emit_vortex (or the swap target) produce for
/// some design point changes, comments and whitespace included. Evidence made with an older
/// version then reads as "made by generator N, not regenerated" instead of failing.

namespace vxsynth::codegen {

/// Which commits each version covers: docs/reconstruct.md#evidence-as-data.
inline constexpr int kGeneratorVersion = 10;

/// Key of the generator version in a revision's `tool_versions`.
inline constexpr const char* kGeneratorVersionKey = "vxsynth-codegen";

}  // namespace vxsynth::codegen
