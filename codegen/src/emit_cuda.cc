// CUDA candidate: one .cu with the kernels, an extern "C" launch function and (behind
// VXS_TORCH_EXTENSION) the PyTorch extension entry proxy.forward.
#include <fmt/format.h>

#include "emit_common.h"
#include "vxsynth/codegen/emit.h"
#include "vxsynth/common/error.h"

namespace vxsynth::codegen {

using detail::Dialect;
using detail::CodeWriter;
using detail::Plan;

namespace {

struct FamilyApi {
  std::string params;       ///< C parameters of vxs_launch before the stream
  std::string shape_params; ///< shape parameters only (for vxs_workspace_bytes)
  std::string dims_call;    ///< the GEMM view of the shape parameters (vxs_cuda.cuh)
  std::string a, b, bias;   ///< pointer expressions for GEMM A, B, bias
};

FamilyApi family_api(check::OpFamily family, const std::string& T) {
  FamilyApi f;
  switch (family) {
    case check::OpFamily::kLinear:
      f.shape_params = "int M, int N, int K";
      f.dims_call = "vxs_linear_dims(M, N, K)";
      f.params = fmt::format("const {0}* x, const {0}* weight, const {0}* bias, {0}* out, float* workspace, {1}", T,
                             f.shape_params);
      f.a = "x";
      f.b = "weight";
      f.bias = "bias";
      break;
    case check::OpFamily::kMatmul:
    case check::OpFamily::kBmm:
      f.shape_params = "int batch, int M, int N, int K, long long a_batch_stride, long long b_batch_stride";
      f.dims_call = "vxs_bmm_dims(batch, M, N, K, a_batch_stride, b_batch_stride)";
      f.params = fmt::format("const {0}* a, const {0}* b, {0}* out, float* workspace, {1}", T, f.shape_params);
      f.a = "a";
      f.b = "b";
      f.bias = "nullptr";
      break;
    case check::OpFamily::kConv1d:
    case check::OpFamily::kConv2d:
      f.shape_params =
          "int N, int C, int H, int W, int K, int R, int S, int stride_h, int stride_w, int pad_h, int pad_w, "
          "int dil_h, int dil_w, int groups";
      f.dims_call = "vxs_conv_dims(N, C, H, W, K, R, S, stride_h, stride_w, pad_h, pad_w, dil_h, dil_w, groups)";
      f.params = fmt::format("const {0}* x, const {0}* weight, const {0}* bias, {0}* out, float* workspace, {1}", T,
                             f.shape_params);
      f.a = "weight";
      f.b = "x";
      f.bias = "bias";
      break;
  }
  return f;
}

/// `reinterpret_cast<[const ]T*>(t.data_ptr())`.
std::string data_ptr(const Plan& pl, const std::string& t, bool is_const) {
  return fmt::format("reinterpret_cast<{}{}*>({}.data_ptr())", is_const ? "const " : "", pl.in_t, t);
}

/// The statements of forward_into after the shape is known: workspace, launch, result.
void emit_torch_launch(CodeWriter& w, const Plan& pl, const std::string& a, const std::string& b,
                       const std::string& bias) {
  w.line("torch::Tensor ws = torch::empty({(long long)(vxs_workspace_bytes_dims(d) / sizeof(float)) + 1},");
  w.line("                                out.options().dtype(torch::kFloat32));");
  w.line("const int err = vxs_launch_dims({}, {}, {}, {}, ws.data_ptr<float>(), d, at::cuda::getCurrentCUDAStream());",
         a, b, bias, data_ptr(pl, "out", false));
  w.line("TORCH_CHECK(err == 0, \"vxs_launch failed: \", cudaGetErrorString((cudaError_t)err));");
  w.line("return out;");
}

/// Checks of x, weight, out and the optional bias against what the candidate was generated for.
void emit_torch_checks(CodeWriter& w, const Plan& pl, std::initializer_list<const char*> tensors) {
  for (const char* t : tensors) w.line("vxs_check({0}, \"{0}\", VXS_TORCH_DTYPE);", t);
  if (pl.p->fixed.op.family == check::OpFamily::kMatmul || pl.p->fixed.op.family == check::OpFamily::kBmm) return;
  const bool b = pl.has_bias;
  w.line("TORCH_CHECK(bias.has_value() == {}, \"this candidate was generated {} a bias\");", b ? "true" : "false",
         b ? "with" : "without");
  w.line("if (bias) vxs_check(*bias, \"bias\", VXS_TORCH_DTYPE);");
}

void emit_torch_linear(CodeWriter& w, const Plan& pl) {
  const std::string bias = "bias ? " + data_ptr(pl, "(*bias)", true) + " : nullptr";
  w.line("/// forward_into(out, x, weight, bias): out = x @ weight.T + bias (F.linear), x[..., K].");
  w.open("torch::Tensor forward_into(torch::Tensor out, torch::Tensor x, torch::Tensor weight, c10::optional<torch::Tensor> bias)");
  emit_torch_checks(w, pl, {"x", "weight", "out"});
  w.line("const int K = (int)x.size(-1), N = (int)weight.size(0), M = (int)(x.numel() / K);");
  w.line("TORCH_CHECK(weight.size(1) == K && out.numel() == (long long)M * N, \"shape mismatch\");");
  w.line("const vxs_dims_t d = vxs_linear_dims(M, N, K);");
  emit_torch_launch(w, pl, data_ptr(pl, "x", true), data_ptr(pl, "weight", true), bias);
  w.close();
  w.blank();
  w.open("torch::Tensor forward(torch::Tensor x, torch::Tensor weight, c10::optional<torch::Tensor> bias)");
  w.line("std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end());");
  w.line("shape.back() = weight.size(0);");
  w.line("return forward_into(torch::empty(shape, x.options()), x, weight, bias);");
  w.close();
}

void emit_torch_bmm(CodeWriter& w, const Plan& pl) {
  w.line("/// forward_into(out, a, b): out = a @ b (torch.matmul; a[M,K] or [B,M,K], b[K,N] (broadcast) or [B,K,N]).");
  w.open("torch::Tensor forward_into(torch::Tensor out, torch::Tensor a, torch::Tensor b)");
  emit_torch_checks(w, pl, {"a", "b", "out"});
  w.line("const int batch = a.dim() == 3 ? (int)a.size(0) : 1;");
  w.line("const int M = (int)a.size(-2), K = (int)a.size(-1), N = (int)b.size(-1);");
  w.line("TORCH_CHECK(b.size(-2) == K && out.numel() == (long long)batch * M * N, \"shape mismatch\");");
  w.line("const long long sa = (long long)M * K, sb = b.dim() == 3 ? (long long)K * N : 0;");
  w.line("const vxs_dims_t d = vxs_bmm_dims(batch, M, N, K, sa, sb);");
  emit_torch_launch(w, pl, data_ptr(pl, "a", true), data_ptr(pl, "b", true), "nullptr");
  w.close();
  w.blank();
  w.open("torch::Tensor forward(torch::Tensor a, torch::Tensor b)");
  w.line("std::vector<int64_t> shape(a.sizes().begin(), a.sizes().end());");
  w.line("shape.back() = b.size(-1);");
  w.line("return forward_into(torch::empty(shape, a.options()), a, b);");
  w.close();
}

void emit_torch_conv(CodeWriter& w, const Plan& pl) {
  const auto& c = pl.p->fixed.op.conv;
  const bool c1 = pl.p->fixed.op.family == check::OpFamily::kConv1d;
  const std::string conv_args = fmt::format("{}, {}, {}, {}, {}, {}, {}", c.stride[0], c.stride[1], c.pad[0],
                                            c.pad[1], c.dilation[0], c.dilation[1], c.groups);
  w.line("/// forward_into(out, x, weight, bias): F.{} with the profiled stride {}x{}, pad {}x{}, dilation {}x{}, groups {}.",
         c1 ? "conv1d" : "conv2d", c.stride[0], c.stride[1], c.pad[0], c.pad[1], c.dilation[0], c.dilation[1],
         c.groups);
  w.open("torch::Tensor forward_into(torch::Tensor out, torch::Tensor x, torch::Tensor weight, c10::optional<torch::Tensor> bias)");
  emit_torch_checks(w, pl, {"x", "weight", "out"});
  w.line(c1 ? "const int N = (int)x.size(0), C = (int)x.size(1), H = 1, W = (int)x.size(2);"
            : "const int N = (int)x.size(0), C = (int)x.size(1), H = (int)x.size(2), W = (int)x.size(3);");
  w.line(c1 ? "const int K = (int)weight.size(0), R = 1, S = (int)weight.size(2);"
            : "const int K = (int)weight.size(0), R = (int)weight.size(2), S = (int)weight.size(3);");
  w.line("const vxs_dims_t d = vxs_conv_dims(N, C, H, W, K, R, S, {});", conv_args);
  w.line("TORCH_CHECK(out.numel() == (long long)N * K * d.P * d.Q, \"shape mismatch\");");
  emit_torch_launch(w, pl, data_ptr(pl, "weight", true), data_ptr(pl, "x", true),
                    "bias ? " + data_ptr(pl, "(*bias)", true) + " : nullptr");
  w.close();
  w.blank();
  w.open("torch::Tensor forward(torch::Tensor x, torch::Tensor weight, c10::optional<torch::Tensor> bias)");
  w.line("const vxs_dims_t d = vxs_conv_dims((int)x.size(0), (int)x.size(1), {}, (int)x.size(-1), (int)weight.size(0), {}, "
         "(int)weight.size(-1), {});",
         c1 ? "1" : "(int)x.size(2)", c1 ? "1" : "(int)weight.size(2)", conv_args);
  w.line(c1 ? "auto out = torch::empty({x.size(0), weight.size(0), d.Q}, x.options());"
            : "auto out = torch::empty({x.size(0), weight.size(0), d.P, d.Q}, x.options());");
  w.line("return forward_into(out, x, weight, bias);");
  w.close();
}

/// The PyTorch extension entry for the operator swap (paper §3.4 "Swapped execution").
void emit_torch_entry(CodeWriter& w, const Plan& pl) {
  w.blank();
  w.pp("#ifdef VXS_TORCH_EXTENSION");
  w.line("// PyTorch extension entry for the operator swap (paper §3.4 \"Swapped execution\"): build with");
  w.line("// torch.utils.cpp_extension.load(name=\"proxy\", sources=[this file],");
  w.line("//                                 extra_cuda_cflags=[\"-DVXS_TORCH_EXTENSION\"]).");
  w.pp(fmt::format("#define VXS_TORCH_DTYPE {}", pl.bf16 ? "torch::kBFloat16" : "torch::kFloat32"));
  w.blank();
  switch (pl.p->fixed.op.family) {
    case check::OpFamily::kLinear: emit_torch_linear(w, pl); break;
    case check::OpFamily::kMatmul:
    case check::OpFamily::kBmm: emit_torch_bmm(w, pl); break;
    case check::OpFamily::kConv1d:
    case check::OpFamily::kConv2d: emit_torch_conv(w, pl); break;
  }
  w.blank();
  w.open("PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)");
  w.line("m.def(\"forward\", &forward, \"vxsynth candidate (allocates the output)\");");
  w.line("m.def(\"forward_into\", &forward_into, \"vxsynth candidate writing a given (e.g. NaN-poisoned) output\");");
  w.close();
  w.pp("#endif  // VXS_TORCH_EXTENSION");
}

/// The GEMM kernel and, with two launches, the reduce/epilogue kernel.
void emit_cuda_kernels(CodeWriter& w, const Plan& pl) {
  const std::string& T = pl.in_t;
  const bool spec = pl.p->axes.k_range == KRange::kSpecialized;
  auto dims = [&] {
    w.line(spec ? "constexpr vxs_dims_t d = VXS_DIMS;  // axis k_range = specialized" : "const vxs_dims_t& d = d_arg;  // axis k_range = generic");
    if (spec) w.line("(void)d_arg;");
  };
  w.blank();
  w.line("__global__ void __launch_bounds__(BS) vxs_gemm_kernel(const {0}* __restrict__ A, const {0}* __restrict__ B,", T);
  w.open(fmt::format("    const {0}* __restrict__ bias, {0}* __restrict__ out, float* __restrict__ ws, vxs_dims_t d_arg)", T));
  dims();
  w.line("(void)bias; (void)out; (void)ws;");
  detail::emit_gemm_body(w, pl);
  w.close();
  if (!pl.two_launch) return;
  w.blank();
  w.line("__global__ void __launch_bounds__(BS) vxs_epilogue_kernel(const float* __restrict__ ws,");
  w.open(fmt::format("    const {0}* __restrict__ bias, {0}* __restrict__ out, vxs_dims_t d_arg)", T));
  dims();
  w.line("(void)bias;");
  detail::emit_epilogue_body(w, pl);
  w.close();
}

/// The 16-byte fills need every operand row to start 16-byte aligned: refuse a shape or pointer
/// that breaks it (a generic candidate may be launched on another shape).
void emit_vector_checks(CodeWriter& w, const Plan& pl) {
  const bool bmm = pl.p->fixed.op.family == check::OpFamily::kBmm || pl.p->fixed.op.family == check::OpFamily::kMatmul;
  if (pl.vec_a > 1) {
    w.line("if (d.K % VEC_A != 0{} || ((uintptr_t)A & 15) != 0) return (int)cudaErrorInvalidValue;  // 16-byte fills of A",
           bmm ? " || d.sa % VEC_A != 0" : "");
  }
  if (pl.vec_b > 1) {
    w.line("if ({} % VEC_B != 0{} || ((uintptr_t)B & 15) != 0) return (int)cudaErrorInvalidValue;  // 16-byte fills of B",
           pl.b_k_contiguous ? "d.K" : "d.N", bmm ? " || d.sb % VEC_B != 0" : "");
  }
}

/// vxs_workspace_bytes_dims and vxs_launch_dims: the launch geometry of this design point.
void emit_launch_dims(CodeWriter& w, const Plan& pl) {
  const std::string& T = pl.in_t;
  w.blank();
  w.open("static size_t vxs_workspace_bytes_dims(const vxs_dims_t& d)");
  w.line(pl.two_launch ? "return (size_t)SPLIT_K * d.Z * d.M * d.N * sizeof(float);" : "(void)d;");
  if (!pl.two_launch) w.line("return 0;");
  w.close();
  w.blank();
  w.line("static int vxs_launch_dims(const {0}* A, const {0}* B, const {0}* bias, {0}* out, float* ws, const vxs_dims_t& d,", T);
  w.open("                           cudaStream_t stream)");
  if (pl.p->axes.k_range == KRange::kSpecialized) {
    w.line("const vxs_dims_t profiled = VXS_DIMS;");
    w.line("if (memcmp(&d, &profiled, sizeof d) != 0) return (int)cudaErrorInvalidValue;  // specialised to the profiled shape");
  }
  if (pl.has_bias) w.line("if (bias == nullptr) return (int)cudaErrorInvalidValue;");
  if (pl.two_launch) w.line("if (ws == nullptr) return (int)cudaErrorInvalidValue;  // split-K / separate epilogue workspace");
  emit_vector_checks(w, pl);
  const std::string mt = "(unsigned)((d.M + BM - 1) / BM)", nt = "(unsigned)((d.N + BN - 1) / BN)";
  const bool m_fast = m_tiles_fast(*pl.p);  // block order (emit_block_coords)
  w.line("const dim3 grid({}, {}, (unsigned)(d.Z * SPLIT_K));", m_fast ? mt : nt, m_fast ? nt : mt);
  if (pl.tc && schedule_info(pl.p->tc_schedule).warp_epilogue) {
    w.line("// Dynamic shared memory (tensor-core warp-epilogue schedule): {} B, opted in above 48 KiB.",
           smem_bytes(*pl.p));
    w.line("const int smem = {};", smem_bytes(*pl.p));
    w.line("const cudaError_t opt_in = cudaFuncSetAttribute(vxs_gemm_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);");
    w.line("if (opt_in != cudaSuccess) return (int)opt_in;");
    w.line("vxs_gemm_kernel<<<grid, BS, smem, stream>>>(A, B, bias, out, ws, d);");
  } else {
    w.line("vxs_gemm_kernel<<<grid, BS, 0, stream>>>(A, B, bias, out, ws, d);");
  }
  if (pl.two_launch) {
    w.line("const unsigned blocks = (unsigned)(((long long)d.Z * d.M * d.N + BS - 1) / BS);");
    w.line("vxs_epilogue_kernel<<<blocks, BS, 0, stream>>>(ws, bias, out, d);");
  }
  w.line("return (int)cudaGetLastError();");
  w.close();
}

/// The C ABI: vxs_workspace_bytes and vxs_launch of the family's shape parameters.
void emit_c_api(CodeWriter& w, const FamilyApi& f) {
  w.blank();
  w.line("/// Workspace bytes vxs_launch needs for this shape (0 when the candidate has one launch).");
  w.open("extern \"C\" size_t vxs_workspace_bytes(" + f.shape_params + ")");
  w.line("return vxs_workspace_bytes_dims({});", f.dims_call);
  w.close();
  w.blank();
  w.line("/// C-ABI launch: device pointers, the shape, a stream. Returns a cudaError_t value.");
  w.open("extern \"C\" int vxs_launch(" + f.params + ", cudaStream_t stream)");
  w.line("return vxs_launch_dims({}, {}, {}, out, workspace, {}, stream);", f.a, f.b, f.bias, f.dims_call);
  w.close();
}

}  // namespace

std::string cuda_c_api_declarations(check::OpFamily family, bool bf16) {
  const FamilyApi f = family_api(family, bf16 ? "__nv_bfloat16" : "float");
  return "extern \"C\" size_t vxs_workspace_bytes(" + f.shape_params + ");\n" + "extern \"C\" int vxs_launch(" +
         f.params + ", cudaStream_t stream);\n";
}

Candidate emit_cuda(const DesignPoint& p) {
  validate(p);
  const Plan pl = detail::make_plan(p, Dialect::kCuda);
  CodeWriter w;
  const std::string banner = pl.tr->banner.empty() ? "" : fmt::format("// {}\n", pl.tr->banner);
  w.pp(detail::emit_banner(p, "CUDA candidate") + banner +
       "// No cuBLAS/cuDNN/CUTLASS and no atomics: the sandbox rejects them (paper §3.3).");
  w.pp("#include <cuda_runtime.h>\n#include <stdint.h>\n#include <stddef.h>\n#include <string.h>");
  if (pl.bf16) w.pp("#include <cuda_bf16.h>");
  if (pl.fp16) w.pp("#include <cuda_fp16.h>");
  if (pl.tc && !pl.warpgroup) w.pp("#include <mma.h>\nusing namespace nvcuda;");
  w.pp("#include \"vxs_cuda.cuh\"");
  // vxs_tc.cuh holds the vector and asynchronous fills and the TF32 rounding; a translation
  // without them includes none of it.
  const bool tc_runtime = pl.tc && (pl.tf32 || pl.tr->async_copies || pl.tr->vector_fills);
  if (tc_runtime) w.pp("#include \"vxs_tc.cuh\"");
  if (pl.warpgroup) {
    w.pp("#include \"vxs_wgmma.cuh\"");  // warpgroup MMA: descriptors, fences, m64nNk16 (sm_90a)
  } else if (pl.tc) {
    w.pp("#include \"vxs_wmma.cuh\"");  // fragment loads/stores from shared memory
  }
  w.blank();
  w.pp(fmt::format("#define VXS_DIMS {}  // the profiled shape", detail::dims_initializer(p.fixed.op)));
  w.blank();
  detail::emit_tile_defines(w, pl);
  w.blank();
  detail::emit_device_helpers(w, pl);
  emit_cuda_kernels(w, pl);
  emit_launch_dims(w, pl);
  emit_c_api(w, family_api(p.fixed.op.family, pl.in_t));
  emit_torch_entry(w, pl);
  Candidate c;
  c.files.push_back({kCudaFileName, w.str()});
  c.files.push_back(detail::runtime_source("vxs_dims.h"));
  c.files.push_back(detail::runtime_source("vxs_cuda.cuh"));
  if (tc_runtime) c.files.push_back(detail::runtime_source("vxs_tc.cuh"));
  if (pl.tc) c.files.push_back(detail::runtime_source(pl.warpgroup ? "vxs_wgmma.cuh" : "vxs_wmma.cuh"));
  return c;
}

namespace {

/// The candidate's vxs_launch on the driver's device buffers (operands in torch argument order).
std::string driver_launch_call(check::OpFamily family) {
  switch (family) {
    case check::OpFamily::kLinear: return "vxs_launch(in[0], in[1], in[2], out, ws, d.M, d.N, d.K, 0)";
    case check::OpFamily::kMatmul:
    case check::OpFamily::kBmm: return "vxs_launch(in[0], in[1], out, ws, d.Z, d.M, d.N, d.K, d.sa, d.sb, 0)";
    case check::OpFamily::kConv1d:
    case check::OpFamily::kConv2d: break;
  }
  return "vxs_launch(in[0], in[1], in[2], out, ws, d.cn, d.cc, d.ch, d.cw, d.ck, d.cr, d.cs, d.sh, d.sw, d.ph, "
         "d.pw, d.dh, d.dw, d.Z, 0)";
}

const char* driver_ref_kernel(check::OpFamily family) {
  switch (family) {
    case check::OpFamily::kLinear: return "vxs_ref_linear";
    case check::OpFamily::kMatmul:
    case check::OpFamily::kBmm: return "vxs_ref_bmm";
    case check::OpFamily::kConv1d:
    case check::OpFamily::kConv2d: break;
  }
  return "vxs_ref_conv";
}

/// main() of the driver: the VxsDriverSpec of this design point, then vxs_run_driver.
void emit_driver_main(CodeWriter& w, const DesignPoint& p, const std::string& name, uint64_t seed) {
  const auto& op = p.fixed.op;
  const auto ops = check::operands(op);
  const auto tol = check::tolerance(cuda_path(p), check::CheckKind::kSourceOutput);
  w.open("int main(int argc, char** argv)");
  w.line("VxsDriverSpec s;");
  w.line("s.name = \"{}\";", name);
  w.line("s.path = \"{}\";", check::to_string(cuda_path(p)));
  w.line("s.dims = VXS_DIMS;");
  w.line("s.seed = 0x{:x}ull;", seed | 1);
  w.line("s.n_in = {};", ops.size());
  for (size_t i = 0; i < 3; ++i) {
    const bool has = i < ops.size();
    w.line("s.names[{}] = \"{}\";", i, has ? ops[i].name : "");
    w.line("s.numel[{}] = {};", i, has ? ops[i].numel() : 0);
    w.line("s.weight[{}] = {};", i, has && ops[i].role != check::OperandRole::kActivation ? "true" : "false");
  }
  w.line("s.fan_in = {};", op.fan_in());
  w.line("s.out_n = {};", check::output_numel(op));
  w.line("s.ws_bytes = {};", detail::workspace_floats(p) * 4);
  w.line("s.atol = {:g};", tol.atol);
  w.line("s.rtol = {:g};", tol.rtol);
  w.line("s.relu = {};", op.activation == check::Activation::kRelu ? "true" : "false");
  w.line("s.ref = {};", driver_ref_kernel(op.family));
  w.line("return vxs_run_driver<T>(s, launch, argc, argv);");
  w.close();
}

}  // namespace

Candidate emit_cuda_driver(const DesignPoint& p, const std::string& name, uint64_t seed) {
  validate(p);
  const Plan pl = detail::make_plan(p, Dialect::kCuda);
  CodeWriter w;
  w.pp(detail::emit_banner(p, "GPU source-output driver") + "#include \"candidate.cu\"\n#include \"vxs_driver.cuh\"");
  w.blank();
  w.line("typedef {} T;", pl.in_t);
  w.blank();
  w.line("/// One launch of the candidate on the driver's buffers.");
  w.open("static int launch(T* const* in, T* out, float* ws, const vxs_dims_t& d)");
  w.line("return {};", driver_launch_call(p.fixed.op.family));
  w.close();
  w.blank();
  emit_driver_main(w, p, name, seed);
  Candidate c;
  c.files.push_back({"driver.cu", w.str()});
  c.files.push_back(detail::runtime_source("vxs_driver.cuh"));
  return c;
}

}  // namespace vxsynth::codegen
