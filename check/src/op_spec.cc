#include "vxsynth/check/op_spec.h"

#include <array>
#include <utility>

#include <fmt/format.h>

#include "vxsynth/common/error.h"

namespace vxsynth::check {
namespace {

constexpr std::array<std::pair<OpFamily, std::string_view>, 5> kFamilyNames{{
    {OpFamily::kLinear, "linear"},
    {OpFamily::kMatmul, "matmul"},
    {OpFamily::kBmm, "bmm"},
    {OpFamily::kConv1d, "conv1d"},
    {OpFamily::kConv2d, "conv2d"},
}};

}  // namespace

std::string_view to_string(OpFamily f) {
  for (const auto& [v, n] : kFamilyNames) {
    if (v == f) return n;
  }
  return "?";
}

OpFamily op_family_from_string(std::string_view s) {
  for (const auto& [v, n] : kFamilyNames) {
    if (n == s) return v;
  }
  throw make_error("unknown op family '{}' (expected linear, matmul, bmm, conv1d or conv2d)", s);
}

std::string_view to_string(Activation a) { return a == Activation::kRelu ? "relu" : "none"; }

Activation activation_from_string(std::string_view s) {
  if (s == "none") return Activation::kNone;
  if (s == "relu") return Activation::kRelu;
  throw make_error("unknown activation '{}' (expected none or relu)", s);
}

int64_t OpSpec::out_h() const { return conv.out_h(); }
int64_t OpSpec::out_w() const { return conv.out_w(); }

int64_t OpSpec::fan_in() const { return is_conv() ? conv.fan_in() : gemm.k; }

int64_t OpSpec::macs() const {
  if (is_conv()) return conv.n * conv.k * out_h() * out_w() * fan_in();
  return gemm.batch * gemm.m * gemm.n * gemm.k;
}

void OpSpec::validate() const {
  if (is_conv()) {
    const auto& c = conv;
    const std::array<std::pair<const char*, int64_t>, 6> pos{
        {{"n", c.n}, {"c", c.c}, {"h", c.h}, {"w", c.w}, {"k", c.k}, {"s", c.s}}};
    for (const auto& [name, v] : pos) {
      if (v <= 0) throw make_error("{}: conv.{} = {} must be positive", to_string(family), name, v);
    }
    if (c.r <= 0) throw make_error("{}: conv.r = {} must be positive", to_string(family), c.r);
    if (c.groups <= 0 || c.c % c.groups != 0 || c.k % c.groups != 0) {
      throw make_error("{}: conv.groups = {} must be positive and divide C = {} and K = {}", to_string(family),
                       c.groups, c.c, c.k);
    }
    for (int i = 0; i < 2; ++i) {
      if (c.stride[i] <= 0 || c.dilation[i] <= 0 || c.pad[i] < 0) {
        throw make_error("{}: conv stride/dilation must be positive and pad non-negative (dim {})",
                         to_string(family), i);
      }
    }
    if (family == OpFamily::kConv1d && (c.h != 1 || c.r != 1 || c.pad[0] != 0)) {
      throw make_error("conv1d: conv.h and conv.r must be 1 and pad[0] 0 (got h={}, r={}, pad[0]={})", c.h, c.r,
                       c.pad[0]);
    }
    if (out_h() <= 0 || out_w() <= 0) {
      throw make_error("{}: output size {}x{} is empty for this kernel/stride/pad/dilation", to_string(family),
                       out_h(), out_w());
    }
    return;
  }
  if (gemm.m <= 0 || gemm.n <= 0 || gemm.k <= 0 || gemm.batch <= 0) {
    throw make_error("{}: gemm shape batch={} M={} N={} K={} must be positive", to_string(family), gemm.batch,
                     gemm.m, gemm.n, gemm.k);
  }
  if ((family == OpFamily::kLinear || family == OpFamily::kMatmul) && gemm.batch != 1) {
    throw make_error("{}: gemm.batch = {} must be 1 (fold leading dims into M, or use bmm)", to_string(family),
                     gemm.batch);
  }
  if (family != OpFamily::kLinear && has_bias) {
    throw make_error("{}: has_bias is only allowed for linear and conv", to_string(family));
  }
  if (family == OpFamily::kBmm && (a_batch_stride < -1 || b_batch_stride < -1)) {
    throw make_error("bmm: batch strides must be >= 0 (or -1 for contiguous)");
  }
}

int64_t OperandInfo::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::vector<OperandInfo> operands(const OpSpec& op) {
  std::vector<OperandInfo> out;
  const auto& g = op.gemm;
  const auto& c = op.conv;
  switch (op.family) {
    case OpFamily::kLinear:
      out.push_back({"x", {g.m, g.k}, OperandRole::kActivation});
      out.push_back({"weight", {g.n, g.k}, OperandRole::kWeight});
      if (op.has_bias) out.push_back({"bias", {g.n}, OperandRole::kBias});
      break;
    case OpFamily::kMatmul:
      out.push_back({"a", {g.m, g.k}, OperandRole::kActivation});
      out.push_back({"b", {g.k, g.n}, OperandRole::kWeight});
      break;
    case OpFamily::kBmm: {
      // Storage extent of a strided batch: last batch's offset + one matrix.
      const int64_t a_extent = (g.batch - 1) * op.a_stride() + g.m * g.k;
      const int64_t b_extent = (g.batch - 1) * op.b_stride() + g.k * g.n;
      out.push_back({"a", {a_extent}, OperandRole::kActivation});
      out.push_back({"b", {b_extent}, OperandRole::kWeight});
      break;
    }
    case OpFamily::kConv1d:
      out.push_back({"x", {c.n, c.c, c.w}, OperandRole::kActivation});
      out.push_back({"weight", {c.k, c.c / c.groups, c.s}, OperandRole::kWeight});
      if (op.has_bias) out.push_back({"bias", {c.k}, OperandRole::kBias});
      break;
    case OpFamily::kConv2d:
      out.push_back({"x", {c.n, c.c, c.h, c.w}, OperandRole::kActivation});
      out.push_back({"weight", {c.k, c.c / c.groups, c.r, c.s}, OperandRole::kWeight});
      if (op.has_bias) out.push_back({"bias", {c.k}, OperandRole::kBias});
      break;
  }
  return out;
}

std::vector<int64_t> output_shape(const OpSpec& op) {
  switch (op.family) {
    case OpFamily::kLinear:
    case OpFamily::kMatmul: return {op.gemm.m, op.gemm.n};
    case OpFamily::kBmm: return {op.gemm.batch, op.gemm.m, op.gemm.n};
    case OpFamily::kConv1d: return {op.conv.n, op.conv.k, op.out_w()};
    case OpFamily::kConv2d: return {op.conv.n, op.conv.k, op.out_h(), op.out_w()};
  }
  return {};
}

int64_t output_numel(const OpSpec& op) {
  int64_t n = 1;
  for (int64_t d : output_shape(op)) n *= d;
  return n;
}

namespace {

// Batch stride of operand `index` of a bmm as the candidate must honour it: 0 when the trace shows
// one matrix broadcast over the batch (torch.matmul's 2-D operand, or an expanded view with batch
// stride 0, e.g. the shared key/value head of multi-query attention), else −1 (contiguous: any other
// layout of the reference is the candidate's own choice, its traffic is the same). `rows`×`cols` are
// the operand's matrix extents, which the trace must agree with.
int64_t broadcast_batch_stride(const core::ReferenceContext& ctx, size_t index, int64_t rows, int64_t cols) {
  if (ctx.operands.size() <= index) return -1;
  const core::TensorDesc& t = ctx.operands[index];
  const size_t rank = t.dims.size();
  if (rank < 2 || t.dims[rank - 2] != rows || t.dims[rank - 1] != cols) return -1;
  if (rank == 2) return 0;
  if (rank == 3 && t.strides.size() == 3 && t.strides[0] == 0) return 0;
  return -1;
}

}  // namespace

OpSpec op_spec_from_context(const core::ReferenceContext& ctx) {
  OpSpec op;
  op.has_bias = ctx.has_bias;
  switch (ctx.op) {
    case core::OpKind::kLinear: op.family = OpFamily::kLinear; break;
    case core::OpKind::kMatmul: op.family = OpFamily::kMatmul; break;
    case core::OpKind::kBmm: op.family = OpFamily::kBmm; break;
    case core::OpKind::kConv1d: op.family = OpFamily::kConv1d; break;
    case core::OpKind::kConv2d: op.family = OpFamily::kConv2d; break;
    case core::OpKind::kOther:
      throw make_error("reference kernel '{}': op '{}' is not a linear/matmul/bmm/conv1d/conv2d family",
                       ctx.kernel_name, ctx.framework_op);
  }
  if (op.is_conv()) {
    if (!ctx.conv) throw make_error("reference kernel '{}': conv op without a conv shape", ctx.kernel_name);
    op.conv = *ctx.conv;
  } else {
    if (!ctx.gemm) throw make_error("reference kernel '{}': GEMM op without a gemm shape", ctx.kernel_name);
    op.gemm = *ctx.gemm;
    if (op.family == OpFamily::kMatmul && op.gemm.batch > 1) op.family = OpFamily::kBmm;
    if (op.family == OpFamily::kBmm) {
      op.has_bias = false;
      op.a_batch_stride = broadcast_batch_stride(ctx, 0, op.gemm.m, op.gemm.k);
      op.b_batch_stride = broadcast_batch_stride(ctx, 1, op.gemm.k, op.gemm.n);
    }
  }
  op.validate();
  return op;
}

std::string describe(const OpSpec& op) {
  std::string s{to_string(op.family)};
  if (op.is_conv()) {
    const auto& c = op.conv;
    s += fmt::format(" N={} C={} H={} W={} K={} R={} S={} stride={}x{} pad={}x{} dil={}x{} groups={}", c.n, c.c,
                     c.h, c.w, c.k, c.r, c.s, c.stride[0], c.stride[1], c.pad[0], c.pad[1], c.dilation[0],
                     c.dilation[1], c.groups);
  } else {
    if (op.family == OpFamily::kBmm) s += fmt::format(" batch={}", op.gemm.batch);
    s += fmt::format(" M={} N={} K={}", op.gemm.m, op.gemm.n, op.gemm.k);
    if (op.family == OpFamily::kBmm) s += fmt::format(" sa={} sb={}", op.a_stride(), op.b_stride());
  }
  if (op.has_bias) s += " +bias";
  if (op.activation != Activation::kNone) s += fmt::format(" +{}", to_string(op.activation));
  return s;
}

}  // namespace vxsynth::check
