// vxs_driver.cuh: fixed parts of the GPU source-output driver of a CUDA candidate (docs/codegen.md
// "Measured errors"): inputs drawn like the workload or read from files, a float64 reference kernel
// per op family, and the element-wise comparison. The generated driver.cu states the operands, the
// tolerance and the launch, and includes candidate.cu before this header.
#ifndef VXS_DRIVER_CUH
#define VXS_DRIVER_CUH

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "vxs_dims.h"

// Inputs: xorshift64* + Box-Muller; activations N(0, 1), weights and bias N(0, 1/fan_in).
static uint64_t vxs_rng = 1;
static double vxs_uniform01() {
  vxs_rng ^= vxs_rng >> 12; vxs_rng ^= vxs_rng << 25; vxs_rng ^= vxs_rng >> 27;
  return ((vxs_rng * 0x2545F4914F6CDD1Dull) >> 11) * (1.0 / 9007199254740992.0);
}
static double vxs_normal01() {
  const double u1 = vxs_uniform01() + 1e-300, u2 = vxs_uniform01();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

/// Element conversions of the storage type T (float or __nv_bfloat16).
static double vxs_to_d(float v) { return (double)v; }
static double vxs_to_d(__nv_bfloat16 v) { return (double)__bfloat162float(v); }
template <typename T> static T vxs_from_d(double v);
template <> float vxs_from_d<float>(double v) { return (float)v; }
template <> __nv_bfloat16 vxs_from_d<__nv_bfloat16>(double v) { return __float2bfloat16((float)v); }
/// `v` rounded to what a tensor of T stores.
template <typename T> static double vxs_stored(double v) { return vxs_to_d(vxs_from_d<T>(v)); }

/// Raw tensor file of exactly n elements of T (fp32, or bf16 on the BF16 path).
template <typename T> static bool vxs_read_raw(const std::string& path, std::vector<T>& v, long long n) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  v.resize(n);
  const size_t got = std::fread(v.data(), sizeof(T), (size_t)n, f);
  std::fclose(f);
  return got == (size_t)n;
}

/// Float64 references of the op definitions, one thread per output element; in0/in1/in2 are the
/// operands in torch argument order (x, weight, bias or a, b).
__global__ void vxs_ref_linear(const double* x, const double* w, const double* bias, double* out, vxs_dims_t d,
                               long long total, bool relu) {
  const long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (o >= total) return;
  const long long m = o / d.N, n = o % d.N;
  double acc = 0;
  for (int k = 0; k < d.K; ++k) acc += x[m * d.K + k] * w[n * d.K + k];
  if (bias) acc += bias[n];
  if (relu && acc < 0) acc = 0;
  out[o] = acc;
}
__global__ void vxs_ref_bmm(const double* a, const double* b, const double*, double* out, vxs_dims_t d,
                            long long total, bool relu) {
  const long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (o >= total) return;
  const long long z = o / ((long long)d.M * d.N), mn = o % ((long long)d.M * d.N), m = mn / d.N, n = mn % d.N;
  double acc = 0;
  for (int k = 0; k < d.K; ++k) acc += a[z * d.sa + m * d.K + k] * b[z * d.sb + (long long)k * d.N + n];
  if (relu && acc < 0) acc = 0;
  out[o] = acc;
}
__global__ void vxs_ref_conv(const double* x, const double* w, const double* bias, double* out, vxs_dims_t d,
                             long long total, bool relu) {
  const long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (o >= total) return;
  const long long q = o % d.Q, p = (o / d.Q) % d.P, ko = (o / ((long long)d.P * d.Q)) % d.ck,
                  nb = o / ((long long)d.P * d.Q * d.ck);
  const long long g = ko / d.kg;
  double acc = 0;
  for (int c = 0; c < d.cg; ++c)
    for (int r = 0; r < d.cr; ++r)
      for (int t = 0; t < d.cs; ++t) {
        const long long h = p * d.sh - d.ph + r * d.dh, wi = q * d.sw - d.pw + t * d.dw;
        if (h < 0 || h >= d.ch || wi < 0 || wi >= d.cw) continue;
        acc += x[((nb * d.cc + g * d.cg + c) * d.ch + h) * d.cw + wi] * w[((ko * d.cg + c) * d.cr + r) * d.cs + t];
      }
  if (bias) acc += bias[ko];
  if (relu && acc < 0) acc = 0;
  out[o] = acc;
}

