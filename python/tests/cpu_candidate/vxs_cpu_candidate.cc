// A CPU implementation of codegen's candidate C ABI (codegen/include/vxsynth/codegen/emit.h,
// cuda_c_api_declarations) for the tests of the in-workload swap without a GPU: the same
// vxs_workspace_bytes / vxs_launch entry points, host pointers instead of device pointers, the
// stream ignored. fp32 storage with fp32 accumulation in ascending k (a SIMT candidate's order);
// with -DVXS_CPU_BF16 the operands and output are bfloat16 bits (fp32 accumulate, round to nearest
// even). Returns 11 (cudaErrorInvalidValue) on a null operand, like the generated launch.
// Build: c++ -O2 -shared -fPIC vxs_cpu_candidate.cc -o libvxs_cpu_linear.so
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace {
#ifdef VXS_CPU_BF16
typedef uint16_t T;
float ld(const T* p, long long i) {
  uint32_t u = static_cast<uint32_t>(p[i]) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
void st(T* p, long long i, float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  p[i] = static_cast<T>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}
#else
typedef float T;
float ld(const T* p, long long i) { return p[i]; }
void st(T* p, long long i, float f) { p[i] = f; }
#endif
constexpr int kInvalidValue = 11;  // cudaErrorInvalidValue
}  // namespace

// CPU_FAMILY selects which family's ABI this library exports (one family per library, as a candidate).
#if !defined(VXS_CPU_LINEAR) && !defined(VXS_CPU_BMM) && !defined(VXS_CPU_CONV)
#define VXS_CPU_LINEAR
#endif

#ifdef VXS_CPU_LINEAR
extern "C" size_t vxs_workspace_bytes(int, int, int) { return 0; }
extern "C" int vxs_launch(const T* x, const T* w, const T* bias, T* out, float*, int M, int N, int K, void*) {
  if (!x || !w || !out) return kInvalidValue;
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      float acc = 0.f;
      for (int k = 0; k < K; ++k) acc += ld(x, (long long)m * K + k) * ld(w, (long long)n * K + k);
      st(out, (long long)m * N + n, acc + (bias ? ld(bias, n) : 0.f));
    }
  return 0;
}
#endif

#ifdef VXS_CPU_BMM
extern "C" size_t vxs_workspace_bytes(int, int, int, int, long long, long long) { return 0; }
extern "C" int vxs_launch(const T* a, const T* b, T* out, float*, int Z, int M, int N, int K, long long sa,
                          long long sb, void*) {
  if (!a || !b || !out) return kInvalidValue;
  for (int z = 0; z < Z; ++z)
    for (int m = 0; m < M; ++m)
      for (int n = 0; n < N; ++n) {
        float acc = 0.f;
        for (int k = 0; k < K; ++k) acc += ld(a, z * sa + (long long)m * K + k) * ld(b, z * sb + (long long)k * N + n);
        st(out, ((long long)z * M + m) * N + n, acc);
      }
  return 0;
}
#endif

#ifdef VXS_CPU_CONV
extern "C" size_t vxs_workspace_bytes(int, int, int, int, int, int, int, int, int, int, int, int, int, int) {
  return 0;
}
extern "C" int vxs_launch(const T* x, const T* w, const T* bias, T* out, float*, int N, int C, int H, int W, int K,
                          int R, int S, int sh, int sw, int ph, int pw, int dh, int dw, int groups, void*) {
  if (!x || !w || !out || groups <= 0) return kInvalidValue;
  const int P = (H + 2 * ph - dh * (R - 1) - 1) / sh + 1, Q = (W + 2 * pw - dw * (S - 1) - 1) / sw + 1;
  const int cg = C / groups, kg = K / groups;
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k)
      for (int p = 0; p < P; ++p)
        for (int q = 0; q < Q; ++q) {
          float acc = 0.f;
          const int g = k / kg;
          for (int c = 0; c < cg; ++c)
            for (int r = 0; r < R; ++r)
              for (int s = 0; s < S; ++s) {
                const int h = p * sh - ph + r * dh, wi = q * sw - pw + s * dw;
                if (h < 0 || h >= H || wi < 0 || wi >= W) continue;
                acc += ld(x, (((long long)n * C + g * cg + c) * H + h) * W + wi) *
                       ld(w, (((long long)k * cg + c) * R + r) * S + s);
              }
          st(out, (((long long)n * K + k) * P + p) * Q + q, acc + (bias ? ld(bias, k) : 0.f));
        }
  return 0;
}
#endif
