#include "vxsynth/codegen/seed.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "vxsynth/common/error.h"
#include "vxsynth/core/kernel_names.h"

namespace vxsynth::codegen {

FixedProperties fixed_properties(const core::ReferenceContext& ctx) {
  FixedProperties f;
  f.op = check::op_spec_from_context(ctx);
  f.engine = ctx.engine;
  try {
    f.path = check::precision_path_for(ctx.operand_type, ctx.engine);
  } catch (const Error& e) {
    throw make_error("reference kernel '{}': {}", ctx.kernel_name, e.what());
  }
  f.block_size = ctx.launch.block_size();
  if (f.block_size == 0) throw make_error("reference kernel '{}': launch block size is 0", ctx.kernel_name);
  return f;
}

namespace {

/// The Vortex device shape of a block: threads per warp 8 up to 256-thread blocks, 16 up to 512,
/// else 32; the warps hold the block. With `tcu_in_registers` (tensor-core seeds of design space
/// 4) at least 16: with 16 threads the TCU instruction reads 20 FP registers and writes 8, which
/// vx_tensor.h's mma_sync passes as register operands (28 of GCC's 30 per asm statement); with 8
/// it reads 24 (32 operands), so the B fragment goes through memory (the stack) instead.
VortexTarget vortex_for(uint32_t block_size, bool tcu_in_registers) {
  VortexTarget v;
  v.threads = block_size <= 256 ? 8 : (block_size <= 512 ? 16 : 32);
  if (tcu_in_registers && v.threads < 16) v.threads = 16;
  v.warps = std::max(4u, (block_size + v.threads - 1) / v.threads);
  return v;
}

int64_t round_pow2(int64_t v) {
  int64_t p = 1;
  while (p < v) p *= 2;
  return p;
}

}  // namespace

namespace {

struct Shape { uint32_t bm, bn, tm, tn; };

/// Order of the candidate tiles of the tile-epilogue schedule and of SIMT points: tiles that do not
/// exceed the (power-of-two rounded) GEMM, closest to square, area closest to 64x64, micro-tile 4x4.
double tile_epilogue_score(const Shape& t, const GemmView& g) {
  const int64_t mcap = std::max<int64_t>(round_pow2(g.m), 16), ncap = std::max<int64_t>(round_pow2(g.n), 16);
  const bool fits = static_cast<int64_t>(t.bm) <= mcap && static_cast<int64_t>(t.bn) <= ncap;
  const double aspect = std::abs(std::log2(static_cast<double>(t.bm) / t.bn));
  const double area = std::abs(std::log2(static_cast<double>(t.bm) * t.bn / 4096.0));
  const double reg = (t.tm == 4 && t.tn == 4) ? 0.0 : 0.25;
  return (fits ? 0.0 : 100.0) + aspect + 0.5 * area + reg;
}

/// The M·N extent the reference computed over, padding included: its tensor operations over
/// 2·batch·K (each counts 2 per multiply-accumulate, core::padded_mma_ops); the GEMM's M·N when
/// unknown or when that is smaller (a kernel computes at least the whole output).
double reference_padded_mn(const GemmView& g, const ReferenceLaunch& r) {
  const double mn = static_cast<double>(g.m) * static_cast<double>(g.n);
  if (r.tensor_ops <= 0 || g.k <= 0 || g.z <= 0) return mn;
  return std::max(mn, r.tensor_ops / (2.0 * static_cast<double>(g.z) * static_cast<double>(g.k)));
}

/// Order of the candidate tiles of the warp-epilogue schedule (docs/codegen.md "Tensor-core
/// schedules"): tiles that do not exceed the rounded GEMM; padding at the edges closest to the
/// reference's (`padded_mn`: the GEMM's M·N before design space 5, i.e. as little as possible);
/// about 2x2 CUDA fragments per warp (each A and B fragment loaded from shared memory feeds two
/// mma_sync instead of one); at least the reference's CTAs (0: unknown) before split-K; then closest
/// to square. Weights are judgements, ordered so that padding (tensor-core work and fills) weighs
/// most. An extent's cap is its power-of-two rounding (at least 16), or the reference's padding of it
/// where that is at least twice as much: the padded M·N over the other extent's rounding (cuDNN's
/// 64 or 128 rows of N·P·Q = 4 under 2048 filters; a ratio under 2 is the K tile's rounding, which
/// the padded M·N also carries).
double warp_epilogue_score(const Shape& t, const GemmView& g, uint32_t cuda_warps, uint32_t fm, uint32_t fn,
                           int64_t ref_ctas, double padded_mn) {
  const auto cap = [&](int64_t extent, int64_t other) {
    const int64_t rounded = std::max<int64_t>(round_pow2(extent), 16);
    const auto padded = round_pow2(static_cast<int64_t>(std::ceil(padded_mn / static_cast<double>(round_pow2(other)))));
    return padded >= 2 * rounded ? padded : rounded;
  };
  const bool fits = static_cast<int64_t>(t.bm) <= cap(g.m, g.n) && static_cast<int64_t>(t.bn) <= cap(g.n, g.m);
  const int64_t tiles_m = (g.m + t.bm - 1) / t.bm, tiles_n = (g.n + t.bn - 1) / t.bn;
  const double padding = std::abs(
      std::log2(static_cast<double>(tiles_m * t.bm) * static_cast<double>(tiles_n * t.bn) / padded_mn));
  const double per_warp = static_cast<double>(t.bm / fm) * (t.bn / fn) / std::max(1u, cuda_warps);
  const double reuse = std::abs(std::log2(std::max(per_warp, 0.25) / 4.0));
  const double ctas = static_cast<double>(tiles_m * tiles_n * g.z);
  const double parallelism = ref_ctas > 0 ? std::max(0.0, std::log2(static_cast<double>(ref_ctas) / ctas)) : 0.0;
  const double aspect = std::abs(std::log2(static_cast<double>(t.bm) / t.bn));
  return (fits ? 0.0 : 100.0) + 2.0 * padding + 0.5 * reuse + 0.5 * parallelism + 0.25 * aspect;
}

/// Design space 7: the warpgroup-MMA seed (docs/codegen.md "Warpgroup MMA") of a point whose
/// reference computes with wgmma (its name rule's warpgroup_mma) and whose M covers the block's
/// warpgroups (64 rows each). Among the valid m64nNk16 points over tiles of 64..256 x N..256 (BK:
/// the name's, then 64, 32), the one with the padding closest to the reference's, then the most
/// accumulators per thread (the most MMA work per staged operand byte: bench/tc/wgmma_probe.cu),
/// then the widest operation. nullopt when none is valid (e.g. not a BF16 linear).
std::optional<DesignPoint> warpgroup_seed(const DesignPoint& base, const GemmView& g,
                                          const std::optional<core::TileHint>& hint, const ReferenceLaunch& reference,
                                          double padded_mn) {
  const uint32_t groups = base.fixed.block_size / kCudaWarpgroup;
  if (!reference.warpgroup_mma || groups == 0 || g.m < int64_t{64} * groups) return std::nullopt;
  std::vector<uint32_t> bks{64, 32};
  if (hint && hint->k > 0 && hint->k != 64 && hint->k != 32) bks.insert(bks.begin(), hint->k);
  // The point of `shape` over a bm x bn tile with the first valid BK of bks.
  const auto valid_point = [&](FragShape shape, uint32_t bm, uint32_t bn) -> std::optional<DesignPoint> {
    for (uint32_t bk : bks) {
      DesignPoint q = base;
      q.axes.tensor_core.shape = shape;
      q.axes.tile = {bm, bn, bk};
      q.axes.reg_tile = {1, 1};
      q.axes.k_range = (g.k % bk == 0) ? KRange::kSpecialized : KRange::kGeneric;
      if (validation_errors(q).empty()) return q;
    }
    return std::nullopt;
  };
  const double most = warpgroup_max_accumulators(base.fixed.block_size);
  std::optional<DesignPoint> best;
  double best_score = 0;
  for (FragShape shape : {FragShape::kM64N256K16, FragShape::kM64N128K16, FragShape::kM64N64K16}) {
    const uint32_t fn = frag_shape_info(shape).n;
    for (uint32_t bm = 64; bm <= 256; bm += 64) {
      for (uint32_t bn = fn; bn <= 256; bn += fn) {
        const std::optional<DesignPoint> q = valid_point(shape, bm, bn);
        if (!q) continue;
        const int64_t tiles_m = (g.m + bm - 1) / bm, tiles_n = (g.n + bn - 1) / bn;
        const double padding = std::abs(
            std::log2(static_cast<double>(tiles_m * bm) * static_cast<double>(tiles_n * bn) / padded_mn));
        const double score = 2.0 * padding + std::log2(most / warpgroup_accumulators(*q));
        if (!best || score < best_score) best = q, best_score = score;
      }
    }
  }
  return best;
}

}  // namespace

DesignPoint seed_design_point(const FixedProperties& fixed, const std::optional<core::TileHint>& hint,
                              CudaTranslation translation, int space_version, const ReferenceLaunch& reference) {
  DesignPoint p;
  p.fixed = fixed;
  p.cuda_translation = translation;
  const bool tc = fixed.engine == core::EngineClass::kTensorCore;
  p.vortex = vortex_for(fixed.block_size, tc && space_version >= 4);
  p.vortex.k_steps = tc && space_version >= 6;
  p.axes.tensor_core.enabled = tc;
  // The CUDA side's format decides: TF32 wmma has only m16n16k8; FP16 (a TF32 reference under the
  // Vortex formats) and BF16 start at m16n16k16.
  p.axes.tensor_core.shape = cuda_path(p) == check::PrecisionPath::kTf32 ? FragShape::kM16N16K8 : FragShape::kM16N16K16;
  p.axes.smem_stage = true;
  // Tensor-core seeds start pipelined (CUDA: two cp.async stages; Vortex: software prefetch), as
  // the profiled vendor kernels are (docs/codegen.md "Tensor-core strategy").
  p.axes.prefetch = tc;
  // Design space 3: the warp-epilogue schedule, with the kernel name's stage count where it spells one.
  const bool warp_schedule = tc && space_version >= 3;
  if (warp_schedule) {
    p.tc_schedule = TcSchedule::kWarpEpilogue;
    if (hint && hint->stages > 1) p.cuda_stages = hint->stages;
  }
  const bool has_epilogue = fixed.op.has_bias || fixed.op.activation != check::Activation::kNone;
  p.axes.fused_act = (fixed.op.is_conv() && has_epilogue) ? Epilogue::kSeparate : Epilogue::kFused;
  const GemmView g = gemm_view(fixed.op);
  const double padded_mn = space_version >= 5 ? reference_padded_mn(g, reference)
                                              : static_cast<double>(g.m) * static_cast<double>(g.n);
  if (warp_schedule && space_version >= 7) {
    if (auto w = warpgroup_seed(p, g, hint, reference, padded_mn)) return *w;
  }

  // Candidate (BM, BN, TM, TN) tiles, best first: the kernel-name hint; then tiles that do not
  // exceed the (power-of-two rounded) GEMM, closest to square, area closest to 64x64.
  std::vector<Shape> shapes;
  std::vector<uint32_t> bks;
  const uint32_t bs = fixed.block_size;
  if (tc) {
    const auto f = frag_dims(p.axes.tensor_core.shape);
    const auto v = vortex_tcu_tile(p.vortex.threads);
    const uint32_t lm = std::lcm(f[0], v[0]), ln = std::lcm(f[1], v[1]), lk = std::lcm(f[2], v[2]);
    for (uint32_t bm = lm; bm <= 256; bm += lm) {
      for (uint32_t bn = ln; bn <= 256; bn += ln) shapes.push_back({bm, bn, 1, 1});
    }
    // Deeper stages first (fewer barriers per K), but none deeper than K needs.
    bks = {2 * lk, 4 * lk, 3 * lk, lk};
    std::erase_if(bks, [&](uint32_t b) { return b != lk && static_cast<int64_t>(b) > g.k; });
  } else {
    for (auto [tm, tn] : std::initializer_list<std::pair<uint32_t, uint32_t>>{
             {4, 4}, {2, 2}, {4, 2}, {2, 4}, {8, 8}, {8, 4}, {4, 8}, {1, 1}, {2, 1}, {1, 2}}) {
      for (uint32_t tx = 1; tx <= bs; ++tx) {
        if (bs % tx != 0) continue;
        const uint32_t bm = (bs / tx) * tm, bn = tx * tn;
        if (bm <= 256 && bn <= 256) shapes.push_back({bm, bn, tm, tn});
      }
    }
    bks = {8, 16, 32, 4, 2, 1, 24, 12, 6, 3};
  }
  const auto frag = frag_dims(p.axes.tensor_core.shape);
  auto score = [&](const Shape& t) {
    return warp_schedule ? warp_epilogue_score(t, g, bs / kCudaWarp, frag[0], frag[1], reference.ctas, padded_mn)
                         : tile_epilogue_score(t, g);
  };
  std::stable_sort(shapes.begin(), shapes.end(), [&](const Shape& x, const Shape& y) { return score(x) < score(y); });
  if (hint && hint->m > 0 && hint->n > 0) {
    // The hint's tile first, with any micro-tile that keeps the block size.
    std::vector<Shape> hinted;
    for (const auto& t : shapes) {
      if (t.bm == hint->m && t.bn == hint->n) hinted.push_back(t);
    }
    shapes.insert(shapes.begin(), hinted.begin(), hinted.end());
    if (hint->k > 0) bks.insert(bks.begin(), hint->k);
  }
  // The first valid point; on tensor-core paths the first one whose CUDA side pipelines through
  // at least two shared stages, when some tile allows it.
  std::string last;
  std::optional<DesignPoint> single_stage;
  for (const auto& t : shapes) {
    for (uint32_t bk : bks) {
      p.axes.tile = {t.bm, t.bn, bk};
      p.axes.reg_tile = {t.tm, t.tn};
      p.axes.k_range = (g.k % bk == 0) ? KRange::kSpecialized : KRange::kGeneric;
      const std::string e = validation_errors(p);
      if (e.empty() && (!tc || cuda_tc_stages(p) > 1)) return p;
      if (e.empty() && !single_stage) single_stage = p;
      if (last.empty()) last = e;
    }
  }
  if (single_stage) return *single_stage;
  throw make_error("no valid seed for {} (block size {}); first attempt:\n{}", check::describe(fixed.op),
                   fixed.block_size, last);
}

namespace {

int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Records where the seed's tile came from: the kernel name where the launch agreed and the
/// tile is valid here, else the generator's candidate list (with the reason).
void note_tile_origin(DesignPoint& p, const core::ReferenceContext& ctx, const std::optional<core::LaunchFit>& fit,
                      const std::string& why_not) {
  const auto& t = p.axes.tile;
  const std::string rule = ctx.name_rule.empty() ? "kernel name" : "kernel name (rule " + ctx.name_rule + ")";
  if (!fit) {
    p.seed_origin["tile"] = fmt::format("generator's candidate list; no tile from the {}: {}", rule, why_not);
    return;
  }
  const core::TileHint& h = fit->tile;
  if (t.m == h.m && t.n == h.n) {
    p.seed_origin["tile"] = fmt::format("BM x BN = {}x{} from the {}{}: {}", t.m, t.n, rule,
                                        t.k == h.k ? fmt::format(", BK = {} too", t.k) : "", fit->why);
  } else {
    p.seed_origin["tile"] = fmt::format(
        "generator's candidate list: the {}'s {}x{}x{} agrees with the launch ({}) but is not a valid design "
        "point at block size {} with the Vortex target", rule, h.m, h.n, h.k, fit->why, p.fixed.block_size);
  }
  if (fit->warps_m > 0)
    p.seed_origin["tile"] += fmt::format("; the name's warp layout {}x{} matches the block (the generator's warp "
                                         "grid follows from the fragments)", fit->warps_m, fit->warps_n);
  if (h.stages > 1 && p.axes.tensor_core.enabled)
    p.seed_origin["prefetch"] =
        schedule_info(p.tc_schedule).warp_epilogue
            ? fmt::format("on: the name spells {} stages; the CUDA side keeps {} (as many of them as 227 KiB of "
                          "dynamic shared memory hold)", h.stages, cuda_tc_stages(p))
            : fmt::format("on: the name spells {} stages; the CUDA side keeps {} (as many as 48 KiB of shared "
                          "memory hold, up to 4)", h.stages, cuda_tc_stages(p));
}

/// Split-K from the reference's grid (paper §3.1; docs/codegen.md "Seed"): the CTAs per tile
/// along K that the launch fit shows, else, where the reference launched at least twice the
/// seed's CTAs (and the kernel is the op's main kernel, not a helper), as many slices as bring the grid to the reference's, each slice at least two
/// K stages (a judgement: a slice of one stage has nothing to pipeline).
void seed_split_k(DesignPoint& p, const core::ReferenceContext& ctx, const std::optional<core::LaunchFit>& fit) {
  const GemmView g = gemm_view(p.fixed.op);
  const auto& t = p.axes.tile;
  const int64_t ours = cdiv(g.m, t.m) * cdiv(g.n, t.n) * g.z;
  const int64_t ref = int64_t{ctx.launch.grid[0]} * ctx.launch.grid[1] * ctx.launch.grid[2];
  int64_t s = 1;
  std::string why;
  // The launch's CTAs per tile along K describe the name's tile; a warp-epilogue seed whose tile is
  // another one takes the reference's grid as the target instead.
  const bool other_tile = fit && (fit->tile.m != t.m || fit->tile.n != t.n);
  if (fit && fit->ctas_per_tile > 1 && !(other_tile && schedule_info(p.tc_schedule).warp_epilogue)) {
    s = fit->ctas_per_tile;
    why = fmt::format("{} CTAs per output tile along K in the reference launch ({})", s, fit->why);
  } else if (!ctx.helper_kernel && ref >= 2 * ours) {  // a helper's grid is not a GEMM's
    s = ref / ours;
    why = fmt::format("the reference's grid as the target: {} CTAs vs the seed's {} tiles", ref, ours);
  }
  s = std::min<int64_t>(s, std::max<int64_t>(1, cdiv(g.k, t.k) / 2));
  for (; s > 1; --s) {
    DesignPoint q = p;
    q.axes.split_k = static_cast<uint32_t>(s);
    if (validation_errors(q).empty()) {
      p = q;
      p.seed_origin["split_k"] = fmt::format("{}: {}", s, why);
      return;
    }
  }
  if (!why.empty()) p.seed_origin["split_k"] = "1: no split-K design point is valid (" + why + ")";
}

/// Design space 4: a warp-epilogue seed asks for no more CUDA stages than its split has K tiles
/// (a stage beyond them is never filled; its shared memory only lowers occupancy), at least two;
/// 4, the schedule's default, is written as 0 so that the prefetch axis's stage steps undo each
/// other (axis_table.cc).
void keep_stages_within_split(DesignPoint& p) {
  if (!schedule_info(p.tc_schedule).warp_epilogue || !p.axes.prefetch) return;
  const GemmView g = gemm_view(p.fixed.op);
  const int64_t per_split = cdiv(cdiv(g.k, p.axes.tile.k), p.axes.split_k);
  const uint32_t asked = p.cuda_stages ? p.cuda_stages : 4;
  const auto kept = static_cast<uint32_t>(std::clamp<int64_t>(per_split, 2, asked));
  p.cuda_stages = kept == 4 ? 0 : kept;
  if (kept < asked)
    p.seed_origin["prefetch"] = fmt::format("{}{}{} stages asked, {} kept: a split has {} K tiles of BK = {}",
                                            p.seed_origin.count("prefetch") ? p.seed_origin["prefetch"] : "",
                                            p.seed_origin.count("prefetch") ? "; " : "on: ", asked, kept, per_split,
                                            p.axes.tile.k);
}

}  // namespace

DesignPoint seed_design_point(const core::ReferenceContext& ctx, CudaTranslation translation, int space_version) {
  const FixedProperties f = fixed_properties(ctx);
  std::string why_not;
  // Design space 5: the orientation of the name's tile that agrees with the reference's tensor work.
  const std::optional<core::LaunchFit> fit =
      space_version >= 5 ? core::best_launch_fit(ctx, &why_not) : core::launch_fit(ctx, &why_not);
  ReferenceLaunch reference;
  reference.ctas = ctx.helper_kernel ? 0 : int64_t{ctx.launch.grid[0]} * ctx.launch.grid[1] * ctx.launch.grid[2];
  reference.tensor_ops = ctx.tensor_ops;
  for (const core::KernelNameRule& r : core::kernel_name_rules()) {
    if (r.id == ctx.name_rule) reference.warpgroup_mma = r.warpgroup_mma;
  }
  try {
    DesignPoint p = seed_design_point(f, fit ? std::optional<core::TileHint>(fit->tile) : std::nullopt, translation,
                                      space_version, reference);
    note_tile_origin(p, ctx, fit, why_not);
    if (warpgroup_mma(p.axes.tensor_core.shape))
      p.seed_origin["tensor_core"] = fmt::format(
          "{}: warpgroup MMA, as the reference (name rule {} issues wgmma) and M = {} covers the block's {} "
          "warpgroups", frag_shape_info(p.axes.tensor_core.shape).key, ctx.name_rule, gemm_view(p.fixed.op).m,
          p.fixed.block_size / kCudaWarpgroup);
    seed_split_k(p, ctx, fit);
    if (space_version >= 4) keep_stages_within_split(p);
    return p;
  } catch (const Error& e) {
    throw make_error("reference kernel '{}': {}", ctx.kernel_name, e.what());
  }
}

}  // namespace vxsynth::codegen
