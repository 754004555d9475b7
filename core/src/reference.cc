#include "vxsynth/core/reference.h"

#include <algorithm>
#include <array>
#include <charconv>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "vxsynth/core/kernel_names.h"

namespace vxsynth::core {
namespace {

// ---- enum names (one table each) ---------------------------------------------------------------
constexpr std::array<std::pair<OpKind, std::string_view>, 6> kOpNames{{{OpKind::kLinear, "linear"},
                                                                      {OpKind::kMatmul, "matmul"},
                                                                      {OpKind::kBmm, "bmm"},
                                                                      {OpKind::kConv1d, "conv1d"},
                                                                      {OpKind::kConv2d, "conv2d"},
                                                                      {OpKind::kOther, "other"}}};
constexpr std::array<std::pair<EngineClass, std::string_view>, 3> kEngineNames{
    {{EngineClass::kSimt, "simt"}, {EngineClass::kTensorCore, "tensor_core"}, {EngineClass::kDmma, "dmma"}}};
constexpr std::array<std::pair<DType, std::string_view>, 6> kDTypeNames{{{DType::kFp32, "fp32"},
                                                                        {DType::kTf32, "tf32"},
                                                                        {DType::kBf16, "bf16"},
                                                                        {DType::kFp16, "fp16"},
                                                                        {DType::kFp64, "fp64"},
                                                                        {DType::kInt8, "int8"}}};
// torch "Input type" spellings (c10 ScalarType names as the profiler prints them).
constexpr std::array<std::pair<std::string_view, DType>, 8> kTorchTypes{{{"float", DType::kFp32},
                                                                        {"c10::BFloat16", DType::kBf16},
                                                                        {"c10::Half", DType::kFp16},
                                                                        {"double", DType::kFp64},
                                                                        {"signed char", DType::kInt8},
                                                                        {"c10::qint8", DType::kInt8},
                                                                        {"BFloat16", DType::kBf16},
                                                                        {"Half", DType::kFp16}}};

template <typename E, std::size_t N>
std::string_view name_of(const std::array<std::pair<E, std::string_view>, N>& t, E v) {
  for (const auto& [e, n] : t)
    if (e == v) return n;
  return "?";
}
template <typename E, std::size_t N>
std::optional<E> value_of(const std::array<std::pair<E, std::string_view>, N>& t, std::string_view s) {
  for (const auto& [e, n] : t)
    if (n == s) return e;
  return std::nullopt;
}

bool has_op(const TraceKernel& k, std::string_view name) {
  return std::any_of(k.op_stack.begin(), k.op_stack.end(), [&](const OpCall& o) { return o.name == name; });
}
const OpCall* find_op(const TraceKernel& k, std::initializer_list<std::string_view> names) {
  // Outermost first: the user-facing op (aten::conv1d) keeps the original rank and the bias.
  for (const OpCall& o : k.op_stack)
    for (auto n : names)
      if (o.name == n) return &o;
  return nullptr;
}

/// "[1, 1]" / "2" / "[2]" → integers; empty on anything else ("same", "valid", "").
std::vector<int64_t> ints(std::string_view s) {
  std::vector<int64_t> out;
  std::size_t i = 0;
  while (i < s.size()) {
    if ((s[i] >= '0' && s[i] <= '9') || s[i] == '-') {
      int64_t v = 0;
      const auto r = std::from_chars(s.data() + i, s.data() + s.size(), v);
      if (r.ec != std::errc{}) return {};
      out.push_back(v);
      i = static_cast<std::size_t>(r.ptr - s.data());
    } else if (s[i] == '[' || s[i] == ']' || s[i] == ',' || s[i] == ' ') {
      ++i;
    } else {
      return {};
    }
  }
  return out;
}

std::vector<TensorDesc> tensors_of(const OpCall& op) {
  std::vector<TensorDesc> out;
  for (const OpArg& a : op.args)
    if (!a.dims.empty()) out.push_back({a.dims, a.strides, a.type});
  return out;
}

std::optional<DType> first_type(const OpCall& op) {
  for (const OpArg& a : op.args)
    if (!a.dims.empty())
      if (auto t = dtype_from_torch(a.type)) return t;
  return std::nullopt;
}

int64_t product(const std::vector<int64_t>& d, std::size_t from, std::size_t to) {
  int64_t p = 1;
  for (std::size_t i = from; i < to && i < d.size(); ++i) p *= d[i];
  return p;
}

/// GEMM ops: reads (batch, M, N, K) and the bias flag. Returns the op used, or nullptr.
const OpCall* read_gemm(const TraceKernel& k, ReferenceContext& ctx) {
  // Innermost first for GEMMs: aten::addmm/mm/bmm carry the flattened 2-D/3-D operands.
  for (auto it = k.op_stack.rbegin(); it != k.op_stack.rend(); ++it) {
    const OpCall& o = *it;
    const auto& a = o.args;
    auto dims = [&](std::size_t i) -> const std::vector<int64_t>& {
      static const std::vector<int64_t> none;
      return i < a.size() ? a[i].dims : none;
    };
    GemmShape g;
    if (o.name == "aten::addmm" && dims(1).size() == 2 && dims(2).size() == 2) {
      g.m = dims(1)[0], g.k = dims(1)[1], g.n = dims(2)[1];
      ctx.has_bias = true;
    } else if (o.name == "aten::mm" && dims(0).size() == 2 && dims(1).size() == 2) {
      g.m = dims(0)[0], g.k = dims(0)[1], g.n = dims(1)[1];
    } else if (o.name == "aten::bmm" && dims(0).size() == 3 && dims(1).size() == 3) {
      g.batch = dims(0)[0], g.m = dims(0)[1], g.k = dims(0)[2], g.n = dims(1)[2];
    } else if (o.name == "aten::baddbmm" && dims(1).size() == 3 && dims(2).size() == 3) {
      g.batch = dims(1)[0], g.m = dims(1)[1], g.k = dims(1)[2], g.n = dims(2)[2];
      ctx.has_bias = true;
    } else if (o.name == "aten::linear" && dims(0).size() >= 2 && dims(1).size() == 2) {
      g.m = product(dims(0), 0, dims(0).size() - 1), g.k = dims(0).back(), g.n = dims(1)[0];
      ctx.has_bias = a.size() > 2 && !dims(2).empty();
    } else {
      continue;
    }
    ctx.gemm = g;
    return &o;
  }
  return nullptr;
}

/// Convolution ops: (N, C, H, W, K, R, S, stride, pad, dilation, groups); conv1d has H = R = 1.
/// Returns the op read, or nullptr with `why` saying, per conv op of the stack, what could not be read.
const OpCall* read_conv(const TraceKernel& k, ReferenceContext& ctx, std::string& why) {
  // Argument positions per op schema (native_functions.yaml):
  //   conv1d/conv2d(input, weight, bias, stride, padding, dilation, groups)
  //   convolution/_convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups, …)
  //   cudnn_convolution(self, weight, padding, stride, dilation, groups, benchmark, deterministic, allow_tf32)
  struct Layout {
    std::string_view op;
    int bias, stride, pad, dilation, groups, transposed;
  };
  constexpr Layout kLayouts[] = {{"aten::convolution", 2, 3, 4, 5, 8, 6},
                                 {"aten::_convolution", 2, 3, 4, 5, 8, 6},
                                 {"aten::cudnn_convolution", -1, 3, 2, 4, 5, -1},
                                 {"aten::conv2d", 2, 3, 4, 5, 6, -1},
                                 {"aten::conv1d", 2, 3, 4, 5, 6, -1}};
  const OpCall* shape_op = nullptr;
  ConvShape c;
  bool bias = false;
  auto fail = [&](const OpCall& o, const std::string& what) {
    why += fmt::format("{}{}: {}", why.empty() ? "" : "; ", o.name, what);
  };
  for (const Layout& l : kLayouts) {
    const OpCall* o = find_op(k, {l.op});
    if (!o) continue;
    if (o->args.size() < 2) {
      fail(*o, "fewer than 2 recorded arguments");
      continue;
    }
    auto concrete = [&](int i) {
      return i >= 0 && static_cast<std::size_t>(i) < o->args.size() ? o->args[static_cast<std::size_t>(i)].concrete
                                                                     : std::string();
    };
    if (concrete(l.transposed) == "True") {
      fail(*o, "transposed convolution (not read: the generator builds forward conv1d/conv2d)");
      continue;
    }
    const auto& in = o->args[0].dims;
    const auto& w = o->args[1].dims;
    if (!((in.size() == 4 && w.size() == 4) || (in.size() == 3 && w.size() == 3))) {
      fail(*o, fmt::format("input [{}] and weight [{}] are not both 3-D (conv1d) or 4-D (conv2d)", fmt::join(in, ", "),
                           fmt::join(w, ", ")));
      continue;
    }
    const auto st = ints(concrete(l.stride)), pd = ints(concrete(l.pad)), dl = ints(concrete(l.dilation)),
               gr = ints(concrete(l.groups));
    const bool is1d = in.size() == 3;
    const std::size_t sp = is1d ? 1 : 2;
    auto pair = [&](const std::vector<int64_t>& v, int64_t dflt) -> std::optional<std::array<int64_t, 2>> {
      if (v.empty()) return std::nullopt;
      if (v.size() == 1) return is1d ? std::array<int64_t, 2>{dflt, v[0]} : std::array<int64_t, 2>{v[0], v[0]};
      if (v.size() == sp) return std::array<int64_t, 2>{v[0], v[1]};
      return std::nullopt;
    };
    const auto ps = pair(st, 1), pp = pair(pd, 0), pdl = pair(dl, 1);
    if (!ps || !pp || !pdl) {  // e.g. padding="same": try the next op in the stack
      fail(*o, fmt::format("stride '{}', padding '{}', dilation '{}' are not integer lists of rank {}", concrete(l.stride),
                           concrete(l.pad), concrete(l.dilation), sp));
      continue;
    }
    c = ConvShape{};
    c.n = in[0], c.c = in[1], c.k = w[0];
    if (is1d) {
      c.h = 1, c.w = in[2], c.r = 1, c.s = w[2];
    } else {
      c.h = in[2], c.w = in[3], c.r = w[2], c.s = w[3];
    }
    c.stride = *ps, c.pad = *pp, c.dilation = *pdl;
    c.groups = gr.size() == 1 ? gr[0] : 1;
    if (l.bias >= 0 && static_cast<std::size_t>(l.bias) < o->args.size()) bias = !o->args[static_cast<std::size_t>(l.bias)].dims.empty();
    shape_op = o;
    break;
  }
  if (!shape_op) return nullptr;
  // The user-facing op decides the bias (cudnn_convolution has no bias argument).
  if (const OpCall* top = find_op(k, {"aten::conv1d", "aten::conv2d", "aten::convolution"}))
    if (top->args.size() > 2) bias = !top->args[2].dims.empty();
  ctx.conv = c;
  ctx.has_bias = bias;
  return shape_op;
}

/// "aten::conv1d > aten::convolution > …" for messages.
std::string stack_text(const TraceKernel& k) {
  std::string s;
  for (const OpCall& o : k.op_stack) s += (s.empty() ? "" : " > ") + o.name;
  return s;
}

/// A convolution op of any kind (ATen's conv1d/2d/3d, conv_transpose*, _conv_depthwise2d, conv_tbc,
/// *convolution*), read or not.
bool is_conv_op(const OpCall& o) {
  for (const std::string_view part : {"convolution", "conv1d", "conv2d", "conv3d", "conv_transpose", "conv_depthwise",
                                      "conv_tbc"})
    if (o.name.find(part) != std::string::npos) return true;
  return false;
}

/// Op kind, GEMM/conv shape, bias and operands from the op stack (paper Table 4 property 4; dispatch
/// trees: docs/ncu.md §8). Returns the op the shape was read from; nullptr leaves the op kOther
/// with `op_reason` set.
const OpCall* read_op(const TraceKernel& kernel, ReferenceContext& ctx) {
  const OpCall* shape_op = nullptr;
  if (kernel.op_stack.empty()) {
    ctx.op_reason = "no cpu_op encloses this launch (the kernel's External id names no op of the trace)";
    return nullptr;
  }
  if (std::any_of(kernel.op_stack.begin(), kernel.op_stack.end(), is_conv_op)) {
    std::string why;
    shape_op = read_conv(kernel, ctx, why);
    if (shape_op) {
      ctx.op = has_op(kernel, "aten::conv1d") || shape_op->args[0].dims.size() == 3 ? OpKind::kConv1d : OpKind::kConv2d;
    } else {
      ctx.op_reason = fmt::format(
          "convolution not read from op stack {}: {}; vxsynth reads forward conv1d/conv2d from aten::convolution, "
          "_convolution, cudnn_convolution, conv2d or conv1d with integer stride/padding/dilation",
          stack_text(kernel), why.empty() ? "none of these ops is in the stack" : why);
    }
  } else {
    shape_op = read_gemm(kernel, ctx);
    if (shape_op) {
      if (has_op(kernel, "aten::linear") || shape_op->name == "aten::addmm")
        ctx.op = OpKind::kLinear;
      else if (shape_op->name == "aten::bmm" || shape_op->name == "aten::baddbmm")
        ctx.op = OpKind::kBmm;
      else
        ctx.op = OpKind::kMatmul;
    } else {
      ctx.op_reason = fmt::format(
          "op stack {} holds no op vxsynth reads a shape from (linear/addmm, mm, bmm/baddbmm with 2-D/3-D operands, "
          "conv1d, conv2d)",
          stack_text(kernel));
    }
  }
  if (shape_op) ctx.operands = tensors_of(*shape_op);
  return shape_op;
}

/// One argument of an op in a grouping signature: a tensor by dims, type and strides; any other
/// argument by its recorded value, except floating-point scalars (coefficients such as a
/// scheduler's step size change no kernel structure).
std::string arg_signature(const OpArg& a) {
  if (!a.dims.empty()) return fmt::format("{}:{}:{}", fmt::join(a.dims, "x"), a.type, fmt::join(a.strides, ","));
  const bool float_scalar =
      a.type == "Scalar" && a.concrete.find_first_of(".eEn") != std::string::npos;  // 0.5, 1e-05, inf, nan
  return float_scalar ? a.type : fmt::format("{}={}", a.type, a.concrete);
}

std::optional<double> cell(const NcuKernel* k, std::string_view name) {
  if (!k) return std::nullopt;
  const NcuCell* c = k->find(name);
  return c ? c->value : std::nullopt;
}

}  // namespace

std::string shape_string(const ReferenceContext& c) {
  if (c.gemm) {
    const auto& g = *c.gemm;
    return g.batch > 1 ? fmt::format("B={} M={} N={} K={}", g.batch, g.m, g.n, g.k)
                       : fmt::format("M={} N={} K={}", g.m, g.n, g.k);
  }
  if (c.conv) {
    const auto& v = *c.conv;
    return fmt::format("N={} C={} H={} W={} K={} R={} S={} s={},{} p={},{} d={},{} g={}", v.n, v.c, v.h, v.w, v.k,
                       v.r, v.s, v.stride[0], v.stride[1], v.pad[0], v.pad[1], v.dilation[0], v.dilation[1],
                       v.groups);
  }
  return "-";
}

std::string_view to_string(OpKind v) { return name_of(kOpNames, v); }
std::string_view to_string(EngineClass v) { return name_of(kEngineNames, v); }
std::string_view to_string(DType v) { return name_of(kDTypeNames, v); }
std::optional<OpKind> op_kind_from_string(std::string_view s) { return value_of(kOpNames, s); }
std::optional<EngineClass> engine_from_string(std::string_view s) { return value_of(kEngineNames, s); }
std::optional<DType> dtype_from_string(std::string_view s) { return value_of(kDTypeNames, s); }

std::optional<DType> dtype_from_torch(std::string_view torch_type) {
  for (const auto& [n, t] : kTorchTypes)
    if (n == torch_type) return t;
  return std::nullopt;
}

std::string op_signature(const TraceKernel& kernel) {
  ReferenceContext ctx;
  const OpCall* shape_op = read_op(kernel, ctx);
  std::string s = kernel.op_stack.empty() ? "-" : kernel.op_stack.front().name;
  if (shape_op) {
    s += fmt::format("|{}", to_string(ctx.op));
    if (const auto& g = ctx.gemm) s += fmt::format("|batch {} m {} n {} k {}", g->batch, g->m, g->n, g->k);
    if (const auto& c = ctx.conv)
      s += fmt::format("|n {} c {} h {} w {} k {} r {} s {} stride {} pad {} dilation {} groups {}", c->n, c->c, c->h,
                       c->w, c->k, c->r, c->s, fmt::join(c->stride, "x"), fmt::join(c->pad, "x"),
                       fmt::join(c->dilation, "x"), c->groups);
    s += ctx.has_bias ? "|bias" : "|no bias";
    for (const TensorDesc& t : ctx.operands)
      s += fmt::format("|{}:{}:{}", fmt::join(t.dims, "x"), t.type, fmt::join(t.strides, ","));
  } else if (!kernel.op_stack.empty()) {
    const OpCall& inner = kernel.op_stack.back();
    s += "|" + inner.name;
    for (const OpArg& a : inner.args) s += "|" + arg_signature(a);
  }
  return s;
}

TensorOps tensor_ops_of(Arch arch, const std::function<std::optional<double>(std::string_view)>& value) {
  TensorOps ops;
  for (const NcuTerm& t : metric_def(MetricId::kArithIntensity).ncu[static_cast<std::size_t>(arch)].numerator) {
    if (t.name.rfind("sm__ops_path_tensor_src_", 0) != 0) continue;
    const double v = t.coef * value(t.name).value_or(0);
    (t.name.find("fp64") != std::string_view::npos ? ops.fp64 : ops.mma) += v;
  }
  return ops;
}

ReferenceContext build_context(const TraceKernel& kernel, const NcuKernel* ncu, Arch arch) {
  ReferenceContext ctx;
  ctx.kernel_name = ncu ? ncu->name : kernel.name;
  for (const OpCall& o : kernel.op_stack) ctx.op_stack.push_back(o.name);
  ctx.framework_op = kernel.op_stack.empty() ? "" : kernel.op_stack.front().name;

  // Launch geometry: ncu's (static/dynamic shared split, registers) when profiled, else the trace's
  // (shared memory there is static + dynamic; it is recorded as static).
  ctx.launch.grid = ncu ? ncu->grid : kernel.grid;
  ctx.launch.block = ncu ? ncu->block : kernel.block;
  ctx.launch.registers_per_thread = kernel.registers_per_thread;
  ctx.launch.static_shared_bytes = kernel.shared_memory_bytes;
  if (auto r = cell(ncu, "launch__registers_per_thread")) ctx.launch.registers_per_thread = static_cast<uint32_t>(*r);
  if (auto s = cell(ncu, "launch__shared_mem_per_block_static")) {
    ctx.launch.static_shared_bytes = static_cast<uint32_t>(*s);
    ctx.launch.dynamic_shared_bytes = static_cast<uint32_t>(cell(ncu, "launch__shared_mem_per_block_dynamic").value_or(0));
  }

  const OpCall* shape_op = read_op(kernel, ctx);

  // Engine class (property 1): counters first, kernel name second (docs/ncu.md §7.6).
  const NameHints hints = classify_kernel_name(ctx.kernel_name);
  if (hints.rule) {
    ctx.name_rule = std::string(hints.rule->id);
    ctx.helper_kernel = hints.rule->role == KernelRole::kHelper && ctx.op != OpKind::kOther;
  }
  // Tensor FLOP counters of this architecture (the arith_intensity row's sm__ops_path_tensor_src_*
  // terms). They count only real MMA work: HFMA2.MMA constant building leaves them at 0 (measured on
  // the H200 layout-transpose kernels, tests/data/h200), so any non-zero count is tensor-core work
  // even when a small GEMM keeps the pipe under the threshold (pi0's M=51 bmm: 1.4 %).
  const TensorOps ops = tensor_ops_of(arch, [&](std::string_view name) { return cell(ncu, name); });
  const double tensor_ops = ops.mma, fp64_ops = ops.fp64;
  ctx.tensor_ops = tensor_ops;
  const std::optional<double> pipe =
      ncu ? signature_from_ncu(*ncu, arch).signature[MetricId::kTensorMfu] : std::nullopt;
  const double pipe_pct = pipe.value_or(0);  // read once: GCC 12 takes *pipe in fmt::format for maybe-uninitialized
  if (pipe) {
    if (fp64_ops > 0 && tensor_ops == 0) {
      ctx.engine = EngineClass::kDmma;
      ctx.engine_reason = fmt::format("counter: {:.0f} fp64 tensor ops (DMMA)", fp64_ops);
    } else if (pipe_pct > kTensorPipeThresholdPct || tensor_ops > 0) {
      ctx.engine = EngineClass::kTensorCore;
      ctx.engine_reason = fmt::format("counter: tensor pipe {:.2f} % (threshold {} %), {:.0f} tensor ops", pipe_pct,
                                      kTensorPipeThresholdPct, tensor_ops);
    } else {
      ctx.engine = EngineClass::kSimt;
      ctx.engine_reason = fmt::format("counter: tensor pipe {:.2f} % <= {} % and no tensor ops", pipe_pct,
                                      kTensorPipeThresholdPct);
    }
    if (hints.rule && hints.rule->engine != ctx.engine)
      ctx.engine_reason += fmt::format(" (name rule '{}' says {}; counters win)", hints.rule->id,
                                       to_string(hints.rule->engine));
  } else if (hints.rule) {
    ctx.engine = hints.rule->engine;
    ctx.engine_reason = fmt::format("name rule '{}' (no ncu counters)", hints.rule->id);
  } else {
    ctx.engine = EngineClass::kSimt;
    ctx.engine_reason = "default: no ncu counters and no name rule";
  }

  // Types (property 2): storage from torch; fp32 on tensor cores is TF32 math (docs/ncu.md §8).
  const std::optional<DType> storage = shape_op ? first_type(*shape_op)
                                       : (kernel.op_stack.empty() ? std::nullopt : first_type(kernel.op_stack.back()));
  if (storage) {
    ctx.operand_type = *storage;
    if (*storage == DType::kFp32 && ctx.engine == EngineClass::kTensorCore) ctx.operand_type = DType::kTf32;
    ctx.accumulator_type = *storage == DType::kFp64 ? DType::kFp64 : DType::kFp32;
    if (*storage == DType::kFp16 && ctx.kernel_name.find("h16816gemm") != std::string::npos)
      ctx.accumulator_type = DType::kFp16;  // fp16-accumulate HMMA family (§7.4)
  }

  // Tile hint: only where the launch geometry agrees (paper §3.1), oriented to the GEMM view and,
  // where both orientations fit, to the reference's tensor work.
  if (const auto fit = best_launch_fit(ctx)) ctx.tile_hint = fit->tile;
  return ctx;
}

}  // namespace vxsynth::core
