#pragma once
/// \file
/// THE kernel-name rule table: library kernel-name families → engine class and tile syntax
/// (docs/ncu.md §7). NVIDIA documents none of these names except CUTLASS's; a name is a hint
/// that the counters outrank (§7.6), and a tile read from a name is kept only where the launch
/// geometry agrees (paper §3.1). Adding a family is a row in kernel_names.cc.

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vxsynth/core/context.h"

namespace vxsynth::core {

/// How a family writes its CTA tile in the name.
enum class TileSyntax : uint8_t {
  kNone,
  kNvjet,      ///< "_256x128_64x4_": TM×TN, TK×stages (§7.3, fields [U])
  kXmma,       ///< "tilesize128x64x32" + optional "_stage5" (§7.2)
  kCutlass2,   ///< "_64x64_16x6_": tbM×tbN, tbK×stages (§7.5, documented)
  kSgemm,      ///< "ampere_sgemm_128x64_": TM×TN (§7.4)
};

/// How a family's launch grid relates to the CTA tile its name spells (paper §3.1: a tile read
/// from a name is kept only where the launch agrees).
enum class GridForm : uint8_t {
  kNone,      ///< the name spells no tile
  kTiles,     ///< one CTA per output tile and batch, times s CTAs per tile along K (split-K)
  kClusters,  ///< nvjet: the same, rounded up to whole thread-block clusters (the "_4x1_" field)
};

/// What a kernel does for its framework op.
enum class KernelRole : uint8_t {
  kMain,           ///< the op's GEMM/conv (or its only kernel)
  kHelper,         ///< launched around the main kernel: layout transpose, split-K reduce, workspace init,
                   ///< elementwise epilogue
  kCommunication,  ///< collective communication (NCCL): not an operator, left out of the operator ranking
};

/// Stable lower-case name ("main", "helper", "communication").
[[nodiscard]] std::string_view to_string(KernelRole r);

/// One kernel-name family.
struct KernelNameRule {
  std::string_view id;       ///< stable id, e.g. "nvjet"
  std::string_view pattern;  ///< ECMAScript regex searched anywhere in the name
  EngineClass engine;
  std::string_view library;  ///< "cuBLASLt", "cuDNN", "CUTLASS", "ATen", …
  TileSyntax tile;
  std::string_view source;   ///< where the fact comes from (doc section, evidence tag)
  KernelRole role = KernelRole::kMain;
  /// The family computes with Hopper's warpgroup MMA (wgmma.mma_async): what a warpgroup seed of
  /// design space 7 follows (codegen/seed.h).
  bool warpgroup_mma = false;
};

/// The rules, first match wins (more specific rows first).
[[nodiscard]] std::span<const KernelNameRule> kernel_name_rules();

/// What a name says: the first matching rule and the tile it spells (if any).
struct NameHints {
  const KernelNameRule* rule = nullptr;  ///< nullptr when no family matches
  std::optional<TileHint> tile;
  uint32_t warps_m = 0, warps_n = 0;  ///< warp layout ("warpsize2x2x1"); 0 when not spelled
  uint32_t cluster = 1;               ///< CTAs per thread-block cluster ("_4x2_" after an nvjet tile)
  bool split_k = false;               ///< the name says split-K ("_splitK_")
};
[[nodiscard]] NameHints classify_kernel_name(std::string_view name);

/// One tile syntax: how the name spells the tile, the extras around it, and the grid form.
/// THE tile-syntax table (one row per TileSyntax, in enum order).
struct TileSyntaxRule {
  TileSyntax syntax;
  std::string_view tile;     ///< regex: groups 1..4 = TM, TN, TK, stages (absent groups read 0)
  std::string_view stages;   ///< regex: group 1 = stages, where the tile regex has none ("" = none)
  std::string_view warps;    ///< regex: groups 1, 2 = warps along M, N ("" = not spelled)
  std::string_view cluster;  ///< regex: groups 1, 2 = cluster extents ("" = none)
  std::string_view split_k;  ///< regex marking a split-K kernel ("" = none)
  GridForm grid;
  std::string_view source;
};
[[nodiscard]] std::span<const TileSyntaxRule> tile_syntax_rules();

/// A name's tile where the measured launch agrees with it (paper §3.1), oriented to the GEMM view
/// of the generator (docs/codegen.md: m along the output rows M — filters for a convolution —, n
/// along N — N·P·Q for a convolution —, z the batch or groups).
struct LaunchFit {
  TileHint tile;              ///< oriented: tile.m along M
  uint32_t ctas_per_tile = 1; ///< CTAs per output tile along K (split-K slices) the grid shows
  uint32_t warps_m = 0, warps_n = 0;  ///< warp layout from the name, oriented like the tile (0 = none)
  std::string why;            ///< how the launch agrees, for the record
};

/// The launch fit of `ctx`'s kernel name: its tile, when the grid's CTA count equals
/// ⌈M/BM⌉·⌈N/BN⌉ (either orientation of the name's two extents; the name's order first) × batch × s,
/// s ≥ 1 CTAs per tile along K (at most ⌈K/TK⌉ and at most one K stage of TK per slice), for
/// kClusters rounded up to whole clusters, and the warp layout (if spelled) × 32 equals the block.
/// nullopt with `why_not` set otherwise (no tile, no shape, or the launch disagrees).
[[nodiscard]] std::optional<LaunchFit> launch_fit(const ReferenceContext& ctx, std::string* why_not = nullptr);

/// Every launch fit of `ctx`'s kernel name: the name's order first, then the swapped one (each with
/// the fewest CTAs per tile along K that fits); empty with `why_not` set when none fits.
[[nodiscard]] std::vector<LaunchFit> launch_fits(const ReferenceContext& ctx, std::string* why_not = nullptr);

/// The launch fit that also agrees with the reference's measured tensor work: where both
/// orientations fit and ReferenceContext::tensor_ops is known, the one whose padded work
/// (padded_mma_ops) is closest to it in ratio (the extents a kernel pads differ between them; the
/// name's order on a tie), its `why` saying so; else launch_fit's.
[[nodiscard]] std::optional<LaunchFit> best_launch_fit(const ReferenceContext& ctx, std::string* why_not = nullptr);

/// Tensor operations of a GEMM computed over whole tiles of `tile` (oriented like the GEMM view):
/// 2·batch·⌈M/BM⌉·BM·⌈N/BN⌉·BN·⌈K/BK⌉·BK, BK = 1 where the tile has none; 0 without a shape. The
/// counters count 2 per multiply-accumulate of the padded extents: on the H100 bundle π0 k4's nvjet
/// 56x64 tile (M = 51 padded to 56) and Diffusion Policy k8's cuDNN 64x32 (N·P·Q = 4 padded to 64)
/// give the measured count exactly; CTAs that a cluster round-up adds compute too (the H200 π0 k4:
/// 553.6 M measured, 541.1 M here), and the sm90 convolutions count as many as 128 rows of N·P·Q.
[[nodiscard]] double padded_mma_ops(const TileHint& tile, const ReferenceContext& ctx);

/// The kernel's function base name, as ncu's `--kernel-name-base function` prints it: template
/// arguments (at any depth) and the parameter list removed, then the return type and every
/// qualifier ("void cudnn::engines_precompiled::nchwToNhwcKernel<float, …>(…)" → "nchwToNhwcKernel";
/// "void ns::Tile<128>::run(float*)" → "run"; "std::enable_if<…>::type internal::gemvx::kernel<…>(…)"
/// → "kernel"; "nvjet_sm90_tst_…" unchanged). ncu and torch spell templated names differently
/// (docs/ncu.md §5.3) but agree on this; both anonymous-namespace spellings read as "anon".
[[nodiscard]] std::string kernel_base_name(std::string_view name);

}  // namespace vxsynth::core
