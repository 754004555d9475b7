#include "vxsynth/codegen/vortex_check.h"

#include <fmt/format.h>

#include "vxsynth/check/inputs.h"
#include "vxsynth/check/reference_ops.h"
#include "vxsynth/codegen/emit.h"
#include "vxsynth/common/error.h"

namespace vxsynth::codegen {

std::map<std::string, std::string> vxsim_env(const DesignPoint& p, bool timing) {
  std::map<std::string, std::string> env{
      {"VXSIM_CORES", std::to_string(p.vortex.cores)},
      {"VXSIM_WARPS", std::to_string(p.vortex.warps)},
      {"VXSIM_THREADS", std::to_string(p.vortex.threads)},
      {"VXSIM_STRICT_DIVERGENCE", "1"},
  };
  if (!timing) env.emplace("VXSIM_TIMING", std::string(1, '0'));
  return env;
}

std::string VortexCheckResult::summary() const {
  if (report) return report->summary();
  return fmt::format("no output: {} ({})", error, run.summary());
}

VortexCheckResult check_vortex_candidate(const DesignPoint& p, const std::filesystem::path& work_dir,
                                         const std::filesystem::path& sdk_dir, uint64_t seed, bool timing,
                                         double timeout_seconds) {
  const Candidate c = emit_vortex(p);
  const auto dir = work_dir / "vortex";
  const auto data = work_dir / "data";
  write_candidate(dir, c);
  const auto inputs = check::generate_inputs(p.fixed.op, p.fixed.path, seed);
  check::write_inputs(data, inputs, p.fixed.path);

  VortexRunOptions o;
  o.sdk_dir = sdk_dir;
  o.data_dir = data;
  o.run_timeout_seconds = timeout_seconds;
  o.run_env = vxsim_env(p, timing);
  VortexCheckResult r;
  r.run = build_and_run_vortex(dir, o);
  if (!r.run.built) {
    r.error = fmt::format("build failed:\n{}", r.run.build.output);
    return r;
  }
  if (!r.run.run.ok()) {
    r.error = fmt::format("run failed ({}):\n{}", r.run.run.status_text(), r.run.run.output);
    return r;
  }
  if (!r.run.output_written) {
    r.error = fmt::format("the run wrote no out.bin:\n{}", r.run.run.output);
    return r;
  }
  const auto out = check::read_tensor_file(data / "out.bin", check::output_numel(p.fixed.op),
                                           check::file_dtype(p.fixed.path));
  const auto values = check::values_of(inputs);
  const auto ref = check::reference_forward(p.fixed.op, values);
  r.report = check::compare_outputs(out, ref, p.fixed.path, check::CheckKind::kCandidate,
                                    check::ReferenceKind::kCpuFloat64);
  return r;
}

}  // namespace vxsynth::codegen
