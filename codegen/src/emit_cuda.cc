// CUDA candidate: one .cu with the kernels, an extern "C" launch function and (behind
// VXS_TORCH_EXTENSION) the PyTorch extension entry proxy.forward.
#include <fmt/format.h>

#include "emit_common.h"
#include "vxsynth/codegen/emit.h"
#include "vxsynth/common/error.h"

namespace vxsynth::codegen {

using detail::Dialect;
using detail::Plan;

namespace {

struct FamilyApi {
  std::string params;       ///< C parameters of vxs_launch before the stream
  std::string shape_params; ///< shape parameters only (for vxs_workspace_bytes)
  std::string shape_args;   ///< forwarding of the shape parameters
  std::string make_dims;    ///< body of vxs_make_dims(shape params)
  std::string a, b, bias;   ///< pointer expressions for GEMM A, B, bias
};

FamilyApi family_api(check::OpFamily family, const std::string& T) {
  FamilyApi f;
  switch (family) {
    case check::OpFamily::kLinear:
      f.shape_params = "int M, int N, int K";
      f.shape_args = "M, N, K";
      f.params = fmt::format("const {0}* x, const {0}* weight, const {0}* bias, {0}* out, float* workspace, {1}", T,
                             f.shape_params);
      f.make_dims = "  vxs_dims_t d = {1, M, N, K, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};\n  return d;\n";
      f.a = "x";
      f.b = "weight";
      f.bias = "bias";
      break;
    case check::OpFamily::kMatmul:
    case check::OpFamily::kBmm:
      f.shape_params = "int batch, int M, int N, int K, long long a_batch_stride, long long b_batch_stride";
      f.shape_args = "batch, M, N, K, a_batch_stride, b_batch_stride";
      f.params = fmt::format("const {0}* a, const {0}* b, {0}* out, float* workspace, {1}", T, f.shape_params);
      f.make_dims =
          "  vxs_dims_t d = {batch, M, N, K, (int32_t)a_batch_stride, (int32_t)b_batch_stride, 0, 0, 0, 0, 0, 0, 0, 0, "
          "0, 0, 0, 0, 0, 0, 0, 0, 0};\n  return d;\n";
      f.a = "a";
      f.b = "b";
      f.bias = "nullptr";
      break;
    case check::OpFamily::kConv1d:
    case check::OpFamily::kConv2d:
      f.shape_params =
          "int N, int C, int H, int W, int K, int R, int S, int stride_h, int stride_w, int pad_h, int pad_w, "
          "int dil_h, int dil_w, int groups";
      f.shape_args = "N, C, H, W, K, R, S, stride_h, stride_w, pad_h, pad_w, dil_h, dil_w, groups";
      f.params = fmt::format("const {0}* x, const {0}* weight, const {0}* bias, {0}* out, float* workspace, {1}", T,
                             f.shape_params);
      f.make_dims =
          "  const int P = (H + 2 * pad_h - dil_h * (R - 1) - 1) / stride_h + 1;\n"
          "  const int Q = (W + 2 * pad_w - dil_w * (S - 1) - 1) / stride_w + 1;\n"
          "  vxs_dims_t d = {groups, K / groups, N * P * Q, (C / groups) * R * S, 0, 0, N, C, H, W, K, R, S,\n"
          "                  stride_h, stride_w, pad_h, pad_w, dil_h, dil_w, C / groups, K / groups, P, Q};\n"
          "  return d;\n";
      f.a = "weight";
      f.b = "x";
      f.bias = "bias";
      break;
  }
  return f;
}

std::string torch_entry(const DesignPoint& p, const Plan& pl, const FamilyApi& f) {
  const auto& op = p.fixed.op;
  const std::string st = pl.bf16 ? "torch::kBFloat16" : "torch::kFloat32";
  const std::string ct = pl.in_t;
  std::string s;
  s += "\n#ifdef VXS_TORCH_EXTENSION\n";
  s += "// PyTorch extension entry for the operator swap (paper §3.4 \"Swapped execution\"): build with\n";
  s += "// torch.utils.cpp_extension.load(name=\"proxy\", sources=[this file],\n";
  s += "//                                 extra_cuda_cflags=[\"-DVXS_TORCH_EXTENSION\"]).\n";
  s += "#include <torch/extension.h>\n#include <ATen/cuda/CUDAContext.h>\n\n";
  s += fmt::format(
      "static void vxs_check(const torch::Tensor& t, const char* name) {{\n"
      "  TORCH_CHECK(t.is_cuda(), name, \" must be a CUDA tensor\");\n"
      "  TORCH_CHECK(t.is_contiguous(), name, \" must be contiguous\");\n"
      "  TORCH_CHECK(t.scalar_type() == {}, name, \" must be {}\");\n"
      "}}\n\n",
      st, pl.bf16 ? "bfloat16" : "float32");
  auto ptr = [&](const std::string& t) { return fmt::format("reinterpret_cast<{}*>({}.data_ptr())", ct, t); };
  auto cptr = [&](const std::string& t) { return fmt::format("reinterpret_cast<const {}*>({}.data_ptr())", ct, t); };
  const std::string ws =
      "  torch::Tensor ws = torch::empty({(long long)(vxs_workspace_bytes_dims(d) / sizeof(float)) + 1},\n"
      "                                  out.options().dtype(torch::kFloat32));\n";
  const std::string launch_tail =
      "  const int err = vxs_launch_dims(" + std::string("{A}, {B}, {BIAS}, ") + ptr("out") +
      ", ws.data_ptr<float>(), d, at::cuda::getCurrentCUDAStream());\n"
      "  TORCH_CHECK(err == 0, \"vxs_launch failed: \", cudaGetErrorString((cudaError_t)err));\n"
      "  return out;\n}\n\n";
  auto tail = [&](const std::string& A, const std::string& B, const std::string& BIAS) {
    std::string t = launch_tail;
    t.replace(t.find("{A}"), 3, A);
    t.replace(t.find("{B}"), 3, B);
    t.replace(t.find("{BIAS}"), 6, BIAS);
    return t;
  };
  switch (op.family) {
    case check::OpFamily::kLinear:
      s += "/// forward_into(out, x, weight, bias): out = x @ weight.T + bias (F.linear), x[..., K].\n";
      s += "torch::Tensor forward_into(torch::Tensor out, torch::Tensor x, torch::Tensor weight, c10::optional<torch::Tensor> bias) {\n";
      s += "  vxs_check(x, \"x\"); vxs_check(weight, \"weight\"); vxs_check(out, \"out\");\n";
      s += "  const int K = (int)x.size(-1), N = (int)weight.size(0), M = (int)(x.numel() / K);\n";
      s += "  TORCH_CHECK(weight.size(1) == K && out.numel() == (long long)M * N, \"shape mismatch\");\n";
      s += fmt::format("  TORCH_CHECK(bias.has_value() == {}, \"this candidate was generated {} a bias\");\n",
                       op.has_bias ? "true" : "false", op.has_bias ? "with" : "without");
      s += "  if (bias) vxs_check(*bias, \"bias\");\n";
      s += "  const vxs_dims_t d = vxs_make_dims(M, N, K);\n" + ws;
      s += tail(cptr("x"), cptr("weight"), "bias ? " + cptr("(*bias)") + " : nullptr");
      s += "torch::Tensor forward(torch::Tensor x, torch::Tensor weight, c10::optional<torch::Tensor> bias) {\n";
      s += "  std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end());\n  shape.back() = weight.size(0);\n";
      s += "  return forward_into(torch::empty(shape, x.options()), x, weight, bias);\n}\n";
      break;
    case check::OpFamily::kMatmul:
    case check::OpFamily::kBmm:
      s += "/// forward_into(out, a, b): out = a @ b (torch.matmul; a[M,K] or [B,M,K], b[K,N] (broadcast) or [B,K,N]).\n";
      s += "torch::Tensor forward_into(torch::Tensor out, torch::Tensor a, torch::Tensor b) {\n";
      s += "  vxs_check(a, \"a\"); vxs_check(b, \"b\"); vxs_check(out, \"out\");\n";
      s += "  const int batch = a.dim() == 3 ? (int)a.size(0) : 1;\n";
      s += "  const int M = (int)a.size(-2), K = (int)a.size(-1), N = (int)b.size(-1);\n";
      s += "  TORCH_CHECK(b.size(-2) == K && out.numel() == (long long)batch * M * N, \"shape mismatch\");\n";
      s += "  const long long sa = (long long)M * K, sb = b.dim() == 3 ? (long long)K * N : 0;\n";
      s += "  const vxs_dims_t d = vxs_make_dims(batch, M, N, K, sa, sb);\n" + ws;
      s += tail(cptr("a"), cptr("b"), "nullptr");
      s += "torch::Tensor forward(torch::Tensor a, torch::Tensor b) {\n";
      s += "  std::vector<int64_t> shape(a.sizes().begin(), a.sizes().end());\n  shape.back() = b.size(-1);\n";
      s += "  return forward_into(torch::empty(shape, a.options()), a, b);\n}\n";
      break;
    case check::OpFamily::kConv1d:
    case check::OpFamily::kConv2d: {
      const bool c1 = op.family == check::OpFamily::kConv1d;
      const auto& c = op.conv;
      s += fmt::format("/// forward_into(out, x, weight, bias): F.{} with the profiled stride {}x{}, pad {}x{}, dilation {}x{}, groups {}.\n",
                       c1 ? "conv1d" : "conv2d", c.stride[0], c.stride[1], c.pad[0], c.pad[1], c.dilation[0],
                       c.dilation[1], c.groups);
      s += "torch::Tensor forward_into(torch::Tensor out, torch::Tensor x, torch::Tensor weight, c10::optional<torch::Tensor> bias) {\n";
      s += "  vxs_check(x, \"x\"); vxs_check(weight, \"weight\"); vxs_check(out, \"out\");\n";
      s += fmt::format("  TORCH_CHECK(bias.has_value() == {}, \"this candidate was generated {} a bias\");\n",
                       op.has_bias ? "true" : "false", op.has_bias ? "with" : "without");
      s += "  if (bias) vxs_check(*bias, \"bias\");\n";
      if (c1) {
        s += "  const int N = (int)x.size(0), C = (int)x.size(1), H = 1, W = (int)x.size(2);\n";
        s += "  const int K = (int)weight.size(0), R = 1, S = (int)weight.size(2);\n";
      } else {
        s += "  const int N = (int)x.size(0), C = (int)x.size(1), H = (int)x.size(2), W = (int)x.size(3);\n";
        s += "  const int K = (int)weight.size(0), R = (int)weight.size(2), S = (int)weight.size(3);\n";
      }
      s += fmt::format("  const vxs_dims_t d = vxs_make_dims(N, C, H, W, K, R, S, {}, {}, {}, {}, {}, {}, {});\n",
                       c.stride[0], c.stride[1], c.pad[0], c.pad[1], c.dilation[0], c.dilation[1], c.groups);
      s += "  TORCH_CHECK(out.numel() == (long long)N * K * d.P * d.Q, \"shape mismatch\");\n" + ws;
      s += tail(cptr("weight"), cptr("x"), "bias ? " + cptr("(*bias)") + " : nullptr");
      s += "torch::Tensor forward(torch::Tensor x, torch::Tensor weight, c10::optional<torch::Tensor> bias) {\n";
      s += fmt::format("  const vxs_dims_t d = vxs_make_dims((int)x.size(0), (int)x.size(1), {}, (int)x.size(-1), (int)weight.size(0), {}, (int)weight.size(-1), {}, {}, {}, {}, {}, {}, {});\n",
                       c1 ? "1" : "(int)x.size(2)", c1 ? "1" : "(int)weight.size(2)", c.stride[0], c.stride[1],
                       c.pad[0], c.pad[1], c.dilation[0], c.dilation[1], c.groups);
      s += c1 ? "  auto out = torch::empty({x.size(0), weight.size(0), d.Q}, x.options());\n"
              : "  auto out = torch::empty({x.size(0), weight.size(0), d.P, d.Q}, x.options());\n";
      s += "  return forward_into(out, x, weight, bias);\n}\n";
      break;
    }
  }
  s += "\nPYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n";
  s += "  m.def(\"forward\", &forward, \"vxsynth candidate (allocates the output)\");\n";
  s += "  m.def(\"forward_into\", &forward_into, \"vxsynth candidate writing a given (e.g. NaN-poisoned) output\");\n";
  s += "}\n#endif  // VXS_TORCH_EXTENSION\n";
  (void)f;
  return s;
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
  const FamilyApi f = family_api(p.fixed.op.family, pl.in_t);
  const bool spec = p.axes.k_range == KRange::kSpecialized;
  const std::string& T = pl.in_t;
  std::string s = detail::emit_banner(p, "CUDA candidate");
  s += "// No cuBLAS/cuDNN/CUTLASS and no atomics: the sandbox rejects them (paper §3.3).\n";
  s += "#include <cuda_runtime.h>\n#include <stdint.h>\n#include <stddef.h>\n#include <string.h>\n";
  if (pl.bf16) s += "#include <cuda_bf16.h>\n";
  if (pl.tc) s += "#include <mma.h>\nusing namespace nvcuda;\n";
  s += "\n" + detail::emit_dims_struct();
  s += fmt::format("\n#define VXS_DIMS {}  // the profiled shape\n", detail::dims_initializer(p.fixed.op));
  s += "\n" + detail::emit_tile_defines(pl) + "\n" + detail::emit_device_helpers(pl);
  // Kernels.
  const std::string dims_decl = spec ? "  constexpr vxs_dims_t d = VXS_DIMS;  // axis k_range = specialized\n  (void)d_arg;\n"
                                     : "  const vxs_dims_t& d = d_arg;  // axis k_range = generic\n";
  s += fmt::format("\n__global__ void __launch_bounds__(BS) vxs_gemm_kernel(const {0}* __restrict__ A, const {0}* __restrict__ B,\n"
                   "    const {0}* __restrict__ bias, {0}* __restrict__ out, float* __restrict__ ws, vxs_dims_t d_arg) {{\n",
                   T);
  s += dims_decl;
  s += "  (void)bias; (void)out; (void)ws;\n";
  s += detail::emit_gemm_body(pl) + "}\n";
  if (pl.two_launch) {
    s += fmt::format("\n__global__ void __launch_bounds__(BS) vxs_epilogue_kernel(const float* __restrict__ ws,\n"
                     "    const {0}* __restrict__ bias, {0}* __restrict__ out, vxs_dims_t d_arg) {{\n",
                     T);
    s += dims_decl + "  (void)bias;\n";
    s += detail::emit_epilogue_body(pl) + "}\n";
  }
  // Host side.
  s += "\n/// GEMM view of a shape (the same rule as the generator's gemm_view).\n";
  s += "static vxs_dims_t vxs_make_dims(" + f.shape_params + ") {\n" + f.make_dims + "}\n";
  s += "\nstatic size_t vxs_workspace_bytes_dims(const vxs_dims_t& d) {\n";
  s += pl.two_launch ? "  return (size_t)SPLIT_K * d.Z * d.M * d.N * sizeof(float);\n" : "  (void)d;\n  return 0;\n";
  s += "}\n";
  s += fmt::format(
      "\nstatic int vxs_launch_dims(const {0}* A, const {0}* B, const {0}* bias, {0}* out, float* ws, const vxs_dims_t& d,\n"
      "                           cudaStream_t stream) {{\n",
      T);
  if (spec) {
    s += "  const vxs_dims_t profiled = VXS_DIMS;\n";
    s += "  if (memcmp(&d, &profiled, sizeof d) != 0) return (int)cudaErrorInvalidValue;  // specialised to the profiled shape\n";
  }
  if (pl.has_bias) s += "  if (bias == nullptr) return (int)cudaErrorInvalidValue;\n";
  if (pl.two_launch) s += "  if (ws == nullptr) return (int)cudaErrorInvalidValue;  // split-K / separate epilogue workspace\n";
  s += "  const dim3 grid((unsigned)((d.N + BN - 1) / BN), (unsigned)((d.M + BM - 1) / BM), (unsigned)(d.Z * SPLIT_K));\n";
  s += "  vxs_gemm_kernel<<<grid, BS, 0, stream>>>(A, B, bias, out, ws, d);\n";
  if (pl.two_launch) {
    s += "  const unsigned blocks = (unsigned)(((long long)d.Z * d.M * d.N + BS - 1) / BS);\n";
    s += "  vxs_epilogue_kernel<<<blocks, BS, 0, stream>>>(ws, bias, out, d);\n";
  }
  s += "  return (int)cudaGetLastError();\n}\n";
  s += "\n/// Workspace bytes vxs_launch needs for this shape (0 when the candidate has one launch).\n";
  s += "extern \"C\" size_t vxs_workspace_bytes(" + f.shape_params + ") {\n";
  s += "  return vxs_workspace_bytes_dims(vxs_make_dims(" + f.shape_args + "));\n}\n";
  s += "\n/// C-ABI launch: device pointers, the shape, a stream. Returns a cudaError_t value.\n";
  s += "extern \"C\" int vxs_launch(" + f.params + ", cudaStream_t stream) {\n";
  s += "  const vxs_dims_t d = vxs_make_dims(" + f.shape_args + ");\n";
  s += fmt::format("  return vxs_launch_dims({}, {}, {}, out, workspace, d, stream);\n}}\n", f.a, f.b, f.bias);
  s += torch_entry(p, pl, f);
  Candidate c;
  c.files.push_back({kCudaFileName, s});
  return c;
}


SourceFile emit_cuda_driver(const DesignPoint& p, const std::string& name, uint64_t seed) {
  validate(p);
  const Plan pl = detail::make_plan(p, Dialect::kCuda);
  const auto& op = p.fixed.op;
  const auto ops = check::operands(op);
  const auto tol = check::tolerance(p.fixed.path, check::CheckKind::kSourceOutput);
  std::string s = detail::emit_banner(p, "GPU source-output driver");
  s += "#include \"candidate.cu\"\n#include <cmath>\n#include <cstdio>\n#include <cstdlib>\n#include <string>\n#include <vector>\n\n";
  s += "#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf(\"RESULT " + name +
       " CUDA error %s at %s\\n\", cudaGetErrorString(e_), #x); return 1; } } while (0)\n";
  s += fmt::format("static uint64_t rng = 0x{:x}ull;\n", seed | 1);
  s += R"(static double uniform01() {
  rng ^= rng >> 12; rng ^= rng << 25; rng ^= rng >> 27;
  return ((rng * 0x2545F4914F6CDD1Dull) >> 11) * (1.0 / 9007199254740992.0);
}
static double normal01() {
  const double u1 = uniform01() + 1e-300, u2 = uniform01();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}
)";
  const bool bf = pl.bf16;
  s += bf ? "typedef __nv_bfloat16 T;\nstatic double stored(double v) { return (double)__bfloat162float(__float2bfloat16((float)v)); }\n"
          : "typedef float T;\nstatic double stored(double v) { return (double)(float)v; }\n";
  s += bf ? "static double to_d(T v) { return (double)__bfloat162float(v); }\nstatic T from_d(double v) { return __float2bfloat16((float)v); }\n"
          : "static double to_d(T v) { return (double)v; }\nstatic T from_d(double v) { return (T)v; }\n";
  // Reference kernel (double).
  const std::string relu = op.activation == check::Activation::kRelu ? "  if (acc < 0) acc = 0;\n" : "";
  s += "\n/// Float64 reference of the op's definition, one thread per output element.\n";
  s += "__global__ void ref_kernel(const double* in0, const double* in1, const double* in2, double* out, vxs_dims_t d, long long total) {\n";
  s += "  const long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n  if (o >= total) return;\n  double acc = 0;\n";
  switch (op.family) {
    case check::OpFamily::kLinear:
      s += "  const long long m = o / d.N, n = o % d.N;\n";
      s += "  for (int k = 0; k < d.K; ++k) acc += in0[m * d.K + k] * in1[n * d.K + k];\n";
      if (op.has_bias) s += "  acc += in2[n];\n";
      break;
    case check::OpFamily::kMatmul:
    case check::OpFamily::kBmm:
      s += "  (void)in2;\n  const long long z = o / ((long long)d.M * d.N), mn = o % ((long long)d.M * d.N), m = mn / d.N, n = mn % d.N;\n";
      s += "  for (int k = 0; k < d.K; ++k) acc += in0[z * d.sa + m * d.K + k] * in1[z * d.sb + (long long)k * d.N + n];\n";
      break;
    case check::OpFamily::kConv1d:
    case check::OpFamily::kConv2d:
      s += "  const long long q = o % d.Q, p = (o / d.Q) % d.P, ko = (o / ((long long)d.P * d.Q)) % d.ck, nb = o / ((long long)d.P * d.Q * d.ck);\n";
      s += "  const long long g = ko / d.kg;\n";
      s += "  for (int c = 0; c < d.cg; ++c) for (int r = 0; r < d.cr; ++r) for (int t = 0; t < d.cs; ++t) {\n";
      s += "    const long long h = p * d.sh - d.ph + r * d.dh, w = q * d.sw - d.pw + t * d.dw;\n";
      s += "    if (h < 0 || h >= d.ch || w < 0 || w >= d.cw) continue;\n";
      s += "    acc += in0[((nb * d.cc + g * d.cg + c) * d.ch + h) * d.cw + w] * in1[((ko * d.cg + c) * d.cr + r) * d.cs + t];\n  }\n";
      if (op.has_bias) s += "  acc += in2[ko];\n";
      break;
  }
  s += relu + "  out[o] = acc;\n}\n\n";
  s += R"(/// Raw tensor file of exactly n elements of T (fp32, or bf16 on the BF16 path).
static bool read_raw(const std::string& path, std::vector<T>& v, long long n) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  v.resize(n);
  const size_t got = std::fread(v.data(), sizeof(T), (size_t)n, f);
  std::fclose(f);
  return got == (size_t)n;
}
)";
  s += "int main(int argc, char** argv) {\n  const vxs_dims_t d = VXS_DIMS;\n";
  s += "  // -d DIR: read DIR/<operand>.bin instead of drawing inputs, and write DIR/out.bin (for the\n";
  s += "  // CUDA <-> Vortex candidate check on the same inputs).\n";
  s += "  std::string dir = (argc == 3 && std::string(argv[1]) == \"-d\") ? argv[2] : \"\";\n";
  s += "  const char* names[3] = {";
  for (size_t i = 0; i < 3; ++i) s += fmt::format("{}\"{}\"", i ? ", " : "", i < ops.size() ? ops[i].name : "");
  s += "};\n";
  s += fmt::format("  const double fan_in = {};\n", op.fan_in());
  s += fmt::format("  const int n_in = {};\n", ops.size());
  s += "  const long long numel[3] = {";
  for (size_t i = 0; i < 3; ++i) s += fmt::format("{}{}", i ? ", " : "", i < ops.size() ? ops[i].numel() : 0);
  s += "};\n  const bool weight[3] = {";
  for (size_t i = 0; i < 3; ++i) {
    s += fmt::format("{}{}", i ? ", " : "", i < ops.size() && ops[i].role != check::OperandRole::kActivation ? "true" : "false");
  }
  s += "};\n";
  s += fmt::format("  const long long out_n = {};\n  const size_t ws_bytes = {};\n", check::output_numel(op),
                   detail::workspace_floats(p) * 4);
  s += R"(  std::vector<std::vector<double>> h(3);
  T* dt[3] = {nullptr, nullptr, nullptr};
  double* dd[3] = {nullptr, nullptr, nullptr};
  for (int i = 0; i < n_in; ++i) {
    h[i].resize(numel[i]);
    const double sc = weight[i] ? 1.0 / std::sqrt(fan_in) : 1.0;
    std::vector<T> ht(numel[i]);
    if (!dir.empty()) {
      if (!read_raw(dir + "/" + names[i] + ".bin", ht, numel[i])) { std::printf("RESULT bad input file %s\n", names[i]); return 1; }
      for (long long e = 0; e < numel[i]; ++e) h[i][e] = to_d(ht[e]);
    } else {
      for (long long e = 0; e < numel[i]; ++e) { h[i][e] = stored(sc * normal01()); ht[e] = from_d(h[i][e]); }
    }
    CK(cudaMalloc(&dt[i], numel[i] * sizeof(T)));
    CK(cudaMalloc(&dd[i], numel[i] * sizeof(double)));
    CK(cudaMemcpy(dt[i], ht.data(), numel[i] * sizeof(T), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dd[i], h[i].data(), numel[i] * sizeof(double), cudaMemcpyHostToDevice));
  }
  T* out = nullptr; double* ref = nullptr; float* ws = nullptr;
  CK(cudaMalloc(&out, out_n * sizeof(T)));
  CK(cudaMemset(out, 0xFF, out_n * sizeof(T)));  // NaN poison: every element must be written
  CK(cudaMalloc(&ref, out_n * sizeof(double)));
  if (ws_bytes) { CK(cudaMalloc(&ws, ws_bytes)); CK(cudaMemset(ws, 0xFF, ws_bytes)); }
)";
  switch (op.family) {
    case check::OpFamily::kLinear:
      s += "  const int err = vxs_launch(dt[0], dt[1], dt[2], out, ws, d.M, d.N, d.K, 0);\n";
      break;
    case check::OpFamily::kMatmul:
    case check::OpFamily::kBmm:
      s += "  const int err = vxs_launch(dt[0], dt[1], out, ws, d.Z, d.M, d.N, d.K, d.sa, d.sb, 0);\n";
      break;
    case check::OpFamily::kConv1d:
    case check::OpFamily::kConv2d:
      s += "  const int err = vxs_launch(dt[0], dt[1], dt[2], out, ws, d.cn, d.cc, d.ch, d.cw, d.ck, d.cr, d.cs, d.sh, d.sw, d.ph, d.pw, d.dh, d.dw, d.Z, 0);\n";
      break;
  }
  s += "  CK((cudaError_t)err);\n  CK(cudaDeviceSynchronize());\n";
  s += "  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));\n";
  s += "  CK(cudaEventRecord(e0));\n  for (int it = 0; it < 10; ++it) (void)vxs_launch(";
  switch (op.family) {
    case check::OpFamily::kLinear: s += "dt[0], dt[1], dt[2], out, ws, d.M, d.N, d.K, 0);\n"; break;
    case check::OpFamily::kMatmul:
    case check::OpFamily::kBmm: s += "dt[0], dt[1], out, ws, d.Z, d.M, d.N, d.K, d.sa, d.sb, 0);\n"; break;
    default: s += "dt[0], dt[1], dt[2], out, ws, d.cn, d.cc, d.ch, d.cw, d.ck, d.cr, d.cs, d.sh, d.sw, d.ph, d.pw, d.dh, d.dw, d.Z, 0);\n"; break;
  }
  s += "  CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1));\n  float ms = 0; CK(cudaEventElapsedTime(&ms, e0, e1));\n";
  // reference inputs order: conv ref takes x then weight; linear x, weight; bmm a, b.
  s += "  ref_kernel<<<(unsigned)((out_n + 255) / 256), 256>>>(dd[0], dd[1], dd[2], ref, d, out_n);\n";
  s += "  CK(cudaGetLastError());\n  CK(cudaDeviceSynchronize());\n";
  s += "  std::vector<T> ho(out_n); std::vector<double> hr(out_n);\n";
  s += "  CK(cudaMemcpy(ho.data(), out, out_n * sizeof(T), cudaMemcpyDeviceToHost));\n";
  s += "  CK(cudaMemcpy(hr.data(), ref, out_n * sizeof(double), cudaMemcpyDeviceToHost));\n";
  s += "  if (!dir.empty()) {\n    FILE* f = std::fopen((dir + \"/out.bin\").c_str(), \"wb\");\n";
  s += "    if (!f || std::fwrite(ho.data(), sizeof(T), (size_t)out_n, f) != (size_t)out_n) { std::printf(\"RESULT cannot write out.bin\\n\"); return 1; }\n";
  s += "    std::fclose(f);\n  }\n";
  s += fmt::format("  const double atol = {:g}, rtol = {:g};\n", tol.atol, tol.rtol);
  s += R"(  long long failed = 0, nonfinite = 0; double max_abs = 0, max_rel = 0; bool all_zero = true, constant = true;
  const double first = to_d(ho[0]);
  for (long long e = 0; e < out_n; ++e) {
    const double c = to_d(ho[e]), r = hr[e];
    if (!std::isfinite(c)) { ++nonfinite; ++failed; continue; }
    if (c != 0) all_zero = false;
    if (c != first) constant = false;
    const double diff = std::fabs(c - r);
    if (diff > max_abs) max_abs = diff;
    if (r != 0 && diff / std::fabs(r) > max_rel) max_rel = diff / std::fabs(r);
    if (!(diff <= atol + rtol * std::fabs(r))) ++failed;
  }
  const bool pass = failed == 0 && !all_zero && !(constant && out_n > 1);
)";
  s += fmt::format("  std::printf(\"RESULT {} path={} elements=%lld max_abs=%.3e max_rel=%.3e failed=%lld non_finite=%lld "
                   "time_us=%.1f %s\\n\", out_n, max_abs, max_rel, failed, nonfinite, ms * 100.0, pass ? \"PASS\" : \"FAIL\");\n",
                   name, check::to_string(p.fixed.path));
  s += "  return pass ? 0 : 2;\n}\n";
  return {"driver.cu", s};
}

}  // namespace vxsynth::codegen
