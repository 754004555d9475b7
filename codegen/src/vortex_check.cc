#include "vxsynth/codegen/vortex_check.h"

#include <algorithm>
#include <random>
#include <set>

#include <fmt/format.h>

#include "emit_common.h"

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
      // A local-memory race between two warps fails the run (docs/vxsim.md "Local-memory race checker").
      {"VXSIM_CHECK_RACES", "1"},
      {"VXSIM_BUDGET", std::to_string(vxsim_instr_budget(p))},
      {"VXSIM_TIME_LIMIT", fmt::format("{:.0f}", vxsim_time_limit_s(p, timing))},
  };
  if (!timing) env.emplace("VXSIM_TIMING", std::string(1, '0'));
  return env;
}

uint64_t vxsim_expected_warp_instrs(const DesignPoint& p) {
  const uint64_t per_mac = p.fixed.op.is_conv() && !p.axes.smem_stage ? 22 : 6;
  const GemmView g = gemm_view(p.fixed.op);
  const uint64_t outputs = static_cast<uint64_t>(std::max<int64_t>(g.z * g.m * g.n, 1)) * std::max(1u, p.axes.split_k);
  return (per_mac * vxsim_design_macs(p) + 256 * outputs) / std::max(1u, p.vortex.threads);
}

double vxsim_expected_s(const DesignPoint& p, bool timing) {
  return static_cast<double>(vxsim_expected_warp_instrs(p)) /
         (timing ? kVxsimTimingWarpInstrsPerS : kVxsimFunctionalWarpInstrsPerS);
}

TileSample sample_tiles(const DesignPoint& p, uint64_t seed, size_t tiles) {
  const GemmView g = gemm_view(p.fixed.op);
  const int64_t bm = p.axes.tile.m, bn = p.axes.tile.n, split = std::max(1u, p.axes.split_k);
  const int64_t tm = (g.m + bm - 1) / bm, tn = (g.n + bn - 1) / bn, tz = std::max<int64_t>(g.z, 1);
  const detail::Grids gr = detail::grids(p);
  TileSample s;
  s.grid_tiles = static_cast<uint64_t>(tm * tn * tz);
  s.grid_blocks = s.grid_tiles * static_cast<uint64_t>(split);
  std::set<std::array<int64_t, 3>> chosen;  // (z, tile row, tile column)
  auto take = [&](int64_t z, int64_t r, int64_t c) {
    if (chosen.size() < std::max<size_t>(tiles, 1) && chosen.insert({z, r, c}).second) s.tiles.push_back({z, r * bm, c * bn});
  };
  // Edges first: the first and last tile in M, N and Z (partial tiles at the shape's edges).
  for (const int64_t z : {int64_t{0}, tz - 1})
    for (const int64_t r : {int64_t{0}, tm - 1})
      for (const int64_t c : {int64_t{0}, tn - 1}) take(z, r, c);
  std::mt19937_64 rng(seed);
  const size_t want = std::min<uint64_t>(std::max<size_t>(tiles, 1), s.grid_tiles);
  while (chosen.size() < want) take(static_cast<int64_t>(rng() % tz), static_cast<int64_t>(rng() % tm),
                                    static_cast<int64_t>(rng() % tn));
  for (const auto& [z, m0, n0] : s.tiles) {
    const int64_t x = m_tiles_fast(p) ? m0 / bm : n0 / bn, y = m_tiles_fast(p) ? n0 / bn : m0 / bm;
    for (int64_t ks = 0; ks < split; ++ks)
      s.blocks.push_back(static_cast<uint32_t>(x + gr.gx * (y + gr.gy * (z * split + ks))));
  }
  return s;
}

std::optional<TileSample> check_tile_sample(const DesignPoint& p, uint64_t seed, double budget_s) {
  const double whole_s = vxsim_expected_s(p, /*timing=*/false);
  if (whole_s <= budget_s) return std::nullopt;
  // As many tiles as fit the budget at the whole run's cost per tile, at least the edges.
  const TileSample all = sample_tiles(p, seed, 1);
  const double per_tile_s = whole_s / static_cast<double>(all.grid_tiles);
  const auto fit = static_cast<size_t>(budget_s / std::max(per_tile_s, 1e-9));
  return sample_tiles(p, seed, std::clamp<size_t>(fit, 1, kSampledTiles));
}

std::string TileSample::block_list() const {
  std::string s;
  for (const uint32_t b : blocks) s += (s.empty() ? "" : ",") + std::to_string(b);
  return s;
}

std::string TileSample::describe(const DesignPoint& p) const {
  std::string s = fmt::format("sampled: {} of {} output tiles (BM x BN = {} x {}{}), (z, m0, n0) =", tiles.size(),
                              grid_tiles, p.axes.tile.m, p.axes.tile.n,
                              p.axes.split_k > 1 ? fmt::format(", every one of {} K slices", p.axes.split_k) : "");
  for (const auto& [z, m0, n0] : tiles) s += fmt::format(" ({},{},{})", z, m0, n0);
  return s + fmt::format("; GEMM blocks {}", block_list());
}

std::vector<size_t> sampled_outputs(const DesignPoint& p, const TileSample& s) {
  // The output offset of GEMM-view element (z, m, n): the kernels' vxs_out_index (emit_common.cc).
  const check::OpSpec& op = p.fixed.op;
  const GemmView g = gemm_view(op);
  auto out_index = [&](int64_t z, int64_t m, int64_t n) -> int64_t {
    if (op.is_conv()) {
      const int64_t pq = op.out_h() * op.out_w(), nb = n / pq;
      return (nb * op.conv.k + z * (op.conv.k / op.conv.groups) + m) * pq + (n - nb * pq);
    }
    return op.family == check::OpFamily::kBmm ? (z * g.m + m) * g.n + n : m * g.n + n;
  };
  std::set<size_t> idx;
  for (const auto& [z, m0, n0] : s.tiles)
    for (int64_t m = m0; m < std::min<int64_t>(m0 + p.axes.tile.m, g.m); ++m)
      for (int64_t n = n0; n < std::min<int64_t>(n0 + p.axes.tile.n, g.n); ++n)
        idx.insert(static_cast<size_t>(out_index(z, m, n)));
  return {idx.begin(), idx.end()};
}

std::vector<double> gather(const std::vector<double>& v, const std::vector<size_t>& idx) {
  std::vector<double> out;
  out.reserve(idx.size());
  for (const size_t i : idx) out.push_back(v.at(i));
  return out;
}

std::string VortexCheckResult::summary() const {
  if (report) return report->summary();
  return fmt::format("no output: {} ({})", error, run.summary());
}

VortexCheckResult check_vortex_candidate(const DesignPoint& p, const std::filesystem::path& work_dir,
                                         const std::filesystem::path& sdk_dir, uint64_t seed, bool timing,
                                         double timeout_seconds, const TileSample* sample) {
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
  if (sample != nullptr) o.run_args = {"-b", sample->block_list()};
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
  if (sample != nullptr) {
    const auto idx = sampled_outputs(p, *sample);
    r.report = check::compare_outputs(gather(out, idx), gather(ref, idx), p.fixed.path, check::CheckKind::kCandidate,
                                      check::ReferenceKind::kCpuFloat64);
    return r;
  }
  r.report = check::compare_outputs(out, ref, p.fixed.path, check::CheckKind::kCandidate,
                                    check::ReferenceKind::kCpuFloat64);
  return r;
}

}  // namespace vxsynth::codegen
