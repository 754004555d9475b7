#pragma once
/// \file
/// The reconstruction loop (paper §3.6, Fig. 2; docs/reconstruct.md): seed → revisions → locked
/// benchmark. Each revision starts from the best retained design; the agent proposes a candidate
/// pair; the sandbox validates it; the profile backend builds, runs, checks and profiles it; it is
/// retained iff D_new < D_retained − δ, else reverted; every revision is one line of the record.
/// The loop never branches on which backend or agent it has; it only records which ran.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "vxsynth/core/context.h"
#include "vxsynth/core/signature.h"
#include "vxsynth/refine/agent.h"
#include "vxsynth/refine/record.h"
#include "vxsynth/refine/sandbox.h"

namespace vxsynth::refine {

/// Everything a backend needs to evaluate one candidate.
struct EvalRequest {
  int revision = 0;
  const core::ReferenceContext* context = nullptr;
  const SandboxRules* rules = nullptr;  ///< build/run time limits
  uint64_t seed = 0;                    ///< the run's input key (run.json input_key): seeds the sampled inputs
  /// Design point of the candidate, or of the design it was edited from (external agents): the
  /// backend takes the Vortex machine shape (cores, warps, threads) from it.
  nlohmann::json design;
  /// The run's output directory (all revisions, their inputs and reference outputs): hidden from
  /// every isolated build and run of the candidate; the harness caches its own builds under it.
  std::filesystem::path run_dir;
};

/// Seed of the sampled check inputs of revision `revision` in a run whose input key (run.json
/// `input_key`, drawn from std::random_device when the run is created, hidden from agents and
/// candidates) is `input_key`: the first 64 bits of SHA-256 of both, so an agent that knows the run
/// seed and the recorded seeds of earlier revisions cannot compute it (docs/sandbox.md "Inputs the
/// agent cannot predict"). Both backends draw each revision's inputs (check::generate_inputs) with
/// it; a benchmark's data/ can be drawn again from the input key and the locked revision.
[[nodiscard]] uint64_t check_input_seed(uint64_t input_key, int revision);

/// What a backend measured for one candidate.
struct Evaluation {
  /// Non-empty when building or running failed or timed out: the rejection reason, e.g.
  /// "build: exit 2: kernel.cpp:14: error: …" or "run: timed out after 600 s".
  std::string failure;
  CheckOutcome source_output;
  CheckOutcome candidate;
  std::optional<core::Signature> signature;   ///< the backend's signature of the candidate
  ObservedProperties observed;                ///< from the candidate's own launch and counters
  std::map<std::string, std::string> tool_versions;
  /// Which side `observed` describes: the Vortex run (true) or the CUDA launch (false); decides
  /// whether a TF32 reference is compared as FP16 (paper §3.3).
  bool observed_is_vortex = true;
  /// Where the CUDA candidate ran (ncu backend); empty `where` for the vxsim backend.
  ProfilePlace profiled_in;
  /// Wall time per step (the record's step_wall_s).
  StepTimes steps;
};

/// Files a backend leaves in the candidate directory, copied into the benchmark when that
/// revision is locked: the Vortex-side signature of the candidate (every backend runs the Vortex
/// side for the candidate check) and the sampled inputs with their reference outputs.
inline constexpr const char* kVortexSignatureFile = "vortex_signature.json";
inline constexpr const char* kDataDir = "data";
/// The `axes` entry of a revision whose agent failed (non-zero exit, timeout, malformed
/// output.json): {"axis": "agent_failure", "direction": "forward"}. The direction is a placeholder
/// that keeps the record schema (forward|reverse) unchanged. Records written before this marker
/// carry axis "unknown" instead; is_agent_failure() recognises both.
inline constexpr const char* kAgentFailureAxis = "agent_failure";

/// A profile backend (docs/architecture.md: "ncu (GPU) and vxsim (CPU) implement it").
class ProfileBackend {
 public:
  virtual ~ProfileBackend() = default;
  /// "vxsim" or "ncu" (recorded in every entry).
  [[nodiscard]] virtual std::string name() const = 0;
  /// Builds, runs, checks and profiles the candidate pair written under `candidate_dir`.
  /// Failures of the candidate are reported in Evaluation::failure / the check outcomes; only
  /// failures of the harness itself (cannot start a tool) throw vxsynth::Error.
  [[nodiscard]] virtual Evaluation evaluate(const std::filesystem::path& candidate_dir,
                                            const EvalRequest& request) = 0;
  /// Called once when the loop locks `candidate_dir` (an evaluated, retained revision) as the
  /// benchmark: makes sure `candidate_dir/vortex_signature.json` holds the Vortex-side signature of
  /// the locked kernel. The vxsim backend measured it in evaluate(); the ncu backend runs the Vortex
  /// side functionally per revision (its D comes from ncu) and measures the timing-mode signature
  /// only here. Returns an empty string on success, else why no signature was written (recorded in
  /// the summary; not an error of the run).
  [[nodiscard]] virtual std::string measure_locked_vortex_signature(const std::filesystem::path& candidate_dir,
                                                                    const EvalRequest& request) {
    (void)candidate_dir;
    (void)request;
    return {};
  }
};

/// The reference the loop reconstructs: one kernel entry of a reference bundle.
struct Reference {
  std::string kernel_id;
  core::ReferenceContext context;
  core::Signature signature;
  nlohmann::json entry;            ///< the bundle's JSON for this kernel (context + provenance)
  std::string bundle_sha256;       ///< identifies the bundle for --resume
};

/// Options of one run (the CLI flags).
struct LoopOptions {
  std::filesystem::path out_dir;
  int budget = 12;          ///< revisions after the seed (paper Table 6: 3–12 per kernel)
  bool resume = false;
  uint64_t seed = 1;
  /// Wall-clock limit on one external-agent call.
  double agent_timeout_s = 600.0;
  /// Refinement order recorded in run.json as `order` ("cuda-first", "vortex-first"; order.h);
  /// empty: none recorded (the vxsim backend, which is no order of paper §4.5).
  std::string order;
};

/// One line of progress (revision n of N, current D, last axis, decision).
struct Progress {
  int revision = 0;
  int budget = 0;
  bool has_retained = false;             ///< false until an accepted seed exists
  double retained_d = 0.0;
  int retained_revision = 0;
  const RevisionEntry* last = nullptr;  ///< null for the "resumed"/"stopped" notes
  std::string note;
};

/// Final outcome.
struct LoopResult {
  int seed_revision = 0;
  int locked_revision = 0;
  double seed_d = 0.0;
  double final_d = 0.0;
  int tried = 0, retained = 0, reverted = 0, rejected = 0;
  /// Revisions after the seed rejected because the agent itself failed (is_agent_failure); they
  /// are also counted in `rejected`.
  int agent_failures = 0;
  std::string stop_reason;
  double wall_time_s = 0.0;
  std::filesystem::path benchmark_dir;
  /// Empty when vortex_signature.json was written for the locked kernel, else why not (e.g. a
  /// two-launch candidate, or the timing run timed out).
  std::string vortex_signature_note;
};

/// True if `e` is a revision whose agent failed: axis kAgentFailureAxis, or (records written before
/// that marker) a rejection whose reason starts with "agent: ", the prefix of every agent failure.
[[nodiscard]] bool is_agent_failure(const RevisionEntry& e);

/// True when revisions after the seed were attempted and the agent failed every one of them, so
/// that nothing but the seed was evaluated (`vxsynth reconstruct` then exits 3).
[[nodiscard]] inline bool agent_failed_every_revision(const LoopResult& r) {
  return r.tried > 0 && r.agent_failures == r.tried;
}

/// Runs (or resumes) a reconstruction into `opts.out_dir`. Layout (docs/reconstruct.md):
///   run.json, record.jsonl, summary.json, summary.md, vortex_signature.json,
///   vortex/ (Vortex benchmark, regression layout), cuda/ (CUDA proxy), reference/ (profile,
///   context), data/ (sampled inputs, reference outputs), work/ (per-revision candidates, agent
///   work directories).
/// Throws vxsynth::Error when the seed is rejected, when the output directory holds another run
/// (without --resume) or when --resume finds a record that does not match this run.
LoopResult run_loop(const Reference& ref, const DesignSpace& space, Agent& agent,
                    ProfileBackend& backend, const SandboxRules& rules, const LoopOptions& opts,
                    const std::function<void(const Progress&)>& progress);

/// The summary document (summary.json) of a record.
[[nodiscard]] nlohmann::json summarize(const Reference& ref, const std::vector<RevisionEntry>& record,
                                       const LoopResult& result);
/// Markdown rendering of summarize().
[[nodiscard]] std::string summary_markdown(const nlohmann::json& summary);

/// A progress printer for terminals: one line per revision.
[[nodiscard]] std::string progress_line(const Progress& p);

}  // namespace vxsynth::refine
