#include "candidate_steps.h"
#include "vxsynth/refine/backends.h"

#include <fmt/format.h>

#include "harness_vortex.h"
#include "vortex_signature.h"
#include "vxsynth/check/reference_ops.h"
#include "vxsynth/codegen/design_point.h"
#include "vxsynth/codegen/seed.h"
#include "vxsynth/codegen/vortex_check.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/common/process.h"

namespace vxsynth::refine {

namespace fs = std::filesystem;

CandidateData prepare_data(const fs::path& candidate_dir, const EvalRequest& req) {
  CandidateData d;
  d.op = check::op_spec_from_context(*req.context);
  d.path = codegen::fixed_properties(*req.context).path;
  // The design decides what the CUDA candidate computes; a request without one (a harness test)
  // checks on the reference's path.
  d.check_path = req.design.is_object() ? codegen::cuda_path(codegen::design_point_from_json(req.design)) : d.path;
  d.ftype = check::file_dtype(d.path);
  d.dir = candidate_dir / kDataDir;
  fs::create_directories(d.dir);
  const auto inputs =
      check::generate_inputs(d.op, d.path, check_input_seed(req.seed, req.revision));
  check::write_inputs(d.dir, inputs, d.path);
  d.reference = check::reference_forward(d.op, check::values_of(inputs));
  check::write_tensor_file(d.dir / "ref_output.bin", d.reference, d.ftype);
  return d;
}

std::string cuda_precision_note(const CandidateData& d) {
  if (d.check_path == d.path) return {};
  return fmt::format("; CUDA candidate at {} ({}), checked with that path's tolerance", check::to_string(d.check_path),
                     check::precision_row(d.check_path).description);
}

CheckOutcome outcome_of(const check::CheckReport& rep, const check::Tolerance& tol, std::string method) {
  CheckOutcome c;
  c.ran = true;
  c.passed = rep.passed;
  c.method = std::move(method);
  c.max_abs_err = rep.max_abs_error;
  c.max_rel_err = rep.max_rel_error;
  c.atol = tol.atol;
  c.rtol = tol.rtol;
  c.detail = rep.reason;
  return c;
}

CheckOutcome compare(const std::vector<double>& candidate, const std::vector<double>& reference,
                     const CandidateData& d, check::CheckKind kind, check::ReferenceKind ref_kind,
                     std::string method) {
  const check::CheckReport rep = check::compare_outputs(candidate, reference, d.check_path, kind, ref_kind);
  return outcome_of(rep, check::tolerance(d.check_path, kind), std::move(method));
}

std::string run_vortex_side(const fs::path& candidate_dir, const fs::path& sdk_dir, const EvalRequest& req,
                            const CandidateData& d, bool timing, std::vector<double>& out, StepTimes* steps) {
  return run_vortex_harness(candidate_dir, sdk_dir, req, d, timing, out, steps);
}

std::string take_vortex_signature(const fs::path& candidate_dir, const EvalRequest& req, Evaluation& ev) {
  const fs::path sig_path = candidate_dir / kVortexSignatureFile;
  if (!fs::exists(sig_path))
    return fmt::format("profile: the vxsim runtime wrote no signature to $VXSIM_SIGNATURE ({})", sig_path.string());
  const int design_launches = codegen::launches(codegen::design_point_from_json(req.design));
  const VortexSignatureFile vs = read_vortex_signature(sig_path, design_launches);
  // D is of the launch the design names as its GEMM (index 0), as the harness made it; a reduce or
  // epilogue launch that runs longer is work outside what the design names.
  if (vs.launches != design_launches || vs.main_launch != 0)
    return sandbox_failure({{"decoy_launch", "", 0,
                             fmt::format("{} launches with the longest at index {} ({} of {} cycles); the design "
                                         "makes {} with its GEMM launch first",
                                         vs.launches, vs.main_launch, vs.main_cycles, vs.total_cycles,
                                         design_launches)}});
  ev.signature = vs.signature;
  // Which launch D is of, in the record (a tool note: the record schema has no field for it).
  ev.tool_versions["vxsim signature"] = fmt::format(
      "main launch index {} of {} (most cycles: {} of {} device cycles){}", vs.main_launch, vs.launches,
      vs.main_cycles, vs.total_cycles,
      vs.launches == design_launches ? "" : fmt::format("; the design point makes {} launches", design_launches));
  // The sandbox forbids atomics in every launch, not only the main one.
  ev.observed.atomics_per_inst = vs.max_atomics;
  return {};
}

void observe_engine(Evaluation& ev) {
  if (const auto& t = (*ev.signature)[core::MetricId::kTensorMfu])
    ev.observed.engine = *t > 0.0 ? core::EngineClass::kTensorCore : core::EngineClass::kSimt;
}

}  // namespace vxsynth::refine
