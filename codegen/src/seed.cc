#include "vxsynth/codegen/seed.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "vxsynth/common/error.h"

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

VortexTarget vortex_for(uint32_t block_size) {
  VortexTarget v;
  v.threads = block_size <= 256 ? 8 : (block_size <= 512 ? 16 : 32);
  v.warps = std::max(4u, (block_size + v.threads - 1) / v.threads);
  return v;
}

int64_t round_pow2(int64_t v) {
  int64_t p = 1;
  while (p < v) p *= 2;
  return p;
}

}  // namespace

DesignPoint seed_design_point(const FixedProperties& fixed, const std::optional<core::TileHint>& hint) {
  DesignPoint p;
  p.fixed = fixed;
  p.vortex = vortex_for(fixed.block_size);
  const bool tc = fixed.engine == core::EngineClass::kTensorCore;
  p.axes.tensor_core.enabled = tc;
  p.axes.tensor_core.shape =
      fixed.path == check::PrecisionPath::kTf32 ? FragShape::kM16N16K8 : FragShape::kM16N16K16;
  p.axes.smem_stage = true;
  // Tensor-core seeds start pipelined (CUDA: two cp.async stages; Vortex: software prefetch), as
  // the profiled vendor kernels are (docs/codegen.md "Tensor-core strategy").
  p.axes.prefetch = tc;
  const bool has_epilogue = fixed.op.has_bias || fixed.op.activation != check::Activation::kNone;
  p.axes.fused_act = (fixed.op.is_conv() && has_epilogue) ? Epilogue::kSeparate : Epilogue::kFused;
  const GemmView g = gemm_view(fixed.op);

  // Candidate (BM, BN, TM, TN) tiles, best first: the kernel-name hint; then tiles that do not
  // exceed the (power-of-two rounded) GEMM, closest to square, area closest to 64x64.
  struct Shape { uint32_t bm, bn, tm, tn; };
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
  const int64_t mcap = std::max<int64_t>(round_pow2(g.m), 16), ncap = std::max<int64_t>(round_pow2(g.n), 16);
  auto score = [&](const Shape& t) {
    const bool fits = static_cast<int64_t>(t.bm) <= mcap && static_cast<int64_t>(t.bn) <= ncap;
    const double aspect = std::abs(std::log2(static_cast<double>(t.bm) / t.bn));
    const double area = std::abs(std::log2(static_cast<double>(t.bm) * t.bn / 4096.0));
    const double reg = (t.tm == 4 && t.tn == 4) ? 0.0 : 0.25;
    return (fits ? 0.0 : 100.0) + aspect + 0.5 * area + reg;
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

DesignPoint seed_design_point(const core::ReferenceContext& ctx) {
  const FixedProperties f = fixed_properties(ctx);
  try {
    return seed_design_point(f, ctx.tile_hint);
  } catch (const Error& e) {
    throw make_error("reference kernel '{}': {}", ctx.kernel_name, e.what());
  }
}

}  // namespace vxsynth::codegen
