#include "vxsynth/codegen/vortex_check.h"

#include <algorithm>

#include <fmt/format.h>

#include "vxsynth/check/inputs.h"
#include "vxsynth/check/reference_ops.h"
#include "vxsynth/codegen/emit.h"
#include "vxsynth/common/error.h"

namespace vxsynth::codegen {

namespace {

uint64_t round_up(int64_t v, uint64_t to) {
  const uint64_t u = static_cast<uint64_t>(std::max<int64_t>(v, 1));
  return (u + to - 1) / to * to;
}

}  // namespace

uint64_t vxsim_design_macs(const DesignPoint& p) {
  // Every block runs whole BM x BN x BK stages whatever part of its tile lies inside the operands
  // (boundary guard or clamp): the work is that of the GEMM view rounded up to the tiles, each of
  // the split_k slices running ceil(K tiles / split_k) stages.
  const GemmView g = gemm_view(p.fixed.op);
  const uint64_t bm = std::max(1u, p.axes.tile.m), bn = std::max(1u, p.axes.tile.n), bk = std::max(1u, p.axes.tile.k);
  const uint64_t split = std::max(1u, p.axes.split_k);
  const uint64_t k_tiles = round_up(g.k, bk) / bk;
  const uint64_t k_run = split * ((k_tiles + split - 1) / split) * bk;
  return static_cast<uint64_t>(std::max<int64_t>(g.z, 1)) * round_up(g.m, bm) * round_up(g.n, bn) * k_run;
}

uint64_t vxsim_instr_budget(const DesignPoint& p) {
  // Thread instructions per multiply-accumulate of the tile-rounded work: the small design points of
  // codegen/tests/vortex_budget_test.cc execute 3.1-8.5, and up to 21.3 for a convolution without
  // shared-memory staging (im2col index arithmetic per load; docs/vxsim.md "Budgets of generated
  // kernels"); plus, per output element of every K slice, the split-K reduction and the epilogue.
  constexpr uint64_t kThreadInstrsPerMac = 48;
  constexpr uint64_t kThreadInstrsPerOutput = 256;
  const GemmView g = gemm_view(p.fixed.op);
  const uint64_t outputs = static_cast<uint64_t>(std::max<int64_t>(g.z * g.m * g.n, 1)) * std::max(1u, p.axes.split_k);
  const uint64_t thread_instrs = kThreadInstrsPerMac * vxsim_design_macs(p) + kThreadInstrsPerOutput * outputs;
  return thread_instrs / std::max(1u, p.vortex.threads) + kVxsimBudgetFixed;
}

double vxsim_time_limit_s(const DesignPoint& p, bool timing) {
  const double rate = timing ? 3e5 : 3e6;  // warp instructions per second, a floor (docs/vxsim.md)
  return std::max(60.0, static_cast<double>(vxsim_instr_budget(p)) / rate);
}

std::map<std::string, std::string> vxsim_env(const DesignPoint& p, bool timing) {
  std::map<std::string, std::string> env{
      {"VXSIM_CORES", std::to_string(p.vortex.cores)},
      {"VXSIM_WARPS", std::to_string(p.vortex.warps)},
      {"VXSIM_THREADS", std::to_string(p.vortex.threads)},
      {"VXSIM_STRICT_DIVERGENCE", "1"},
      {"VXSIM_BUDGET", std::to_string(vxsim_instr_budget(p))},
      {"VXSIM_TIME_LIMIT", fmt::format("{:.0f}", vxsim_time_limit_s(p, timing))},
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