/// Outcome of comparing every output element with the float64 reference.
struct VxsComparison {
  long long failed = 0, nonfinite = 0;
  double max_abs = 0, max_rel = 0;
  bool pass = false;
};

/// |c - r| <= atol + rtol |r| for every element; NaN/Inf, an all-zero and a constant output fail.
template <typename T>
static VxsComparison vxs_compare(const std::vector<T>& out, const std::vector<double>& ref, double atol, double rtol) {
  VxsComparison c;
  bool all_zero = true, constant = true;
  const double first = vxs_to_d(out[0]);
  for (size_t e = 0; e < out.size(); ++e) {
    const double v = vxs_to_d(out[e]), r = ref[e];
    if (!std::isfinite(v)) { ++c.nonfinite; ++c.failed; continue; }
    if (v != 0) all_zero = false;
    if (v != first) constant = false;
    const double diff = std::fabs(v - r);
    if (diff > c.max_abs) c.max_abs = diff;
    if (r != 0 && diff / std::fabs(r) > c.max_rel) c.max_rel = diff / std::fabs(r);
    if (!(diff <= atol + rtol * std::fabs(r))) ++c.failed;
  }
  c.pass = c.failed == 0 && !all_zero && !(constant && out.size() > 1);
  return c;
}

/// What the generated driver states about its candidate.
typedef void (*VxsRefKernel)(const double*, const double*, const double*, double*, vxs_dims_t, long long, bool);
struct VxsDriverSpec {
  const char* name;        ///< printed on the RESULT line
  const char* path;        ///< precision path
  vxs_dims_t dims;         ///< the profiled shape
  uint64_t seed;           ///< of the generated inputs
  int n_in;                ///< operands, in torch argument order
  const char* names[3];    ///< DIR/<name>.bin
  long long numel[3];
  bool weight[3];          ///< scaled N(0, 1/fan_in)
  double fan_in;
  long long out_n;         ///< output elements
  size_t ws_bytes;         ///< workspace of the candidate (0: none)
  double atol, rtol;       ///< source-output tolerance of the path
  bool relu;
  VxsRefKernel ref;        ///< reference kernel of the op family
};

#define VXS_CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  std::printf("RESULT %s CUDA error %s at %s\n", s.name, cudaGetErrorString(e_), #x); return 1; } } while (0)

/// Inputs (drawn, or read from DIR/<name>.bin), copied to the device as T and as double.
template <typename T>
static int vxs_driver_inputs(const VxsDriverSpec& s, const std::string& dir, T* dt[3], double* dd[3]) {
  for (int i = 0; i < s.n_in; ++i) {
    std::vector<double> h(s.numel[i]);
    std::vector<T> ht(s.numel[i]);
    const double sc = s.weight[i] ? 1.0 / std::sqrt(s.fan_in) : 1.0;
    if (!dir.empty()) {
      if (!vxs_read_raw(dir + "/" + s.names[i] + ".bin", ht, s.numel[i])) { std::printf("RESULT bad input file %s\n", s.names[i]); return 1; }
      for (long long e = 0; e < s.numel[i]; ++e) h[e] = vxs_to_d(ht[e]);
    } else {
      for (long long e = 0; e < s.numel[i]; ++e) { h[e] = vxs_stored<T>(sc * vxs_normal01()); ht[e] = vxs_from_d<T>(h[e]); }
    }
    VXS_CK(cudaMalloc(&dt[i], s.numel[i] * sizeof(T)));
    VXS_CK(cudaMalloc(&dd[i], s.numel[i] * sizeof(double)));
    VXS_CK(cudaMemcpy(dt[i], ht.data(), s.numel[i] * sizeof(T), cudaMemcpyHostToDevice));
    VXS_CK(cudaMemcpy(dd[i], h.data(), s.numel[i] * sizeof(double), cudaMemcpyHostToDevice));
  }
  return 0;
}

