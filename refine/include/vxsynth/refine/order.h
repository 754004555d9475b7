#pragma once
/// \file
/// Refinement orders (paper §4.5, docs/reconstruct.md "Orders"). CUDA-first (the default): the pair
/// is refined against the reference with every revision's CUDA candidate profiled by ncu on the
/// reference GPU, and the Vortex kernel follows the CUDA design. Vortex-first: the design is
/// refined under the Vortex side's constraints, so that the CUDA candidate is a translation of the
/// Vortex kernel, and each revision's CUDA translation is profiled with ncu on the reference GPU;
/// D guides the next Vortex revision. Both run with the ncu backend; the vxsim backend, which
/// scores vxsim counters against the reference signature, is a third experiment, not an order.

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "vxsynth/codegen/design_point.h"
#include "vxsynth/refine/agent.h"

namespace vxsynth::refine {

enum class Order : uint8_t { kCudaFirst, kVortexFirst };

struct OrderInfo {
  Order order;
  std::string_view key;    ///< "cuda-first", "vortex-first": run.json field `order`, `--order`
  std::string_view what;   ///< one line for --help and docs
};

/// The order table.
[[nodiscard]] std::span<const OrderInfo> order_table();
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
/// vortex_first_violations is not applicable (its reason says which constraint), and the
/// tensor_core axis is not refined when the seed's own fragment shape already breaks the
/// fragment rule (TF32 wmma m16n16k8 against the FP16 Vortex tile: the generator renders no FP16
/// CUDA translation of a TF32 reference). Seed, priors and rendering are `inner`'s.
[[nodiscard]] std::unique_ptr<DesignSpace> make_vortex_first_space(std::unique_ptr<DesignSpace> inner);

}  // namespace vxsynth::refine
