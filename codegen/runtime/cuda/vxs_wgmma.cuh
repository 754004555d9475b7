// vxs_wgmma.cuh: warpgroup MMA (wgmma.mma_async, sm_90a) for 16-bit operands staged in shared
// memory: matrix descriptors of canonical no-swizzle K-major tiles, the fences and group waits, and
// one m64nNk16 multiply-accumulate per N of 64, 128 and 256 with fp32 accumulators in registers.
// Shipped with every CUDA candidate of a warpgroup shape (docs/codegen.md "Warpgroup MMA") and used
// by bench/tc/wgmma_probe.cu.
//
// Facts (PTX ISA 8.x, "Asynchronous Warpgroup Level Matrix Multiply-Accumulate Instructions"):
// - a warpgroup is 4 consecutive warps (128 threads) whose first warp's index is a multiple of 4;
// - a core matrix is 8 rows x 16 bytes stored as 128 contiguous bytes; a K-major tile is a grid of
//   them, described by its start address, the byte offset between core matrices adjacent along K
//   (leading dimension, LBO) and along M or N (stride dimension, SBO);
// - the descriptor holds start >> 4 in bits 0-13, LBO >> 4 in bits 16-29, SBO >> 4 in bits 32-45
//   and the swizzle mode in bits 62-63 (0: none);
// - fp32 D of m64nNk16: warp w of the group, lane l holds for each 8-column chunk j the elements
//   d[4j], d[4j+1] at row 16w + l/4, columns 8j + 2(l%4) + {0, 1}, and d[4j+2], d[4j+3] at row
//   16w + l/4 + 8 (vxs_wgmma_row / vxs_wgmma_col);
// - shared memory written through the generic proxy (st.shared, cp.async) is made visible to wgmma
//   (the async proxy) by fence.proxy.async.shared::cta; wgmma.fence orders earlier register
//   accesses of the accumulators before the wgmma that reads them.
// Compile with -gencode arch=compute_90a,code=sm_90a (ptxas rejects wgmma for plain sm_90).
#ifndef VXS_WGMMA_CUH
#define VXS_WGMMA_CUH

#include <cuda_runtime.h>
#include <stdint.h>

// The device pass of any other target (sm_90, or the compute_90 PTX that nvcc 13's -arch=sm_90a adds)
// would otherwise stop at ptxas with "not supported on .target 'sm_90'".
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "vxs_wgmma.cuh: warpgroup MMA needs the arch-specific target sm_90a: nvcc -gencode=arch=compute_90a,code=sm_90a"
#endif

/// 16-bit elements in one core matrix (8 rows x 16 bytes).
#define VXS_CORE_ELEMS 64

/// Element offset of (r, c) in a canonical K-major tile of `k` columns, for c a multiple of 8 (the
/// first element of a 16-byte core-matrix row): core matrices row-major over (r / 8, c / 8).
static __device__ __forceinline__ int vxs_canonical(int r, int c, int k) {
  return ((r >> 3) * (k >> 3) + (c >> 3)) * VXS_CORE_ELEMS + (r & 7) * 8;
}

/// Descriptor of the canonical K-major tile at shared pointer `p` with `k` columns: core matrices
/// adjacent along K 128 bytes apart, along M/N (k / 8) * 128 bytes apart, no swizzle.
static __device__ __forceinline__ uint64_t vxs_wgmma_desc(const void* p, uint32_t k) {
  const uint32_t start = static_cast<uint32_t>(__cvta_generic_to_shared(p));
  const uint32_t lbo = 128, sbo = (k / 8) * 128;
  return static_cast<uint64_t>((start & 0x3FFFF) >> 4) | (static_cast<uint64_t>((lbo & 0x3FFFF) >> 4) << 16) |
         (static_cast<uint64_t>((sbo & 0x3FFFF) >> 4) << 32);
}

/// Row and column, within its warpgroup's 64 x N tile, of accumulator element `i` of this thread.
static __device__ __forceinline__ int vxs_wgmma_row(int lane_in_group, int i) {
  return (lane_in_group >> 5) * 16 + ((lane_in_group & 31) >> 2) + ((i >> 1) & 1) * 8;
}
static __device__ __forceinline__ int vxs_wgmma_col(int lane_in_group, int i) {
  return (i >> 2) * 8 + (lane_in_group & 3) * 2 + (i & 1);
}

