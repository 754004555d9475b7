// Vortex candidate: kernel.cpp + main.cpp + common.h + Makefile in Vortex's tests/regression
// layout (vortex-2x.md §4.2, §5, §6).
#include <fmt/format.h>

#include "emit_common.h"
#include "vxsynth/check/inputs.h"
#include "vxsynth/codegen/emit.h"
#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"

namespace vxsynth::codegen {

using detail::Dialect;
using detail::Plan;

const SourceFile& Candidate::file(const std::string& name) const {
  for (const auto& f : files) {
    if (f.name == name) return f;
  }
  throw make_error("candidate has no file '{}'", name);
}

void write_candidate(const std::filesystem::path& dir, const Candidate& c) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw make_error("{}: cannot create candidate directory: {}", dir.string(), ec.message());
  for (const auto& f : c.files) write_file_atomic(dir / f.name, f.text);
}

namespace {

/// Element type of each operand in device memory on the Vortex side.
enum class DevType { kF32, kF16, kBf16 };

DevType dev_type(const Plan& pl, const check::OperandInfo& info) {
  if (pl.bf16) return DevType::kBf16;
  if (pl.tf32 && info.role != check::OperandRole::kBias) return DevType::kF16;  // Vortex TCU has no TF32
  return DevType::kF32;
}

const char* dev_type_name(DevType t) {
  switch (t) {
    case DevType::kF32: return "VXS_F32";
    case DevType::kF16: return "VXS_F16";
    case DevType::kBf16: return "VXS_BF16";
  }
  return "?";
}

std::string common_h(const DesignPoint& p, const Plan& pl) {
  std::string s = detail::emit_banner(p, "Vortex candidate common.h (host and kernel)");
  s += "#ifndef VXS_COMMON_H\n#define VXS_COMMON_H\n\n#include <stdint.h>\n\n";
  s += detail::emit_dims_struct();
  s += fmt::format("\n#define VXS_DIMS {}  // the profiled shape\n", detail::dims_initializer(p.fixed.op));
  s += fmt::format("#define VXS_BLOCK_SIZE {}   // threads per block (fixed property 3)\n", p.fixed.block_size);
  s += fmt::format("#define VXS_NUM_THREADS {}  // Vortex warp width this candidate was generated for\n",
                   p.vortex.threads);
  s += fmt::format("#define VXS_LAUNCHES {}     // 2 = GEMM + reduce/epilogue kernel (split-K or separate epilogue)\n",
                   detail::workspace_floats(p) > 0 ? 2 : 1);
  s += "\n/// Kernel arguments; identical layout on the 64-bit host and the RV32 device (64-bit fields first).\n";
  s += "typedef struct {\n";
  s += fmt::format("  uint64_t a_addr;     // GEMM A = {}\n", pl.a_name);
  s += fmt::format("  uint64_t b_addr;     // GEMM B = {}\n", pl.b_name);
  s += "  uint64_t bias_addr;  // bias (0 when the op has none)\n";
  s += "  uint64_t out_addr;   // output\n";
  s += "  uint64_t ws_addr;    // fp32 split-K / epilogue workspace (0 when unused)\n";
  s += "  uint32_t grid_dim[3];\n  uint32_t block_dim[3];\n";
  s += "  uint32_t phase;      // 0 = GEMM kernel, 1 = reduce/epilogue kernel\n";
  s += "  vxs_dims_t dims;\n} kernel_arg_t;\n\n#endif  // VXS_COMMON_H\n";
  (void)pl;
  return s;
}

std::string kernel_cpp(const DesignPoint& p, const Plan& pl) {
  const bool spec = p.axes.k_range == KRange::kSpecialized;
  std::string s = detail::emit_banner(p, "Vortex candidate kernel.cpp");
  s += "// Divergence-safe for GCC-built kernels (vortex-2x.md §10, §12): no thread-dependent branch,\n";
  s += "// loop bound, ?:, min or max; edges use predicated accesses (vx_vote_any + PRED/TMC) or clamped indices.\n";
  s += "#include <stdint.h>\n#include <math.h>\n#include <vx_intrinsics.h>\n#include <vx_spawn.h>\n";
  if (pl.tc) s += "#include <vx_tensor.h>\n";
  s += "#include \"common.h\"\n\n";
  s += detail::emit_tile_defines(pl);
  if (pl.tc) {
    s += fmt::format("\n// Vortex TCU (vortex-2x.md §7.1): {} inputs, fp32 accumulate; tile FM x FN x FK for warp width {}.\n",
                     pl.bf16 ? "bf16" : "fp16 (the TF32 reference's operands, rounded on the host)", p.vortex.threads);
    s += fmt::format("typedef vortex::tensor::wmma_context<{}, vortex::tensor::{}, vortex::tensor::fp32> vxs_ctx;\n",
                     p.vortex.threads, pl.bf16 ? "bf16" : "fp16");
    s += "static_assert(vxs_ctx::tileM == FM && vxs_ctx::tileN == FN && vxs_ctx::tileK == FK,\n"
         "              \"generator and SDK disagree on the TCU tile shape\");\n";
  }
  s += "\n" + detail::emit_device_helpers(pl);
  const std::string bias_t = pl.bf16 ? "uint16_t" : "float";
  const std::string dims_decl = spec ? "  constexpr vxs_dims_t d = VXS_DIMS;  // axis k_range = specialized\n"
                                     : "  const vxs_dims_t d = arg->dims;    // axis k_range = generic\n";
  s += "\nstatic void vxs_gemm_kernel(kernel_arg_t* arg) {\n";
  s += fmt::format("  const {0}* A = (const {0}*)(uintptr_t)arg->a_addr;\n", pl.in_t);
  s += fmt::format("  const {0}* B = (const {0}*)(uintptr_t)arg->b_addr;\n", pl.in_t);
  s += fmt::format("  const {0}* bias = (const {0}*)(uintptr_t)arg->bias_addr;\n", bias_t);
  s += fmt::format("  {0}* out = ({0}*)(uintptr_t)arg->out_addr;\n", pl.out_t);
  s += "  float* ws = (float*)(uintptr_t)arg->ws_addr;\n";
  s += "  (void)bias; (void)out; (void)ws;\n";
  s += dims_decl;
  s += detail::emit_gemm_body(pl) + "}\n";
  if (pl.two_launch) {
    s += "\nstatic void vxs_epilogue_kernel(kernel_arg_t* arg) {\n";
    s += fmt::format("  const {0}* bias = (const {0}*)(uintptr_t)arg->bias_addr;\n", bias_t);
    s += fmt::format("  {0}* out = ({0}*)(uintptr_t)arg->out_addr;\n", pl.out_t);
    s += "  const float* ws = (const float*)(uintptr_t)arg->ws_addr;\n  (void)bias;\n";
    s += dims_decl;
    s += detail::emit_epilogue_body(pl) + "}\n";
  }
  s += "\nint main() {\n";
  s += "  kernel_arg_t* arg = (kernel_arg_t*)csr_read(VX_CSR_MSCRATCH);\n";
  if (pl.two_launch) {
    s += "  if (arg->phase == 1)\n";
    s += "    return vx_spawn_threads(1, arg->grid_dim, arg->block_dim, (vx_kernel_func_cb)vxs_epilogue_kernel, arg);\n";
  }
  s += "  return vx_spawn_threads(3, arg->grid_dim, arg->block_dim, (vx_kernel_func_cb)vxs_gemm_kernel, arg);\n}\n";
  return s;
}

/// The CPU reference of main.cpp's standalone self-check (double accumulation).
std::string host_reference(const DesignPoint& p) {
  const auto& op = p.fixed.op;
  std::string s = "/// CPU reference in double precision (the op's definition; docs/equivalence.md).\n";
  s += "static void cpu_reference(const std::vector<std::vector<double>>& in, std::vector<double>& out) {\n";
  s += "  const vxs_dims_t d = VXS_DIMS;\n";
  const std::string act = op.activation == check::Activation::kRelu ? "      if (acc < 0) acc = 0;\n" : "";
  switch (op.family) {
    case check::OpFamily::kLinear:
      s += "  for (int m = 0; m < d.M; ++m)\n    for (int n = 0; n < d.N; ++n) {\n      double acc = 0;\n";
      s += "      for (int k = 0; k < d.K; ++k) acc += in[0][(size_t)m * d.K + k] * in[1][(size_t)n * d.K + k];\n";
      if (op.has_bias) s += "      acc += in[2][n];\n";
      s += act + "      out[(size_t)m * d.N + n] = acc;\n    }\n";
      break;
    case check::OpFamily::kMatmul:
    case check::OpFamily::kBmm:
      s += "  for (int z = 0; z < d.Z; ++z)\n  for (int m = 0; m < d.M; ++m)\n    for (int n = 0; n < d.N; ++n) {\n      double acc = 0;\n";
      s += "      for (int k = 0; k < d.K; ++k) acc += in[0][(size_t)z * d.sa + (size_t)m * d.K + k] * in[1][(size_t)z * d.sb + (size_t)k * d.N + n];\n";
      s += act + "      out[((size_t)z * d.M + m) * d.N + n] = acc;\n    }\n";
      break;
    case check::OpFamily::kConv1d:
    case check::OpFamily::kConv2d:
      s += "  for (int nb = 0; nb < d.cn; ++nb)\n  for (int ko = 0; ko < d.ck; ++ko)\n";
      s += "  for (int p = 0; p < d.P; ++p)\n    for (int q = 0; q < d.Q; ++q) {\n      double acc = 0;\n";
      s += "      const int g = ko / d.kg;\n";
      s += "      for (int c = 0; c < d.cg; ++c)\n        for (int r = 0; r < d.cr; ++r)\n          for (int t = 0; t < d.cs; ++t) {\n";
      s += "            const int h = p * d.sh - d.ph + r * d.dh, w = q * d.sw - d.pw + t * d.dw;\n";
      s += "            if (h < 0 || h >= d.ch || w < 0 || w >= d.cw) continue;\n";
      s += "            acc += in[0][(((size_t)nb * d.cc + g * d.cg + c) * d.ch + h) * d.cw + w] *\n";
      s += "                   in[1][(((size_t)ko * d.cg + c) * d.cr + r) * d.cs + t];\n          }\n";
      if (op.has_bias) s += "      acc += in[2][ko];\n";
      s += act + "      out[(((size_t)nb * d.ck + ko) * d.P + p) * d.Q + q] = acc;\n    }\n";
      break;
  }
  s += "}\n";
  return s;
}

std::string main_cpp(const DesignPoint& p, const Plan& pl) {
  const auto ops = check::operands(p.fixed.op);
  const auto tol = check::tolerance(p.fixed.path, check::CheckKind::kCandidate);
  const auto gr = detail::grids(p);
  const int64_t ws = detail::workspace_floats(p);
  const int64_t out_n = check::output_numel(p.fixed.op);
  std::string s = detail::emit_banner(p, "Vortex candidate main.cpp (host)");
  s += R"(// Usage: ./<project> [-d DIR]
//   no -d: draw inputs here, run, self-check against the CPU reference; exit code = mismatches.
//   -d DIR: read DIR/<operand>.bin (raw little-endian; fp32, or bf16 on the BF16 path), run, write
//           DIR/out.bin, print the same self-check; exit code 0 when the run itself succeeded.
#include <vortex.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "common.h"

enum VxsType { VXS_F32, VXS_F16, VXS_BF16 };
struct Operand {
  const char* name;
  size_t numel;
  bool weight;       // scaled N(0, 1/fan_in) in standalone runs; activations N(0, 1)
  VxsType file_type;  // element type of DIR/<name>.bin
  VxsType dev_type;   // element type in device memory
};
)";
  s += "static const Operand kOperands[] = {\n";
  for (const auto& o : ops) {
    s += fmt::format("  {{\"{}\", {}u, {}, {}, {}}},\n", o.name, o.numel(),
                     o.role == check::OperandRole::kActivation ? "false" : "true",
                     pl.bf16 ? "VXS_BF16" : "VXS_F32", dev_type_name(dev_type(pl, o)));
  }
  s += "};\n";
  s += fmt::format("static const int kNumOperands = {};\n", ops.size());
  auto idx_of = [&](const std::string& name) -> int {
    for (size_t i = 0; i < ops.size(); ++i) {
      if (ops[i].name == name) return static_cast<int>(i);
    }
    return -1;
  };
  s += fmt::format("static const int kA = {}, kB = {}, kBias = {};  // operand indices of GEMM A, B and the bias\n",
                   idx_of(pl.a_name), idx_of(pl.b_name), idx_of("bias"));
  s += fmt::format("static const size_t kOutNumel = {}u;\nstatic const VxsType kOutType = {};\n", out_n,
                   pl.bf16 ? "VXS_BF16" : "VXS_F32");
  s += fmt::format("static const size_t kWorkspaceFloats = {}u;\n", ws);
  s += fmt::format("static const double kFanIn = {};\n", p.fixed.op.fan_in());
  s += fmt::format("// Candidate-check tolerance of the {} path (docs/signature-and-tolerances.md §4).\n",
                   check::to_string(p.fixed.path));
  s += fmt::format("static const double kAtol = {:g}, kRtol = {:g};\n", tol.atol, tol.rtol);
  s += fmt::format("static const uint32_t kGrid[3] = {{{}u, {}u, {}u}};\n", gr.gx, gr.gy, gr.gz);
  s += fmt::format("static const uint32_t kEpilogueBlocks = {}u;\n", gr.epi_blocks);
  s += fmt::format("static const bool kNeedsWarpWidth = {};  // TCU tile / block_decomp depend on the warp width\n",
                   (pl.tc || p.axes.warp_rows != 0) ? "true" : "false");
  s += R"(
static vx_device_h device = nullptr;
static std::vector<vx_buffer_h> buffers;

static void cleanup() {
  for (vx_buffer_h b : buffers) vx_mem_free(b);
  buffers.clear();
  if (device) vx_dev_close(device);  // prints the PERF lines
  device = nullptr;
}

#define RT_CHECK(expr)                                                      \
  do {                                                                      \
    int rt_ret_ = (expr);                                                   \
    if (rt_ret_ == 0) break;                                                \
    std::fprintf(stderr, "Error: '%s' returned %d!\n", #expr, rt_ret_);     \
    cleanup();                                                              \
    std::exit(-1);                                                          \
  } while (0)

static uint32_t f2u(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
static float u2f(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
static uint16_t f2bf(float f) {  // round to nearest even
  uint32_t u = f2u(f);
  if (std::isnan(f)) return (uint16_t)((u >> 16) | 0x40u);
  return (uint16_t)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}
static float bf2f(uint16_t h) { return u2f((uint32_t)h << 16); }
static uint16_t f2h(float f) {  // binary16, round to nearest even
  const uint32_t u = f2u(f), sign = (u >> 16) & 0x8000u, a = u & 0x7FFFFFFFu;
  if (a > 0x7F800000u) return (uint16_t)(sign | 0x7E00u);
  if (a >= 0x477FF000u) return (uint16_t)(sign | 0x7C00u);
  if (a < 0x38800000u) return (uint16_t)(sign | (uint32_t)std::nearbyint(u2f(a) * 16777216.0f));
  return (uint16_t)(sign | ((a + 0xFFFu + ((a >> 13) & 1u) - (112u << 23)) >> 13));
}
static size_t type_bytes(VxsType t) { return t == VXS_F32 ? 4 : 2; }
static double decode(const uint8_t* p, VxsType t) {
  if (t == VXS_F32) { uint32_t u; std::memcpy(&u, p, 4); return u2f(u); }
  uint16_t h; std::memcpy(&h, p, 2);
  return bf2f(h);  // files are fp32 or bf16 only
}
static void encode(double v, VxsType t, uint8_t* p) {
  if (t == VXS_F32) { uint32_t u = f2u((float)v); std::memcpy(p, &u, 4); return; }
  uint16_t h = t == VXS_BF16 ? f2bf((float)v) : f2h((float)v);
  std::memcpy(p, &h, 2);
}
static double round_to(double v, VxsType t) {
  return t == VXS_BF16 ? bf2f(f2bf((float)v)) : (double)(float)v;
}

static bool read_tensor(const std::string& path, std::vector<double>& v, size_t numel, VxsType t) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) { std::fprintf(stderr, "Error: cannot open %s\n", path.c_str()); return false; }
  std::vector<uint8_t> bytes(numel * type_bytes(t) + 1);
  const size_t got = std::fread(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
  if (got != numel * type_bytes(t)) {
    std::fprintf(stderr, "Error: %s has %zu bytes, expected %zu\n", path.c_str(), got, numel * type_bytes(t));
    return false;
  }
  v.resize(numel);
  for (size_t i = 0; i < numel; ++i) v[i] = decode(&bytes[i * type_bytes(t)], t);
  return true;
}

static bool write_tensor(const std::string& path, const std::vector<double>& v, VxsType t) {
  std::vector<uint8_t> bytes(v.size() * type_bytes(t));
  for (size_t i = 0; i < v.size(); ++i) encode(v[i], t, &bytes[i * type_bytes(t)]);
  const std::string tmp = path + ".tmp";
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) return false;
  const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  if (std::fclose(f) != 0 || !ok) return false;
  return std::rename(tmp.c_str(), path.c_str()) == 0;
}

// Standalone inputs: xorshift64* + Box-Muller, scaled like the workload (weights ~ N(0, 1/fan_in)).
static uint64_t rng_state = 0x243F6A8885A308D3ull;
static double uniform01() {
  rng_state ^= rng_state >> 12; rng_state ^= rng_state << 25; rng_state ^= rng_state >> 27;
  return ((rng_state * 0x2545F4914F6CDD1Dull) >> 11) * (1.0 / 9007199254740992.0);
}
static double normal01() {
  const double u1 = uniform01() + 1e-300, u2 = uniform01();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

)";
  s += host_reference(p);
  s += R"(
int main(int argc, char** argv) {
  std::string dir;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "-d") == 0 && i + 1 < argc) {
      dir = argv[++i];
    } else {
      std::fprintf(stderr, "usage: %s [-d DIR]\n", argv[0]);
      return -1;
    }
  }
  // 1. Inputs, as the exact values of the stored tensors.
  std::vector<std::vector<double>> in(kNumOperands);
  for (int i = 0; i < kNumOperands; ++i) {
    const Operand& o = kOperands[i];
    if (!dir.empty()) {
      if (!read_tensor(dir + "/" + o.name + ".bin", in[i], o.numel, o.file_type)) return -1;
    } else {
      in[i].resize(o.numel);
      const double scale = o.weight ? 1.0 / std::sqrt(kFanIn) : 1.0;
      for (double& v : in[i]) v = round_to(scale * normal01(), o.file_type);
    }
  }

  // 2. Device and its shape.
  RT_CHECK(vx_dev_open(&device));
  uint64_t num_threads = 0, num_warps = 0;
  RT_CHECK(vx_dev_caps(device, VX_CAPS_NUM_THREADS, &num_threads));
  RT_CHECK(vx_dev_caps(device, VX_CAPS_NUM_WARPS, &num_warps));
  if (num_threads * num_warps < VXS_BLOCK_SIZE) {
    std::fprintf(stderr, "Error: device has %u warps x %u threads per core; the candidate's block size is %d\n",
                 (unsigned)num_warps, (unsigned)num_threads, VXS_BLOCK_SIZE);
    cleanup();
    return -1;
  }
  if (kNeedsWarpWidth && num_threads != VXS_NUM_THREADS) {
    std::fprintf(stderr, "Error: device warp width is %u; this candidate was generated for %d\n",
                 (unsigned)num_threads, VXS_NUM_THREADS);
    cleanup();
    return -1;
  }

  // 3. Device buffers. Inputs are read-only; the output and workspace are poisoned with NaN.
  kernel_arg_t arg;
  std::memset(&arg, 0, sizeof arg);
  uint64_t addr[8] = {0};
  for (int i = 0; i < kNumOperands; ++i) {
    const Operand& o = kOperands[i];
    std::vector<uint8_t> bytes(o.numel * type_bytes(o.dev_type));
    for (size_t e = 0; e < o.numel; ++e) encode(in[i][e], o.dev_type, &bytes[e * type_bytes(o.dev_type)]);
    vx_buffer_h buf;
    RT_CHECK(vx_mem_alloc(device, bytes.size(), VX_MEM_READ, &buf));
    buffers.push_back(buf);
    RT_CHECK(vx_mem_address(buf, &addr[i]));
    RT_CHECK(vx_copy_to_dev(buf, bytes.data(), 0, bytes.size()));
  }
  arg.a_addr = addr[kA];
  arg.b_addr = addr[kB];
  arg.bias_addr = kBias >= 0 ? addr[kBias] : 0;
  std::vector<double> poison(kOutNumel, NAN);
  std::vector<uint8_t> out_bytes(kOutNumel * type_bytes(kOutType));
  for (size_t e = 0; e < kOutNumel; ++e) encode(poison[e], kOutType, &out_bytes[e * type_bytes(kOutType)]);
  vx_buffer_h out_buf;
  RT_CHECK(vx_mem_alloc(device, out_bytes.size(), VX_MEM_READ_WRITE, &out_buf));
  buffers.push_back(out_buf);
  RT_CHECK(vx_mem_address(out_buf, &arg.out_addr));
  RT_CHECK(vx_copy_to_dev(out_buf, out_bytes.data(), 0, out_bytes.size()));
  if (kWorkspaceFloats > 0) {
    std::vector<float> ws_poison(kWorkspaceFloats, NAN);
    vx_buffer_h ws_buf;
    RT_CHECK(vx_mem_alloc(device, kWorkspaceFloats * 4, VX_MEM_READ_WRITE, &ws_buf));
    buffers.push_back(ws_buf);
    RT_CHECK(vx_mem_address(ws_buf, &arg.ws_addr));
    RT_CHECK(vx_copy_to_dev(ws_buf, ws_poison.data(), 0, kWorkspaceFloats * 4));
  }
  const vxs_dims_t dims = VXS_DIMS;
  arg.dims = dims;

  // 4. Kernel: launch 1 (GEMM), then launch 2 (reduce/epilogue) when the design has one.
  vx_buffer_h krnl;
  RT_CHECK(vx_upload_kernel_file(device, "kernel.vxbin", &krnl));
  buffers.push_back(krnl);
  for (int phase = 0; phase < VXS_LAUNCHES; ++phase) {
    arg.phase = (uint32_t)phase;
    arg.block_dim[0] = VXS_BLOCK_SIZE;
    arg.block_dim[1] = arg.block_dim[2] = 1;
    if (phase == 0) {
      for (int k = 0; k < 3; ++k) arg.grid_dim[k] = kGrid[k];
    } else {
      arg.grid_dim[0] = kEpilogueBlocks;
      arg.grid_dim[1] = arg.grid_dim[2] = 1;
    }
    vx_buffer_h args_buf;
    RT_CHECK(vx_upload_bytes(device, &arg, sizeof arg, &args_buf));
    RT_CHECK(vx_start(device, krnl, args_buf));
    RT_CHECK(vx_ready_wait(device, VX_MAX_TIMEOUT));
    vx_mem_free(args_buf);
  }

  // 5. Output.
  RT_CHECK(vx_copy_from_dev(out_bytes.data(), out_buf, 0, out_bytes.size()));
  std::vector<double> out(kOutNumel);
  for (size_t e = 0; e < kOutNumel; ++e) out[e] = decode(&out_bytes[e * type_bytes(kOutType)], kOutType);
  if (!dir.empty() && !write_tensor(dir + "/out.bin", out, kOutType)) {
    std::fprintf(stderr, "Error: cannot write %s/out.bin\n", dir.c_str());
    cleanup();
    return -1;
  }

  // 6. Self-check against the CPU reference: every element, NaN never passes.
  std::vector<double> ref(kOutNumel);
  cpu_reference(in, ref);
  int errors = 0;
  double max_abs = 0, max_rel = 0;
  for (size_t e = 0; e < kOutNumel; ++e) {
    const double diff = std::fabs(out[e] - ref[e]);
    if (!std::isfinite(out[e]) || !(diff <= kAtol + kRtol * std::fabs(ref[e]))) {
      if (errors < 10) std::printf("*** error: [%zu] expected=%.9g, actual=%.9g\n", e, ref[e], out[e]);
      ++errors;
      continue;
    }
    if (diff > max_abs) max_abs = diff;
    if (ref[e] != 0 && diff / std::fabs(ref[e]) > max_rel) max_rel = diff / std::fabs(ref[e]);
  }
  std::printf("self-check: %zu elements, max_abs=%.3e max_rel=%.3e (atol %g, rtol %g)\n", kOutNumel, max_abs,
              max_rel, kAtol, kRtol);
  cleanup();
  if (errors != 0) {
    std::printf("Found %d errors!\nFAILED!\n", errors);
  } else {
    std::printf("PASSED!\n");
  }
  return dir.empty() ? errors : 0;
}
)";
  return s;
}

