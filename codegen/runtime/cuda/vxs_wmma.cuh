// vxs_wmma.cuh: fixed part of every vxsynth CUDA tensor-core candidate (docs/codegen.md
// "Tensor-core strategy"): WMMA fragment loads from, and accumulator stores to, shared memory with
// the PTX state space said explicitly (wmma.load / wmma.store ... .shared).
//
// Why: nvcc 13 emits the generic form of wmma.load for the TF32 and BF16 fragments and of
// wmma.store for the m16n16k8 accumulator even when the pointer is into a __shared__ array
// (measured: `nvcc -arch=sm_90 -ptx`; only FP16 gets `.shared`). The generic form compiles to LD.E
// / ST.E, which Nsight Compute counts as global loads: smsp__sass_average_data_bytes_per_sector_
// mem_global_op_ld reads 288-4850 % on candidates whose LDGs are coalesced, and generic accesses
// cost more than LDS. Register counts per fragment are the PTX ISA's ("Matrix Data-types" and the
// wmma.load fragment tables): TF32 m16n16k8 a/b 4; BF16 m16n16k16 a/b 4, m32n8k16 a 8 b 2,
// m8n32k16 a 2 b 8; FP16 a/b 8; fp32 accumulators 8.
#ifndef VXS_WMMA_CUH
#define VXS_WMMA_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

/// Shared-window address of a pointer into shared memory (the operand of a `.shared` access).
static __device__ __forceinline__ unsigned vxs_shared_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// wmma.load with N destination registers r[0..N-1] from shared address s, row stride ldm elements.
#define VXS_WMMA_LD_2(OP)                                                                \
  asm volatile(OP " {%0, %1}, [%2], %3;\n" : "=r"(r[0]), "=r"(r[1]) : "r"(s), "r"(ldm) \
               : "memory")
#define VXS_WMMA_LD_4(OP)                                                               \
  asm volatile(OP " {%0, %1, %2, %3}, [%4], %5;\n"                                      \
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(s), "r"(ldm) : "memory")
#define VXS_WMMA_LD_8(OP)                                                                      \
  asm volatile(OP " {%0, %1, %2, %3, %4, %5, %6, %7}, [%8], %9;\n"                            \
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]),      \
                 "=r"(r[6]), "=r"(r[7])                                                        \
               : "r"(s), "r"(ldm) : "memory")

/// vxs_load_shared(frag, p, ldm): wmma::load_matrix_sync(frag, p, ldm) for `p` in shared memory.
/// One row per fragment: use (a/b), shape, CUDA type, element type, layout, PTX type, registers.
#define VXS_LOAD_SHARED(USE, U, M, N, K, T, E, LAYOUT, L, PT, REGS)                                \
  static __device__ __forceinline__ void vxs_load_shared(                                          \
      nvcuda::wmma::fragment<nvcuda::wmma::USE, M, N, K, T, nvcuda::wmma::LAYOUT>& f, const E* p,  \
      unsigned ldm) {                                                                              \
    static_assert(sizeof(f.x) == REGS * 4, "fragment registers differ from the PTX ISA's count"); \
    unsigned* r = reinterpret_cast<unsigned*>(&f.x[0]);                                            \
    const unsigned s = vxs_shared_addr(p);                                                         \
    VXS_WMMA_LD_##REGS("wmma.load." U ".sync.aligned." L ".m" #M "n" #N "k" #K ".shared." PT);     \
  }

