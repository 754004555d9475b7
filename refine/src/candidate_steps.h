#pragma once
// Steps every profile backend composes (backend_vxsim.cc, backend_ncu.cc): fresh inputs and the
// float64 reference, the Vortex side built with the SDK and run on vxsim, the output checks, and
// the fixed properties read from a signature. Each backend file strings them together in its own
// order; nothing here asks which backend runs.

#include <filesystem>
#include <string>
#include <vector>

#include "vxsynth/check/equivalence.h"
#include "vxsynth/check/inputs.h"
#include "vxsynth/check/op_spec.h"
#include "vxsynth/check/precision.h"
#include "vxsynth/refine/loop.h"

namespace vxsynth::refine {

// The candidate's problem and its inputs, written under <dir>/data.
struct CandidateData {
  check::OpSpec op;
  check::PrecisionPath path{};        // the reference's path: inputs, storage, the framework op's TF32 flags
  check::PrecisionPath check_path{};  // the path the CUDA candidate computes (codegen::cuda_path): tolerances
  check::FileDType ftype{};
  std::filesystem::path dir;        // <candidate>/data
  std::vector<double> reference;    // float64 CPU reference output
};

// Fresh inputs for every check (docs/signature.md §4), reproducible per run seed and revision;
// writes them and ref_output.bin under <candidate_dir>/data.
[[nodiscard]] CandidateData prepare_data(const std::filesystem::path& candidate_dir, const EvalRequest& req);

// "" when the CUDA candidate computes on the reference's path, else a note for a check's method
// naming the path it computes on (a TF32 reference at FP16 under the Vortex-first translation).
[[nodiscard]] std::string cuda_precision_note(const CandidateData& d);

// One check's record entry from a comparison.
[[nodiscard]] CheckOutcome outcome_of(const check::CheckReport& rep, const check::Tolerance& tol, std::string method);

// Compares `candidate` with `reference` under the path's tolerance for `kind`.
[[nodiscard]] CheckOutcome compare(const std::vector<double>& candidate, const std::vector<double>& reference,
                                   const CandidateData& d, check::CheckKind kind, check::ReferenceKind ref_kind,
                                   std::string method);

// The Vortex side: `make VXSDK=<sdk>` in <candidate>/vortex, then one run on vxsim with the design's
// device and the signature written to <candidate>/vortex_signature.json (timing mode when
// `timing`). Returns the failure ("build: …", "run: …"), empty on success, with the output in `out`.
[[nodiscard]] std::string run_vortex_side(const std::filesystem::path& candidate_dir,
                                          const std::filesystem::path& sdk_dir, const EvalRequest& req,
                                          const CandidateData& d, bool timing, std::vector<double>& out,
                                          StepTimes* steps);

// Reads the Vortex-side signature into `ev` (signature, which launch, atomics over all launches).
// Returns the failure, empty on success.
[[nodiscard]] std::string take_vortex_signature(const std::filesystem::path& candidate_dir, const EvalRequest& req,
                                                Evaluation& ev);

// Engine class from the signature's tensor activity (any tensor-pipe / TCU activity: a SIMT
// candidate has none, while a memory-bound tensor-core candidate can sit far below the 5 % used to
// classify references — the ACT k5 seed measured 0.97 % on the H200).
void observe_engine(Evaluation& ev);

}  // namespace vxsynth::refine
