// Vortex-first refinement (paper §4.5): codegen's design space restricted to the Vortex side's
// constraints (refine/order.h, docs/reconstruct.md "Orders").
#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "vxsynth/refine/backends.h"
#include "vxsynth/refine/order.h"

namespace vxsynth::refine {
namespace {

using nlohmann::json;

std::unique_ptr<DesignSpace> cuda_first_space(const core::ReferenceContext& ctx) {
  return make_codegen_space(ctx, codegen::CudaTranslation::kNative);
}
std::unique_ptr<DesignSpace> vortex_first_space(const core::ReferenceContext& ctx) {
  return make_vortex_first_space(make_codegen_space(ctx, codegen::CudaTranslation::kVortexLiteral));
}

constexpr std::array<OrderInfo, 2> kOrders{{
    {Order::kCudaFirst, "cuda-first",
     "refine the CUDA candidate against the reference (ncu on the reference GPU); the Vortex kernel follows",
     codegen::CudaTranslation::kNative, cuda_first_space},
    {Order::kVortexFirst, "vortex-first",
     "refine the design under Vortex's constraints; each revision's literal CUDA translation of the Vortex kernel "
     "is profiled with ncu",
     codegen::CudaTranslation::kVortexLiteral, vortex_first_space},
}};

std::string fragment_violation(const codegen::DesignPoint& p) {
  if (!p.axes.tensor_core.enabled) return {};
  const std::array<uint32_t, 3> f = codegen::frag_dims(p.axes.tensor_core.shape);
  const std::array<uint32_t, 3> v = codegen::vortex_tcu_tile(p.vortex.threads);
  if (f[0] % v[0] == 0 && f[1] % v[1] == 0 && f[2] % v[2] == 0) return {};
  return fmt::format("vortex-first: CUDA fragment {}x{}x{} is not a whole number of Vortex TCU tiles {}x{}x{} "
                     "(warp width {}, FP16/BF16 inputs)",
                     f[0], f[1], f[2], v[0], v[1], v[2], p.vortex.threads);
}

class VortexFirstSpace : public DesignSpace {
 public:
  explicit VortexFirstSpace(std::unique_ptr<DesignSpace> inner) : inner_(std::move(inner)) {
    seed_fragment_fixed_ = !fragment_violation(codegen::design_point_from_json(inner_->seed_design())).empty();
  }
  json seed_design() const override { return inner_->seed_design(); }
  std::vector<std::string> refinable_axes() const override {
    std::vector<std::string> a = inner_->refinable_axes();
    if (seed_fragment_fixed_) a.erase(std::remove(a.begin(), a.end(), "tensor_core"), a.end());
    return a;
  }
  std::optional<json> apply(const json& design, const AxisStep& step, std::string* why_not) const override {
    auto refuse = [why_not](std::string why) -> std::optional<json> {
      if (why_not) *why_not = std::move(why);
      return std::nullopt;
    };
    if (seed_fragment_fixed_ && step.axis == "tensor_core")
      return refuse("vortex-first: the seed's fragment shape is fixed by its precision path");
    const codegen::CudaTranslation want = order_info(Order::kVortexFirst).translation;
    if (const codegen::DesignPoint from = codegen::design_point_from_json(design); from.cuda_translation != want)
      return refuse(fmt::format("vortex-first: the design's CUDA translation is {}, not {} (a run made before the "
                                "literal translation; start a new run)",
                                codegen::to_string(from.cuda_translation), codegen::to_string(want)));
    std::optional<json> next = inner_->apply(design, step, why_not);
    if (!next) return next;
    if (const std::string v = vortex_first_violations(codegen::design_point_from_json(*next)); !v.empty())
      return refuse(v);
    return next;
  }
  std::map<std::string, double> prior_response(const std::string& axis) const override {
    return inner_->prior_response(axis);
  }
  SourceTree render(const json& design) const override { return inner_->render(design); }

 private:
  std::unique_ptr<DesignSpace> inner_;
  bool seed_fragment_fixed_ = false;
};

}  // namespace

std::span<const OrderInfo> order_table() { return kOrders; }

std::optional<Order> order_from_key(std::string_view key) {
  for (const OrderInfo& o : kOrders)
    if (o.key == key) return o.order;
  return std::nullopt;
}

const OrderInfo& order_info(Order o) { return kOrders[static_cast<size_t>(o)]; }

std::string_view to_string(Order o) { return order_info(o).key; }

std::string vortex_first_violations(const codegen::DesignPoint& p) {
  std::string out;
  // The Vortex side's own footprint: the CUDA translation may pad rows and add cp.async stages
  // that the Vortex mirror (register prefetch, unpadded tiles) does not need.
  const uint32_t lmem = codegen::vortex_local_mem_bytes(p);
  if (lmem > p.vortex.local_mem_bytes)
    out += fmt::format("vortex-first: {} B of local memory per block on the Vortex side exceeds the Vortex core's "
                       "{} B of local memory\n",
                       lmem, p.vortex.local_mem_bytes);
  if (const std::string f = fragment_violation(p); !f.empty()) out += f + "\n";
  return out;
}

std::unique_ptr<DesignSpace> make_vortex_first_space(std::unique_ptr<DesignSpace> inner) {
  return std::make_unique<VortexFirstSpace>(std::move(inner));
}

}  // namespace vxsynth::refine