std::string makefile(const DesignPoint& p) {
  std::string s = fmt::format("# Vortex candidate {} — generated by vxsynth codegen (docs/codegen.md).\n", slug(p));
  s += R"(# Build with the vxsynth SDK:     make VXSDK=<vxsynth build dir>/sdk     (includes $(VXSDK)/sdk.mk)
# Build against a real Vortex 2.x: make VORTEX_HOME=<vortex source> [VORTEX_BUILD=<vortex build dir>]
#                                  then `make run-simx` (vortex-2x.md §6.1-6.3)
# Run: make run [OPTS="-d DIR"]    (or ./vxs_candidate [-d DIR] with the VXSIM_* shape below exported;
#                                  kernel.vxbin must be in the working directory)
PROJECT := vxs_candidate
SRC_DIR := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
SRCS := $(SRC_DIR)/main.cpp
VX_SRCS := $(SRC_DIR)/kernel.cpp
OPTS ?=
)";
  s += fmt::format(
      "# Device shape the candidate was designed for (its block must fit one core's warps x threads);\n"
      "# on a real Vortex build the driver with CONFIGS=\"-DNUM_CORES={0} -DNUM_WARPS={1} -DNUM_THREADS={2}\".\n"
      "VXSIM_CORES ?= {0}\nVXSIM_WARPS ?= {1}\nVXSIM_THREADS ?= {2}\n"
      "export VXSIM_CORES VXSIM_WARPS VXSIM_THREADS\n\n",
      p.vortex.cores, p.vortex.warps, p.vortex.threads);
  s += R"(ifdef VORTEX_HOME
