#pragma once
/// \file
/// The first pair of a chain (paper §3.4 "The first candidate is built from the reference program
/// context alone"; §4.4 "The seed preserves the four reference properties").

#include <optional>

#include "vxsynth/codegen/design_point.h"
#include "vxsynth/core/context.h"

namespace vxsynth::codegen {

/// The four fixed properties of a reference context (docs/signature.md §2): engine class, the precision
/// path of its data types, the block size of its launch, and its op/shape. Throws vxsynth::Error
/// naming the kernel when the context lacks a shape, has block size 0, or its types have no path.
[[nodiscard]] FixedProperties fixed_properties(const core::ReferenceContext& ctx);

/// Seed design point: keeps the fixed properties and picks valid axis values:
/// - Vortex target: warp width 8 for blocks ≤ 256 threads, 16 for ≤ 512, 32 above; enough warps
///   for one block per core (≥ 4, the SimX default); 1 core, 16 KiB local memory.
/// - tile: the kernel-name tile where the launch agrees (core::launch_fit; from design space 5
///   core::best_launch_fit, the orientation that agrees with the tensor work too; paper §3.1) and it is
///   valid with the block size, else the first valid
///   of a fixed candidate list (64×64 first) not larger than needed for the shape; SIMT reg_tile
///   4×4, 2×2 or 1×1 so that (BM/TM)·(BN/TN) equals the block size; BK 8 (SIMT) or the least
///   common multiple of the CUDA and Vortex fragment depths (tensor core).
/// - tc_schedule (design space 3 on, `space_version`): tensor-core seeds take the warp epilogue,
///   with the kernel name's stage count as cuda_stages; their candidate tiles are ordered by
///   padding, fragments per warp and the reference's CTAs (docs/codegen.md "Tensor-core schedules").
///   From design space 5 the padding they are ordered by is the reference's: where its tensor work
///   was measured, the padding term is the distance of a tile's padded M·N to the reference's (its
///   tensor operations over 2·batch·K), weighed with the other terms as before.
/// - tensor_core (design space 7 on): where the reference's name rule computes with warpgroup MMA
///   and M covers the block's warpgroups (64 rows each), a warpgroup shape m64nNk16 with the tile
///   of least padding and most accumulators per thread, if one is valid (a BF16 linear with 16-byte
///   fills); else the WMMA seed above (docs/codegen.md "Warpgroup MMA").
/// - split_k: the launch fit's CTAs per tile along K; else, for a main kernel launched with at
///   least twice the seed's CTAs, the reference's grid as the target (each slice ≥ 2 K stages).
/// - seed_origin: for tile, split_k (and prefetch on tensor-core paths) where the value came from.
/// - smem_stage on, prefetch/read_once off, lane_map contiguous, warp_rows 0,
///   boundary guard; tensor_core on iff the engine class is tensor core (m16n16k8 for TF32,
///   m16n16k16 for BF16).
/// - fused_act (paper §4.3, decided by the operator): linear/addmm keep the bias in the GEMM
///   epilogue (fused), as cuBLAS addmm does; conv with a bias puts it in a separate kernel, since
///   the profiled convolution kernel does not include the bias add (judgement: PyTorch adds a
///   convolution's bias outside the cuDNN main kernel in the cases we profiled).
/// - k_range (paper §4.3, decided by the shape): specialized when K is a multiple of BK (the
///   profiled K needs no remainder handling), else generic.
/// - cuda_translation: `translation` (the refinement order's, refine/order.h); it decides the
///   CUDA side's format (a TF32 reference under the Vortex formats seeds FP16 m16n16k16) and,
///   without asynchronous copies, every tensor-core seed has one shared stage.
/// Throws vxsynth::Error with the validation reasons of the last attempt if nothing is valid.
[[nodiscard]] DesignPoint seed_design_point(const core::ReferenceContext& ctx,
                                            CudaTranslation translation = CudaTranslation::kNative,
                                            int space_version = kDesignSpaceVersion);

/// What the seed's tile order takes from the reference launch besides its name.
struct ReferenceLaunch {
  int64_t ctas = 0;       ///< CTAs of the launch; 0 when unknown or a helper's
  double tensor_ops = 0;  ///< tensor operations it executed (core::ReferenceContext::tensor_ops); 0 = unknown
  bool warpgroup_mma = false;  ///< its kernel-name rule computes with wgmma (core::KernelNameRule)
};

/// Seed from already extracted fixed properties (same rules).
[[nodiscard]] DesignPoint seed_design_point(const FixedProperties& fixed,
                                            const std::optional<core::TileHint>& hint = std::nullopt,
                                            CudaTranslation translation = CudaTranslation::kNative,
                                            int space_version = kDesignSpaceVersion,
                                            const ReferenceLaunch& reference = {});

}  // namespace vxsynth::codegen
