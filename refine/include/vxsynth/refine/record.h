#pragma once
/// \file
/// The revision record of one reconstruction: an append-only JSONL file, one line per revision
/// (docs/signature.md §5, paper §3.6 "Revision record"). Each line is written with
/// vxsynth::append_line_atomic; the reader validates every line, and tolerates (and can repair) only
/// a torn last line, which is what an interrupted run can leave behind. `--resume` rebuilds the
/// loop's state from the record alone (see docs/reconstruct.md).

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vxsynth/refine/step_times.h"

namespace vxsynth::refine {

/// Noise margin δ of the retain rule (docs/signature.md §5; paper §3.6: "lowers D by
/// more than the measurement-noise margin δ = 0.005").
inline constexpr double kRetainMargin = 0.005;

/// The retain rule: a revision that passed both checks is retained iff D_new < D_retained − δ.
[[nodiscard]] constexpr bool should_retain(double d_new, double d_retained,
                                           double margin = kRetainMargin) {
  return d_new < d_retained - margin;
}

/// What happened to a revision. kSeed is revision 0 (the baseline, retained by definition);
/// kReject means the sandbox, a build, a run or an output check refused the candidate before (or
/// instead of) the retain rule.
enum class Decision : uint8_t { kSeed, kRetain, kRevert, kReject };

/// "seed", "retain", "revert", "reject".
[[nodiscard]] const char* decision_name(Decision d);

/// One optimization axis applied in a revision: a stable axis id of
/// docs/signature.md §3 ("tile", "lane_map", …) and a direction, "forward" (the
/// axis's usual sense, e.g. more staging, larger tile) or "reverse" (paper §4.4: lane mapping
/// "applied in reverse" to lower coalescing).
struct AxisStep {
  std::string axis;
  std::string direction;
  /// How many times the step was applied along the axis in this one revision (a line-search
  /// jump, e.g. split_k 2 → 16 is 3 forward steps); 1 for a single step. The record writes
  /// "steps" only when it is above 1.
  int steps = 1;
  friend bool operator==(const AxisStep&, const AxisStep&) = default;
};
/// "split_k forward", or "split_k forward x3" for a jump of three steps.
[[nodiscard]] std::string step_text(const AxisStep& s);

/// Outcome of one output-equivalence check (docs/signature.md §4).
struct CheckOutcome {
  bool ran = false;           ///< false when the revision was rejected before this check
  bool passed = false;
  std::string method;         ///< which check ran, e.g. "vortex_vs_cpu_f64", "cuda_vs_torch_op"
  double max_abs_err = 0.0;   ///< over all output elements
  double max_rel_err = 0.0;   ///< |cand−ref| / |ref| over elements with ref ≠ 0
  double atol = 0.0;          ///< tolerance that applied (per-element |d| ≤ atol + rtol·|ref|)
  double rtol = 0.0;
  std::string detail;         ///< first failing element or other explanation; empty when passed
};

/// Where the CUDA candidate was profiled and checked (paper §3.4 "Swapped execution"): inside the
/// reference workload through the operator swap, or as a standalone launch at the profiled shape
/// (the recorded fallback, with the reason). Empty `where` for a backend that profiles no CUDA launch.
struct ProfilePlace {
  std::string where;          ///< "workload" | "standalone" | ""
  std::string workload;       ///< workload name ("act"); empty for standalone
  std::string step;           ///< which steps ran and which launch ncu profiled
  std::vector<int64_t> routed_per_step;      ///< calls routed to the candidate in each workload step
  int64_t reference_launches_per_step = 0;   ///< launches of the reference kernel per step (trace)
  std::string note;           ///< fallback reason, or calls with the profiled shape left unrouted
  friend bool operator==(const ProfilePlace&, const ProfilePlace&) = default;
};

/// One line of the record. Field names in the JSON are the snake_case names below.
struct RevisionEntry {
  int revision = 0;                        ///< 0 = seed, then 1, 2, … with no gaps
  int parent = -1;                         ///< retained revision this one started from (−1: seed)
  std::string agent;                       ///< "builtin" or "cmd:…"
  std::vector<AxisStep> axes;              ///< empty for the seed, 1 or 2 axes otherwise
  std::vector<std::string> target_metrics; ///< metric ids the revision aimed at
  std::string same_kernel;                 ///< why it still implements the same kernel
  std::string rationale;                   ///< the agent's reasoning, free text
  CheckOutcome source_output;              ///< source-output check
  CheckOutcome candidate;                  ///< candidate (CUDA↔Vortex or Vortex↔CPU) check
  /// Full signature, metric id → value (nullopt = NA); empty when rejected before profiling.
  std::map<std::string, std::optional<double>> signature;
  /// Per-metric distance to the reference, metric id → d (nullopt = left out of D).
  std::map<std::string, std::optional<double>> distances;
  std::optional<double> d;                 ///< signature distance D (absent when rejected)
  std::optional<double> delta_d;           ///< D − D of the parent (absent when rejected or seed)
  Decision decision = Decision::kSeed;
  std::string rejection_reason;            ///< non-empty iff decision == kReject
  double wall_time_s = 0.0;                ///< wall time of the whole revision
  StepTimes step_wall;                     ///< JSON "step_wall_s": where that time went (may be absent)
  std::map<std::string, std::string> tool_versions;  ///< tool → version string
  std::map<std::string, std::string> source_hashes;  ///< candidate file (relative) → sha256 hex
  std::string profile_backend;             ///< "vxsim" or "ncu": which backend ran
  ProfilePlace profiled_in;                ///< JSON "profiled_in" (absent when `where` is empty)
  /// Design point of the candidate (built-in agent), or the one the edited sources descend from
  /// (external agent).
  nlohmann::json design;
  std::string started_utc;                 ///< ISO-8601 UTC start time
};

/// Serialises an entry to one JSON object (no newline).
[[nodiscard]] nlohmann::json to_json(const RevisionEntry& e);

/// Parses and validates one entry. `where` ("record.jsonl:7") prefixes every error, which names
/// the offending field. Throws vxsynth::Error.
[[nodiscard]] RevisionEntry entry_from_json(const nlohmann::json& j, const std::string& where);

/// Appends one entry as one atomic line. Throws vxsynth::Error on I/O failure.
void append_entry(const std::filesystem::path& record, const RevisionEntry& e);

/// Result of reading a record.
struct RecordRead {
  std::vector<RevisionEntry> entries;
  bool repaired = false;     ///< a torn last line was found (and, if asked, cut off)
  std::string repair_note;   ///< what was dropped and why
};

/// Reads and validates a record: every line parses and validates; revisions run 0, 1, 2, … without
/// gaps or repeats; each parent is an earlier seed/retained entry. A last line that is torn (no
/// trailing newline, or not parseable) is dropped; with `repair` the file is also truncated to the
/// end of the last good line so that appends continue cleanly. Any other bad line throws
/// vxsynth::Error naming file, line and field. A missing file reads as empty.
[[nodiscard]] RecordRead read_record(const std::filesystem::path& record, bool repair);

/// The retained design after the given entries: the last entry with decision seed or retain.
/// Returns nullptr when there is none.
[[nodiscard]] const RevisionEntry* last_retained(const std::vector<RevisionEntry>& entries);

}  // namespace vxsynth::refine
