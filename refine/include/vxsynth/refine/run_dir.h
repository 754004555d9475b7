#pragma once
/// \file
/// How `vxsynth reconstruct` knows that an output directory is its own (docs/reconstruct.md,
/// "How it knows a directory is a vxsynth run"). The loop writes `run.json` before any other file
/// of the run, into a directory that is new or empty; `run.json` names the schema
/// "vxsynth.run" (version 1), a run id and the run's identity (kernel, bundle SHA-256, agent,
/// profile backend, seed). A non-empty directory is a vxsynth run iff its `run.json` is such a
/// file and its `record.jsonl`, when present, starts with a seed made by the same agent and
/// backend. Runs written before the schema field existed (the committed data/evidence runs) are
/// recognised by the exact key set of their `run.json` plus a matching record.

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace vxsynth::refine {

inline constexpr const char* kRunSchema = "vxsynth.run";
inline constexpr int kRunVersion = 1;
inline constexpr const char* kRunFile = "run.json";
inline constexpr const char* kRecordFile = "record.jsonl";

/// What an output directory holds.
enum class RunDirState {
  kAbsent,     ///< no such path
  kEmpty,      ///< an empty directory
  kRun,        ///< a vxsynth run (run.json of schema vxsynth.run)
  kLegacyRun,  ///< a vxsynth run whose run.json predates the schema field
};

struct RunDir {
  RunDirState state = RunDirState::kAbsent;
  nlohmann::json run;  ///< the run.json found (kRun, kLegacyRun), else null
};

/// Classifies `out`. Throws vxsynth::Error, naming the directory and what is wrong, when `out`
/// exists and is not a directory, or is a non-empty directory that is not a vxsynth run (no
/// run.json; run.json not JSON, of another schema or version, with a missing or ill-typed field;
/// a record.jsonl whose seed names another agent or backend). The message says what to do.
/// Reads only; writes nothing.
[[nodiscard]] RunDir inspect_run_dir(const std::filesystem::path& out);

/// A fresh random run id: 32 hex digits.
[[nodiscard]] std::string new_run_id();

}  // namespace vxsynth::refine
