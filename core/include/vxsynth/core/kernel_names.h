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
};

/// The rules, first match wins (more specific rows first).
[[nodiscard]] std::span<const KernelNameRule> kernel_name_rules();

/// What a name says: the first matching rule and the tile it spells (if any).
struct NameHints {
  const KernelNameRule* rule = nullptr;  ///< nullptr when no family matches
  std::optional<TileHint> tile;
};
[[nodiscard]] NameHints classify_kernel_name(std::string_view name);

/// The kernel's function base name, as ncu's `--kernel-name-base function` prints it: template
/// arguments (at any depth) and the parameter list removed, then the return type and every
/// qualifier ("void cudnn::engines_precompiled::nchwToNhwcKernel<float, …>(…)" → "nchwToNhwcKernel";
/// "void ns::Tile<128>::run(float*)" → "run"; "std::enable_if<…>::type internal::gemvx::kernel<…>(…)"
/// → "kernel"; "nvjet_sm90_tst_…" unchanged). ncu and torch spell templated names differently
/// (docs/ncu.md §5.3) but agree on this; both anonymous-namespace spellings read as "anon".
[[nodiscard]] std::string kernel_base_name(std::string_view name);

}  // namespace vxsynth::core
