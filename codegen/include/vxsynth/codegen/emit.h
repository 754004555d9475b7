#pragma once
/// \file
/// Renders a design point into its pair of candidates (paper §3.4): a CUDA candidate (one `.cu`)
/// and a Vortex candidate (kernel.cpp + main.cpp + common.h + Makefile in Vortex's
/// tests/regression layout, docs/vortex.md §6), each with copies of the fixed runtime files it
/// includes (codegen/runtime/), so its directory builds on its own. Both sides come from the same
/// kernel-body generator,
/// so they implement the same tiling, staging, lane mapping, split-K and epilogue.

#include <filesystem>
#include <string>
#include <vector>

#include "vxsynth/codegen/design_point.h"

namespace vxsynth::codegen {

/// One generated source file.
struct SourceFile {
  std::string name;  ///< file name relative to the candidate directory
  std::string text;
};

/// A rendered candidate.
struct Candidate {
  std::vector<SourceFile> files;
  /// The file called `name`; throws vxsynth::Error if absent.
  [[nodiscard]] const SourceFile& file(const std::string& name) const;
};

/// Name of the CUDA candidate's source file.
inline constexpr const char* kCudaFileName = "candidate.cu";

/// CUDA candidate for `p` (validated first; throws vxsynth::Error with the reasons if invalid).
///
/// The `.cu` holds the kernels, an `extern "C"` launch function and a workspace-size function
/// whose signatures depend on the family (device pointers, the shape, a cudaStream_t):
/// - linear:  `int vxs_launch(const T* x, const T* weight, const T* bias, T* out, float* workspace,
///             int M, int N, int K, cudaStream_t)` (bias may be null when the op has none)
/// - matmul/bmm: `int vxs_launch(const T* a, const T* b, T* out, float* workspace, int batch, int M,
///             int N, int K, long long a_batch_stride, long long b_batch_stride, cudaStream_t)`
/// - conv1d/conv2d: `int vxs_launch(const T* x, const T* weight, const T* bias, T* out,
///             float* workspace, int N, int C, int H, int W, int K, int R, int S, int stride_h,
///             int stride_w, int pad_h, int pad_w, int dil_h, int dil_w, int groups, cudaStream_t)`
/// and `size_t vxs_workspace_bytes(<the same shape parameters>)` (bytes of the float workspace a
/// split-K / separate-epilogue candidate needs, 0 for one launch). T is float (fp32/tf32 paths) or __nv_bfloat16. The
/// launch returns a cudaError_t value (cudaErrorInvalidValue when a specialised candidate gets
/// another shape). With `-DVXS_TORCH_EXTENSION` the file also defines the PyTorch extension
/// module with `forward(...)` (torch argument order of the op; returns a new output tensor) and
/// `forward_into(out, ...)` (writes a caller-provided, e.g. NaN-poisoned, output).
[[nodiscard]] Candidate emit_cuda(const DesignPoint& p);

/// The two `extern "C"` prototypes of emit_cuda's C ABI for `family` (vxs_workspace_bytes, then
/// vxs_launch), with T spelled out (`__nv_bfloat16` when `bf16`, else `float`), one per line. The
/// one source of these signatures for code that calls a candidate (refine's standalone launcher):
/// C linkage does not check arguments, so a re-stated prototype can drift silently.
[[nodiscard]] std::string cuda_c_api_declarations(check::OpFamily family, bool bf16);

/// Source-output measurement driver for the GPU: `driver.cu` (with its fixed part `vxs_driver.cuh`,
/// codegen/runtime/cuda) includes `candidate.cu`, draws inputs (xorshift + Box–Muller, scaled like
/// emit_vortex's main.cpp: activations N(0,1), weights and bias N(0, 1/fan_in), rounded to the
/// storage type), NaN-poisons the output, calls vxs_launch, computes a float64 reference with a
/// naive double-precision kernel of the op's definition, compares every element under the path's
/// source-output tolerance (NaN/Inf, all-zero and constant outputs fail) and prints one line
/// `RESULT <name> path=… elements=… max_abs=… max_rel=… failed=… non_finite=… PASS|FAIL`. Write it
/// next to emit_cuda's files; build: `nvcc -gencode=arch=compute_90a,code=sm_90a -O2 -o driver driver.cu` (core::nvcc_target_flag).
[[nodiscard]] Candidate emit_cuda_driver(const DesignPoint& p, const std::string& name, uint64_t seed);

/// Vortex candidate for `p` (validated first). Files: kernel.cpp, main.cpp, common.h, Makefile.
///
/// main.cpp: `./<project> [-d DIR]`. Without -d it draws its own inputs, runs the kernel(s) on the
/// device, compares with its own CPU reference under the path's candidate tolerance and exits with
/// the number of mismatches (0 = "PASSED!"). With -d it reads DIR/<operand>.bin (raw
/// little-endian fp32, or bf16 on the BF16 path), runs, writes DIR/out.bin, prints the same
/// self-check, and exits 0 when the run itself succeeded. Outputs are NaN-poisoned on the device
/// before the run. The Makefile builds with our SDK (`make VXSDK=<build>/sdk`, which includes
/// $(VXSDK)/sdk.mk) or, when VORTEX_HOME is set, against a real Vortex 2.x build tree.
[[nodiscard]] Candidate emit_vortex(const DesignPoint& p);

/// Bytes the Vortex candidate of `p` keeps of the operator in device memory: every input at its
/// device element type (fp32; fp16 for a TF32 reference's non-bias operands, the TCU has no TF32;
/// bf16 on the BF16 path) plus the output (bf16 on the BF16 path, else fp32). The split-K
/// workspace is not counted: it is the design's, not the operator's.
[[nodiscard]] uint64_t vortex_operand_bytes(const DesignPoint& p);

/// Writes every file of `c` under `dir` (created), atomically per file.
void write_candidate(const std::filesystem::path& dir, const Candidate& c);

}  // namespace vxsynth::codegen
