// The axis table (docs/codegen.md "The twelve axes"): one row per axis of paper Table 3 with its
// JSON form, validation, refinement steps and the built-in agent's prior rows. Each axis's
// bodies follow its row's order: JSON, checks, steps, priors.
#include <fmt/format.h>

#include <algorithm>
#include <initializer_list>

#include "json_fields.h"
#include "vxsynth/codegen/design_point.h"
#include "vxsynth/common/error.h"

namespace vxsynth::codegen {
namespace {

using detail::as;
using detail::get;
using detail::parse;
using nlohmann::json;
using M = core::MetricId;
using Reasons = std::vector<std::string>;

constexpr detail::Names<LaneMap, 3> kLaneMaps{
    {{LaneMap::kContiguous, "contiguous"}, {LaneMap::kStrided, "strided"}, {LaneMap::kElement, "element"}}};
constexpr detail::Names<Boundary, 3> kBoundaries{
    {{Boundary::kGuard, "guard"}, {Boundary::kClamp, "clamp"}, {Boundary::kExact, "exact"}}};
constexpr detail::Names<Epilogue, 2> kEpilogues{{{Epilogue::kFused, "fused"}, {Epilogue::kSeparate, "separate"}}};
constexpr detail::Names<KRange, 2> kKRanges{{{KRange::kSpecialized, "specialized"}, {KRange::kGeneric, "generic"}}};
/// JSON names of the fragment shapes, from their table (kFragShapeTable).
constexpr detail::Names<FragShape, kFragShapeTable.size()> kFrags = [] {
  detail::Names<FragShape, kFragShapeTable.size()> n{};
  for (size_t i = 0; i < n.size(); ++i) n[i] = {kFragShapeTable[i].id, kFragShapeTable[i].key};
  return n;
}();

// ---------------------------------------------------------------- step helpers
//
// A forward step doubles a size or moves an enum one place along its order; reverse undoes it.
// Block size is fixed (paper §3.4), so a tile step that alters the thread count moves the
// register micro-tile with it.

bool scale(uint32_t& v, bool up, uint32_t lo = 1) {
  if (up) {
    v *= 2;
    return true;
  }
  if (v / 2 < lo) return false;
  v /= 2;
  return true;
}

template <typename E>
bool cycle(E& v, std::initializer_list<E> order, bool up) {
  auto it = std::find(order.begin(), order.end(), v);
  if (it == order.end()) return false;
  if (up) {
    if (it + 1 == order.end()) return false;
    v = *(it + 1);
  } else {
    if (it == order.begin()) return false;
    v = *(it - 1);
  }
  return true;
}

bool set_flag(bool& v, bool want) { return v != want ? (v = want, true) : false; }

void none(const DesignPoint&, Reasons&) {}
bool simt_threads_divide(const Axes& a) { return a.tile.m % a.reg_tile.m == 0 && a.tile.n % a.reg_tile.n == 0; }

// ---------------------------------------------------------------- tile
json tile_json(const Axes& a) { return {{"m", a.tile.m}, {"n", a.tile.n}, {"k", a.tile.k}}; }
void tile_read(const json& v, std::string_view w, Axes& a) {
  a.tile = {get<uint32_t>(v, "m", w), get<uint32_t>(v, "n", w), get<uint32_t>(v, "k", w)};
}
void tile_bounds(const DesignPoint& p, Reasons& out) {
  const auto& t = p.axes.tile;
  if (t.m < 1 || t.m > 256 || t.n < 1 || t.n > 256 || t.k < 1 || t.k > 64)
    out.push_back(fmt::format("{}x{}x{} outside BM,BN in 1..256, BK in 1..64", t.m, t.n, t.k));
}
void tile_threads(const DesignPoint& p, Reasons& out) {
  const auto& a = p.axes;
  const uint32_t bs = p.fixed.block_size;
  if (!a.tensor_core.enabled && simt_threads_divide(a)) {
    const uint32_t ty = a.tile.m / a.reg_tile.m, tx = a.tile.n / a.reg_tile.n;
    if (ty * tx != bs) {
      out.push_back(fmt::format("(BM/TM)·(BN/TN) = ({}/{})·({}/{}) = {} threads, but the block size is fixed at {}",
                                a.tile.m, a.reg_tile.m, a.tile.n, a.reg_tile.n, ty * tx, bs));
    }
  }
  const TcScheduleInfo& sched = schedule_info(p.tc_schedule);
  if (a.tensor_core.enabled && !sched.warp_epilogue && (a.tile.m * a.tile.n) % bs != 0) {
    out.push_back(fmt::format("BM·BN = {} must be a multiple of the block size {} for the epilogue write-out",
                              a.tile.m * a.tile.n, bs));
  }
  const bool partial = a.tensor_core.enabled && sched.partial_fills;
  if (a.smem_stage && !partial && ((a.tile.m * a.tile.k) % bs != 0 || (a.tile.k * a.tile.n) % bs != 0)) {
    out.push_back(
        fmt::format("BM·BK = {} and BK·BN = {} must be multiples of the block size {} for the cooperative fill",
                    a.tile.m * a.tile.k, a.tile.k * a.tile.n, bs));
  }
}
void tile_memory(const DesignPoint& p, Reasons& out) {
  const uint32_t cuda = smem_bytes(p);
  const TcScheduleInfo& sched = schedule_info(p.tc_schedule);
  const bool dynamic = p.axes.tensor_core.enabled && sched.warp_epilogue;
  const uint32_t limit = dynamic ? sched.cuda_smem_limit : kCudaStaticSmem;
  if (cuda > limit) {
    out.push_back(dynamic ? fmt::format("{} B of shared memory per block exceeds sm_90's 227 KiB of opt-in dynamic "
                                        "shared memory", cuda)
                          : fmt::format("{} B of shared memory per block exceeds CUDA's 48 KiB static limit", cuda));
  }
  const auto& vx = p.vortex;
  const uint32_t vx_bytes = vortex_local_mem_bytes(p);
  const uint32_t groups_per_core = vortex_blocks_per_core(p);
  if (vx_bytes * groups_per_core > vx.local_mem_bytes) {
    out.push_back(
        fmt::format("{} B of local memory per block x {} resident blocks per core exceeds the Vortex core's {} B",
                    vx_bytes, groups_per_core, vx.local_mem_bytes));
  }
}
void tile_check(const DesignPoint& p, Reasons& out) {
  tile_threads(p, out);
  tile_memory(p, out);
}
bool tile_depth(Axes& a, bool f) { return scale(a.tile.k, f); }
bool tile_aspect(Axes& a, bool f) {  // same area: BM up and BN down (forward), with TM/TN
  return f ? scale(a.tile.m, true) && scale(a.tile.n, false) && scale(a.reg_tile.m, true) && scale(a.reg_tile.n, false)
           : scale(a.tile.m, false) && scale(a.tile.n, true) && scale(a.reg_tile.m, false) && scale(a.reg_tile.n, true);
}
// Design space 2: a tensor-core point's aspect (its reg_tile stays 1x1, reg_tile_check), which
// tile_aspect cannot move since it scales reg_tile with the tile.
bool tile_aspect_tensor_core(Axes& a, bool f) {
  return a.tensor_core.enabled && scale(a.tile.m, f) && scale(a.tile.n, !f);
}
constexpr AxisVariant kTileSteps[] = {tile_depth, tile_aspect, {tile_aspect_tensor_core, 2}};
constexpr AxisPrior kTilePriors[] = {
    {std::nullopt, M::kCoalescing, +0.06, "§4.3: tile raises coalescing on linear, matmul and conv2d (sign only)"},
    {core::OpKind::kConv1d, M::kCoalescing, -0.06, "§4.3: tile lowers coalescing on conv1d (sign only)"},
    {std::nullopt, M::kArithIntensity, +0.06, "§4.3: tile connects reuse and work per byte (~0.06)"},
    {std::nullopt, M::kL1HitRate, +0.06, "§4.4 r1: stating the 32x32 tile raised L1 hit rate"},
};

// ---------------------------------------------------------------- reg_tile
json reg_tile_json(const Axes& a) { return {{"m", a.reg_tile.m}, {"n", a.reg_tile.n}}; }
void reg_tile_read(const json& v, std::string_view w, Axes& a) {
  a.reg_tile = {get<uint32_t>(v, "m", w), get<uint32_t>(v, "n", w)};
}
void reg_tile_bounds(const DesignPoint& p, Reasons& out) {
  const auto& r = p.axes.reg_tile;
  if (r.m < 1 || r.n < 1 || r.m > 16 || r.n > 16) out.push_back(fmt::format("{}x{} outside 1..16", r.m, r.n));
}
void reg_tile_check(const DesignPoint& p, Reasons& out) {
  const auto& a = p.axes;
  if (a.tensor_core.enabled) {
    if (a.reg_tile.m != 1 || a.reg_tile.n != 1)
      out.emplace_back(
          "must be 1x1 on tensor-core paths (the per-warp fragment count follows from tile and block size)");
  } else if (!simt_threads_divide(a)) {
    out.push_back(fmt::format("{}x{} does not divide tile {}x{}", a.reg_tile.m, a.reg_tile.n, a.tile.m, a.tile.n));
  }
}
bool reg_tile_rows(Axes& a, bool f) { return scale(a.reg_tile.m, f) && scale(a.tile.m, f); }
bool reg_tile_cols(Axes& a, bool f) { return scale(a.reg_tile.n, f) && scale(a.tile.n, f); }
constexpr AxisVariant kRegTileSteps[] = {reg_tile_rows, reg_tile_cols};
constexpr AxisPrior kRegTilePriors[] = {
    {std::nullopt, M::kArithIntensity, +0.06, "§4.3: register tiling raises arith. intensity"},
    {std::nullopt, M::kOccupancy, -0.10, "§4.3: lowers occupancy by 0.07-0.13"},
};

// ---------------------------------------------------------------- prefetch
json prefetch_json(const Axes& a) { return a.prefetch; }
void prefetch_read(const json& v, std::string_view w, Axes& a) { a.prefetch = as<bool>(v, w); }
void prefetch_check(const DesignPoint& p, Reasons& out) {
  if (p.axes.prefetch && !p.axes.smem_stage)
    out.emplace_back("double-buffers the shared-memory fill; needs smem_stage");
}
bool prefetch_step(Axes& a, bool f) { return set_flag(a.prefetch, f); }
// Design space 4: a pipelined warp-epilogue point's CUDA stage count, one place along a ladder of
// counts (0 stands for 4, the schedule's default, as seeds write it); a count off the ladder (a
// kernel name's 5, 13 or 15) moves to the next one each way. Taken only when the stages kept
// (cuda_tc_stages: what the shared-memory limit holds) change. Tried before the flag, so that
// reverse first lowers the stages, then turns prefetch off.
constexpr uint32_t kStageLadder[] = {2, 3, 4, 6, 8, 12, 16};
bool prefetch_stages_step(DesignPoint& p, bool f) {
  const TcScheduleInfo& sched = schedule_info(p.tc_schedule);
  if (!p.axes.tensor_core.enabled || !sched.warp_epilogue || !p.axes.prefetch) return false;
  const uint32_t asked = p.cuda_stages ? p.cuda_stages : 4;
  uint32_t next = 0;
  for (const uint32_t s : kStageLadder) {
    if (f && s > asked && next == 0) next = s;
    if (!f && s < asked) next = s;
  }
  if (next == 0 || next > sched.cuda_max_stages) return false;
  DesignPoint q = p;
  q.cuda_stages = next == 4 ? 0 : next;
  if (cuda_tc_stages(q) == cuda_tc_stages(p)) return false;
  p.cuda_stages = q.cuda_stages;
  return true;
}
constexpr AxisVariant kPrefetchSteps[] = {{prefetch_stages_step, 4}, prefetch_step};
constexpr AxisPrior kPrefetchPriors[] = {
    {std::nullopt, M::kDramBandwidth, +0.06, "§4.3: raises DRAM bandwidth in all four panels"},
};

// ---------------------------------------------------------------- smem_stage
json smem_stage_json(const Axes& a) { return a.smem_stage; }
void smem_stage_read(const json& v, std::string_view w, Axes& a) { a.smem_stage = as<bool>(v, w); }
void smem_stage_check(const DesignPoint& p, Reasons& out) {
  if (p.axes.tensor_core.enabled && !p.axes.smem_stage)
    out.emplace_back("tensor-core paths read fragments from shared memory; it must be on");
}
bool smem_stage_step(Axes& a, bool f) { return set_flag(a.smem_stage, f); }
constexpr AxisVariant kSmemStageSteps[] = {smem_stage_step};
constexpr AxisPrior kSmemStagePriors[] = {
    {std::nullopt, M::kL1HitRate, -0.55, "§4.3 linear panel: lowers L1 hit rate by 0.55"},
    {std::nullopt, M::kCoalescing, +0.56, "§4.3 linear panel: raises coalescing by 0.56"},
    {std::nullopt, M::kOccupancy, -0.15, "§4.3: reduces occupancy on linear layers by 0.15"},
};

// ---------------------------------------------------------------- read_once
json read_once_json(const Axes& a) { return a.read_once; }
void read_once_read(const json& v, std::string_view w, Axes& a) { a.read_once = as<bool>(v, w); }
void read_once_check(const DesignPoint& p, Reasons& out) {
  if (p.axes.read_once && p.axes.smem_stage)
    out.emplace_back("excludes smem_stage (reuse is served by L1 instead of shared memory)");
}
bool read_once_step(Axes& a, bool f) { return set_flag(a.read_once, f); }
constexpr AxisVariant kReadOnceSteps[] = {read_once_step};
constexpr AxisPrior kReadOncePriors[] = {
    {std::nullopt, M::kL1HitRate, +0.52, "§4.4 r3: read-once raises L1 hit rate by 0.52"},
    {std::nullopt, M::kCoalescing, -0.06, "§4.3: opposite of shared-memory staging (sign only)"},
};

// ---------------------------------------------------------------- lane_map
json lane_map_json(const Axes& a) { return detail::name_of(kLaneMaps, a.lane_map); }
void lane_map_read(const json& v, std::string_view w, Axes& a) { a.lane_map = parse(kLaneMaps, v, w); }
void lane_map_check(const DesignPoint& p, Reasons& out) {
  if (p.axes.lane_map == LaneMap::kElement && cuda_fill_vectors(p) == std::array<uint32_t, 2>{1, 1})
    out.emplace_back("element renders as contiguous here (no 16-byte vector fill of either operand)");
}
// One place along strided < element < contiguous; where element is not valid, the second variant
// moves between contiguous and strided directly.
bool lane_map_step(Axes& a, bool f) {
  return cycle(a.lane_map, {LaneMap::kStrided, LaneMap::kElement, LaneMap::kContiguous}, f);
}
bool lane_map_step_over_element(Axes& a, bool f) {
  if (a.lane_map == LaneMap::kElement) return false;
  const auto want = f ? LaneMap::kContiguous : LaneMap::kStrided;
  return a.lane_map != want ? (a.lane_map = want, true) : false;
}
constexpr AxisVariant kLaneMapSteps[] = {lane_map_step, lane_map_step_over_element};
constexpr AxisPrior kLaneMapPriors[] = {
    {std::nullopt, M::kCoalescing, +0.16,
     "§4.3: staging/lane-mapping traffic magnitude 0.16; reverse lowers coalescing (§4.4 r8)"},
};

// ---------------------------------------------------------------- tensor_core
json tensor_core_json(const Axes& a) {
  return {{"enabled", a.tensor_core.enabled}, {"shape", detail::name_of(kFrags, a.tensor_core.shape)}};
}
void tensor_core_read(const json& v, std::string_view w, Axes& a) {
  a.tensor_core.enabled = get<bool>(v, "enabled", w);
  a.tensor_core.shape = parse(kFrags, detail::at(v, "shape", w), fmt::format("{}.shape", w));
}
void tensor_core_shape(const DesignPoint& p, Reasons& out) {
  // The CUDA side's format decides (cuda_path: a TF32 reference at FP16 under the Vortex formats).
  const auto s = p.axes.tensor_core.shape;
  const check::PrecisionPath path = cuda_path(p);
  if (path == check::PrecisionPath::kTf32 && s != FragShape::kM16N16K8)
    out.push_back(fmt::format("tf32 wmma has only m16n16k8, not {}", to_string(s)));
  if (path == check::PrecisionPath::kBf16 && s == FragShape::kM16N16K8)
    out.emplace_back("bf16 shapes are m16n16k16, m32n8k16, m8n32k16 (wmma) and m64n{64,128,256}k16 (wgmma)");
  if (path == check::PrecisionPath::kTf32Fp16 && s == FragShape::kM16N16K8)
    out.emplace_back("fp16 shapes are m16n16k16, m32n8k16, m8n32k16 (wmma) and m64n{64,128,256}k16 (wgmma; a TF32 "
                     "reference at FP16)");
}
// Warpgroup MMA (docs/codegen.md "Warpgroup MMA"): wgmma reads both operands from canonical K-major
// shared tiles through descriptors, filled by cp.async stages, and leaves its accumulators in
// registers for the warp-epilogue write-out.
void tensor_core_warpgroup(const DesignPoint& p, Reasons& out) {
  const auto s = p.axes.tensor_core.shape;
  if (!warpgroup_mma(s)) return;
  const std::string_view key = frag_shape_info(s).key;
  if (p.fixed.op.family != check::OpFamily::kLinear)
    out.push_back(fmt::format("{} reads both operands K-major; {}'s B is N-contiguous (only linear's weight is "
                              "K-contiguous)", key, check::to_string(p.fixed.op.family)));
  if (p.fixed.block_size % kCudaWarpgroup != 0)
    out.push_back(fmt::format("{} is issued by warpgroups of {} threads; block size {} is not a multiple",
                              key, kCudaWarpgroup, p.fixed.block_size));
  const check::PrecisionPath path = cuda_path(p);
  if (path != check::PrecisionPath::kBf16 && path != check::PrecisionPath::kTf32Fp16) return;  // tensor_core_shape says why
  if (p.axes.lane_map != LaneMap::kContiguous || cuda_fill_vectors(p) != std::array<uint32_t, 2>{8, 8})
    out.push_back(fmt::format("{} needs 16-byte vector fills of both operands along K (lane_map contiguous, K a "
                              "multiple of 8, the native translation)", key));
  if (!schedule_info(p.tc_schedule).warp_epilogue)
    out.push_back(fmt::format("{} writes its accumulators out from registers: tc_schedule warp-epilogue", key));
  else if (cuda_tc_stages(p) < 2)
    out.push_back(fmt::format("{} needs at least two cp.async shared stages (prefetch on, the native translation, "
                              "two stages within 227 KiB)", key));
  const uint32_t acc = warpgroup_accumulators(p), most = warpgroup_max_accumulators(p.fixed.block_size);
  if (acc > most)
    out.push_back(fmt::format("{}: {} fp32 accumulators per thread exceed the {} that {} threads per block leave "
                              "beside addresses and loop state", key, acc, most, p.fixed.block_size));
}
// A fragment `f` (m, n, k) issued by `owner` threads must divide the tile and split evenly over the
// block's owners (warps or warpgroups); `what` names one fragment, `plural` the kind.
void tensor_core_split(const DesignPoint& p, std::array<uint32_t, 3> f, uint32_t owner, const std::string& what,
                       std::string_view plural, Reasons& out) {
  const auto& t = p.axes.tile;
  const uint32_t bs = p.fixed.block_size;
  if (t.m % f[0] || t.n % f[1] || t.k % f[2]) {
    out.push_back(fmt::format("{} does not divide tile {}x{}x{}", what, t.m, t.n, t.k));
  } else if (bs % owner == 0 && ((t.m / f[0]) * (t.n / f[1])) % (bs / owner) != 0) {
    out.push_back(fmt::format("{} {} per block tile do not split evenly over {} {}", (t.m / f[0]) * (t.n / f[1]),
                              plural, bs / owner, owner > kCudaWarp ? "warpgroups" : "warps"));
  }
}
void tensor_core_check(const DesignPoint& p, Reasons& out) {
  const bool tc = p.axes.tensor_core.enabled;
  const uint32_t bs = p.fixed.block_size, vt_w = p.vortex.threads;
  if (tc != (p.fixed.engine == core::EngineClass::kTensorCore))
    out.push_back(fmt::format("enabled={} contradicts the fixed engine class {}", tc, core::to_string(p.fixed.engine)));
  if (!tc && p.tc_schedule != TcSchedule::kTileEpilogue)
    out.push_back(fmt::format("tc_schedule {} needs the tensor-core strategy", schedule_info(p.tc_schedule).key));
  const TcScheduleInfo& sched = schedule_info(p.tc_schedule);
  if (p.cuda_stages != 0 && !sched.warp_epilogue)
    out.push_back(fmt::format("cuda_stages {} is a warp-epilogue setting (tc_schedule {} derives its stages)",
                              p.cuda_stages, sched.key));
  if (p.cuda_stages > sched.cuda_max_stages)
    out.push_back(fmt::format("cuda_stages {} outside 0..{} (0: 4 stages)", p.cuda_stages, sched.cuda_max_stages));
  if (!tc) return;
  tensor_core_shape(p, out);
  tensor_core_warpgroup(p, out);
  if (bs % kCudaWarp != 0) out.push_back(fmt::format("block size {} is not a multiple of the CUDA warp 32", bs));
  if (bs % vt_w != 0)
    out.push_back(fmt::format("block size {} is not a multiple of the Vortex warp width {}", bs, vt_w));
  std::array<uint32_t, 3> vt{};
  try {
    vt = vortex_tcu_tile(vt_w);
  } catch (const Error& err) {
    out.emplace_back(err.what());
    return;
  }
  const FragShapeInfo& fs = frag_shape_info(p.axes.tensor_core.shape);
  tensor_core_split(p, frag_dims(fs.id), fs.owner_threads, fmt::format("CUDA fragment {}x{}x{}", fs.m, fs.n, fs.k),
                    "CUDA fragments", out);
  tensor_core_split(p, vt, vt_w, fmt::format("Vortex TCU tile {}x{}x{} (warp width {})", vt[0], vt[1], vt[2], vt_w),
                    "Vortex TCU tiles", out);
}
bool tensor_core_step(Axes& a, bool f) {
  using S = FragShape;
  return a.tensor_core.enabled &&
         cycle(a.tensor_core.shape, {S::kM16N16K8, S::kM16N16K16, S::kM32N8K16, S::kM8N32K16}, f);
}
// Design space 7: a warpgroup point steps its operation's N (m64n64k16 < m64n128k16 < m64n256k16).
bool tensor_core_warpgroup_n_step(Axes& a, bool f) {
  using S = FragShape;
  return a.tensor_core.enabled && cycle(a.tensor_core.shape, {S::kM64N64K16, S::kM64N128K16, S::kM64N256K16}, f);
}
constexpr AxisVariant kTensorCoreSteps[] = {tensor_core_step, {tensor_core_warpgroup_n_step, 7}};
constexpr AxisPrior kTensorCorePriors[] = {
    {std::nullopt, M::kCoalescing, +0.91, "§4.3: largest mean response coalescing, 0.91"},
};

// ---------------------------------------------------------------- fused_act (fixed at seed)
json fused_act_json(const Axes& a) { return detail::name_of(kEpilogues, a.fused_act); }
void fused_act_read(const json& v, std::string_view w, Axes& a) { a.fused_act = parse(kEpilogues, v, w); }
void fused_act_check(const DesignPoint& p, Reasons& out) {
  const bool has_epilogue = p.fixed.op.has_bias || p.fixed.op.activation != check::Activation::kNone;
  if (p.axes.fused_act == Epilogue::kSeparate && !has_epilogue)
    out.emplace_back("separate needs a bias or an activation to strip");
}

// ---------------------------------------------------------------- split_k
json split_k_json(const Axes& a) { return a.split_k; }
void split_k_read(const json& v, std::string_view w, Axes& a) { a.split_k = as<uint32_t>(v, w); }
void split_k_check(const DesignPoint& p, Reasons& out) {
  const GemmView g = gemm_view(p.fixed.op);
  const auto& a = p.axes;
  const int64_t k_tiles = (g.k + a.tile.k - 1) / a.tile.k;
  if (a.split_k < 1 || static_cast<int64_t>(a.split_k) > k_tiles)
    out.push_back(fmt::format("{} outside 1..ceil(K/BK) = ceil({}/{}) = {}", a.split_k, g.k, a.tile.k, k_tiles));
  if (g.z * a.split_k > 65535) out.push_back(fmt::format("grid z = {} exceeds 65535", g.z * a.split_k));
}
bool split_k_step(Axes& a, bool f) { return scale(a.split_k, f); }
constexpr AxisVariant kSplitKSteps[] = {split_k_step};
constexpr AxisPrior kSplitKPriors[] = {
    {std::nullopt, M::kDramBandwidth, +0.06, "§4.3: split-K raises DRAM bandwidth (conv1d)"},
    {std::nullopt, M::kPeakCompute, +0.06, "§4.3: split-K raises achieved peak compute (conv1d)"},
};

// ---------------------------------------------------------------- block_decomp
json block_decomp_json(const Axes& a) { return {{"warp_rows", a.warp_rows}}; }
void block_decomp_read(const json& v, std::string_view w, Axes& a) { a.warp_rows = get<uint32_t>(v, "warp_rows", w); }
void block_decomp_check(const DesignPoint& p, Reasons& out) {
  const auto& a = p.axes;
  const uint32_t r = a.warp_rows, bs = p.fixed.block_size;
  if (r == 0) return;
  if (a.tensor_core.enabled) {
    out.emplace_back("warp_rows applies to SIMT paths only");
    return;
  }
  if (!simt_threads_divide(a)) return;  // reg_tile reports it
  const uint32_t ty = a.tile.m / a.reg_tile.m, tx = a.tile.n / a.reg_tile.n;
  for (uint32_t w : {kCudaWarp, p.vortex.threads}) {
    if (w % r != 0 || bs % w != 0 || ty % r != 0 || tx % (w / r) != 0) {
      out.push_back(
          fmt::format("warp_rows {} needs r | warp width {}, warp width | block size {}, "
                      "r | thread rows {} and (warp width / r) | thread columns {}",
                      r, w, bs, ty, tx));
      return;
    }
  }
}
bool block_decomp_step(Axes& a, bool f) {
  if (f) {
    a.warp_rows = a.warp_rows == 0 ? 1 : a.warp_rows * 2;
    return true;
  }
  if (a.warp_rows == 0) return false;
  a.warp_rows = a.warp_rows == 1 ? 0 : a.warp_rows / 2;
  return true;
}
constexpr AxisVariant kBlockDecompSteps[] = {block_decomp_step};
constexpr AxisPrior kBlockDecompPriors[] = {
    {std::nullopt, M::kCoalescing, +0.06, "§4.3: largest response in coalescing (conv1d)"},
};

// ---------------------------------------------------------------- boundary
json boundary_json(const Axes& a) { return detail::name_of(kBoundaries, a.boundary); }
void boundary_read(const json& v, std::string_view w, Axes& a) { a.boundary = parse(kBoundaries, v, w); }
void boundary_check(const DesignPoint& p, Reasons& out) {
  const auto& a = p.axes;
  if (a.boundary != Boundary::kExact) return;
  const GemmView g = gemm_view(p.fixed.op);
  const int64_t kc = static_cast<int64_t>(a.tile.k) * a.split_k;
  if (g.m % a.tile.m || g.n % a.tile.n || g.k % kc) {
    out.push_back(fmt::format("exact needs GEMM M={} % BM={}, N={} % BN={}, K={} % (BK·split_k)={} all zero", g.m,
                              a.tile.m, g.n, a.tile.n, g.k, kc));
  }
}
bool boundary_step(Axes& a, bool f) {
  return cycle(a.boundary, {Boundary::kGuard, Boundary::kClamp, Boundary::kExact}, f);
}
constexpr AxisVariant kBoundarySteps[] = {boundary_step};
constexpr AxisPrior kBoundaryPriors[] = {
    {std::nullopt, M::kActiveLanes, +0.02, "§4.3: active lanes nearly unchanged (small prior)"},
};

// ---------------------------------------------------------------- k_range (fixed at seed)
json k_range_json(const Axes& a) { return detail::name_of(kKRanges, a.k_range); }
void k_range_read(const json& v, std::string_view w, Axes& a) { a.k_range = parse(kKRanges, v, w); }

}  // namespace

// Descriptive columns: parameters and directions of this generator; the metrics column summarises
// the paper's §4.3 (Fig. 4) observations ("either": both signs across benchmarks); the prior
// rows are the paper's mean signed responses where §4.3/§4.4 state a number, else the typical
// magnitude of the axis group (0.06, §4.3 "about 0.06 in each") with the paper's sign. The agent
// treats them as one pseudo-observation that the run's own revisions outweigh (docs/reconstruct.md).
const std::array<AxisInfo, kNumAxes> kAxisTable{{
    {AxisId::kTile, "tile", "tile dimensions", "tile.m, tile.n, tile.k",
     "tile.m, tile.n in 1..256, tile.k in 1..64 (block tile BM x BN x BK); BM/TM * BN/TN must equal the block size",
     "larger BM/BN: more reuse per block, fewer blocks; larger BK: deeper reduction per stage, more smem",
     "coalescing (either), l1_hit_rate, arith_intensity, dram_bandwidth", "same tile loops", "same tile loops",
     "emit_tile_defines (BM, BN, BK), grids", false, tile_json, tile_read, tile_bounds, tile_check, kTileSteps,
     kTilePriors},
    {AxisId::kRegTile, "reg_tile", "register tiling / ILP", "reg_tile.m, reg_tile.n",
     "reg_tile.m, reg_tile.n in 1..16 (per-thread TM x TN outputs; 1x1 on tensor-core paths)",
     "larger: more outputs and registers per thread, more reuse, lower occupancy",
     "arith_intensity up, occupancy down (0.07-0.13)", "register arrays", "register arrays",
     "emit_tile_defines (TM, TN), emit_gemm_body (accumulator arrays)", false, reg_tile_json, reg_tile_read,
     reg_tile_bounds, reg_tile_check, kRegTileSteps, kRegTilePriors},
    {AxisId::kPrefetch, "prefetch", "software prefetching", "prefetch", "prefetch: bool (needs smem_stage)",
     "on: load the next K slice while computing this one", "dram_bandwidth up, l1/l2 hit rates",
     "SIMT: register double-buffering; tensor core: two shared-memory stages filled by cp.async (16-byte "
     "copies; element operands through registers)",
     "register double-buffering (software prefetch replaces the asynchronous copies, paper §3.3)",
     "emit_gemm_body (SIMT K loop), emit_tc_gemm_body (two-stage loop, emit_tc.cc)", false,
     prefetch_json, prefetch_read, none, prefetch_check, kPrefetchSteps, kPrefetchPriors},
    {AxisId::kSmemStage, "smem_stage", "shared-memory staging", "smem_stage", "smem_stage: bool",
     "on: operand tiles filled cooperatively into shared memory, read from there",
     "l1_hit_rate down (-0.55 on linear), coalescing up (+0.56), occupancy down (-0.15)",
     "__shared__ + __syncthreads(); tensor core: padded rows, 16-byte vector fills where the operand is "
     "contiguous and aligned", "__local_mem() + __syncthreads(); element fills in the same order",
     "emit_tile_defines (FILL_A, FILL_B), emit_gemm_body (fill, barriers)", false, smem_stage_json, smem_stage_read,
     none, smem_stage_check, kSmemStageSteps, kSmemStagePriors},
    {AxisId::kReadOnce, "read_once", "read-once staging", "read_once", "read_once: bool (excludes smem_stage)",
     "on: reuse served by L1 (CUDA __ldg); off without smem: loads bypass L1 (CUDA __ldcg)",
     "l1_hit_rate up, coalescing down (opposite of smem_stage)", "__ldg vs __ldcg cache policy",
     "plain cached loads (Vortex has no cache hints)", "emit_device_helpers (VXS_LD)", false, read_once_json,
     read_once_read, none, read_once_check, kReadOnceSteps, kReadOncePriors},
    {AxisId::kLaneMap, "lane_map", "lane-contiguous mapping", "lane_map", "lane_map: strided | element | contiguous",
     "contiguous: adjacent lanes read/write adjacent addresses (CUDA tensor-core fills: 16-byte vectors where "
     "aligned); element: the same, one element per lane and load; strided: the reverse, lowering coalescing",
     "coalescing (either direction)", "index math; contiguous: 16-byte vector fills (tensor core)",
     "same index math, element loads (lane-contiguous mapping replaces vectorised loads, paper §3.3)",
     "emit_gemm_body (fill and output indices), plan_vectors", false, lane_map_json, lane_map_read, none,
     lane_map_check, kLaneMapSteps, kLaneMapPriors},
    {AxisId::kTensorCore, "tensor_core", "tensor-core lowering", "tensor_core.enabled, tensor_core.shape",
     "tensor_core.enabled (= engine class), tensor_core.shape: m16n16k8 (tf32) | m16n16k16 | m32n8k16 | m8n32k16 "
     "(bf16)",
     "changes the fragment shape inside the fixed engine class", "tensor_mfu, coalescing (0.91 on linear)",
     "nvcuda::wmma fragments", "vortex::tensor::wmma_context (FP16/BF16 -> FP32 TCU)",
     "emit_tile_defines (FM, FN, FK), emit_gemm_body (fragment loop)", false, tensor_core_json, tensor_core_read, none,
     tensor_core_check, kTensorCoreSteps, kTensorCorePriors},
    {AxisId::kFusedAct,
     "fused_act",
     "fused-activation stripping",
     "fused_act",
     "fused_act: fused | separate",
     "separate: bias/activation in a second elementwise kernel",
     "dram_bandwidth, arith_intensity",
     "epilogue in kernel or a second kernel",
     "same (second vx_start)",
     "emit_epilogue_body, emit_cuda, emit_vortex",
     true,
     fused_act_json,
     fused_act_read,
     none,
     fused_act_check,
     {},
     {}},
    {AxisId::kSplitK, "split_k", "split-K without atomics", "split_k", "split_k in 1..ceil(K/BK)",
     "larger: more blocks along K; partials written to a workspace and reduced by a second kernel",
     "dram_bandwidth up, peak_compute up (1-D conv)", "workspace + reduce kernel", "same (second vx_start)",
     "emit_tile_defines (SPLIT_K), emit_epilogue_body (reduce), workspace_floats", false, split_k_json, split_k_read,
     none, split_k_check, kSplitKSteps, kSplitKPriors},
    {AxisId::kBlockDecomp, "block_decomp", "per-block decomposition", "block_decomp.warp_rows",
     "warp_rows: 0 (row-major threads) or r dividing 32 and the Vortex warp width (each warp covers r thread rows)",
     "changes which outputs a warp owns; block size fixed", "coalescing (1-D conv), occupancy", "thread index math",
     "warps per group (same index math)", "emit_tile_defines (WARP_ROWS), emit_gemm_body", false, block_decomp_json,
     block_decomp_read, none, block_decomp_check, kBlockDecompSteps, kBlockDecompPriors},
    {AxisId::kBoundary, "boundary", "boundary handling", "boundary", "boundary: guard | clamp | exact",
     "guard: predicated loads/stores; clamp: branch-free clamped loads; exact: no edge code (shape divides tile)",
     "active_lanes, peak_compute", "if guards / clamped indices",
     "predicated accesses (vx_vote_any + vx_pred/vx_tmc) or clamped indices",
     "emit_device_helpers (loaders, VXS_GLD/VXS_GST), emit_gemm_body", false, boundary_json, boundary_read, none,
     boundary_check, kBoundarySteps, kBoundaryPriors},
    {AxisId::kKRange,
     "k_range",
     "generic K range",
     "k_range",
     "k_range: specialized | generic",
     "specialized: M, N, K compile-time constants; generic: run-time shape",
     "peak_compute, active_lanes",
     "constexpr shape vs arguments",
     "same",
     "emit_cuda, emit_vortex (dims initializer)",
     true,
     k_range_json,
     k_range_read,
     none,
     none,
     {},
     {}},
}};

const AxisInfo& axis_info(AxisId id) { return kAxisTable[static_cast<size_t>(id)]; }

std::optional<AxisId> find_axis(std::string_view key) {
  for (const auto& a : kAxisTable) {
    if (a.key == key) return a.id;
  }
  return std::nullopt;
}

AxisId axis_from_key(std::string_view key) {
  if (const auto id = find_axis(key)) return *id;
  throw make_error("unknown axis '{}'", key);
}

std::map<core::MetricId, double> prior_response(AxisId axis, core::OpKind op) {
  std::map<core::MetricId, double> out;
  for (const AxisPrior& row : axis_info(axis).priors) {
    if (!row.op && !out.count(row.metric)) out[row.metric] = row.response;
  }
  for (const AxisPrior& row : axis_info(axis).priors) {
    if (row.op == op) out[row.metric] = row.response;
  }
  return out;
}

std::optional<DesignPoint> step_axis(const DesignPoint& p, AxisId axis, bool forward, const FixedProperties& fixed,
                                     std::string* why_not, int space_version) {
  std::string reasons;
  for (const AxisVariant& v : axis_info(axis).steps) {
    if (v.since > space_version) continue;
    DesignPoint q = p;
    if (!v.apply(q, forward)) {
      reasons += "at its bound; ";
      continue;
    }
    std::string err = validation_errors(q);
    if (err.empty()) err = fixed_property_violations(q, fixed);
    if (err.empty()) return q;
    reasons += err + "; ";
  }
  if (axis_info(axis).steps.empty()) reasons = fmt::format("{} is fixed at seed", axis_info(axis).key);
  *why_not = reasons;
  return std::nullopt;
}

std::string_view to_string(LaneMap v) { return detail::name_of(kLaneMaps, v); }
std::string_view to_string(Boundary v) { return detail::name_of(kBoundaries, v); }
std::string_view to_string(Epilogue v) { return detail::name_of(kEpilogues, v); }
std::string_view to_string(KRange v) { return detail::name_of(kKRanges, v); }
std::string_view to_string(FragShape v) { return detail::name_of(kFrags, v); }

}  // namespace vxsynth::codegen