/// `driver [-d DIR]`: inputs, NaN-poisoned output, one checked launch, ten timed launches, the
/// float64 reference, DIR/out.bin (with -d), and one RESULT line; returns 0 on PASS, 2 on FAIL.
template <typename T>
static int vxs_run_driver(const VxsDriverSpec& s, int (*launch)(T* const* in, T* out, float* ws, const vxs_dims_t& d),
                          int argc, char** argv) {
  const std::string dir = (argc == 3 && std::string(argv[1]) == "-d") ? argv[2] : "";
  vxs_rng = s.seed;
  T* dt[3] = {nullptr, nullptr, nullptr};
  double* dd[3] = {nullptr, nullptr, nullptr};
  if (vxs_driver_inputs(s, dir, dt, dd) != 0) return 1;
  T* out = nullptr; double* ref = nullptr; float* ws = nullptr;
  VXS_CK(cudaMalloc(&out, s.out_n * sizeof(T)));
  VXS_CK(cudaMemset(out, 0xFF, s.out_n * sizeof(T)));  // NaN poison: every element must be written
  VXS_CK(cudaMalloc(&ref, s.out_n * sizeof(double)));
  if (s.ws_bytes) { VXS_CK(cudaMalloc(&ws, s.ws_bytes)); VXS_CK(cudaMemset(ws, 0xFF, s.ws_bytes)); }
  VXS_CK((cudaError_t)launch(dt, out, ws, s.dims));
  VXS_CK(cudaDeviceSynchronize());
  cudaEvent_t e0, e1; VXS_CK(cudaEventCreate(&e0)); VXS_CK(cudaEventCreate(&e1));
  VXS_CK(cudaEventRecord(e0));
  for (int it = 0; it < 10; ++it) (void)launch(dt, out, ws, s.dims);
  VXS_CK(cudaEventRecord(e1)); VXS_CK(cudaEventSynchronize(e1));
  float ms = 0; VXS_CK(cudaEventElapsedTime(&ms, e0, e1));
  s.ref<<<(unsigned)((s.out_n + 255) / 256), 256>>>(dd[0], dd[1], dd[2], ref, s.dims, s.out_n, s.relu);
  VXS_CK(cudaGetLastError());
  VXS_CK(cudaDeviceSynchronize());
  std::vector<T> ho(s.out_n); std::vector<double> hr(s.out_n);
  VXS_CK(cudaMemcpy(ho.data(), out, s.out_n * sizeof(T), cudaMemcpyDeviceToHost));
  VXS_CK(cudaMemcpy(hr.data(), ref, s.out_n * sizeof(double), cudaMemcpyDeviceToHost));
  if (!dir.empty()) {
    FILE* f = std::fopen((dir + "/out.bin").c_str(), "wb");
    if (!f || std::fwrite(ho.data(), sizeof(T), (size_t)s.out_n, f) != (size_t)s.out_n) { std::printf("RESULT cannot write out.bin\n"); return 1; }
    std::fclose(f);
  }
  const VxsComparison c = vxs_compare(ho, hr, s.atol, s.rtol);
  std::printf("RESULT %s path=%s elements=%lld max_abs=%.3e max_rel=%.3e failed=%lld non_finite=%lld time_us=%.1f %s\n",
              s.name, s.path, s.out_n, c.max_abs, c.max_rel, c.failed, c.nonfinite, ms * 100.0, c.pass ? "PASS" : "FAIL");
  return c.pass ? 0 : 2;
}

#undef VXS_CK

#endif  // VXS_DRIVER_CUH
