// vxs_driver.h: the host driver of a vxsynth Vortex candidate (docs/codegen.md "Vortex candidate"),
// with the sampled-tile check (-b). It replaces vxs_host.h/.cpp, which stay unchanged for the
// benchmarks generated before it (generator version 5 and older; docs/reconstruct.md).
// A candidate's main.cpp states its operands, launch geometry, tolerance and CPU reference in a
// vxs::CandidateSpec and calls vxs::run_candidate; everything else (input files, device buffers,
// NaN poisoning, launches, out.bin, the self-check) is here, written against vortex.h only.
#ifndef VXS_DRIVER_H
#define VXS_DRIVER_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "vxs_dims.h"

namespace vxs {

/// Element type of a tensor in a file or in device memory.
enum ElemType { VXS_F32, VXS_F16, VXS_BF16 };

/// One input operand of the op.
struct Operand {
  const char* name;   ///< file name stem: DIR/<name>.bin
  size_t numel;
  bool weight;        ///< scaled N(0, 1/fan_in) in standalone runs; activations N(0, 1)
  ElemType file_type; ///< element type of DIR/<name>.bin
  ElemType dev_type;  ///< element type in device memory
};

/// CPU reference of output element `e` (flat index into the op's output) in double precision:
/// `in` holds the operands in kOperands order. Per element, so a sampled-tile check computes only
/// the elements it compares.
typedef double (*CpuReference)(const std::vector<std::vector<double>>& in, size_t e);

/// Offset of GEMM-view element (z, m, n) in the op's output (the kernel's vxs_out_index).
typedef int (*OutIndex)(const vxs_dims_t& d, int z, int m, int n);

/// Everything the driver needs to know about one candidate.
struct CandidateSpec {
  const Operand* operands = nullptr;
  int num_operands = 0;
  int a = -1, b = -1, bias = -1;   ///< operand indices of GEMM A, B and the bias (-1: none)
  size_t out_numel = 0;
  ElemType out_type = VXS_F32;
  size_t workspace_floats = 0;     ///< fp32 split-K / epilogue workspace (0: none)
  double fan_in = 1;               ///< reduction length of one output (weight scale)
  double atol = 0, rtol = 0;       ///< candidate-check tolerance of the precision path
  vxs_dims_t dims{};               ///< the profiled shape
  uint32_t grid[3] = {1, 1, 1};    ///< blocks of launch 1 (GEMM)
  uint32_t epilogue_blocks = 0;    ///< blocks of launch 2 (reduce/epilogue)
  int launches = 1;                ///< 2 = GEMM + reduce/epilogue kernel
  uint32_t block_size = 0;         ///< threads per block
  uint32_t num_threads = 0;        ///< Vortex warp width the candidate was generated for
  bool needs_warp_width = false;   ///< the TCU tile / block_decomp depend on the warp width
  CpuReference cpu_reference = nullptr;
  // Block order of launch 1, for a sampled-tile check (-b): block id = x + grid[0]·(y + grid[1]·zs),
  // with x the N tile (the M tile when m_tiles_fast), y the other, zs = z·split_k + K slice.
  uint32_t tile_m = 0, tile_n = 0;  ///< GEMM-view block tile BM x BN (0: -b is refused)
  uint32_t split_k = 1;
  bool m_tiles_fast = false;
  OutIndex out_index = nullptr;
};

/// `./<project> [-d DIR] [-b ID,ID,...]`:
///   no -d: draw inputs here, run, self-check against the CPU reference; returns the mismatches.
///   -d DIR: read DIR/<operand>.bin (raw little-endian; fp32, or bf16 on the BF16 path), run,
///           write DIR/out.bin, print the same self-check; returns 0 when the run itself succeeded.
///   -b IDS: sampled-tile check (docs/vxsim.md "Sampled-tile check"): launch 1 runs only these
///           GEMM block ids of its grid (the kernel reads them from vxs_launch_t, vxs_sample.h),
///           launch 2 runs whole; the self-check computes and compares only the output tiles of
///           those blocks and says "sampled". Outputs outside them stay NaN.
/// Runtime errors print "Error: ..." and return -1 (or exit(-1) from inside a vortex.h call).
int run_candidate(const CandidateSpec& spec, int argc, char** argv);

// Element conversions (exposed for tests).
uint16_t f2bf(float f);   ///< fp32 -> bf16, round to nearest even (NaN stays NaN)
float bf2f(uint16_t h);   ///< bf16 -> fp32 (exact)
uint16_t f2h(float f);    ///< fp32 -> binary16, round to nearest even
size_t type_bytes(ElemType t);
/// Value of one stored element (files hold fp32 or bf16 only: VXS_F16 is not decoded).
double decode(const uint8_t* p, ElemType t);
void encode(double v, ElemType t, uint8_t* p);
/// `v` rounded to what a tensor of type `t` stores (fp32 or bf16).
double round_to(double v, ElemType t);

}  // namespace vxs

#endif  // VXS_DRIVER_H
