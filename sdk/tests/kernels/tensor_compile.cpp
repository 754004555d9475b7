// Compile/link check of vx_tensor.h for every warp width (2..32) and several format pairs; it is
// not run (WMMA execution lands in the simulator later). main() returns 0 without using the TCU.
#include <vx_tensor.h>
#include <vx_spawn.h>
using namespace vortex::tensor;
template <uint32_t NT> __attribute__((noinline)) void run(const void* a, const void* b, float* c) {
  using ctx = wmma_context<NT, fp16, fp32>;
  typename ctx::fragment_a fa; typename ctx::fragment_b fb; typename ctx::fragment_acc fc;
  ctx::fill_fragment(fc, 0.0f);
  ctx::load_matrix_sync(fa, a, ctx::tileK);
  ctx::template load_matrix_sync<col_major>(fb, b, ctx::tileK);
  ctx::mma_sync(fc, fa, fb, fc);
  ctx::store_matrix_sync(c, fc, ctx::tileN);
}
template void run<4>(const void*, const void*, float*);
template void run<8>(const void*, const void*, float*);
template void run<16>(const void*, const void*, float*);
template void run<32>(const void*, const void*, float*);
template void run<2>(const void*, const void*, float*);
void r2(const void* a, const void* b, int32_t* c) {
  using ctx = wmma_context<8, int8, int32>;
  ctx::fragment_a fa; ctx::fragment_b fb; ctx::fragment_acc fc;
  ctx::fill_fragment(fc, 0.0f); ctx::fill_fragment(fa, 1.0f);
  ctx::load_matrix_sync(fb, b, 8); ctx::mma_sync(fc, fa, fb, fc); ctx::store_matrix_sync(c, fc, 8); (void)a;
  using c2 = wmma_context<4, bf16, bf16>; c2::fragment_acc x; c2::fill_fragment(x, 1.5f);
  c2::store_matrix_sync(c, x, 4);
}
int main() {
  // reference every instantiation so the linker keeps them (and checks them) without running them
  volatile uintptr_t keep = reinterpret_cast<uintptr_t>(&run<4>) ^ reinterpret_cast<uintptr_t>(&run<8>) ^
      reinterpret_cast<uintptr_t>(&run<16>) ^ reinterpret_cast<uintptr_t>(&run<32>) ^
      reinterpret_cast<uintptr_t>(&run<2>) ^ reinterpret_cast<uintptr_t>(&r2);
  (void)keep;
  return 0;
}
