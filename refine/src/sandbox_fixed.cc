// Fixed properties (docs/signature.md §2; docs/sandbox.md "Fixed properties"): what a candidate
// must keep, compared with what the harness's own launch and the counters report.
#include <fmt/format.h>

#include "vxsynth/refine/sandbox.h"

namespace vxsynth::refine {
namespace {

const char* engine_name(core::EngineClass e) {
  switch (e) {
    case core::EngineClass::kSimt: return "SIMT";
    case core::EngineClass::kTensorCore: return "tensor core";
    case core::EngineClass::kDmma: return "DMMA";
  }
  return "?";
}

const char* dtype_name(core::DType t) {
  switch (t) {
    case core::DType::kFp32: return "fp32";
    case core::DType::kTf32: return "tf32";
    case core::DType::kBf16: return "bf16";
    case core::DType::kFp16: return "fp16";
    case core::DType::kFp64: return "fp64";
    case core::DType::kInt8: return "int8";
  }
  return "?";
}

std::string gemm_text(const core::GemmShape& g) {
  return fmt::format("batch={} M={} N={} K={}", g.batch, g.m, g.n, g.k);
}

std::string conv_text(const core::ConvShape& c) {
  return fmt::format("N={} C={} H={} W={} K={} R={} S={} stride={}x{} pad={}x{} dil={}x{} groups={}",
                     c.n, c.c, c.h, c.w, c.k, c.r, c.s, c.stride[0], c.stride[1], c.pad[0],
                     c.pad[1], c.dilation[0], c.dilation[1], c.groups);
}

}  // namespace

FixedProperties fixed_properties(const core::ReferenceContext& ctx, bool for_vortex) {
  FixedProperties f;
  f.engine = ctx.engine;
  f.operand_type = ctx.operand_type;
  f.accumulator_type = ctx.accumulator_type;
  // Vortex has no TF32: a TF32 tensor-core reference becomes an FP16 TCU candidate (paper §3.3;
  // docs/signature.md §2).
  if (for_vortex && f.operand_type == core::DType::kTf32) f.operand_type = core::DType::kFp16;
  f.block_size = ctx.launch.block_size();
  f.gemm = ctx.gemm;
  f.conv = ctx.conv;
  return f;
}

std::vector<Violation> check_fixed_properties(const FixedProperties& fixed,
                                              const ObservedProperties& obs) {
  std::vector<Violation> out;
  if (obs.block_size && *obs.block_size != fixed.block_size)
    out.push_back({"fixed_property", "", 0,
                   fmt::format("block size {} ≠ reference {}", *obs.block_size, fixed.block_size)});
  if (obs.engine && *obs.engine != fixed.engine)
    out.push_back({"fixed_property", "", 0,
                   fmt::format("engine class {} ≠ reference {}", engine_name(*obs.engine),
                               engine_name(fixed.engine))});
  if (obs.operand_type && *obs.operand_type != fixed.operand_type)
    out.push_back({"fixed_property", "", 0,
                   fmt::format("operand type {} ≠ {}", dtype_name(*obs.operand_type),
                               dtype_name(fixed.operand_type))});
  if (obs.accumulator_type && *obs.accumulator_type != fixed.accumulator_type)
    out.push_back({"fixed_property", "", 0,
                   fmt::format("accumulator type {} ≠ {}", dtype_name(*obs.accumulator_type),
                               dtype_name(fixed.accumulator_type))});
  if (obs.gemm && fixed.gemm) {
    const auto& a = *obs.gemm;
    const auto& b = *fixed.gemm;
    if (a.batch != b.batch || a.m != b.m || a.n != b.n || a.k != b.k)
      out.push_back({"fixed_property", "", 0,
                     fmt::format("shape {} ≠ reference {}", gemm_text(a), gemm_text(b))});
  }
  if (obs.conv && fixed.conv) {
    const std::string a = conv_text(*obs.conv);
    const std::string b = conv_text(*fixed.conv);
    if (a != b) out.push_back({"fixed_property", "", 0, fmt::format("shape {} ≠ reference {}", a, b)});
  }
  if ((obs.gemm && !fixed.gemm) || (obs.conv && !fixed.conv))
    out.push_back({"fixed_property", "", 0, "operator family differs from the reference"});
  if (obs.atomics_per_inst && *obs.atomics_per_inst > 0.0)
    out.push_back({"atomics", "", 0,
                   fmt::format("counters show {} atomic instructions per instruction",
                               *obs.atomics_per_inst)});
  return out;
}

}  // namespace vxsynth::refine
