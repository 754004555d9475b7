#pragma once
/// \file
/// What `vxsynth report` reads (docs/report.md "Inputs"): reconstruction run directories, as
/// `vxsynth reconstruct -o` writes them (run.json, record.jsonl, reference/profile.json,
/// summary.json, vortex_signature.json), either given one by one or as the benchmarks of a suite
/// directory (plan.json, suite.json, one run directory per benchmark). Every file is validated on
/// reading; a bad one is an error naming the file and the field.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "vxsynth/core/signature.h"
#include "vxsynth/refine/record.h"

namespace vxsynth::report {

/// How a run's revisions were refined and measured: which side the agent refined and where each
/// revision's signature came from (paper §4.5). One row per value in workflow_table().
enum class Workflow : uint8_t {
  kCudaFirst,      ///< CUDA candidate refined, each revision profiled with ncu on the reference GPU
  kVortexFirst,    ///< Vortex design refined under Vortex's constraints, its CUDA translation profiled with ncu
  kVxsimCounters,  ///< Vortex candidate's vxsim counters scored against the reference GPU's signature
};

struct WorkflowInfo {
  Workflow workflow;
  std::string_view key;    ///< "cuda-first", "vortex-first", "vxsim-counters" (CSV/JSON)
  std::string_view label;  ///< what a figure legend says
  bool record_is_cuda;     ///< the record's signatures are of the CUDA candidate (else the Vortex one)
};

/// The workflow table.
[[nodiscard]] const std::vector<WorkflowInfo>& workflow_table();
[[nodiscard]] const WorkflowInfo& workflow_info(Workflow w);

/// Benchmark type of the suite table and the axis-response panels (paper Table 6, Fig. 4):
/// bmm counts as matmul.
[[nodiscard]] std::string benchmark_type(std::string_view op);

/// One reconstruction run.
struct RunInput {
  std::string name;                 ///< benchmark name: the suite's, else the directory name
  std::string label;                ///< suite.json's Table 6 label ("Linear-1", …), else empty
  std::filesystem::path dir;        ///< absolute
  nlohmann::json run;               ///< run.json
  std::vector<refine::RevisionEntry> record;
  nlohmann::json summary;           ///< summary.json, or null when absent
  nlohmann::json entry;             ///< reference/profile.json "entry" (the bundle kernel)
  core::Signature reference;        ///< the reference signature
  std::optional<core::Signature> vortex_locked;  ///< vortex_signature.json of the locked kernel
  Workflow workflow = Workflow::kCudaFirst;
  std::string op;                   ///< context.op ("linear", "bmm", …)
  std::string type;                 ///< benchmark_type(op)
  std::string precision;            ///< precision path the CUDA candidates ran at ("fp32", "tf32-fp16", …)
  std::string cuda_translation = "native";  ///< the seed design's `cuda_translation` (docs/codegen.md "CUDA translations")
  std::string workload, platform, kernel_id, kernel_name, bundle_sha256;
  double share = 0.0;               ///< GPU-time share of the reference kernel in its workload
  int rank = 0;
};

/// A suite directory (the `vxsynth suite build` layout).
struct SuiteInput {
  std::filesystem::path dir;        ///< absolute
  nlohmann::json plan;              ///< plan.json (schema vxsynth.suite-plan)
  nlohmann::json suite;             ///< suite.json, or null when absent
};

struct Inputs {
  std::optional<SuiteInput> suite;
  std::vector<RunInput> runs;       ///< in the order given (a suite: its plan's order)
  std::vector<std::string> notes;   ///< benchmarks of a suite that are not built yet, and why
};

/// Reads one run directory. Throws vxsynth::Error naming the file and field: not a vxsynth run
/// (refine's run-directory test), no or an invalid record.jsonl, a record without a seed, a
/// reference/profile.json or vortex_signature.json that is missing a field or ill-typed.
[[nodiscard]] RunInput read_run(const std::filesystem::path& dir, const std::string& name);

/// Reads a suite directory or a list of run directories (not both). A suite's benchmarks are its
/// plan's, in its directories SUITE/<name>; one not built yet (no record) is listed in `notes`.
/// Throws vxsynth::Error for a path that does not exist, is neither a suite nor a run, for two
/// runs of the same directory, and for anything read_run refuses.
[[nodiscard]] Inputs load_inputs(const std::vector<std::filesystem::path>& paths);

/// The run's workflow: run.json `order` when present ("cuda-first", "vortex-first"), else from
/// `profile_backend` (ncu → CUDA-first, vxsim → vxsim counters). Throws for an unknown value.
[[nodiscard]] Workflow workflow_of(const nlohmann::json& run, const std::string& where);

}  // namespace vxsynth::report
