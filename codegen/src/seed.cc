#include "vxsynth/codegen/seed.h"

#include <algorithm>
#include <numeric>
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
  const bool has_epilogue = fixed.op.has_bias || fixed.op.activation != check::Activation::kNone;
  p.axes.fused_act = (fixed.op.is_conv() && has_epilogue) ? Epilogue::kSeparate : Epilogue::kFused;
  const GemmView g = gemm_view(fixed.op);

  std::vector<std::pair<uint32_t, uint32_t>> tiles;
  if (hint && hint->m > 0 && hint->n > 0) tiles.emplace_back(hint->m, hint->n);
  for (auto t : std::initializer_list<std::pair<uint32_t, uint32_t>>{
           {64, 64}, {32, 32}, {64, 32}, {32, 64}, {128, 64}, {64, 128}, {128, 128}, {16, 16}, {16, 32}, {32, 16},
           {128, 32}, {32, 128}, {256, 64}, {64, 256}, {8, 8}, {16, 8}, {8, 16}, {256, 128}, {128, 256}}) {
    tiles.push_back(t);
  }
  // Prefer tiles no larger than the (power-of-two rounded) GEMM, so small shapes are not all edge.
  const int64_t mcap = round_pow2(g.m), ncap = round_pow2(g.n);
  std::stable_partition(tiles.begin(), tiles.end(), [&](const auto& t) {
    return static_cast<int64_t>(t.first) <= std::max<int64_t>(mcap, 16) &&
           static_cast<int64_t>(t.second) <= std::max<int64_t>(ncap, 16);
  });
  std::string last;
  for (const auto& [bm, bn] : tiles) {
    p.axes.tile.m = bm;
    p.axes.tile.n = bn;
    std::vector<std::pair<uint32_t, uint32_t>> regs;
    std::vector<uint32_t> bks;
    if (tc) {
      const auto f = frag_dims(p.axes.tensor_core.shape);
      const auto v = vortex_tcu_tile(p.vortex.threads);
      const uint32_t l = std::lcm(f[2], v[2]);
      regs = {{1, 1}};
      bks = {l, 2 * l};
    } else {
      regs = {{4, 4}, {2, 2}, {4, 2}, {2, 4}, {1, 1}, {2, 1}, {1, 2}, {4, 1}, {1, 4}, {8, 8}};
      bks = {8, 16, 32, 4, 2, 1};
      if (hint && hint->k > 0) bks.insert(bks.begin(), hint->k);
    }
    for (const auto& [tm, tn] : regs) {
      for (uint32_t bk : bks) {
        p.axes.reg_tile = {tm, tn};
        p.axes.tile.k = bk;
        p.axes.k_range = (g.k % bk == 0) ? KRange::kSpecialized : KRange::kGeneric;
        last = validation_errors(p);
        if (last.empty()) return p;
      }
    }
  }
  throw make_error("no valid seed for {} (block size {}); last attempt:\n{}", check::describe(fixed.op),
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
