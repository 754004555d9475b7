// vxs_tc.cuh: fixed parts of a vxsynth CUDA tensor-core candidate (docs/codegen.md "Tensor-core
// strategy"): 16-byte cooperative fills of the shared-memory operand tiles, synchronous or as
// asynchronous copies (cp.async, sm_80 and later), and the TF32 rounding of a loaded fragment.
// The candidate decides which fill each operand uses (its shape and layout); this file holds only
// the copies themselves.
#ifndef VXS_TC_CUH
#define VXS_TC_CUH

#include <cuda_runtime.h>
#include <mma.h>
#include <stdint.h>

/// Bytes one vector fill moves: 16 B = 8 bf16/fp16 or 4 fp32 elements (one LDG.128 / STS.128).
#define VXS_VEC_BYTES 16

/// Synchronous 16-byte fill: dst (shared) = *src (global) where `valid`, zeros elsewhere.
/// `src` is dereferenced only where `valid` holds; both pointers are 16-byte aligned.
static __device__ __forceinline__ void vxs_fill16(void* dst, const void* src, int valid) {
  uint4 v = make_uint4(0u, 0u, 0u, 0u);
  if (valid) v = *reinterpret_cast<const uint4*>(src);
  *reinterpret_cast<uint4*>(dst) = v;
}

/// Asynchronous 16-byte fill (PTX cp.async.cg: global -> shared through L2, bypassing L1 and the
/// registers). Where `valid` is 0 the source size is 0 and the 16 bytes are zero-filled without a
/// read (PTX ISA, "cp.async": src-size < cp-size fills the rest with zeros).
static __device__ __forceinline__ void vxs_fill16_async(void* dst, const void* src, int valid) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  const int bytes = valid ? VXS_VEC_BYTES : 0;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(src), "r"(bytes) : "memory");
}

/// Closes the group of asynchronous copies issued since the last commit (one pipeline stage).
static __device__ __forceinline__ void vxs_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

/// Waits until at most `N` committed groups are still in flight (N = stages - 1 keeps the next
/// stage's copies running while this one is computed).
template <int N>
static __device__ __forceinline__ void vxs_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

/// Rounds every element of a TF32 fragment loaded from fp32 shared memory to TF32 (round to
/// nearest, the conversion wmma::__float_to_tf32 does; CUDA C++ Programming Guide, "Element
/// Types and Matrix Sizes": tf32 fragments hold fp32 values that must be converted).
template <class Frag>
static __device__ __forceinline__ void vxs_round_tf32(Frag& f) {
  for (int t = 0; t < f.num_elements; ++t) f.x[t] = nvcuda::wmma::__float_to_tf32(f.x[t]);
}

#endif  // VXS_TC_CUH
