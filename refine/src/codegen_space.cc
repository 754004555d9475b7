#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "axis_steps.h"
#include "vxsynth/codegen/design_point.h"
#include "vxsynth/codegen/emit.h"
#include "vxsynth/codegen/seed.h"
#include "vxsynth/core/context.h"
#include "vxsynth/refine/backends.h"

namespace vxsynth::refine {
namespace {

using nlohmann::json;

// Codegen's design point as the built-in agent's design space: steps and priors from codegen's axis table
// (through axis_steps.cc), validity from codegen, the candidate pair rendered under cuda/ and vortex/.
class CodegenSpace : public DesignSpace {
 public:
  CodegenSpace(const core::ReferenceContext& ctx, codegen::CudaTranslation translation, int space_version)
      : seed_(codegen::seed_design_point(ctx, translation, space_version)), ctx_(ctx), space_version_(space_version) {}

  json seed_design() const override { return codegen::to_json(seed_); }

  // The refinable axes less those the translation gives no construct on either side.
  std::vector<std::string> refinable_axes() const override {
    std::vector<std::string> keys = refinable_axis_keys();
    std::erase_if(keys, [this](const std::string& k) { return inert(k); });
    return keys;
  }

  std::optional<json> apply(const json& design, const AxisStep& step,
                            std::string* why_not) const override {
    if (inert(step.axis)) {
      if (why_not)
        *why_not = fmt::format("{}: no construct in the Vortex kernel or its {} CUDA translation", step.axis,
                               codegen::to_string(seed_.cuda_translation));
      return std::nullopt;
    }
    return step_design(design, step, seed_.fixed, why_not, space_version_);
  }

  std::map<std::string, double> prior_response(const std::string& axis) const override {
    return axis_prior_response(axis, ctx_.op);
  }

  bool inert(const std::string& key) const {
    const auto id = codegen::find_axis(key);
    const auto& none = codegen::translation_info(seed_.cuda_translation).inert_axes;
    return id && std::find(none.begin(), none.end(), *id) != none.end();
  }

  SourceTree render(const json& design) const override {
    const codegen::DesignPoint p = codegen::design_point_from_json(design);
    SourceTree t;
    for (const auto& f : codegen::emit_cuda(p).files) t["cuda/" + f.name] = f.text;
    for (const auto& f : codegen::emit_vortex(p).files) t["vortex/" + f.name] = f.text;
    // The operator-swap target (paper §3.4 "Swapped execution"): fixed for the whole chain.
    t["cuda/swap.json"] =
        json{{"framework_op", ctx_.framework_op},
             {"kernel_name", ctx_.kernel_name},
             {"context", core::context_to_json(ctx_)}}
            .dump(2) +
        "\n";
    return t;
  }

 private:
  codegen::DesignPoint seed_;
  core::ReferenceContext ctx_;
  int space_version_;
};

}  // namespace

std::unique_ptr<DesignSpace> make_codegen_space(const core::ReferenceContext& ctx,
                                                codegen::CudaTranslation translation, int space_version) {
  return std::make_unique<CodegenSpace>(ctx, translation, space_version);
}

}  // namespace vxsynth::refine
