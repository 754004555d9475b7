// vxs_driver.cpp: the host driver of a vxsynth Vortex candidate (see vxs_driver.h).
#include "vxs_driver.h"

#include <vortex.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "vxs_sample.h"

namespace vxs {
namespace {

vx_device_h device = nullptr;
std::vector<vx_buffer_h> buffers;

void cleanup() {
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

uint32_t f2u(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
float u2f(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }

bool read_tensor(const std::string& path, std::vector<double>& v, size_t numel, ElemType t) {
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

/// Writes `v` as raw elements of `t` to path.tmp, then renames it over `path`.
bool write_tensor(const std::string& path, const std::vector<double>& v, ElemType t) {
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
uint64_t rng_state = 0x243F6A8885A308D3ull;
double uniform01() {
  rng_state ^= rng_state >> 12; rng_state ^= rng_state << 25; rng_state ^= rng_state >> 27;
  return static_cast<double>((rng_state * 0x2545F4914F6CDD1Dull) >> 11) * (1.0 / 9007199254740992.0);
}
double normal01() {
  const double u1 = uniform01() + 1e-300, u2 = uniform01();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

/// Inputs as the exact values of the stored tensors (in: one per operand): read from DIR, or drawn here.
bool load_inputs(const CandidateSpec& c, const std::string& dir, std::vector<std::vector<double>>& in) {
  for (int i = 0; i < c.num_operands; ++i) {
    const Operand& o = c.operands[i];
    if (!dir.empty()) {
      if (!read_tensor(dir + "/" + o.name + ".bin", in[i], o.numel, o.file_type)) return false;
    } else {
      in[i].resize(o.numel);
      const double scale = o.weight ? 1.0 / std::sqrt(c.fan_in) : 1.0;
      for (double& v : in[i]) v = round_to(scale * normal01(), o.file_type);
    }
  }
  return true;
}

/// Opens the device and checks that a core holds one block (and the warp width, where it matters).
bool open_device(const CandidateSpec& c) {
  RT_CHECK(vx_dev_open(&device));
  uint64_t num_threads = 0, num_warps = 0;
  RT_CHECK(vx_dev_caps(device, VX_CAPS_NUM_THREADS, &num_threads));
  RT_CHECK(vx_dev_caps(device, VX_CAPS_NUM_WARPS, &num_warps));
  if (num_threads * num_warps < c.block_size) {
    std::fprintf(stderr, "Error: device has %u warps x %u threads per core; the candidate's block size is %d\n",
                 static_cast<unsigned>(num_warps), static_cast<unsigned>(num_threads), static_cast<int>(c.block_size));
    return false;
  }
  if (c.needs_warp_width && num_threads != c.num_threads) {
    std::fprintf(stderr, "Error: device warp width is %u; this candidate was generated for %d\n",
                 static_cast<unsigned>(num_threads), static_cast<int>(c.num_threads));
    return false;
  }
  return true;
}

/// A device buffer of `bytes`, filled from `host`; returns its device address.
uint64_t upload(const void* host, size_t bytes, int flags, vx_buffer_h* out = nullptr) {
  vx_buffer_h buf;
  RT_CHECK(vx_mem_alloc(device, bytes, flags, &buf));
  buffers.push_back(buf);
  uint64_t addr = 0;
  RT_CHECK(vx_mem_address(buf, &addr));
  RT_CHECK(vx_copy_to_dev(buf, host, 0, bytes));
  if (out) *out = buf;
  return addr;
}

/// Device buffers: inputs read-only in kOperands order, then the NaN-poisoned output and workspace.
vx_buffer_h upload_buffers(const CandidateSpec& c, const std::vector<std::vector<double>>& in, kernel_arg_t& arg) {
  uint64_t addr[8] = {0};
  for (int i = 0; i < c.num_operands; ++i) {
    const Operand& o = c.operands[i];
    std::vector<uint8_t> bytes(o.numel * type_bytes(o.dev_type));
    for (size_t e = 0; e < o.numel; ++e) encode(in[i][e], o.dev_type, &bytes[e * type_bytes(o.dev_type)]);
    addr[i] = upload(bytes.data(), bytes.size(), VX_MEM_READ);
  }
  arg.a_addr = addr[c.a];
  arg.b_addr = addr[c.b];
  arg.bias_addr = c.bias >= 0 ? addr[c.bias] : 0;
  std::vector<uint8_t> out_bytes(c.out_numel * type_bytes(c.out_type));
  for (size_t e = 0; e < c.out_numel; ++e) encode(NAN, c.out_type, &out_bytes[e * type_bytes(c.out_type)]);
  vx_buffer_h out_buf;
  arg.out_addr = upload(out_bytes.data(), out_bytes.size(), VX_MEM_READ_WRITE, &out_buf);
  if (c.workspace_floats > 0) {
    std::vector<float> ws_poison(c.workspace_floats, NAN);
    arg.ws_addr = upload(ws_poison.data(), c.workspace_floats * 4, VX_MEM_READ_WRITE);
  }
  arg.dims = c.dims;
  return out_buf;
}

/// The sampled-tile check's block ids (-b "3,17,40"): every id inside launch 1's grid, no repeats.
bool parse_blocks(const CandidateSpec& c, const char* text, std::vector<uint32_t>& ids) {
  const uint64_t grid = static_cast<uint64_t>(c.grid[0]) * c.grid[1] * c.grid[2];
  if (c.tile_m == 0 || c.tile_n == 0 || c.out_index == nullptr) {
    std::fprintf(stderr, "Error: -b: this candidate does not state its block tiles\n");
    return false;
  }
  std::vector<char> seen(grid, 0);
  for (const char* p = text; *p != '\0';) {
    char* end = nullptr;
    const unsigned long long id = std::strtoull(p, &end, 10);
    if (end == p || (*end != ',' && *end != '\0') || id >= grid || seen[id]) {
      std::fprintf(stderr, "Error: -b %s: expected distinct block ids below %llu separated by commas\n", text,
                   static_cast<unsigned long long>(grid));
      return false;
    }
    seen[id] = 1;
    ids.push_back(static_cast<uint32_t>(id));
    p = *end == ',' ? end + 1 : end;
  }
  if (ids.empty()) {
    std::fprintf(stderr, "Error: -b: no block ids\n");
    return false;
  }
  return true;
}

/// Launch 1 (GEMM: the whole grid, or only the sampled blocks), then launch 2 (reduce/epilogue,
/// always whole) when the design has one.
void launch(const CandidateSpec& c, kernel_arg_t& arg, const std::vector<uint32_t>& sample) {
  vx_buffer_h krnl;
  RT_CHECK(vx_upload_kernel_file(device, "kernel.vxbin", &krnl));
  buffers.push_back(krnl);
  vxs_launch_t l;
  std::memset(&l, 0, sizeof l);
  if (!sample.empty()) {
    l.sample_addr = upload(sample.data(), sample.size() * sizeof(uint32_t), VX_MEM_READ);
    l.sample_count = static_cast<uint32_t>(sample.size());
  }
  for (int phase = 0; phase < c.launches; ++phase) {
    arg.phase = static_cast<uint32_t>(phase);
    arg.block_dim[0] = c.block_size;
    arg.block_dim[1] = arg.block_dim[2] = 1;
    for (int k = 0; k < 3; ++k) arg.grid_dim[k] = phase == 0 ? c.grid[k] : (k == 0 ? c.epilogue_blocks : 1);
    l.arg = arg;
    vx_buffer_h args_buf;
    RT_CHECK(vx_upload_bytes(device, &l, sizeof l, &args_buf));
    RT_CHECK(vx_start(device, krnl, args_buf));
    RT_CHECK(vx_ready_wait(device, VX_MAX_TIMEOUT));
    vx_mem_free(args_buf);
  }
}

/// Output elements of the GEMM blocks `ids`: each block's BM x BN tile of the GEMM view, clipped
/// to the shape (the K slices of one tile share it).
std::vector<size_t> tile_elements(const CandidateSpec& c, const std::vector<uint32_t>& ids) {
  const vxs_dims_t& d = c.dims;
  std::vector<char> mark(c.out_numel, 0);
  for (const uint32_t id : ids) {
    const uint32_t x = id % c.grid[0], y = (id / c.grid[0]) % c.grid[1], zs = id / (c.grid[0] * c.grid[1]);
    const int z = static_cast<int>(zs / c.split_k);
    const int m0 = static_cast<int>((c.m_tiles_fast ? x : y) * c.tile_m);
    const int n0 = static_cast<int>((c.m_tiles_fast ? y : x) * c.tile_n);
    for (int m = m0; m < d.M && m < m0 + static_cast<int>(c.tile_m); ++m)
      for (int n = n0; n < d.N && n < n0 + static_cast<int>(c.tile_n); ++n) mark[c.out_index(d, z, m, n)] = 1;
  }
  std::vector<size_t> e;
  for (size_t i = 0; i < mark.size(); ++i)
    if (mark[i]) e.push_back(i);
  return e;
}

std::vector<double> download(const CandidateSpec& c, vx_buffer_h out_buf) {
  std::vector<uint8_t> bytes(c.out_numel * type_bytes(c.out_type));
  RT_CHECK(vx_copy_from_dev(bytes.data(), out_buf, 0, bytes.size()));
  std::vector<double> out(c.out_numel);
  for (size_t e = 0; e < c.out_numel; ++e) out[e] = decode(&bytes[e * type_bytes(c.out_type)], c.out_type);
  return out;
}

/// The elements `elems` (every element when empty) against the CPU reference (NaN never passes);
/// prints the summary, returns the mismatches.
int self_check(const CandidateSpec& c, const std::vector<std::vector<double>>& in, const std::vector<double>& out,
               const std::vector<size_t>& elems, size_t sampled_blocks) {
  const size_t count = elems.empty() ? c.out_numel : elems.size();
  int errors = 0;
  double max_abs = 0, max_rel = 0;
  for (size_t i = 0; i < count; ++i) {
    const size_t e = elems.empty() ? i : elems[i];
    const double ref = c.cpu_reference(in, e);
    const double diff = std::fabs(out[e] - ref);
    if (!std::isfinite(out[e]) || !(diff <= c.atol + c.rtol * std::fabs(ref))) {
      if (errors < 10) std::printf("*** error: [%zu] expected=%.9g, actual=%.9g\n", e, ref, out[e]);
      ++errors;
      continue;
    }
    if (diff > max_abs) max_abs = diff;
    if (ref != 0 && diff / std::fabs(ref) > max_rel) max_rel = diff / std::fabs(ref);
  }
  if (!elems.empty())
    std::printf("self-check: sampled: %zu of %zu elements, the output tiles of %zu of %u GEMM blocks\n", count,
                c.out_numel, sampled_blocks, c.grid[0] * c.grid[1] * c.grid[2]);
  std::printf("self-check: %zu elements, max_abs=%.3e max_rel=%.3e (atol %g, rtol %g)\n", count, max_abs,
              max_rel, c.atol, c.rtol);
  return errors;
}

}  // namespace

uint16_t f2bf(float f) {
  uint32_t u = f2u(f);
  if (std::isnan(f)) return static_cast<uint16_t>((u >> 16) | 0x40u);
  return static_cast<uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

float bf2f(uint16_t h) { return u2f(static_cast<uint32_t>(h) << 16); }

uint16_t f2h(float f) {
  const uint32_t u = f2u(f), sign = (u >> 16) & 0x8000u, a = u & 0x7FFFFFFFu;
  if (a > 0x7F800000u) return static_cast<uint16_t>(sign | 0x7E00u);
  if (a >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);
  if (a < 0x38800000u) return static_cast<uint16_t>(sign | static_cast<uint32_t>(std::nearbyint(u2f(a) * 16777216.0f)));
  return static_cast<uint16_t>(sign | ((a + 0xFFFu + ((a >> 13) & 1u) - (112u << 23)) >> 13));
}

size_t type_bytes(ElemType t) { return t == VXS_F32 ? 4 : 2; }

double decode(const uint8_t* p, ElemType t) {
  if (t == VXS_F32) { uint32_t u; std::memcpy(&u, p, 4); return u2f(u); }
  uint16_t h; std::memcpy(&h, p, 2);
  return bf2f(h);
}

void encode(double v, ElemType t, uint8_t* p) {
  const float f = static_cast<float>(v);
  if (t == VXS_F32) { uint32_t u = f2u(f); std::memcpy(p, &u, 4); return; }
  uint16_t h = t == VXS_BF16 ? f2bf(f) : f2h(f);
  std::memcpy(p, &h, 2);
}

double round_to(double v, ElemType t) {
  const float f = static_cast<float>(v);
  return t == VXS_BF16 ? bf2f(f2bf(f)) : static_cast<double>(f);
}

int run_candidate(const CandidateSpec& c, int argc, char** argv) {
  std::string dir;
  std::vector<uint32_t> sample;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "-d") == 0 && i + 1 < argc) {
      dir = argv[++i];
    } else if (std::strcmp(argv[i], "-b") == 0 && i + 1 < argc) {
      if (!parse_blocks(c, argv[++i], sample)) return -1;
    } else {
      std::fprintf(stderr, "usage: %s [-d DIR] [-b BLOCK_ID,...]\n", argv[0]);
      return -1;
    }
  }
  std::vector<std::vector<double>> in(c.num_operands);
  if (!load_inputs(c, dir, in)) return -1;
  if (!open_device(c)) {
    cleanup();
    return -1;
  }
  kernel_arg_t arg;
  std::memset(&arg, 0, sizeof arg);
  const vx_buffer_h out_buf = upload_buffers(c, in, arg);
  launch(c, arg, sample);
  const std::vector<double> out = download(c, out_buf);
  if (!dir.empty() && !write_tensor(dir + "/out.bin", out, c.out_type)) {
    std::fprintf(stderr, "Error: cannot write %s/out.bin\n", dir.c_str());
    cleanup();
    return -1;
  }
  const int errors = self_check(c, in, out, sample.empty() ? std::vector<size_t>() : tile_elements(c, sample),
                                sample.size());
  cleanup();
  if (errors != 0) {
    std::printf("Found %d errors!\nFAILED!\n", errors);
  } else {
    std::printf("PASSED!\n");
  }
  return dir.empty() ? errors : 0;
}

}  // namespace vxs
