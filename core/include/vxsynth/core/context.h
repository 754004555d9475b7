#pragma once
/// \file
/// Reference program context of one hot kernel and its four fixed properties (paper §3.3, Table 4;
/// docs/signature.md §2). Produced by the importers, stored in the reference bundle,
/// consumed by codegen (seed) and the sandbox (fixed-property checks).

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vxsynth::core {

/// Operator family of the framework op that launched the kernel.
enum class OpKind : uint8_t { kLinear, kMatmul, kBmm, kConv1d, kConv2d, kOther };

/// Engine class (fixed property 1): which execution engine the reference kernel used.
enum class EngineClass : uint8_t { kSimt, kTensorCore, kDmma };

/// Element types of operands and accumulators (fixed property 2). kTf32 means "fp32 storage,
/// TF32 tensor-core math".
enum class DType : uint8_t { kFp32, kTf32, kBf16, kFp16, kFp64, kInt8 };

/// GEMM shape (fixed property 4 for linear/matmul/bmm): C[batch][M][N] = A[M][K]·B[K][N].
struct GemmShape {
  int64_t batch = 1;
  int64_t m = 0, n = 0, k = 0;
};

/// Convolution shape (fixed property 4 for conv): input N×C×H×W, K filters of R×S; conv1d has H=1, R=1.
struct ConvShape {
  int64_t n = 0, c = 0, h = 1, w = 0;
  int64_t k = 0, r = 1, s = 0;
  std::array<int64_t, 2> stride{1, 1}, pad{0, 0}, dilation{1, 1};
  int64_t groups = 1;

  /// Output height P and width Q: (in + 2·pad − dilation·(window − 1) − 1) / stride + 1 (PyTorch's
  /// Conv2d shape rule); the stride must be positive.
  [[nodiscard]] int64_t out_h() const { return (h + 2 * pad[0] - dilation[0] * (r - 1) - 1) / stride[0] + 1; }
  [[nodiscard]] int64_t out_w() const { return (w + 2 * pad[1] - dilation[1] * (s - 1) - 1) / stride[1] + 1; }
  /// Reduction length of one output element: (C / groups)·R·S.
  [[nodiscard]] int64_t fan_in() const { return (c / (groups > 0 ? groups : 1)) * r * s; }
};

/// An op seen as a batched GEMM C[z][M][N] = A[z][M][K]·B[z][K][N] (docs/codegen.md "One kernel
/// body, two dialects"); a convolution is the implicit GEMM with z = group, M = K/groups,
/// N = N·P·Q, K = (C/groups)·R·S.
struct GemmView {
  int64_t z = 1, m = 0, n = 0, k = 0;
};
[[nodiscard]] inline GemmView gemm_view(const GemmShape& g) { return {g.batch, g.m, g.n, g.k}; }
[[nodiscard]] inline GemmView gemm_view(const ConvShape& c) {
  return {c.groups, c.k / (c.groups > 0 ? c.groups : 1), c.n * c.out_h() * c.out_w(), c.fan_in()};
}

/// Kernel launch geometry as ncu/torch report it.
struct LaunchGeometry {
  std::array<uint32_t, 3> grid{1, 1, 1};
  std::array<uint32_t, 3> block{1, 1, 1};
  uint32_t registers_per_thread = 0;
  uint32_t static_shared_bytes = 0;
  uint32_t dynamic_shared_bytes = 0;
  /// Threads per block (fixed property 3).
  [[nodiscard]] uint32_t block_size() const { return block[0] * block[1] * block[2]; }
};

/// Tile shape read from a kernel name (e.g. "128x64_32x3"); kept only where launch geometry agrees.
struct TileHint {
  uint32_t m = 0, n = 0, k = 0;
  uint32_t stages = 0;
};

/// One tensor operand of the framework op as the torch trace records it (docs/ncu.md §6).
struct TensorDesc {
  std::vector<int64_t> dims;
  std::vector<int64_t> strides;   ///< elements; empty when the trace has none
  std::string type;               ///< torch's spelling: "float", "c10::BFloat16", …
};

/// Everything the generator and sandbox need to know about one reference kernel.
struct ReferenceContext {
  std::string kernel_name;            ///< demangled name as ncu prints it
  OpKind op = OpKind::kOther;
  std::string framework_op;           ///< top-level torch op, e.g. "aten::linear"
  std::optional<GemmShape> gemm;      ///< set for linear/matmul/bmm
  std::optional<ConvShape> conv;      ///< set for conv1d/conv2d
  bool has_bias = false;              ///< linear/conv with a bias operand (fused_act seed decision)
  DType operand_type = DType::kFp32;
  DType accumulator_type = DType::kFp32;
  EngineClass engine = EngineClass::kSimt;
  LaunchGeometry launch;
  std::optional<TileHint> tile_hint;
  /// Tensor-pipe operations the profiled launch executed (the arith_intensity row's
  /// sm__ops_path_tensor_src_* counters except fp64): 2 per multiply-accumulate over the extents the
  /// kernel padded its GEMM to (docs/codegen.md "Seed"); 0 without ncu values or tensor work. Set by
  /// build_context and, when a bundle is read, from its kernels' ncu values; not written to the
  /// context's JSON (context_from_json leaves it 0).
  double tensor_ops = 0;
  // --- provenance of the fields above (added by [signature]) ---
  std::vector<std::string> op_stack;  ///< torch ops outermost → innermost, e.g. {aten::linear, aten::addmm}
  std::vector<TensorDesc> operands;   ///< tensor arguments of the op the shape was read from
  std::string engine_reason;          ///< how `engine` was decided (counter value or name rule)
  std::string name_rule;              ///< id of the kernel-name rule that matched ("" = none)
  /// The kernel is a helper of its op (layout transpose, split-K reduce, workspace init, elementwise
  /// bias/activation), not the op's GEMM/conv kernel: from the kernel-name rule table.
  bool helper_kernel = false;
  /// Why `op` is kOther (which ops the stack holds and what could not be read); "" when the op was read.
  std::string op_reason;
};

/// Stable lower-case names used in JSON and reports ("linear", "tensor_core", "bf16", …).
[[nodiscard]] std::string_view to_string(OpKind v);
[[nodiscard]] std::string_view to_string(EngineClass v);
[[nodiscard]] std::string_view to_string(DType v);
/// The operator's shape in one line: "M=100 N=512 K=512", "B=8 M=51 N=256 K=867" (batch > 1), or
/// "N=1 C=512 H=15 W=20 K=512 R=3 S=3 s=1,1 p=1,1 d=1,1 g=1" for a convolution; "-" for neither.
[[nodiscard]] std::string shape_string(const ReferenceContext& c);
/// Inverses of to_string; nullopt for an unknown name.
[[nodiscard]] std::optional<OpKind> op_kind_from_string(std::string_view s);
[[nodiscard]] std::optional<EngineClass> engine_from_string(std::string_view s);
[[nodiscard]] std::optional<DType> dtype_from_string(std::string_view s);

}  // namespace vxsynth::core