# Real Vortex: its config.mk and tests/regression/common.mk provide the toolchain, flags, link
# script, vxbin.py, libvortex and the run-simx target.
VORTEX_BUILD ?= $(VORTEX_HOME)/build
ROOT_DIR := $(VORTEX_BUILD)
include $(ROOT_DIR)/config.mk
VX_CFLAGS += -I$(SRC_DIR) -fno-jump-tables
CXXFLAGS += -I$(SRC_DIR)
include $(ROOT_DIR)/tests/regression/common.mk
else
ifndef VXSDK
$(error set VXSDK=<vxsynth build dir>/sdk (holding sdk.mk), or VORTEX_HOME to a Vortex 2.x tree)
endif
HOST_PROG := $(PROJECT)
HOST_SRCS := $(SRCS)
HOST_EXTRA_CFLAGS += -I$(SRC_DIR)
VX_EXTRA_CFLAGS += -I$(SRC_DIR)
include $(VXSDK)/sdk.mk
.DEFAULT_GOAL := all

all: $(PROJECT) kernel.vxbin kernel.dump

kernel.elf: $(SRC_DIR)/common.h
$(PROJECT): $(SRC_DIR)/common.h

run: all
	./$(PROJECT) $(OPTS)

clean:
	rm -f $(PROJECT) kernel.elf kernel.vxbin kernel.dump

.PHONY: all run clean
endif
)";
  return s;
}

}  // namespace

Candidate emit_vortex(const DesignPoint& p) {
  validate(p);
  for (const auto& o : check::operands(p.fixed.op)) {
    if (o.numel() >= (int64_t{1} << 31)) {
      throw make_error("{}: operand '{}' has {} elements; generated kernels index with int32", slug(p), o.name,
                       o.numel());
    }
  }
  const Plan pl = detail::make_plan(p, Dialect::kVortex);
  Candidate c;
  c.files.push_back({"common.h", common_h(p, pl)});
  c.files.push_back({"kernel.cpp", kernel_cpp(p, pl)});
  c.files.push_back({"main.cpp", main_cpp(p, pl)});
  c.files.push_back({"Makefile", makefile(p)});
  return c;
}

}  // namespace vxsynth::codegen