/// Copies this thread wrote to shared memory become visible to wgmma (after the copies landed).
static __device__ __forceinline__ void vxs_fence_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}
/// Orders earlier accesses of the accumulator registers before the next wgmma.
static __device__ __forceinline__ void vxs_wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
/// Pins accumulator registers at this point of the program (an empty asm that reads and writes
/// each): the compiler may not move their initialisation past the following wgmma.fence, nor their
/// reads before the preceding wgmma wait (wgmma.fence orders register accesses only in the
/// instruction stream; ptxas otherwise injects a warpgroup.arrive of its own, warning C7519).
template <int N>
static __device__ __forceinline__ void vxs_wgmma_fence_operand(float (&d)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(d[i])::"memory");
}
/// The same for every accumulator array of a warpgroup's I x J operations.
template <int I, int J, int N>
static __device__ __forceinline__ void vxs_wgmma_fence_operand(float (&d)[I][J][N]) {
#pragma unroll
  for (int i = 0; i < I; ++i)
#pragma unroll
    for (int j = 0; j < J; ++j) vxs_wgmma_fence_operand(d[i][j]);
}
/// Closes the group of wgmma operations issued since the last commit.
static __device__ __forceinline__ void vxs_wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
/// Waits until at most `N` committed groups are pending (0: the accumulators are final).
template <int N>
static __device__ __forceinline__ void vxs_wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

// Accumulator operands of the m64nNk16 forms in blocks of 32 registers: the names in the asm
// string (VXS_WGMMA_R<first>) and the bindings to d[] (VXS_WGMMA_D<first>); N / 2 registers, then
// the two descriptors (VXS_WGMMA_DESC<N>).
#define VXS_WGMMA_R0 \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define VXS_WGMMA_D0 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
#define VXS_WGMMA_R32 \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define VXS_WGMMA_D32 \
  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
#define VXS_WGMMA_R64 \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95"
#define VXS_WGMMA_D64 \
  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
  "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
  "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
#define VXS_WGMMA_R96 \
  "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, " \
  "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
#define VXS_WGMMA_D96 \
  "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), \
  "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), \
  "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), \
  "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
#define VXS_WGMMA_REGS64 VXS_WGMMA_R0
#define VXS_WGMMA_REGS128 VXS_WGMMA_R0 ", " VXS_WGMMA_R32
#define VXS_WGMMA_REGS256 VXS_WGMMA_R0 ", " VXS_WGMMA_R32 ", " VXS_WGMMA_R64 ", " VXS_WGMMA_R96
#define VXS_WGMMA_OPS64 VXS_WGMMA_D0
#define VXS_WGMMA_OPS128 VXS_WGMMA_D0, VXS_WGMMA_D32
#define VXS_WGMMA_OPS256 VXS_WGMMA_D0, VXS_WGMMA_D32, VXS_WGMMA_D64, VXS_WGMMA_D96
#define VXS_WGMMA_DESC64 "%32, %33"
#define VXS_WGMMA_DESC128 "%64, %65"
#define VXS_WGMMA_DESC256 "%128, %129"

/// vxs_wgmma_<type>(d, desc_a, desc_b): D(64 x N, fp32 registers d) += A(64 x 16) * B(N x 16)^T, both
/// 16-bit K-major tiles in shared memory (descriptors), scale 1, no transpose; N = 2 * size of d.
#define VXS_WGMMA(N, NAME, PT)                                                                     \
  static __device__ __forceinline__ void vxs_wgmma_##NAME(float(&d)[N / 2], uint64_t desc_a,       \
                                                          uint64_t desc_b) {                       \
    asm volatile("wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." PT "." PT " {" VXS_WGMMA_REGS##N \
                 "}, " VXS_WGMMA_DESC##N ", 1, 1, 1, 0, 0;\n"                                     \
                 : VXS_WGMMA_OPS##N                                                                \
                 : "l"(desc_a), "l"(desc_b));                                                      \
  }
VXS_WGMMA(64, bf16, "bf16")
VXS_WGMMA(128, bf16, "bf16")
VXS_WGMMA(256, bf16, "bf16")
VXS_WGMMA(64, f16, "f16")
VXS_WGMMA(128, f16, "f16")
VXS_WGMMA(256, f16, "f16")
#undef VXS_WGMMA

#endif  // VXS_WGMMA_CUH
