#include "vxsynth/codegen/design_point.h"

#include <algorithm>
#include <numeric>
#include <utility>

#include <fmt/format.h>

#include "vxsynth/common/error.h"

namespace vxsynth::codegen {

// Metric ids are those of docs/signature-and-tolerances.md §1. Expected movements summarise the
// paper's §4.3 (Fig. 4) observations; "either" means the paper saw both signs across benchmarks.
const std::array<AxisInfo, kNumAxes> kAxisTable{{
    {AxisId::kTile, "tile", "tile dimensions",
     "tile.m, tile.n in 1..256, tile.k in 1..64 (block tile BM x BN x BK); BM/TM * BN/TN must equal the block size",
     "larger BM/BN: more reuse per block, fewer blocks; larger BK: deeper reduction per stage, more smem",
     "coalescing (either), l1_hit_rate, arith_intensity, dram_bandwidth", "same tile loops", "same tile loops", false},
    {AxisId::kRegTile, "reg_tile", "register tiling / ILP",
     "reg_tile.m, reg_tile.n in 1..16 (per-thread TM x TN outputs; 1x1 on tensor-core paths)",
     "larger: more outputs and registers per thread, more reuse, lower occupancy",
     "arith_intensity up, occupancy down (0.07-0.13)", "register arrays", "register arrays", false},
    {AxisId::kPrefetch, "prefetch", "software prefetching",
     "prefetch: bool (needs smem_stage)", "on: load the next K slice into registers while computing this one",
     "dram_bandwidth up, l1/l2 hit rates", "register double-buffering (replaces cp.async/TMA)",
     "register double-buffering", false},
    {AxisId::kSmemStage, "smem_stage", "shared-memory staging", "smem_stage: bool",
     "on: operand tiles filled cooperatively into shared memory, read from there",
     "l1_hit_rate down (-0.55 on linear), coalescing up (+0.56), occupancy down (-0.15)",
     "__shared__ + __syncthreads()", "__local_mem() + __syncthreads()", false},
    {AxisId::kReadOnce, "read_once", "read-once staging", "read_once: bool (excludes smem_stage)",
     "on: reuse served by L1 (CUDA __ldg); off without smem: loads bypass L1 (CUDA __ldcg)",
     "l1_hit_rate up, coalescing down (opposite of smem_stage)", "__ldg vs __ldcg cache policy",
     "plain cached loads (Vortex has no cache hints)", false},
    {AxisId::kLaneMap, "lane_map", "lane-contiguous mapping", "lane_map: contiguous | strided",
     "contiguous: adjacent lanes read/write adjacent addresses; strided: the reverse, lowering coalescing",
     "coalescing (either direction)", "index math", "same index math", false},
    {AxisId::kTensorCore, "tensor_core", "tensor-core lowering",
     "tensor_core.enabled (= engine class), tensor_core.shape: m16n16k8 (tf32) | m16n16k16 | m32n8k16 | m8n32k16 (bf16)",
     "changes the fragment shape inside the fixed engine class", "tensor_mfu, coalescing (0.91 on linear)",
     "nvcuda::wmma fragments", "vortex::tensor::wmma_context (FP16/BF16 -> FP32 TCU)", false},
    {AxisId::kFusedAct, "fused_act", "fused-activation stripping", "fused_act: fused | separate",
     "separate: bias/activation in a second elementwise kernel", "dram_bandwidth, arith_intensity",
     "epilogue in kernel or a second kernel", "same (second vx_start)", true},
    {AxisId::kSplitK, "split_k", "split-K without atomics", "split_k in 1..ceil(K/BK)",
     "larger: more blocks along K; partials written to a workspace and reduced by a second kernel",
     "dram_bandwidth up, peak_compute up (1-D conv)", "workspace + reduce kernel", "same (second vx_start)", false},
    {AxisId::kBlockDecomp, "block_decomp", "per-block decomposition",
     "warp_rows: 0 (row-major threads) or r dividing 32 and the Vortex warp width (each warp covers r thread rows)",
     "changes which outputs a warp owns; block size fixed", "coalescing (1-D conv), occupancy",
     "thread index math", "warps per group (same index math)", false},
    {AxisId::kBoundary, "boundary", "boundary handling", "boundary: guard | clamp | exact",
     "guard: predicated loads/stores; clamp: branch-free clamped loads; exact: no edge code (shape divides tile)",
     "active_lanes, peak_compute", "if guards / clamped indices",
     "predicated accesses (vx_vote_any + vx_pred/vx_tmc) or clamped indices", false},
    {AxisId::kKRange, "k_range", "generic K range", "k_range: specialized | generic",
     "specialized: M, N, K compile-time constants; generic: run-time shape", "peak_compute, active_lanes",
     "constexpr shape vs arguments", "same", true},
}};

const AxisInfo& axis_info(AxisId id) { return kAxisTable[static_cast<size_t>(id)]; }

AxisId axis_from_key(std::string_view key) {
  for (const auto& a : kAxisTable) {
    if (a.key == key) return a.id;
  }
  throw make_error("unknown axis '{}'", key);
}

namespace {

template <typename E, size_t N>
std::string_view name_of(const std::array<std::pair<E, std::string_view>, N>& t, E v) {
  for (const auto& [e, n] : t) {
    if (e == v) return n;
  }
  return "?";
}
template <typename E, size_t N>
E parse(const std::array<std::pair<E, std::string_view>, N>& t, std::string_view s, std::string_view field) {
  for (const auto& [e, n] : t) {
    if (n == s) return e;
  }
  std::string allowed;
  for (const auto& [e, n] : t) allowed += fmt::format("{}{}", allowed.empty() ? "" : ", ", n);
  throw make_error("design point: field '{}' has unknown value '{}' (allowed: {})", field, s, allowed);
}

constexpr std::array<std::pair<LaneMap, std::string_view>, 2> kLaneMaps{
    {{LaneMap::kContiguous, "contiguous"}, {LaneMap::kStrided, "strided"}}};
constexpr std::array<std::pair<Boundary, std::string_view>, 3> kBoundaries{
    {{Boundary::kGuard, "guard"}, {Boundary::kClamp, "clamp"}, {Boundary::kExact, "exact"}}};
constexpr std::array<std::pair<Epilogue, std::string_view>, 2> kEpilogues{
    {{Epilogue::kFused, "fused"}, {Epilogue::kSeparate, "separate"}}};
constexpr std::array<std::pair<KRange, std::string_view>, 2> kKRanges{
    {{KRange::kSpecialized, "specialized"}, {KRange::kGeneric, "generic"}}};
constexpr std::array<std::pair<FragShape, std::string_view>, 4> kFrags{{{FragShape::kM16N16K8, "m16n16k8"},
                                                                        {FragShape::kM16N16K16, "m16n16k16"},
                                                                        {FragShape::kM32N8K16, "m32n8k16"},
                                                                        {FragShape::kM8N32K16, "m8n32k16"}}};

bool pow2(uint32_t v) { return v != 0 && (v & (v - 1)) == 0; }

}  // namespace

std::string_view to_string(LaneMap v) { return name_of(kLaneMaps, v); }
std::string_view to_string(Boundary v) { return name_of(kBoundaries, v); }
std::string_view to_string(Epilogue v) { return name_of(kEpilogues, v); }
std::string_view to_string(KRange v) { return name_of(kKRanges, v); }
std::string_view to_string(FragShape v) { return name_of(kFrags, v); }

GemmView gemm_view(const check::OpSpec& op) {
  if (op.is_conv()) {
    const auto& c = op.conv;
    return {c.groups, c.k / c.groups, c.n * op.out_h() * op.out_w(), op.fan_in()};
  }
  return {op.gemm.batch, op.gemm.m, op.gemm.n, op.gemm.k};
}

std::array<uint32_t, 3> frag_dims(FragShape s) {
  switch (s) {
    case FragShape::kM16N16K8: return {16, 16, 8};
    case FragShape::kM16N16K16: return {16, 16, 16};
    case FragShape::kM32N8K16: return {32, 8, 16};
    case FragShape::kM8N32K16: return {8, 32, 16};
  }
  return {16, 16, 16};
}

std::array<uint32_t, 3> vortex_tcu_tile(uint32_t threads) {
  if (!pow2(threads) || threads < 2 || threads > 32) {
    throw make_error("Vortex TCU: warp width {} not in {{2, 4, 8, 16, 32}} (vortex-2x.md §7.1)", threads);
  }
  const uint32_t cap = threads * 8;  // NR = 8 registers per fragment
  uint32_t lg = 0;
  while ((1u << lg) < cap) ++lg;
  const uint32_t m = 1u << ((lg + 1) / 2);
  const uint32_t n = 1u << (lg / 2);
  const uint32_t xk = cap / m;
  return {m, n, 2 * xk};  // 16-bit inputs pack two per 32-bit register
}

namespace {

uint32_t operand_bytes_cuda(check::PrecisionPath path) { return path == check::PrecisionPath::kBf16 ? 2 : 4; }
uint32_t operand_bytes_vortex(const DesignPoint& p) { return p.axes.tensor_core.enabled ? 2 : 4; }

uint32_t smem_for(const DesignPoint& p, uint32_t elem) {
  const auto& t = p.axes.tile;
  uint32_t bytes = 0;
  if (p.axes.smem_stage) bytes = (t.m * t.k + t.k * t.n) * elem;
  // Tensor-core paths stage the fp32 accumulators for the epilogue in the same memory, after the
  // last K stage (the operand tiles are dead by then).
  if (p.axes.tensor_core.enabled) bytes = std::max(bytes, t.m * t.n * 4);
  return bytes;
}

}  // namespace

uint32_t smem_bytes(const DesignPoint& p) { return smem_for(p, operand_bytes_cuda(p.fixed.path)); }

int launches(const DesignPoint& p) {
  const bool has_epilogue = p.fixed.op.has_bias || p.fixed.op.activation != check::Activation::kNone;
  return (p.axes.split_k > 1 || (has_epilogue && p.axes.fused_act == Epilogue::kSeparate)) ? 2 : 1;
}

std::string fixed_property_violations(const DesignPoint& p, const FixedProperties& ref) {
  std::string out;
  if (p.fixed.engine != ref.engine) {
    out += fmt::format("fixed: engine class {} differs from the reference's {}\n", core::to_string(p.fixed.engine),
                       core::to_string(ref.engine));
  }
  if (p.fixed.path != ref.path) {
    out += fmt::format("fixed: data types {} differ from the reference's {}\n", check::to_string(p.fixed.path),
                       check::to_string(ref.path));
  }
  if (p.fixed.block_size != ref.block_size) {
    out += fmt::format("fixed: block size {} differs from the reference's {}\n", p.fixed.block_size,
                       ref.block_size);
  }
  if (check::describe(p.fixed.op) != check::describe(ref.op)) {
    out += fmt::format("fixed: shape '{}' differs from the reference's '{}'\n", check::describe(p.fixed.op),
                       check::describe(ref.op));
  }
  return out;
}

std::string validation_errors(const DesignPoint& p) {
  std::string e;
  auto fail = [&e](std::string line) { e += line + "\n"; };
  const auto& a = p.axes;
  const auto& f = p.fixed;
  const uint32_t bs = f.block_size;
  const auto& vx = p.vortex;
  const bool tc = a.tensor_core.enabled;

  try {
    f.op.validate();
  } catch (const Error& err) {
    fail(fmt::format("fixed: shape: {}", err.what()));
    return e;
  }
  const GemmView g = gemm_view(f.op);

  // Fixed properties: engine class and data types must agree with the tensor-core axis.
  if (f.engine == core::EngineClass::kDmma) fail("fixed: engine class dmma (fp64 tensor core) is not generated");
  if (f.path == check::PrecisionPath::kFp32 && f.engine != core::EngineClass::kSimt) {
    fail("fixed: fp32 path on a tensor-core engine is the tf32 path; set path tf32");
  }
  if (f.path == check::PrecisionPath::kTf32 && f.engine == core::EngineClass::kSimt) {
    fail("fixed: the tf32 path is tensor-core math; a SIMT reference with fp32 operands is the fp32 path");
  }
  if (tc != (f.engine == core::EngineClass::kTensorCore)) {
    fail(fmt::format("tensor_core: enabled={} contradicts the fixed engine class {}", tc, core::to_string(f.engine)));
  }
  // Block size.
  if (bs == 0 || bs > 1024) fail(fmt::format("fixed: block size {} outside 1..1024 (CUDA limit)", bs));
  if (vx.threads == 0 || vx.warps == 0 || vx.cores == 0) fail("vortex: cores, warps and threads must be positive");
  if (!e.empty()) return e;
  if (bs > vx.warps * vx.threads) {
    fail(fmt::format("fixed: block size {} exceeds the Vortex core's {} warps x {} threads (vx_spawn_threads limit)",
                     bs, vx.warps, vx.threads));
  }
  if (vx.warps > 32 || vx.threads > 32) {
    fail(fmt::format("vortex: {} warps x {} threads exceeds 32 x 32 (vortex-2x.md §8.1)", vx.warps, vx.threads));
  }

  // Tile ranges and divisibility.
  if (a.tile.m < 1 || a.tile.m > 256 || a.tile.n < 1 || a.tile.n > 256 || a.tile.k < 1 || a.tile.k > 64) {
    fail(fmt::format("tile: {}x{}x{} outside BM,BN in 1..256, BK in 1..64", a.tile.m, a.tile.n, a.tile.k));
    return e;
  }
  if (a.reg_tile.m < 1 || a.reg_tile.n < 1 || a.reg_tile.m > 16 || a.reg_tile.n > 16) {
    fail(fmt::format("reg_tile: {}x{} outside 1..16", a.reg_tile.m, a.reg_tile.n));
    return e;
  }
  if (!tc) {
    if (a.tile.m % a.reg_tile.m != 0 || a.tile.n % a.reg_tile.n != 0) {
      fail(fmt::format("reg_tile: {}x{} does not divide tile {}x{}", a.reg_tile.m, a.reg_tile.n, a.tile.m, a.tile.n));
    } else {
      const uint32_t ty = a.tile.m / a.reg_tile.m;
      const uint32_t tx = a.tile.n / a.reg_tile.n;
      if (ty * tx != bs) {
        fail(fmt::format("tile: (BM/TM)·(BN/TN) = ({}/{})·({}/{}) = {} threads, but the block size is fixed at {}",
                         a.tile.m, a.reg_tile.m, a.tile.n, a.reg_tile.n, ty * tx, bs));
      }
      if (a.warp_rows != 0) {
        const uint32_t r = a.warp_rows;
        for (uint32_t w : {kCudaWarp, vx.threads}) {
          if (w % r != 0 || bs % w != 0 || ty % r != 0 || tx % (w / r) != 0) {
            fail(fmt::format("block_decomp: warp_rows {} needs r | warp width {}, warp width | block size {}, "
                             "r | thread rows {} and (warp width / r) | thread columns {}",
                             r, w, bs, ty, tx));
            break;
          }
        }
      }
    }
  } else {
    if (a.reg_tile.m != 1 || a.reg_tile.n != 1) {
      fail("reg_tile: must be 1x1 on tensor-core paths (the per-warp fragment count follows from tile and block size)");
    }
    if (a.warp_rows != 0) fail("block_decomp: warp_rows applies to SIMT paths only");
    if (!a.smem_stage) fail("smem_stage: tensor-core paths read fragments from shared memory; it must be on");
    const auto [fm, fn, fk] = frag_dims(a.tensor_core.shape);
    if (f.path == check::PrecisionPath::kTf32 && a.tensor_core.shape != FragShape::kM16N16K8) {
      fail(fmt::format("tensor_core: tf32 wmma has only m16n16k8, not {}", to_string(a.tensor_core.shape)));
    }
    if (f.path == check::PrecisionPath::kBf16 && a.tensor_core.shape == FragShape::kM16N16K8) {
      fail("tensor_core: bf16 wmma shapes are m16n16k16, m32n8k16, m8n32k16");
    }
    if (bs % kCudaWarp != 0) fail(fmt::format("tensor_core: block size {} is not a multiple of the CUDA warp 32", bs));
    if (bs % vx.threads != 0) {
      fail(fmt::format("tensor_core: block size {} is not a multiple of the Vortex warp width {}", bs, vx.threads));
    }
    std::array<uint32_t, 3> vt{};
    try {
      vt = vortex_tcu_tile(vx.threads);
    } catch (const Error& err) {
      fail(fmt::format("tensor_core: {}", err.what()));
      return e;
    }
    if (a.tile.m % fm || a.tile.n % fn || a.tile.k % fk) {
      fail(fmt::format("tensor_core: CUDA fragment {}x{}x{} does not divide tile {}x{}x{}", fm, fn, fk, a.tile.m,
                       a.tile.n, a.tile.k));
    } else if (bs % kCudaWarp == 0 && ((a.tile.m / fm) * (a.tile.n / fn)) % (bs / kCudaWarp) != 0) {
      fail(fmt::format("tensor_core: {} CUDA fragments per block tile do not split evenly over {} warps",
                       (a.tile.m / fm) * (a.tile.n / fn), bs / kCudaWarp));
    }
    if (a.tile.m % vt[0] || a.tile.n % vt[1] || a.tile.k % vt[2]) {
      fail(fmt::format("tensor_core: Vortex TCU tile {}x{}x{} (warp width {}) does not divide tile {}x{}x{}", vt[0],
                       vt[1], vt[2], vx.threads, a.tile.m, a.tile.n, a.tile.k));
    } else if (bs % vx.threads == 0 && ((a.tile.m / vt[0]) * (a.tile.n / vt[1])) % (bs / vx.threads) != 0) {
      fail(fmt::format("tensor_core: {} Vortex TCU tiles per block tile do not split evenly over {} warps",
                       (a.tile.m / vt[0]) * (a.tile.n / vt[1]), bs / vx.threads));
    }
    if ((a.tile.m * a.tile.n) % bs != 0) {
      fail(fmt::format("tile: BM·BN = {} must be a multiple of the block size {} for the epilogue write-out",
                       a.tile.m * a.tile.n, bs));
    }
  }
  if (a.smem_stage && ((a.tile.m * a.tile.k) % bs != 0 || (a.tile.k * a.tile.n) % bs != 0)) {
    fail(fmt::format("tile: BM·BK = {} and BK·BN = {} must be multiples of the block size {} for the cooperative fill",
                     a.tile.m * a.tile.k, a.tile.k * a.tile.n, bs));
  }
  // Staging axes.
  if (a.read_once && a.smem_stage) fail("read_once: excludes smem_stage (reuse is served by L1 instead of shared memory)");
  if (a.prefetch && !a.smem_stage) fail("prefetch: double-buffers the shared-memory fill; needs smem_stage");
  // Local memory capacity.
  const uint32_t cuda_smem = smem_for(p, operand_bytes_cuda(f.path));
  if (cuda_smem > kCudaStaticSmem) {
    fail(fmt::format("tile: {} B of shared memory per block exceeds CUDA's 48 KiB static limit", cuda_smem));
  }
  const uint32_t vx_smem = smem_for(p, operand_bytes_vortex(p));
  const uint32_t warps_per_group = (bs + vx.threads - 1) / vx.threads;
  const uint32_t groups_per_core = std::max(1u, vx.warps / std::max(1u, warps_per_group));
  if (vx_smem * groups_per_core > vx.local_mem_bytes) {
    fail(fmt::format("tile: {} B of local memory per block x {} resident blocks per core exceeds the Vortex core's "
                     "{} B",
                     vx_smem, groups_per_core, vx.local_mem_bytes));
  }
  // Split-K bounded by K.
  const int64_t k_tiles = (g.k + a.tile.k - 1) / a.tile.k;
  if (a.split_k < 1 || static_cast<int64_t>(a.split_k) > k_tiles) {
    fail(fmt::format("split_k: {} outside 1..ceil(K/BK) = ceil({}/{}) = {}", a.split_k, g.k, a.tile.k, k_tiles));
  }
  if (g.z * a.split_k > 65535) fail(fmt::format("split_k: grid z = {} exceeds 65535", g.z * a.split_k));
  // Boundary.
  if (a.boundary == Boundary::kExact) {
    const int64_t kc = static_cast<int64_t>(a.tile.k) * a.split_k;
    if (g.m % a.tile.m || g.n % a.tile.n || g.k % kc) {
      fail(fmt::format("boundary: exact needs GEMM M={} % BM={}, N={} % BN={}, K={} % (BK·split_k)={} all zero", g.m,
                       a.tile.m, g.n, a.tile.n, g.k, kc));
    }
  }
  // Epilogue.
  const bool has_epilogue = f.op.has_bias || f.op.activation != check::Activation::kNone;
  if (a.fused_act == Epilogue::kSeparate && !has_epilogue) {
    fail("fused_act: separate needs a bias or an activation to strip");
  }
  return e;
}

void validate(const DesignPoint& p) {
  const std::string e = validation_errors(p);
  if (!e.empty()) throw make_error("invalid design point {}:\n{}", slug(p), e);
}

nlohmann::json to_json(const DesignPoint& p) {
  using nlohmann::json;
  const auto& op = p.fixed.op;
  json jop{{"family", check::to_string(op.family)},
           {"has_bias", op.has_bias},
           {"activation", check::to_string(op.activation)}};
  if (op.is_conv()) {
    const auto& c = op.conv;
    jop["conv"] = {{"n", c.n}, {"c", c.c}, {"h", c.h}, {"w", c.w}, {"k", c.k}, {"r", c.r}, {"s", c.s},
                   {"stride", c.stride}, {"pad", c.pad}, {"dilation", c.dilation}, {"groups", c.groups}};
  } else {
    jop["gemm"] = {{"batch", op.gemm.batch}, {"m", op.gemm.m}, {"n", op.gemm.n}, {"k", op.gemm.k}};
    if (op.family == check::OpFamily::kBmm) {
      jop["a_batch_stride"] = op.a_batch_stride;
      jop["b_batch_stride"] = op.b_batch_stride;
    }
  }
  const auto& a = p.axes;
  return json{
      {"fixed",
       {{"engine", core::to_string(p.fixed.engine)},
        {"path", check::to_string(p.fixed.path)},
        {"block_size", p.fixed.block_size},
        {"op", jop}}},
      {"vortex",
       {{"cores", p.vortex.cores},
        {"warps", p.vortex.warps},
        {"threads", p.vortex.threads},
        {"local_mem_bytes", p.vortex.local_mem_bytes}}},
      {"axes",
       {{"tile", {{"m", a.tile.m}, {"n", a.tile.n}, {"k", a.tile.k}}},
        {"reg_tile", {{"m", a.reg_tile.m}, {"n", a.reg_tile.n}}},
        {"prefetch", a.prefetch},
        {"smem_stage", a.smem_stage},
        {"read_once", a.read_once},
        {"lane_map", to_string(a.lane_map)},
        {"tensor_core", {{"enabled", a.tensor_core.enabled}, {"shape", to_string(a.tensor_core.shape)}}},
        {"fused_act", to_string(a.fused_act)},
        {"split_k", a.split_k},
        {"block_decomp", {{"warp_rows", a.warp_rows}}},
        {"boundary", to_string(a.boundary)},
        {"k_range", to_string(a.k_range)}}},
  };
}

namespace {

const nlohmann::json& at(const nlohmann::json& j, std::string_view key, std::string_view where) {
  if (!j.is_object() || !j.contains(key)) throw make_error("design point: missing field '{}.{}'", where, key);
  return j.at(key);
}
template <typename T>
T get(const nlohmann::json& j, std::string_view key, std::string_view where) {
  const auto& v = at(j, key, where);
  try {
    return v.get<T>();
  } catch (const nlohmann::json::exception& ex) {
    throw make_error("design point: field '{}.{}' has the wrong type: {}", where, key, ex.what());
  }
}

}  // namespace

DesignPoint design_point_from_json(const nlohmann::json& j) {
  DesignPoint p;
  const auto& jf = at(j, "fixed", "");
  const std::string engine = get<std::string>(jf, "engine", "fixed");
  const auto e = core::engine_from_string(engine);
  if (!e) throw make_error("design point: field 'fixed.engine' has unknown value '{}'", engine);
  p.fixed.engine = *e;
  p.fixed.path = check::precision_path_from_string(get<std::string>(jf, "path", "fixed"));
  p.fixed.block_size = get<uint32_t>(jf, "block_size", "fixed");
  const auto& jop = at(jf, "op", "fixed");
  auto& op = p.fixed.op;
  op.family = check::op_family_from_string(get<std::string>(jop, "family", "fixed.op"));
  op.has_bias = get<bool>(jop, "has_bias", "fixed.op");
  op.activation = check::activation_from_string(get<std::string>(jop, "activation", "fixed.op"));
  if (op.is_conv()) {
    const auto& c = at(jop, "conv", "fixed.op");
    const std::string w = "fixed.op.conv";
    op.conv.n = get<int64_t>(c, "n", w);
    op.conv.c = get<int64_t>(c, "c", w);
    op.conv.h = get<int64_t>(c, "h", w);
    op.conv.w = get<int64_t>(c, "w", w);
    op.conv.k = get<int64_t>(c, "k", w);
    op.conv.r = get<int64_t>(c, "r", w);
    op.conv.s = get<int64_t>(c, "s", w);
    op.conv.stride = get<std::array<int64_t, 2>>(c, "stride", w);
    op.conv.pad = get<std::array<int64_t, 2>>(c, "pad", w);
    op.conv.dilation = get<std::array<int64_t, 2>>(c, "dilation", w);
    op.conv.groups = get<int64_t>(c, "groups", w);
  } else {
    const auto& g = at(jop, "gemm", "fixed.op");
    op.gemm.batch = get<int64_t>(g, "batch", "fixed.op.gemm");
    op.gemm.m = get<int64_t>(g, "m", "fixed.op.gemm");
    op.gemm.n = get<int64_t>(g, "n", "fixed.op.gemm");
    op.gemm.k = get<int64_t>(g, "k", "fixed.op.gemm");
    if (jop.contains("a_batch_stride")) op.a_batch_stride = get<int64_t>(jop, "a_batch_stride", "fixed.op");
    if (jop.contains("b_batch_stride")) op.b_batch_stride = get<int64_t>(jop, "b_batch_stride", "fixed.op");
  }
  const auto& jv = at(j, "vortex", "");
  p.vortex.cores = get<uint32_t>(jv, "cores", "vortex");
  p.vortex.warps = get<uint32_t>(jv, "warps", "vortex");
  p.vortex.threads = get<uint32_t>(jv, "threads", "vortex");
  p.vortex.local_mem_bytes = get<uint32_t>(jv, "local_mem_bytes", "vortex");
  const auto& ja = at(j, "axes", "");
  auto& a = p.axes;
  const auto& jt = at(ja, "tile", "axes");
  a.tile = {get<uint32_t>(jt, "m", "axes.tile"), get<uint32_t>(jt, "n", "axes.tile"), get<uint32_t>(jt, "k", "axes.tile")};
  const auto& jr = at(ja, "reg_tile", "axes");
  a.reg_tile = {get<uint32_t>(jr, "m", "axes.reg_tile"), get<uint32_t>(jr, "n", "axes.reg_tile")};
  a.prefetch = get<bool>(ja, "prefetch", "axes");
  a.smem_stage = get<bool>(ja, "smem_stage", "axes");
  a.read_once = get<bool>(ja, "read_once", "axes");
  a.lane_map = parse(kLaneMaps, get<std::string>(ja, "lane_map", "axes"), "axes.lane_map");
  const auto& jtc = at(ja, "tensor_core", "axes");
  a.tensor_core.enabled = get<bool>(jtc, "enabled", "axes.tensor_core");
  a.tensor_core.shape = parse(kFrags, get<std::string>(jtc, "shape", "axes.tensor_core"), "axes.tensor_core.shape");
  a.fused_act = parse(kEpilogues, get<std::string>(ja, "fused_act", "axes"), "axes.fused_act");
  a.split_k = get<uint32_t>(ja, "split_k", "axes");
  a.warp_rows = get<uint32_t>(at(ja, "block_decomp", "axes"), "warp_rows", "axes.block_decomp");
  a.boundary = parse(kBoundaries, get<std::string>(ja, "boundary", "axes"), "axes.boundary");
  a.k_range = parse(kKRanges, get<std::string>(ja, "k_range", "axes"), "axes.k_range");
  return p;
}

std::string slug(const DesignPoint& p) {
  const auto& a = p.axes;
  std::string s = fmt::format("{}_{}_b{}_t{}x{}x{}", check::to_string(p.fixed.op.family), check::to_string(p.fixed.path),
                              p.fixed.block_size, a.tile.m, a.tile.n, a.tile.k);
  if (a.tensor_core.enabled) {
    s += fmt::format("_{}", to_string(a.tensor_core.shape));
  } else {
    s += fmt::format("_r{}x{}", a.reg_tile.m, a.reg_tile.n);
  }
  if (a.smem_stage) s += "_smem";
  if (a.prefetch) s += "_pf";
  if (a.read_once) s += "_ro";
  if (a.lane_map == LaneMap::kStrided) s += "_strided";
  if (a.split_k > 1) s += fmt::format("_sk{}", a.split_k);
  if (a.warp_rows) s += fmt::format("_wr{}", a.warp_rows);
  if (a.fused_act == Epilogue::kSeparate) s += "_sepepi";
  s += fmt::format("_{}_{}", to_string(a.boundary), a.k_range == KRange::kSpecialized ? "kspec" : "kgen");
  return s;
}

}  // namespace vxsynth::codegen
