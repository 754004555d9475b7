#include "vxsynth/codegen/design_point.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include <fmt/format.h>

#include "json_fields.h"
#include "vxsynth/common/error.h"

namespace vxsynth::codegen {

using detail::at;
using detail::get;

namespace {

bool pow2(uint32_t v) { return v != 0 && (v & (v - 1)) == 0; }

}  // namespace

const TcScheduleInfo& schedule_info(TcSchedule s) { return kTcScheduleTable[static_cast<size_t>(s)]; }

std::array<uint32_t, 2> cuda_fill_vectors(const DesignPoint& p) {
  if (!p.axes.tensor_core.enabled || !translation_info(p.cuda_translation).vector_fills) return {1, 1};
  const auto& op = p.fixed.op;
  const int64_t vec = p.fixed.path == check::PrecisionPath::kBf16 ? 8 : 4;  // bf16 or fp32 in global memory
  const GemmView g = gemm_view(op);
  const bool bmm = op.family == check::OpFamily::kBmm;
  const int64_t sa = bmm ? op.a_stride() : 0, sb = bmm ? op.b_stride() : 0;
  std::array<uint32_t, 2> v{1, 1};
  if (g.k % vec == 0 && sa % vec == 0) v[0] = static_cast<uint32_t>(vec);
  switch (op.family) {
    case check::OpFamily::kLinear:
      if (g.k % vec == 0) v[1] = static_cast<uint32_t>(vec);
      break;
    case check::OpFamily::kMatmul:
    case check::OpFamily::kBmm:
      if (g.n % vec == 0 && sb % vec == 0) v[1] = static_cast<uint32_t>(vec);
      break;
    case check::OpFamily::kConv1d:
    case check::OpFamily::kConv2d: break;  // im2col gather: element fills
  }
  return v;
}

GemmView gemm_view(const check::OpSpec& op) { return op.is_conv() ? core::gemm_view(op.conv) : core::gemm_view(op.gemm); }

const FragShapeInfo& frag_shape_info(FragShape s) { return kFragShapeTable[static_cast<size_t>(s)]; }

uint32_t warpgroup_max_accumulators(uint32_t block_size) {
  const uint32_t per_thread = std::min(255u, 65536u / std::max(1u, block_size) / 8 * 8);
  return per_thread <= kWarpgroupOtherRegisters ? 0 : std::min(kWarpgroupMaxAccumulators, per_thread - kWarpgroupOtherRegisters);
}

uint32_t warpgroup_accumulators(const DesignPoint& p) {
  const FragShapeInfo& f = frag_shape_info(p.axes.tensor_core.shape);
  const auto& t = p.axes.tile;
  const uint32_t groups = p.fixed.block_size / kCudaWarpgroup;
  if (groups == 0 || t.m % f.m != 0 || t.n % f.n != 0) return 0;
  return (t.m / f.m) * (t.n / f.n) / groups * (f.n / 2);
}

std::array<uint32_t, 3> frag_dims(FragShape s) {
  const FragShapeInfo& r = frag_shape_info(s);
  return {r.m, r.n, r.k};
}

std::array<uint32_t, 3> vortex_tcu_tile(uint32_t threads) {
  if (!pow2(threads) || threads < 2 || threads > 32) {
    throw make_error("Vortex TCU: warp width {} not in {{2, 4, 8, 16, 32}} (docs/vortex.md §7.1)", threads);
  }
  const uint32_t cap = threads * 8;  // NR = 8 registers per fragment
  uint32_t lg = 0;
  while ((1u << lg) < cap) ++lg;
  const uint32_t m = 1u << ((lg + 1) / 2);
  const uint32_t n = 1u << (lg / 2);
  const uint32_t xk = cap / m;
  return {m, n, 2 * xk};  // 16-bit inputs pack two per 32-bit register
}

const TranslationInfo& translation_info(CudaTranslation t) { return kTranslationTable[static_cast<size_t>(t)]; }

std::string_view to_string(CudaTranslation t) { return translation_info(t).key; }

check::PrecisionPath cuda_path(const DesignPoint& p) {
  return translation_info(p.cuda_translation).vortex_formats ? check::precision_row(p.fixed.path).vortex_tcu
                                                              : p.fixed.path;
}

namespace {

/// Bytes of a staged operand element on the CUDA side: 16-bit on the BF16 path and on a TF32
/// reference at FP16, else fp32.
uint32_t operand_bytes_cuda(const DesignPoint& p) {
  const check::PrecisionPath path = cuda_path(p);
  return path == check::PrecisionPath::kBf16 || path == check::PrecisionPath::kTf32Fp16 ? 2 : 4;
}
uint32_t operand_bytes_vortex(const DesignPoint& p) { return p.axes.tensor_core.enabled ? 2 : 4; }

/// Bytes of the fp32 accumulator staging of the write-out on the Vortex or the CUDA side: the block
/// tile (tile epilogue) or one fragment per warp (warp epilogue; Vortex: its TCU tile, which needs a
/// valid warp width: 0 when the width is not one, validation says why); none on the CUDA side of a
/// warpgroup point.
uint32_t accumulator_staging_bytes(const DesignPoint& p, bool vortex) {
  const auto& t = p.axes.tile;
  if (!schedule_info(p.tc_schedule).warp_epilogue) return t.m * t.n * 4;
  if (!vortex && warpgroup_mma(p.axes.tensor_core.shape)) return 0;  // written out from registers
  const uint32_t warp = vortex ? p.vortex.threads : kCudaWarp;
  if (warp == 0) return 0;
  std::array<uint32_t, 3> frag{};
  try {
    frag = vortex ? vortex_tcu_tile(warp) : frag_dims(p.axes.tensor_core.shape);
  } catch (const Error&) {
    return 0;
  }
  const uint32_t warps = (p.fixed.block_size + warp - 1) / warp;
  return warps * frag[0] * frag[1] * 4;
}

/// Operand tiles `k` deep of `elem`-byte elements (axis smem_stage), or the accumulator staging.
uint32_t smem_for(const DesignPoint& p, uint32_t elem, uint32_t k) {
  const auto& t = p.axes.tile;
  uint32_t bytes = 0;
  if (p.axes.smem_stage) bytes = (t.m * k + k * t.n) * elem;
  // Tensor-core paths stage the fp32 accumulators for the epilogue in the same memory, after the
  // last K stage (the operand tiles are dead by then).
  if (p.axes.tensor_core.enabled)
    bytes = std::max(bytes, accumulator_staging_bytes(p, true));
  return bytes;
}

}  // namespace

uint32_t cuda_tc_row_pad(const DesignPoint& p) {
  // Warpgroup MMA reads canonical tiles of 128-byte core matrices: no row padding.
  const bool padded = translation_info(p.cuda_translation).padded_rows && !warpgroup_mma(p.axes.tensor_core.shape);
  return p.axes.tensor_core.enabled && padded ? 16 / operand_bytes_cuda(p) : 0;
}
namespace {

/// Bytes of one shared-memory stage of the CUDA tensor-core operand tiles (padded rows).
uint32_t cuda_tc_stage_bytes(const DesignPoint& p) {
  const auto& t = p.axes.tile;
  const uint32_t pad = cuda_tc_row_pad(p);
  const bool b_k_contiguous = p.fixed.op.family == check::OpFamily::kLinear;
  const uint32_t k = translation_info(p.cuda_translation).vortex_k_steps ? vortex_stage_k(p) : t.k;
  const uint32_t b = b_k_contiguous ? t.n * (k + pad) : k * (t.n + pad);
  return (t.m * (k + pad) + b) * operand_bytes_cuda(p);
}

}  // namespace

uint32_t cuda_tc_stages(const DesignPoint& p) {
  if (!p.axes.tensor_core.enabled || !p.axes.prefetch) return 1;
  // Without asynchronous copies (the Vortex-first translation) the next stage goes through
  // registers, as on Vortex: one stage.
  if (!translation_info(p.cuda_translation).async_copies) return 1;
  // As many stages as CUDA's static shared memory holds, up to 4 (4 keeps three stages in flight,
  // enough to cover DRAM latency at these tile sizes; docs/codegen.md "Tensor-core strategy").
  // When not even two fit, one stage with the next one prefetched into registers (as on Vortex).
  const TcScheduleInfo& row = schedule_info(p.tc_schedule);
  uint32_t s = row.warp_epilogue && p.cuda_stages > 0 ? std::min(p.cuda_stages, row.cuda_max_stages) : 4;
  while (s > 1 && s * cuda_tc_stage_bytes(p) > row.cuda_smem_limit) --s;
  return s;
}

std::optional<WarpGrid> warp_grid(uint32_t tiles_m, uint32_t tiles_n, uint32_t warps, uint32_t fm, uint32_t fn) {
  std::optional<WarpGrid> best;
  double best_score = 0;
  for (uint32_t wm = 1; wm <= warps; ++wm) {
    if (warps % wm != 0 || tiles_m % wm != 0 || tiles_n % (warps / wm) != 0) continue;
    const uint32_t wn = warps / wm;
    const double rows = static_cast<double>(tiles_m / wm) * fm, cols = static_cast<double>(tiles_n / wn) * fn;
    const double score = std::abs(std::log2(rows / cols));
    if (!best || score < best_score) best = WarpGrid{wm, wn}, best_score = score;
  }
  return best;
}

uint32_t smem_bytes(const DesignPoint& p) {
  if (!p.axes.tensor_core.enabled) return smem_for(p, operand_bytes_cuda(p), p.axes.tile.k);
  // Padded rows (A: BM x (BK+pad); B: BN x (BK+pad) or BK x (BN+pad)), times the stages; the fp32
  // accumulator tile reuses the memory after the last stage.
  return std::max(cuda_tc_stages(p) * cuda_tc_stage_bytes(p),
                  accumulator_staging_bytes(p, false));
}
uint32_t vortex_local_mem_bytes(const DesignPoint& p) {
  return smem_for(p, operand_bytes_vortex(p), vortex_stage_k(p));
}

uint32_t vortex_blocks_per_core(const DesignPoint& p) {
  const auto& vx = p.vortex;
  const uint32_t warps_per_block = (p.fixed.block_size + vx.threads - 1) / std::max(1u, vx.threads);
  return std::max(1u, vx.warps / std::max(1u, warps_per_block));
}

uint32_t vortex_stage_k(const DesignPoint& p) {
  const auto& a = p.axes;
  const auto& vx = p.vortex;
  if (!vx.k_steps || !a.tensor_core.enabled || !a.smem_stage || a.tile.k == 0) return a.tile.k;
  uint32_t step = 0;  // the depth must stay a multiple of the TCU tile's K (and the mirroring CUDA fragment's)
  try {
    step = vortex_tcu_tile(vx.threads)[2];
    if (translation_info(p.cuda_translation).vortex_k_steps)
      step = std::lcm(step, frag_dims(a.tensor_core.shape)[2]);
  } catch (const Error&) {
    return a.tile.k;  // validation names the warp width
  }
  // Halving keeps the cooperative fill's rule where the schedule has one (BM·k and k·BN multiples
  // of the block size).
  const bool partial = schedule_info(p.tc_schedule).partial_fills;
  const uint32_t bs = p.fixed.block_size;
  auto fills = [&](uint32_t k) { return partial || ((a.tile.m * k) % bs == 0 && (k * a.tile.n) % bs == 0); };
  const uint32_t blocks = vortex_blocks_per_core(p);
  uint32_t k = a.tile.k;
  while (smem_for(p, operand_bytes_vortex(p), k) * blocks > vx.local_mem_bytes && k % 2 == 0 &&
         (k / 2) % step == 0 && fills(k / 2))
    k /= 2;
  return k;
}

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

namespace {

// The fixed properties and the Vortex machine (reasons "fixed:" / "vortex:"). Returns false when
// a later check could not be evaluated (invalid shape, block size or machine).
bool fixed_errors(const DesignPoint& p, std::string& e) {
  auto fail = [&e](std::string_view line) { e += fmt::format("{}\n", line); };
  const auto& f = p.fixed;
  const auto& vx = p.vortex;
  const uint32_t bs = f.block_size;
  try {
    f.op.validate();
  } catch (const Error& err) {
    fail(fmt::format("fixed: shape: {}", err.what()));
    return false;
  }
  // Engine class and data types must agree with each other (the tensor_core row checks the axis).
  if (f.engine == core::EngineClass::kDmma) fail("fixed: engine class dmma (fp64 tensor core) is not generated");
  if (f.path == check::PrecisionPath::kFp32 && f.engine != core::EngineClass::kSimt) {
    fail("fixed: fp32 path on a tensor-core engine is the tf32 path; set path tf32");
  }
  if (!check::precision_row(f.path).reference_types) {
    fail(fmt::format("fixed: path {} is how a translation computes a reference, not a reference's data types "
                     "(a TF32 reference keeps path tf32; cuda_translation decides its CUDA precision)",
                     check::to_string(f.path)));
  }
  if (f.path == check::PrecisionPath::kTf32 && f.engine == core::EngineClass::kSimt) {
    fail("fixed: the tf32 path is tensor-core math; a SIMT reference with fp32 operands is the fp32 path");
  }
  if (bs == 0 || bs > 1024) fail(fmt::format("fixed: block size {} outside 1..1024 (CUDA limit)", bs));
  if (vx.threads == 0 || vx.warps == 0 || vx.cores == 0) fail("vortex: cores, warps and threads must be positive");
  if (!e.empty()) return false;
  if (bs > vx.warps * vx.threads) {
    fail(fmt::format("fixed: block size {} exceeds the Vortex core's {} warps x {} threads (vx_spawn_threads limit)",
                     bs, vx.warps, vx.threads));
  }
  if (vx.warps > 32 || vx.threads > 32) {
    fail(fmt::format("vortex: {} warps x {} threads exceeds 32 x 32 (docs/vortex.md §8.1)", vx.warps, vx.threads));
  }
  return true;
}

// Runs `column` of every axis row, prefixing each reason with the row's key; true if none.
bool axis_errors(const DesignPoint& p, AxisCheckFn AxisInfo::*column, std::string& e) {
  bool ok = true;
  for (const AxisInfo& row : kAxisTable) {
    std::vector<std::string> reasons;
    (row.*column)(p, reasons);
    for (const auto& r : reasons) e += fmt::format("{}: {}\n", row.key, r);
    ok = ok && reasons.empty();
  }
  return ok;
}

}  // namespace

std::string validation_errors(const DesignPoint& p) {
  std::string e;
  if (fixed_errors(p, e) && axis_errors(p, &AxisInfo::bounds, e)) axis_errors(p, &AxisInfo::check, e);
  return e;
}

void validate(const DesignPoint& p) {
  const std::string e = validation_errors(p);
  if (!e.empty()) throw make_error("invalid design point {}:\n{}", slug(p), e);
}

bool m_tiles_fast(const DesignPoint& p) {
  const GemmView g = gemm_view(p.fixed.op);
  return g.m * g.k < g.k * g.n;
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
  json axes = json::object();
  for (const AxisInfo& row : kAxisTable) axes[std::string(row.key)] = row.to_json(p.axes);
  json out{
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
      {"axes", axes},
  };
  if (p.vortex.k_steps) out["vortex"]["k_steps"] = true;
  if (p.cuda_translation != CudaTranslation::kNative) out["cuda_translation"] = to_string(p.cuda_translation);
  if (p.tc_schedule != TcSchedule::kTileEpilogue) out["tc_schedule"] = schedule_info(p.tc_schedule).key;
  if (p.cuda_stages != 0) out["cuda_stages"] = p.cuda_stages;
  if (!p.seed_origin.empty()) out["seed_origin"] = p.seed_origin;
  return out;
}

namespace {

/// The id of the row of `table` (kTranslationTable, kTcScheduleTable) whose key is JSON string `v`
/// of design-point field `field`; throws vxsynth::Error naming the field and listing the keys.
template <typename Table>
auto row_id_from_json(const Table& table, const nlohmann::json& v, std::string_view field) {
  if (v.is_string())
    for (const auto& row : table)
      if (row.key == v.get<std::string>()) return row.id;
  std::string keys;
  for (const auto& row : table) keys += fmt::format("{}{}", keys.empty() ? "" : ", ", row.key);
  throw make_error("design point: field '{}' is {}, expected one of {}", field, v.dump(), keys);
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
  if (jv.contains("k_steps")) p.vortex.k_steps = get<bool>(jv, "k_steps", "vortex");
  const auto& ja = at(j, "axes", "");
  for (const AxisInfo& row : kAxisTable) {
    row.from_json(at(ja, row.key, "axes"), fmt::format("axes.{}", row.key), p.axes);
  }
  if (j.contains("cuda_translation")) p.cuda_translation = row_id_from_json(kTranslationTable, j["cuda_translation"], "cuda_translation");
  if (j.contains("tc_schedule")) p.tc_schedule = row_id_from_json(kTcScheduleTable, j["tc_schedule"], "tc_schedule");
  if (j.contains("cuda_stages")) p.cuda_stages = detail::as<uint32_t>(j["cuda_stages"], "cuda_stages");
  if (j.contains("seed_origin")) {
    const auto& jo = j["seed_origin"];
    if (!jo.is_object()) throw make_error("design point: field 'seed_origin' is not an object");
    for (const auto& [k, v] : jo.items()) {
      if (!v.is_string()) throw make_error("design point: field 'seed_origin.{}' is not a string", k);
      p.seed_origin[k] = v.get<std::string>();
    }
  }
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
  if (a.lane_map == LaneMap::kElement) s += "_element";
  if (a.split_k > 1) s += fmt::format("_sk{}", a.split_k);
  if (a.warp_rows) s += fmt::format("_wr{}", a.warp_rows);
  if (a.fused_act == Epilogue::kSeparate) s += "_sepepi";
  if (p.tc_schedule == TcSchedule::kWarpEpilogue) s += p.cuda_stages ? fmt::format("_we{}", p.cuda_stages) : "_we";
  s += fmt::format("_{}_{}", to_string(a.boundary), a.k_range == KRange::kSpecialized ? "kspec" : "kgen");
  return s;
}

}  // namespace vxsynth::codegen