#define VXS_TF32 nvcuda::wmma::precision::tf32
VXS_LOAD_SHARED(matrix_a, "a", 16, 16, 8, VXS_TF32, float, row_major, "row", "tf32", 4)
VXS_LOAD_SHARED(matrix_b, "b", 16, 16, 8, VXS_TF32, float, row_major, "row", "tf32", 4)
VXS_LOAD_SHARED(matrix_b, "b", 16, 16, 8, VXS_TF32, float, col_major, "col", "tf32", 4)
VXS_LOAD_SHARED(matrix_a, "a", 16, 16, 16, __nv_bfloat16, __nv_bfloat16, row_major, "row", "bf16", 4)
VXS_LOAD_SHARED(matrix_b, "b", 16, 16, 16, __nv_bfloat16, __nv_bfloat16, row_major, "row", "bf16", 4)
VXS_LOAD_SHARED(matrix_b, "b", 16, 16, 16, __nv_bfloat16, __nv_bfloat16, col_major, "col", "bf16", 4)
VXS_LOAD_SHARED(matrix_a, "a", 32, 8, 16, __nv_bfloat16, __nv_bfloat16, row_major, "row", "bf16", 8)
VXS_LOAD_SHARED(matrix_b, "b", 32, 8, 16, __nv_bfloat16, __nv_bfloat16, row_major, "row", "bf16", 2)
VXS_LOAD_SHARED(matrix_b, "b", 32, 8, 16, __nv_bfloat16, __nv_bfloat16, col_major, "col", "bf16", 2)
VXS_LOAD_SHARED(matrix_a, "a", 8, 32, 16, __nv_bfloat16, __nv_bfloat16, row_major, "row", "bf16", 2)
VXS_LOAD_SHARED(matrix_b, "b", 8, 32, 16, __nv_bfloat16, __nv_bfloat16, row_major, "row", "bf16", 8)
VXS_LOAD_SHARED(matrix_b, "b", 8, 32, 16, __nv_bfloat16, __nv_bfloat16, col_major, "col", "bf16", 8)
VXS_LOAD_SHARED(matrix_a, "a", 16, 16, 16, half, half, row_major, "row", "f16", 8)
VXS_LOAD_SHARED(matrix_b, "b", 16, 16, 16, half, half, row_major, "row", "f16", 8)
VXS_LOAD_SHARED(matrix_b, "b", 16, 16, 16, half, half, col_major, "col", "f16", 8)
VXS_LOAD_SHARED(matrix_a, "a", 32, 8, 16, half, half, row_major, "row", "f16", 8)
VXS_LOAD_SHARED(matrix_b, "b", 32, 8, 16, half, half, row_major, "row", "f16", 8)
VXS_LOAD_SHARED(matrix_b, "b", 32, 8, 16, half, half, col_major, "col", "f16", 8)
VXS_LOAD_SHARED(matrix_a, "a", 8, 32, 16, half, half, row_major, "row", "f16", 8)
VXS_LOAD_SHARED(matrix_b, "b", 8, 32, 16, half, half, row_major, "row", "f16", 8)
VXS_LOAD_SHARED(matrix_b, "b", 8, 32, 16, half, half, col_major, "col", "f16", 8)
#undef VXS_TF32

/// vxs_store_shared(p, acc, ldm): wmma::store_matrix_sync(p, acc, ldm, wmma::mem_row_major) for
/// `p` in shared memory; every fp32 accumulator of these shapes is 8 registers.
#define VXS_STORE_SHARED(M, N, K)                                                                  \
  static __device__ __forceinline__ void vxs_store_shared(                                         \
      float* p, const nvcuda::wmma::fragment<nvcuda::wmma::accumulator, M, N, K, float>& f,       \
      unsigned ldm) {                                                                              \
    static_assert(sizeof(f.x) == 8 * 4, "accumulator registers differ from the PTX ISA's count"); \
    asm volatile("wmma.store.d.sync.aligned.row.m" #M "n" #N "k" #K ".shared.f32 "                \
                 "[%0], {%1, %2, %3, %4, %5, %6, %7, %8}, %9;\n"                                   \
                 ::"r"(vxs_shared_addr(p)), "f"(f.x[0]), "f"(f.x[1]), "f"(f.x[2]), "f"(f.x[3]),   \
                 "f"(f.x[4]), "f"(f.x[5]), "f"(f.x[6]), "f"(f.x[7]), "r"(ldm)                      \
                 : "memory");                                                                      \
  }

VXS_STORE_SHARED(16, 16, 8)
VXS_STORE_SHARED(16, 16, 16)
VXS_STORE_SHARED(32, 8, 16)
VXS_STORE_SHARED(8, 32, 16)

#undef VXS_LOAD_SHARED
#undef VXS_STORE_SHARED
#undef VXS_WMMA_LD_2
#undef VXS_WMMA_LD_4
#undef VXS_WMMA_LD_8

#endif  // VXS_WMMA_CUH
