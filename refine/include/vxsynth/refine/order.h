#pragma once
/// \file
/// Refinement orders (paper §4.5, docs/reconstruct.md "Orders"). CUDA-first (the default): the pair
/// is refined against the reference with every revision's CUDA candidate profiled by ncu on the
/// reference GPU, and the Vortex kernel follows the CUDA design. Vortex-first: the design is
/// refined under the Vortex side's constraints, and each revision's CUDA candidate is a literal
/// translation of the Vortex kernel (codegen::CudaTranslation::kVortexLiteral: register prefetch,
/// element fills, the Vortex TCU's formats, so a TF32 reference runs at FP16), profiled with ncu
/// on the reference GPU; D guides the next Vortex revision. Both run with the ncu backend; the
/// vxsim backend, which scores vxsim counters against the reference signature, is a third
/// experiment, not an order.

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "vxsynth/codegen/design_point.h"
#include "vxsynth/core/context.h"
#include "vxsynth/refine/agent.h"

namespace vxsynth::refine {

enum class Order : uint8_t { kCudaFirst, kVortexFirst };

/// The design space an order refines over a reference context (throws vxsynth::Error when codegen
/// cannot seed it).
using MakeOrderSpaceFn = std::unique_ptr<DesignSpace> (*)(const core::ReferenceContext& ctx);

struct OrderInfo {
  Order order;
  std::string_view key;    ///< "cuda-first", "vortex-first": run.json field `order`, `--order`
  std::string_view what;   ///< one line for --help and docs
  /// How every revision's CUDA candidate is rendered; each revision's record carries it in its
  /// design (`design.cuda_translation`, absent for native).
  codegen::CudaTranslation translation;
  MakeOrderSpaceFn make_space;  ///< the order's design space, seeded with `translation`
};

/// The order table.
[[nodiscard]] std::span<const OrderInfo> order_table();
/// Row of `o`.
[[nodiscard]] const OrderInfo& order_info(Order o);
[[nodiscard]] std::optional<Order> order_from_key(std::string_view key);
[[nodiscard]] std::string_view to_string(Order o);

/// Why design point `p` breaks a constraint of the Vortex side that Vortex-first refinement keeps
/// (one reason per line, each starting with "vortex-first:"), empty when it keeps them all:
///  - local memory: the CUDA translation stages no more bytes per block in shared memory than the
///    Vortex core's local memory holds (`vortex.local_mem_bytes`, docs/vortex.md §3.1);
///  - TCU formats and fragment shapes: a CUDA fragment is a whole number of Vortex TCU tiles
///    (codegen::vortex_tcu_tile of the Vortex warp width, FP16/BF16 inputs, docs/vortex.md §7.1).
/// The warp-width rules (block size and warp_rows divide the Vortex warp) are codegen's own checks
/// of every pair (design_point.h), so they hold in both orders.
[[nodiscard]] std::string vortex_first_violations(const codegen::DesignPoint& p);

/// `inner` restricted to Vortex-first refinement: a move whose result breaks
/// vortex_first_violations is not applicable (its reason says which constraint), nor one from a
/// design not rendered with the Vortex-first translation (a run written before it); axes the
/// translation leaves inert (read_once: no cache hints on either side) are not refined
/// (`inner`'s rule, codegen::TranslationInfo::inert_axes). The tensor_core axis is not refined when the seed's own fragment
/// shape breaks the fragment rule. Seed (`inner`'s, made with order_info's translation), priors
/// and rendering are `inner`'s.
[[nodiscard]] std::unique_ptr<DesignSpace> make_vortex_first_space(std::unique_ptr<DesignSpace> inner);

}  // namespace vxsynth::refine
