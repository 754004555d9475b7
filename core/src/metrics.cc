#include "vxsynth/core/metrics.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

namespace vxsynth::core {
namespace {

// ---- Architectures (docs/ncu.md §0, §9) -------------------------------------------------
constexpr std::array<ArchInfo, kNumArchs> kArchs{{
    {Arch::kHopper, "sm_90", "9.0", "gh100", "Hopper (H100/H200)", true, "-gencode=arch=compute_90a,code=sm_90a"},
    {Arch::kAmpere, "sm_80", "8.0", "ga100", "Ampere (A100)", true, "-arch=sm_80"},
    {Arch::kAda, "sm_89", "8.9", "ad102", "Ada (L40S)", true, "-arch=sm_89"},
    {Arch::kOrin, "sm_87", "8.7", "ga10b", "Orin (Jetson AGX Orin)", false, "-arch=sm_87"},
}};

// ---- ncu terms (names: docs/ncu.md §0.1, §0.2, §2) --------------------------------------
constexpr std::string_view kPct = "%";
constexpr std::string_view kInst = "inst";
constexpr std::string_view kByte = "byte";

constexpr NcuTerm kL1[] = {{1.0, "l1tex__t_sector_hit_rate.pct", {}, kPct}};
constexpr NcuTerm kL2[] = {{1.0, "lts__t_sector_hit_rate.pct", {}, kPct}};
constexpr NcuTerm kCoal[] = {
    {1.0, "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct", {}, kPct}};
constexpr NcuTerm kSmThroughput[] = {
    {1.0, "sm__throughput.avg.pct_of_peak_sustained_elapsed", {}, kPct}};
// Tensor pipe (§2.5): Hopper's hgmma/qgmma-only variant leaves out HFMA2.MMA noise; the plain
// hmma name (in the §0.1 capture list) is its fallback. Ada's non-_v2 name is deprecated.
constexpr NcuTerm kTensorHopper[] = {
    {1.0, "sm__pipe_tensor_op_hmma_type_hmma_hgmma_qgmma_cycles_active.avg.pct_of_peak_sustained_elapsed",
     "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed", kPct}};
constexpr NcuTerm kTensorAmpere[] = {
    {1.0, "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed", {}, kPct}};
constexpr NcuTerm kTensorAda[] = {
    {1.0, "sm__pipe_tensor_op_hmma_cycles_active_v2.avg.pct_of_peak_sustained_elapsed",
     "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed", kPct}};
// Atomics per instruction (§2.6).
constexpr NcuTerm kAtomNum[] = {{1.0, "smsp__sass_inst_executed_op_global_atom.sum", {}, kInst},
                                {1.0, "smsp__sass_inst_executed_op_global_red.sum", {}, kInst}};
constexpr NcuTerm kInstDen[] = {{1.0, "smsp__inst_executed.sum", {}, kInst}};
// Arithmetic intensity (§2.7): ncu roofline FLOP convention FP32 = fadd + fmul + 2·ffma,
// FP64 = dadd + dmul + 2·dfma, FP16 = 2·hadd + 2·hmul + 4·hfma (packed), plus the tensor FLOP
// counters (FMA = 2, §2.5) whose names differ per chip (§2.5 "Names differ by chip", §9).
#define VX_SIMT_FLOPS                                                         \
  {1.0, "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", {}, kInst},    \
      {1.0, "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", {}, kInst}, \
      {2.0, "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", {}, kInst}, \
      {1.0, "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum", {}, kInst}, \
      {1.0, "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum", {}, kInst}, \
      {2.0, "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum", {}, kInst}, \
      {2.0, "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum", {}, kInst}, \
      {2.0, "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum", {}, kInst}, \
      {4.0, "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum", {}, kInst}
constexpr NcuTerm kFlopsHopper[] = {
    VX_SIMT_FLOPS,
    {1.0, "sm__ops_path_tensor_src_bf16_dst_fp32.sum"},
    {1.0, "sm__ops_path_tensor_src_fp16.sum"},
    {1.0, "sm__ops_path_tensor_src_tf32_dst_fp32.sum"},
    {1.0, "sm__ops_path_tensor_src_fp64.sum"},
    {1.0, "sm__ops_path_tensor_src_fp8.sum"},
    {1.0, "sm__ops_path_tensor_src_int8.sum"},
};
constexpr NcuTerm kFlopsAmpere[] = {
    VX_SIMT_FLOPS,
    {1.0, "sm__ops_path_tensor_src_bf16_dst_fp32.sum"},
    {1.0, "sm__ops_path_tensor_src_fp16_dst_fp32.sum"},
    {1.0, "sm__ops_path_tensor_src_fp16_dst_fp16.sum"},
    {1.0, "sm__ops_path_tensor_src_tf32_dst_fp32.sum"},
    {1.0, "sm__ops_path_tensor_src_fp64.sum"},
    {1.0, "sm__ops_path_tensor_src_int8.sum"},
};
constexpr NcuTerm kFlopsAda[] = {
    VX_SIMT_FLOPS,
    {1.0, "sm__ops_path_tensor_src_bf16_dst_fp32.sum"},
    {1.0, "sm__ops_path_tensor_src_fp16_dst_fp32.sum"},
    {1.0, "sm__ops_path_tensor_src_fp16_dst_fp16.sum"},
    {1.0, "sm__ops_path_tensor_src_tf32_dst_fp32.sum"},
    {1.0, "sm__ops_path_tensor_src_fp64.sum"},
    {1.0, "sm__ops_path_tensor_src_int8.sum"},
    {1.0, "sm__ops_path_tensor_src_fp8.sum"},
};
#undef VX_SIMT_FLOPS
constexpr NcuTerm kDramBytes[] = {{1.0, "dram__bytes_read.sum", {}, kByte},
                                  {1.0, "dram__bytes_write.sum", {}, kByte}};
constexpr NcuTerm kDramBw[] = {{1.0, "dram__bytes.sum.per_second", {}, "byte/s"}};
// Active lanes (§2.9): threads per warp instruction / 32; the deprecated name is the fallback.
constexpr NcuTerm kLanes[] = {{1.0 / 32.0, "smsp__average_thread_inst_executed_per_inst_executed.ratio",
                               "smsp__thread_inst_executed_per_inst_executed.ratio"}};
constexpr NcuTerm kOcc[] = {{1.0, "sm__warps_active.avg.pct_of_peak_sustained_active", {}, kPct}};

constexpr std::span<const NcuTerm> kNone{};

constexpr NcuFormula same(std::span<const NcuTerm> n, std::span<const NcuTerm> d = kNone) {
  return NcuFormula{n, d};
}
constexpr std::array<NcuFormula, kNumArchs> all_archs(std::span<const NcuTerm> n,
                                                      std::span<const NcuTerm> d = kNone) {
  return {same(n, d), same(n, d), same(n, d), same(n, d)};
}

// ---- THE table (docs/signature.md §1; order = MetricId) ------------------------
constexpr std::array<MetricDef, kNumMetrics> kMetrics{{
    {MetricId::kL1HitRate, "l1_hit_rate", "L1 hit rate", MetricGroup::kTraffic, "%", Transform::kPercent,
     all_archs(kL1), "l1tex__t_sector_hit_rate.pct",
     "D-cache read hits / D-cache reads (global loads)"},
    {MetricId::kL2HitRate, "l2_hit_rate", "L2 hit rate", MetricGroup::kTraffic, "%", Transform::kPercent,
     all_archs(kL2), "lts__t_sector_hit_rate.pct",
     "L2 hits / L2 lookups (NA when the configuration has no L2)"},
    {MetricId::kCoalescing, "coalescing", "Coalescing efficiency", MetricGroup::kTraffic, "%",
     Transform::kPercent, all_archs(kCoal),
     "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct (LDG only; 0 when the kernel issues no "
     "LDG, kept in D)",
     "bytes requested by active lanes / (32 B x distinct 32-B sectors touched), global loads only"},
    {MetricId::kPeakCompute, "peak_compute", "Achieved peak compute", MetricGroup::kEngineCommit, "%",
     Transform::kPercent, all_archs(kSmThroughput), "sm__throughput.avg.pct_of_peak_sustained_elapsed",
     "busiest functional unit: max over ALU/FPU/LSU/SFU/TCU of issue-busy cycles / cycles"},
    {MetricId::kTensorMfu, "tensor_mfu", "Tensor MFU", MetricGroup::kEngineCommit, "%", Transform::kPercent,
     {same(kTensorHopper), same(kTensorAmpere), same(kTensorAda), same(kTensorAmpere)},
     "tensor-pipe active % of peak: Hopper sm__pipe_tensor_op_hmma_type_hmma_hgmma_qgmma_cycles_active "
     "(fallback sm__pipe_tensor_op_hmma_cycles_active); Ampere/Orin sm__pipe_tensor_op_hmma_cycles_active; "
     "Ada ..._v2 (fallback: deprecated non-_v2); all .avg.pct_of_peak_sustained_elapsed",
     "TCU busy cycles / cycles"},
    {MetricId::kAtomicsPerInst, "atomics_per_inst", "Atomics per instruction", MetricGroup::kEngineCommit,
     "ratio", Transform::kDirect, all_archs(kAtomNum, kInstDen),
     "(smsp__sass_inst_executed_op_global_atom.sum + smsp__sass_inst_executed_op_global_red.sum) / "
     "smsp__inst_executed.sum",
     "AMO warp instructions / warp instructions"},
    {MetricId::kArithIntensity, "arith_intensity", "Arithmetic intensity", MetricGroup::kWorkPerByte,
     "FLOP/byte", Transform::kLogRatio,
     {same(kFlopsHopper, kDramBytes), same(kFlopsAmpere, kDramBytes), same(kFlopsAda, kDramBytes), same(kNone)},
     "(fadd + fmul + 2 ffma + dadd + dmul + 2 dfma + 2 hadd + 2 hmul + 4 hfma [smsp__sass_thread_inst_executed_"
     "op_*_pred_on.sum] + sum of sm__ops_path_tensor_src_*.sum) / (dram__bytes_read.sum + dram__bytes_write.sum); "
     "NA on Orin (no dram__ counters)",
     "FP FLOPs (FMA = 2, TCU MACs x 2) / DRAM bytes"},
    {MetricId::kDramBandwidth, "dram_bandwidth", "DRAM bandwidth", MetricGroup::kWorkPerByte, "byte/s",
     Transform::kLogRatio, {same(kDramBw), same(kDramBw), same(kDramBw), same(kNone)},
     "dram__bytes.sum.per_second; NA on Orin (no dram__ counters)",
     "DRAM bytes / (cycles / core clock)"},
    {MetricId::kActiveLanes, "active_lanes", "Active-lane fraction", MetricGroup::kMachineBusy, "fraction",
     Transform::kDirect, all_archs(kLanes),
     "smsp__average_thread_inst_executed_per_inst_executed.ratio / 32 (fallback: deprecated "
     "smsp__thread_inst_executed_per_inst_executed.ratio / 32)",
     "thread instructions / (warp instructions x threads per warp)"},
    {MetricId::kOccupancy, "occupancy", "Achieved occupancy", MetricGroup::kMachineBusy, "%",
     Transform::kPercent, all_archs(kOcc), "sm__warps_active.avg.pct_of_peak_sustained_active",
     "mean active warps / warps per core"},
}};

constexpr RecordedNcuMetric kRecorded[] = {
    {"gpu__time_duration.sum", true, "kernel duration (ns) under ncu"},
    {"smsp__sass_inst_executed_op_global_ld.sum", true,
     "LDG count: tells a coalescing of 0 'because no LDG' (docs/signature.md §1)"},
    {"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed", false,
     "any tensor op incl. DMMA: engine class DMMA (docs/ncu.md §7.6)"},
    {"profiler__replayer_passes", false, "replay passes (provenance)"},
    {"launch__grid_size", false, "CTAs"},
    {"launch__block_size", false, "threads per CTA"},
    {"launch__registers_per_thread", false, "registers per thread"},
    {"launch__shared_mem_per_block_static", false, "static shared memory (byte)"},
    {"launch__shared_mem_per_block_dynamic", false, "dynamic shared memory (byte)"},
    {"launch__waves_per_multiprocessor", false, "waves"},
    {"sm__maximum_warps_per_active_cycle_pct", false, "theoretical occupancy"},
};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

}  // namespace

std::span<const ArchInfo> arch_table() { return kArchs; }

const ArchInfo& arch_info(Arch arch) { return kArchs[static_cast<std::size_t>(arch)]; }

std::optional<Arch> arch_from_cc(std::string_view cc) {
  for (const auto& a : kArchs)
    if (a.cc == cc) return a.arch;
  return std::nullopt;
}

std::string nvcc_target_flag(std::string_view sm) {
  for (const auto& a : kArchs) {
    if (a.sm == sm) return std::string(a.nvcc_target);
  }
  return "-arch=" + std::string(sm);
}

std::optional<Arch> arch_from_name(std::string_view name) {
  const std::string n = lower(name);
  for (const auto& a : kArchs) {
    std::string sm_nounderscore(a.sm);
    sm_nounderscore.erase(std::remove(sm_nounderscore.begin(), sm_nounderscore.end(), '_'),
                          sm_nounderscore.end());
    const std::string fam = lower(a.name.substr(0, a.name.find(' ')));
    if (n == a.sm || n == sm_nounderscore || n == a.chip || n == fam || n == a.cc) return a.arch;
  }
  return std::nullopt;
}

std::string_view to_string(MetricGroup g) {
  switch (g) {
    case MetricGroup::kTraffic: return "traffic";
    case MetricGroup::kEngineCommit: return "engine & commit";
    case MetricGroup::kWorkPerByte: return "work per byte";
    case MetricGroup::kMachineBusy: return "machine busy";
  }
  return "?";
}

std::span<const MetricDef> metric_table() { return kMetrics; }

const MetricDef& metric_def(MetricId id) { return kMetrics[static_cast<std::size_t>(id)]; }

std::optional<MetricId> metric_from_key(std::string_view key) {
  for (const auto& m : kMetrics)
    if (m.key == key) return m.id;
  return std::nullopt;
}

std::span<const RecordedNcuMetric> recorded_ncu_metrics() { return kRecorded; }

std::vector<std::string> required_ncu_metrics(Arch arch) {
  std::vector<std::string> out;
  auto add = [&](std::string_view n) {
    if (std::find(out.begin(), out.end(), n) == out.end()) out.emplace_back(n);
  };
  for (const auto& m : kMetrics) {
    const NcuFormula& f = m.ncu[static_cast<std::size_t>(arch)];
    for (const auto& t : f.numerator) add(t.name);
    for (const auto& t : f.denominator) add(t.name);
  }
  for (const auto& r : kRecorded)
    if (r.required) add(r.name);
  return out;
}

double signed_response(MetricId id, double candidate, double reference) {
  double v = 0.0;
  switch (metric_def(id).transform) {
    case Transform::kPercent: v = (candidate - reference) / 100.0; break;
    case Transform::kDirect: v = candidate - reference; break;
    case Transform::kLogRatio:
      v = std::log((candidate + kLogEpsilon) / (reference + kLogEpsilon)) / std::log(kLogRatioC);
      break;
  }
  return std::clamp(v, -1.0, 1.0);
}

double metric_distance(MetricId id, double candidate, double reference) {
  return std::abs(signed_response(id, candidate, reference));
}

std::vector<MetricId> DistanceReport::entered() const {
  std::vector<MetricId> out;
  for (const auto& m : per_metric)
    if (m.in_d()) out.push_back(m.id);
  return out;
}

std::vector<MetricId> DistanceReport::left_out() const {
  std::vector<MetricId> out;
  for (const auto& m : per_metric)
    if (!m.in_d()) out.push_back(m.id);
  return out;
}

DistanceReport distance(const Signature& candidate, const Signature& reference) {
  DistanceReport rep;
  double sum = 0.0;
  int n = 0;
  for (std::size_t i = 0; i < kNumMetrics; ++i) {
    const auto id = static_cast<MetricId>(i);
    MetricDistance& md = rep.per_metric[i];
    md.id = id;
    md.candidate = candidate.values[i];
    md.reference = reference.values[i];
    if (md.candidate && md.reference) {
      md.signed_response = signed_response(id, *md.candidate, *md.reference);
      md.d = std::abs(*md.signed_response);
      sum += *md.d;
      ++n;
    }
  }
  if (n > 0) rep.d_value = sum / n;
  return rep;
}

}  // namespace vxsynth::core
