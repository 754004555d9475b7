#pragma once
// Design points used by the codegen tests: one small shape per op family, each precision path,
// the seed and three axis variants.
#include <array>
#include <ostream>
#include <string>
#include <vector>

#include "vxsynth/codegen/design_point.h"
#include "vxsynth/codegen/seed.h"

namespace vxsynth::codegen::testing_points {

struct Case {
  std::string name;
  DesignPoint point;
};

/// GoogleTest prints parameters in test listings (and CTest's discovered names); print the case name
/// instead of a byte dump of the design point.
inline void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

/// Small fixed properties of `family` on `path` (block size 64; odd sizes exercise the edges).
inline FixedProperties small_fixed(check::OpFamily family, check::PrecisionPath path) {
  FixedProperties f;
  f.path = path;
  f.engine = path == check::PrecisionPath::kFp32 ? core::EngineClass::kSimt : core::EngineClass::kTensorCore;
  f.block_size = path == check::PrecisionPath::kFp32 ? 64 : 128;
  auto& op = f.op;
  op.family = family;
  switch (family) {
    case check::OpFamily::kLinear:
      op.gemm = {1, 20, 24, 40};
      op.has_bias = true;
      break;
    case check::OpFamily::kMatmul:
      op.gemm = {1, 24, 20, 36};
      break;
    case check::OpFamily::kBmm:
      op.gemm = {3, 12, 20, 40};
      op.b_batch_stride = 0;  // one b broadcast over the batch, as torch.matmul does
      break;
    case check::OpFamily::kConv1d:
      op.conv.n = 2; op.conv.c = 6; op.conv.h = 1; op.conv.w = 11; op.conv.k = 8; op.conv.r = 1; op.conv.s = 5;
      op.conv.pad = {0, 2};
      op.has_bias = true;
      break;
    case check::OpFamily::kConv2d:
      op.conv.n = 1; op.conv.c = 4; op.conv.h = 7; op.conv.w = 6; op.conv.k = 6; op.conv.r = 3; op.conv.s = 3;
      op.conv.pad = {1, 1};
      op.conv.stride = {2, 1};
      op.conv.groups = 2;
      op.has_bias = true;
      break;
  }
  return f;
}

/// Design space whose tensor-core seeds keep the tile-epilogue schedule (the cases named without
/// "_we"); design space 3 seeds the warp epilogue (docs/codegen.md "Tensor-core schedules").
inline constexpr int kTileEpilogueSpace = 2;

/// Seed of a small case in design space `space`.
inline DesignPoint seed(check::OpFamily family, check::PrecisionPath path, int space = kTileEpilogueSpace) {
  return seed_design_point(small_fixed(family, path), std::nullopt, CudaTranslation::kNative, space);
}

/// The seed of the small case of `family` on `path` with another reduction depth: K = `gemm_k` for
/// linear, matmul and bmm; C = `conv1d_c` / `conv2d_c` input channels for the convolutions (conv1d:
/// 5 taps, K = 5·C; conv2d: 2 groups of 3x3 taps, K = 9·C/2 per group).
inline DesignPoint seed_with_depth(check::OpFamily family, check::PrecisionPath path, int space, int64_t gemm_k,
                                   int64_t conv1d_c, int64_t conv2d_c) {
  FixedProperties f = small_fixed(family, path);
  if (f.op.is_conv()) {
    f.op.conv.c = family == check::OpFamily::kConv1d ? conv1d_c : conv2d_c;
  } else {
    f.op.gemm.k = gemm_k;
  }
  return seed_design_point(f, std::nullopt, CudaTranslation::kNative, space);
}

/// Generator 9's fills of a tile wider than its operand (docs/codegen.md "Tensor-core strategy"): the
/// small shape with K a multiple of 16 (linear, matmul, bmm K = 48; conv1d C = 16, K = 80; conv2d
/// C = 32, K = 144 per group), so that the point is specialised, under a 32x32x16 warp-epilogue tile
/// wider than M and N (M = 20, 24, 12, 8, 3; N = 24, 20, 20, 22, 24): the Vortex side fills LIVE_M rows
/// of A and LIVE_N of B, CUDA the element-filled operands likewise.
inline DesignPoint live_fill_point(check::OpFamily family, check::PrecisionPath path, int space) {
  DesignPoint p = seed_with_depth(family, path, space, 48, 16, 32);
  p.axes.tile = {32, 32, 16};
  p.axes.split_k = 1;
  p.axes.k_range = KRange::kSpecialized;
  return p;
}

/// A tile whose Vortex operand tiles exceed the core's local memory at BK (64x32x32 at 16-bit: 6 KiB)
/// on a 4 KiB Vortex target, so that the Vortex kernel stages each BK = 32 in two local-memory steps
/// of 16 (vortex_stage_k: 3 KiB; the accumulator scratch of 8 warps of 16 lanes is 4 KiB). K = 88
/// (linear, matmul, bmm; conv1d C = 18, conv2d C = 34: 90 and 153 per group), generic, split-K 2:
/// both K slices, and a last 16-deep step of which only part lies inside K.
inline DesignPoint sub_stage_point(check::OpFamily family, check::PrecisionPath path, int space) {
  DesignPoint p = seed_with_depth(family, path, space, 88, 18, 34);
  p.axes.tile = {64, 32, 32};
  p.axes.split_k = 2;
  p.axes.k_range = KRange::kGeneric;
  p.vortex.local_mem_bytes = 4096;
  return p;
}

/// The seed plus three variants that change different axes (each variant is valid); from design
/// space 3 a tensor-core case is the warp-epilogue schedule, named "<family>_<path>_we_..." (design
/// space 4: with 16 threads per Vortex warp; design space 5 adds "<...>_we_live", live_fill_point, and
/// "<...>_we_substage", sub_stage_point).
inline std::vector<Case> variants(check::OpFamily family, check::PrecisionPath path, int space = kTileEpilogueSpace) {
  const std::string base = std::string(check::to_string(family)) + "_" + std::string(check::to_string(path)) +
                           (space >= 3 ? "_we" : "");
  const DesignPoint s = seed(family, path, space);
  std::vector<Case> out{{base + "_seed", s}};
  DesignPoint v1 = s, v2 = s, v3 = s;
  if (path == check::PrecisionPath::kFp32) {
    // 1: no shared memory, read-once loads, strided lanes, clamped edges
    v1.axes.smem_stage = false;
    v1.axes.read_once = true;
    v1.axes.lane_map = LaneMap::kStrided;
    v1.axes.boundary = Boundary::kClamp;
    // 2: split-K 2 with prefetch and a separate (or split-K) epilogue, generic K
    v2.axes.split_k = 2;
    v2.axes.prefetch = true;
    v2.axes.k_range = KRange::kGeneric;
    // 3: another tile / register tile / warp arrangement
    v3.axes.tile = {32, 32, 4};
    v3.axes.reg_tile = {4, 4};
    v3.axes.warp_rows = 4;
    v3.axes.fused_act = s.fixed.op.has_bias ? (s.axes.fused_act == Epilogue::kFused ? Epilogue::kSeparate : Epilogue::kFused)
                                            : Epilogue::kFused;
  } else {
    // 1: strided lanes, clamped edges, prefetch
    v1.axes.lane_map = LaneMap::kStrided;
    v1.axes.boundary = Boundary::kClamp;
    v1.axes.prefetch = true;
    // 2: split-K 2, generic K, element fills where contiguous would fill 16-byte vectors
    v2.axes.split_k = 2;
    v2.axes.k_range = KRange::kGeneric;
    if (cuda_fill_vectors(v2) != std::array<uint32_t, 2>{1, 1}) v2.axes.lane_map = LaneMap::kElement;
    // 3: another fragment shape (bf16) or a smaller tile (tf32)
    if (path == check::PrecisionPath::kBf16) {
      v3.axes.tensor_core.shape = FragShape::kM32N8K16;
      v3.axes.tile = {32, 32, 16};
    } else {
      v3.axes.tile = {32, 32, 16};
    }
    if (space >= 3) {
      // 3 (warp epilogue): a block of 384 threads (12 CUDA warps, 24 Vortex warps of 16) with a
      // 192x16x32 tile, as Diffusion Policy's conv1d seeds: its B fill (512 elements) is not a
      // multiple of the block (partial fills); six CUDA stages in dynamic shared memory.
      FixedProperties f = small_fixed(family, path);
      f.block_size = 384;
      v3 = seed_design_point(f, std::nullopt, CudaTranslation::kNative, space);
      v3.axes.tile = {192, 16, 32};
      v3.axes.prefetch = true;
      v3.axes.split_k = 1;
      v3.axes.k_range = KRange::kGeneric;
      v3.cuda_stages = 6;
    }
  }
  out.push_back({base + "_v1", v1});
  out.push_back({base + "_v2", v2});
  out.push_back({base + "_v3", v3});
  if (space >= 5 && path != check::PrecisionPath::kFp32) out.push_back({base + "_live", live_fill_point(family, path, space)});
  if (space >= 5 && path != check::PrecisionPath::kFp32) out.push_back({base + "_substage", sub_stage_point(family, path, space)});
  return out;
}

/// BF16 storage on the SIMT engine (a bf16 reference whose counters showed no tensor-pipe use):
/// fp32 math on bf16 operands, bf16 output. Seed and v1 per family.
inline std::vector<Case> simt_bf16_cases() {
  std::vector<Case> out;
  for (auto fam : {check::OpFamily::kLinear, check::OpFamily::kBmm, check::OpFamily::kConv1d}) {
    FixedProperties f = small_fixed(fam, check::PrecisionPath::kBf16);
    f.engine = core::EngineClass::kSimt;
    f.block_size = 64;
    const DesignPoint s = seed_design_point(f);
    DesignPoint v1 = s;
    v1.axes.smem_stage = false;
    v1.axes.boundary = Boundary::kClamp;
    v1.axes.lane_map = LaneMap::kStrided;
    const std::string base = std::string(check::to_string(fam)) + "_bf16simt";
    out.push_back({base + "_seed", s});
    out.push_back({base + "_v1", v1});
  }
  return out;
}

/// Warpgroup MMA (design space 7, docs/codegen.md "Warpgroup MMA"): BF16 linear with a bias,
/// M = 20, N = 24 (one partial tile: rows of A and B past M and N zero-filled, stores guarded),
/// K = 40 (a last stage partly past K), the native translation's cp.async stages:
/// - wg_n64: 384 threads = 3 warpgroups along M, tile 192x64x32, m64n64k16, 3 stages;
/// - wg_n128_k2: 128 threads = 1 warpgroup owning 2 operations along M (tile 128x128x16,
///   m64n128k16: 128 accumulators per thread), split-K 2 with its reduction launch;
/// - wg_n256: 256 threads = 2 warpgroups, tile 128x256x32, m64n256k16, generic K, 2 stages.
inline std::vector<Case> warpgroup_cases() {
  auto point = [](uint32_t block, Axes::Tile tile, FragShape shape, uint32_t split, uint32_t stages) {
    FixedProperties f = small_fixed(check::OpFamily::kLinear, check::PrecisionPath::kBf16);
    f.block_size = block;
    DesignPoint p = seed_design_point(f, std::nullopt, CudaTranslation::kNative, kDesignSpaceVersion);
    p.axes.tensor_core.shape = shape;
    p.axes.tile = tile;
    p.axes.prefetch = true;
    p.axes.split_k = split;
    p.axes.k_range = KRange::kGeneric;
    p.cuda_stages = stages;
    return p;
  };
  return {{"linear_bf16_wg_n64", point(384, {192, 64, 32}, FragShape::kM64N64K16, 1, 3)},
          {"linear_bf16_wg_n128_k2", point(128, {128, 128, 16}, FragShape::kM64N128K16, 2, 2)},
          {"linear_bf16_wg_n256", point(256, {128, 256, 32}, FragShape::kM64N256K16, 1, 2)}};
}

/// Every family × path × {seed, v1, v2, v3}, the tensor-core paths in both schedules, the SIMT
/// BF16 cases and the warpgroup cases.
inline std::vector<Case> all_cases() {
  std::vector<Case> out;
  for (auto fam : {check::OpFamily::kLinear, check::OpFamily::kMatmul, check::OpFamily::kBmm, check::OpFamily::kConv1d,
                   check::OpFamily::kConv2d}) {
    for (auto path : {check::PrecisionPath::kFp32, check::PrecisionPath::kTf32, check::PrecisionPath::kBf16}) {
      for (auto& c : variants(fam, path)) out.push_back(std::move(c));
    }
    for (auto path : {check::PrecisionPath::kTf32, check::PrecisionPath::kBf16}) {
      for (auto& c : variants(fam, path, kDesignSpaceVersion)) out.push_back(std::move(c));
    }
  }
  for (auto& c : simt_bf16_cases()) out.push_back(std::move(c));
  for (auto& c : warpgroup_cases()) out.push_back(std::move(c));
  return out;
}

}  // namespace vxsynth::codegen::testing_points
