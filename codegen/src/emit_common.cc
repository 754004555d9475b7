#include "emit_common.h"

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "runtime_files.h"
#include "vxsynth/common/error.h"

namespace vxsynth::codegen::detail {

namespace {

/// Elements per 16-byte vector fill of A and B on CUDA: only where the operand is contiguous along
/// the tile's fast dimension and every row starts 16-byte aligned (extent and batch stride
/// multiples of the vector); else 1 (element fills). Vortex has no 16-byte loads: always 1.
void plan_vectors(Plan& pl) {
  const DesignPoint& p = *pl.p;
  if (pl.dialect != Dialect::kCuda || p.axes.lane_map != LaneMap::kContiguous || !pl.tr->vector_fills) return;
  const int64_t vec = pl.bf16 ? 8 : 4;  // global elements are bf16 or fp32 (a TF32 reference at FP16 too)
  const auto& op = p.fixed.op;
  const bool bmm = op.family == check::OpFamily::kBmm;
  const int64_t sa = bmm ? op.a_stride() : 0, sb = bmm ? op.b_stride() : 0;
  if (pl.g.k % vec == 0 && sa % vec == 0) pl.vec_a = static_cast<uint32_t>(vec);
  switch (op.family) {
    case check::OpFamily::kLinear:
      if (pl.g.k % vec == 0) pl.vec_b = static_cast<uint32_t>(vec);
      break;
    case check::OpFamily::kMatmul:
    case check::OpFamily::kBmm:
      if (pl.g.n % vec == 0 && sb % vec == 0) pl.vec_b = static_cast<uint32_t>(vec);
      break;
    case check::OpFamily::kConv1d:
    case check::OpFamily::kConv2d: break;  // im2col gather: element fills
  }
}

/// Fragment shape, warp grid, padding, stages and vector fills of the tensor-core strategy.
void plan_tensor_core(Plan& pl) {
  const DesignPoint& p = *pl.p;
  const bool cuda = pl.dialect == Dialect::kCuda;
  pl.frag = cuda ? frag_dims(p.axes.tensor_core.shape) : vortex_tcu_tile(p.vortex.threads);
  const uint32_t tiles_m = p.axes.tile.m / pl.frag[0], tiles_n = p.axes.tile.n / pl.frag[1];
  const auto wg = warp_grid(tiles_m, tiles_n, p.fixed.block_size / pl.warp, pl.frag[0], pl.frag[1]);
  if (!wg) throw make_error("codegen: no warp grid for {}x{} fragments over {} warps (validation admits none)",
                            tiles_m, tiles_n, p.fixed.block_size / pl.warp);
  pl.warps = *wg;
  pl.pad = cuda ? cuda_tc_row_pad(p) : 0;
  pl.stages = cuda ? cuda_tc_stages(p) : 1;
  plan_vectors(pl);
}

}  // namespace

Plan make_plan(const DesignPoint& p, Dialect d) {
  Plan pl;
  pl.p = &p;
  pl.dialect = d;
  pl.g = gemm_view(p.fixed.op);
  pl.tc = p.axes.tensor_core.enabled;
  pl.tr = &translation_info(p.cuda_translation);
  pl.bf16 = p.fixed.path == check::PrecisionPath::kBf16;
  // The CUDA side computes on cuda_path (a TF32 reference at FP16 under the Vortex formats); the
  // Vortex side is always at FP16 for a TF32 reference (its host rounds the operands).
  const check::PrecisionPath side = d == Dialect::kCuda ? cuda_path(p) : p.fixed.path;
  pl.tf32 = side == check::PrecisionPath::kTf32;
  pl.fp16 = side == check::PrecisionPath::kTf32Fp16;
  pl.has_bias = p.fixed.op.has_bias;
  pl.relu = p.fixed.op.activation == check::Activation::kRelu;
  pl.two_launch = launches(p) == 2;
  pl.warp = d == Dialect::kCuda ? kCudaWarp : p.vortex.threads;
  const auto fam = p.fixed.op.family;
  pl.b_k_contiguous = fam == check::OpFamily::kLinear;
  if (d == Dialect::kCuda) {
    pl.in_t = pl.bf16 ? "__nv_bfloat16" : "float";
    pl.out_t = pl.in_t;
  } else {
    pl.in_t = (pl.tc || pl.bf16) ? "uint16_t" : "float";
    pl.out_t = pl.bf16 ? "uint16_t" : "float";
  }
  if (pl.tc) plan_tensor_core(pl);
  switch (fam) {
    case check::OpFamily::kLinear: pl.a_name = "x"; pl.b_name = "weight"; break;
    case check::OpFamily::kMatmul:
    case check::OpFamily::kBmm: pl.a_name = "a"; pl.b_name = "b"; break;
    case check::OpFamily::kConv1d:
    case check::OpFamily::kConv2d: pl.a_name = "weight"; pl.b_name = "x"; break;
  }
  return pl;
}

std::string_view runtime_file(std::string_view name) {
  if (const RuntimeFile* f = find_runtime_file(name)) return f->text;
  throw make_error("codegen runtime: no embedded file '{}' (codegen/CMakeLists.txt VXS_RUNTIME_FILES)", name);
}

SourceFile runtime_source(std::string_view name) { return {std::string(name), std::string(runtime_file(name))}; }

std::string dims_initializer(const check::OpSpec& op) {
  const GemmView g = gemm_view(op);
  if (op.is_conv()) {
    const auto& c = op.conv;
    return fmt::format("{{{}, {}, {}, {}, 0, 0, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}}}",
                       g.z, g.m, g.n, g.k, c.n, c.c, c.h, c.w, c.k, c.r, c.s, c.stride[0], c.stride[1], c.pad[0],
                       c.pad[1], c.dilation[0], c.dilation[1], c.c / c.groups, c.k / c.groups, op.out_h(),
                       op.out_w());
  }
  const int64_t sa = op.family == check::OpFamily::kBmm ? op.a_stride() : 0;
  const int64_t sb = op.family == check::OpFamily::kBmm ? op.b_stride() : 0;
  return fmt::format("{{{}, {}, {}, {}, {}, {}, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}}", g.z, g.m, g.n,
                     g.k, sa, sb);
}

std::string emit_banner(const DesignPoint& p, const char* what) {
  const auto& a = p.axes;
  std::string s = fmt::format("// {} generated by vxsynth codegen (docs/codegen.md). Do not edit by hand unless you\n"
                              "// are the refinement agent: the pair must keep implementing the same strategy.\n",
                              what);
  s += fmt::format("// op: {}\n", check::describe(p.fixed.op));
  const GemmView g = gemm_view(p.fixed.op);
  s += fmt::format("// GEMM view: Z={} M={} N={} K={}\n", g.z, g.m, g.n, g.k);
  s += fmt::format("// fixed: engine={} path={} ({}) block_size={}\n", core::to_string(p.fixed.engine),
                   check::to_string(p.fixed.path), check::precision_row(p.fixed.path).description, p.fixed.block_size);
  s += fmt::format("// axes: tile={}x{}x{} reg_tile={}x{} prefetch={} smem_stage={} read_once={} lane_map={}\n",
                   a.tile.m, a.tile.n, a.tile.k, a.reg_tile.m, a.reg_tile.n, a.prefetch, a.smem_stage, a.read_once,
                   to_string(a.lane_map));
  s += fmt::format("//       tensor_core={}{} fused_act={} split_k={} block_decomp.warp_rows={} boundary={} "
                   "k_range={}\n",
                   a.tensor_core.enabled, a.tensor_core.enabled ? fmt::format("({})", to_string(a.tensor_core.shape)) : "",
                   to_string(a.fused_act), a.split_k, a.warp_rows, to_string(a.boundary), to_string(a.k_range));
  s += fmt::format("// vortex target: {} core(s) x {} warps x {} threads, {} B local memory per core\n", p.vortex.cores,
                   p.vortex.warps, p.vortex.threads, p.vortex.local_mem_bytes);
  return s;
}

Grids grids(const DesignPoint& p) {
  const GemmView g = gemm_view(p.fixed.op);
  Grids gr;
  gr.gx = (g.n + p.axes.tile.n - 1) / p.axes.tile.n;
  gr.gy = (g.m + p.axes.tile.m - 1) / p.axes.tile.m;
  if (m_tiles_fast(p)) std::swap(gr.gx, gr.gy);
  gr.gz = g.z * p.axes.split_k;
  const int64_t total = g.z * g.m * g.n;
  gr.epi_blocks = launches(p) == 2 ? (total + p.fixed.block_size - 1) / p.fixed.block_size : 0;
  return gr;
}

int64_t workspace_floats(const DesignPoint& p) {
  const GemmView g = gemm_view(p.fixed.op);
  return launches(p) == 2 ? static_cast<int64_t>(p.axes.split_k) * g.z * g.m * g.n : 0;
}

void emit_tile_defines(CodeWriter& w, const Plan& pl) {
  const auto& a = pl.p->axes;
  w.pp(fmt::format("#define BS {}        // threads per block (fixed property 3)", pl.p->fixed.block_size));
  w.pp(fmt::format("#define BM {}        // block tile rows (axis tile)", a.tile.m));
  w.pp(fmt::format("#define BN {}        // block tile columns (axis tile)", a.tile.n));
  w.pp(fmt::format("#define BK {}        // reduction depth per stage (axis tile)", a.tile.k));
  w.pp(fmt::format("#define SPLIT_K {}   // K slices (axis split_k)", a.split_k));
  w.pp(fmt::format("#define WARP {}      // warp width on this side", pl.warp));
  if (!pl.tc) {
    w.pp(fmt::format("#define TM {}        // per-thread rows (axis reg_tile)", a.reg_tile.m));
    w.pp(fmt::format("#define TN {}        // per-thread columns (axis reg_tile)", a.reg_tile.n));
    w.pp("#define TY (BM / TM)");
    w.pp("#define TX (BN / TN)");
    if (a.warp_rows) w.pp(fmt::format("#define WARP_ROWS {} // thread rows per warp (axis block_decomp)", a.warp_rows));
  }
  if (a.smem_stage) {
    w.pp("#define FILL_A (BM * BK / BS)  // A elements each thread fills per stage");
    w.pp("#define FILL_B (BK * BN / BS)  // B elements each thread fills per stage");
  }
  if (pl.tc) emit_tc_defines(w, pl);
}

namespace {

/// Global-load policy (axis read_once / smem_stage) and element conversions of this design point.
void emit_conversions(CodeWriter& w, const Plan& pl) {
  const bool cuda = pl.dialect == Dialect::kCuda;
  if (cuda && !pl.p->axes.smem_stage && !pl.tr->cache_hints) {
    w.pp("#define VXS_LD(p) (*(p))  // plain loads both ways: the Vortex side has no cache hints (axis read_once)");
  } else if (cuda && !pl.p->axes.smem_stage) {
    w.pp(pl.p->axes.read_once ? "#define VXS_LD(p) __ldg(p)   // read_once: reuse served by L1 (read-only path)"
                              : "#define VXS_LD(p) __ldcg(p)  // read_once off, no smem: cache at L2 only, bypass L1");
  } else {
    w.pp("#define VXS_LD(p) (*(p))");
  }
  if (cuda) {
    w.pp(pl.bf16 ? "#define VXS_TO_F(v) __bfloat162float(v)" : "#define VXS_TO_F(v) (v)");
    w.pp(pl.bf16 ? "#define VXS_FROM_F(v) __float2bfloat16(v)  // round to nearest even" : "#define VXS_FROM_F(v) (v)");
    w.pp("#define VXS_BIAS_F(v) VXS_TO_F(v)");
  } else {
    w.pp(pl.bf16 ? "#define VXS_BIAS_F(v) vxs_bf2f(v)" : "#define VXS_BIAS_F(v) (v)");
    w.pp(pl.bf16 ? "#define VXS_FROM_F(v) vxs_f2bf(v)" : "#define VXS_FROM_F(v) (v)");
  }
}

std::string device_fn(const Plan& pl) {
  return pl.dialect == Dialect::kCuda ? "static __device__ __forceinline__" : "static inline";
}

}  // namespace

/// vxs_out_index and (with a bias) vxs_bias_index: offsets of GEMM-view element (z, m, n).
void emit_index_functions(CodeWriter& w, const Plan& pl) {
  const bool conv = pl.p->fixed.op.is_conv();
  w.blank();
  w.line("/// Offset of output element (z, m, n) of the GEMM view in the op's output tensor.");
  w.open(device_fn(pl) + " int vxs_out_index(const vxs_dims_t& d, int z, int m, int n)");
  if (conv) {
    w.line("const int pq = d.P * d.Q;");
    w.line("const int nb = n / pq;");
    w.line("return (nb * d.ck + z * d.kg + m) * pq + (n - nb * pq);");
  } else if (pl.p->fixed.op.family == check::OpFamily::kBmm) {
    w.line("return (z * d.M + m) * d.N + n;");
  } else {
    w.line("(void)z;");
    w.line("return m * d.N + n;");
  }
  w.close();
  if (!pl.has_bias) return;
  w.line("/// Offset of the bias element of output (z, m, n).");
  w.open(device_fn(pl) + " int vxs_bias_index(const vxs_dims_t& d, int z, int m, int n)");
  w.line(conv ? "(void)n;" : "(void)d; (void)z; (void)m;");
  w.line(conv ? "return z * d.kg + m;" : "return n;");
  w.close();
}

namespace {

/// One operand loader of the GEMM view: index math of the family, edge handling of axis boundary.
struct Loader {
  std::string fn, ptr, args;
  std::vector<std::string> pre;  ///< statements before the index (implicit-GEMM coordinates)
  std::string idx, range_valid, data_valid;
};

std::vector<Loader> family_loaders(const Plan& pl) {
  const auto& c = pl.p->fixed.op.conv;
  switch (pl.p->fixed.op.family) {
    case check::OpFamily::kLinear:
      return {{"vxs_load_a", "A", "int m, int k", {"(void)z;"}, "m * d.K + k", "(m < d.M) & (k < d.K)", ""},
              {"vxs_load_b", "B", "int k, int n", {"(void)z;"}, "n * d.K + k", "(k < d.K) & (n < d.N)", ""}};
    case check::OpFamily::kMatmul:
    case check::OpFamily::kBmm:
      return {{"vxs_load_a", "A", "int m, int k", {}, "z * d.sa + m * d.K + k", "(m < d.M) & (k < d.K)", ""},
              {"vxs_load_b", "B", "int k, int n", {}, "z * d.sb + k * d.N + n", "(k < d.K) & (n < d.N)", ""}};
    case check::OpFamily::kConv1d:
    case check::OpFamily::kConv2d: break;
  }
  const bool pad = c.pad[0] > 0 || c.pad[1] > 0;
  return {{"vxs_load_a", "A", "int m, int k", {}, "(z * d.kg + m) * d.K + k", "(m < d.M) & (k < d.K)", ""},
          {"vxs_load_b", "B", "int k, int n",
           {"// implicit GEMM: column n = (image, p, q), row k = (c, r, s) of the im2col matrix",
            "const int pq = d.P * d.Q;", "const int nb = n / pq;", "const int op = (n - nb * pq) / d.Q;",
            "const int oq = n - nb * pq - op * d.Q;", "const int rs = d.cr * d.cs;", "const int c = k / rs;",
            "const int r = (k - c * rs) / d.cs;", "const int s = k - c * rs - r * d.cs;",
            "const int h = op * d.sh - d.ph + r * d.dh;", "const int w = oq * d.sw - d.pw + s * d.dw;"},
           "((nb * d.cc + z * d.cg + c) * d.ch + h) * d.cw + w", "(k < d.K) & (n < d.N)",
           pad ? "((unsigned)h < (unsigned)d.ch) & ((unsigned)w < (unsigned)d.cw)" : ""}};
}

/// `value` converted from the stored element type to what the loader returns.
std::string loaded_value(const Plan& pl, const std::string& value) {
  if (pl.dialect == Dialect::kCuda) return "VXS_TO_F(" + value + ")";
  if (pl.bf16 && !pl.tc) return "vxs_bf2f(" + value + ")";  // SIMT bf16: fp32 math on bf16 storage
  return value;
}

void emit_loader(CodeWriter& w, const Plan& pl, const Loader& l) {
  const auto& a = pl.p->axes;
  const bool cuda = pl.dialect == Dialect::kCuda;
  const std::string ld_t = (!cuda && pl.tc) ? "uint16_t" : "float";
  std::string valid = a.boundary == Boundary::kExact ? "" : l.range_valid;
  if (!l.data_valid.empty()) valid = valid.empty() ? l.data_valid : valid + " & " + l.data_valid;
  w.blank();
  w.line("/// {}(z, {}) of the GEMM view; 0 outside the operand (boundary = {}).", l.ptr,
         l.args == "int m, int k" ? "m, k" : "k, n", to_string(a.boundary));
  w.open(fmt::format("{} {} {}(const {}* __restrict {}, const vxs_dims_t& d, int z, {})", device_fn(pl), ld_t, l.fn,
                     pl.in_t, l.ptr, l.args));
  for (const auto& s : l.pre) w.line(s);
  const std::string load = loaded_value(pl, "VXS_LD(&" + l.ptr + "[i])");
  if (valid.empty()) {
    w.line("const int i = {};", l.idx);
    w.line("return {};", load);
  } else if (a.boundary == Boundary::kClamp || (a.boundary == Boundary::kExact && !l.data_valid.empty())) {
    w.line("const int v = {};  // 0/1, compiled to slt/sltu/and: no branch", valid);
    w.line("const int i = ({}) & -v;  // clamped to element 0 when outside", l.idx);
    if (ld_t == "float") {
      w.line("return {} * (float)v;", load);
    } else {
      w.line("return (uint16_t)({} & -v);", load);
    }
  } else {
    w.line("const int v = {};", valid);
    w.line("const int i = {};  // dereferenced only where v holds", l.idx);
    w.line("{} raw = {};", pl.in_t, (cuda && pl.bf16) ? "__float2bfloat16(0.0f)" : "0");
    w.line("VXS_GLD(raw, &{}[i], v);", l.ptr);
    w.line("return {};", loaded_value(pl, "raw"));
  }
  w.close();
}

}  // namespace

std::string operand_index(const Plan& pl, bool a) { return family_loaders(pl)[a ? 0 : 1].idx; }

void emit_vector_index_functions(CodeWriter& w, const Plan& pl) {
  const auto loaders = family_loaders(pl);
  for (int i = 0; i < 2; ++i) {
    if ((i == 0 ? pl.vec_a : pl.vec_b) == 1) continue;
    const Loader& l = loaders[i];
    w.blank();
    w.line("/// Offset of {}(z, {}) in global memory (16-byte vector fills; no edge handling here).", l.ptr,
           i == 0 ? "m, k" : "k, n");
    w.open(fmt::format("{} int vxs_index_{}(const vxs_dims_t& d, int z, {})", device_fn(pl), i == 0 ? "a" : "b",
                       l.args));
    for (const auto& st : l.pre) w.line(st);
    w.line("return {};", l.idx);
    w.close();
  }
}

void emit_device_helpers(CodeWriter& w, const Plan& pl) {
  emit_conversions(w, pl);
  emit_index_functions(w, pl);
  const auto loaders = family_loaders(pl);
  // Operands filled with 16-byte vectors need no element loader (tensor-core strategy).
  if (pl.vec_a == 1) emit_loader(w, pl, loaders[0]);
  if (pl.vec_b == 1) emit_loader(w, pl, loaders[1]);
  if (pl.tc) emit_vector_index_functions(w, pl);
}

namespace {

bool contiguous(const Plan& pl) { return pl.p->axes.lane_map == LaneMap::kContiguous; }

/// Vortex: `#pragma GCC unroll count` before a loop that indexes a register array (acc, av, bv, pa,
/// pb). GCC -O3 keeps an array indexed by a loop variable in memory (sp-relative loads and stores
/// in the K loop); unrolled, every index is a constant and scalar replacement keeps the elements in
/// registers. nvcc unrolls such loops on its own, so the CUDA side is left as it is.
void emit_unroll(CodeWriter& w, const Plan& pl, uint32_t count) {
  if (pl.dialect == Dialect::kVortex) w.line("#pragma GCC unroll {}", count);
}

/// SIMT thread layout (axis block_decomp), micro-tile mapping (axis lane_map), zeroed accumulators.
void emit_simt_threads(CodeWriter& w, const Plan& pl) {
  if (pl.p->axes.warp_rows == 0) {
    w.line("// Thread layout (axis block_decomp): row-major TY x TX threads.");
    w.line("const int ty = tid / TX;");
    w.line("const int tx = tid - ty * TX;");
  } else {
    w.line("// Thread layout (axis block_decomp): each warp covers WARP_ROWS thread rows x WARP/WARP_ROWS columns.");
    w.line("const int wid = tid / WARP;");
    w.line("const int lane = tid - wid * WARP;");
    w.line("const int lanes_n = WARP / WARP_ROWS;");
    w.line("const int warps_per_row = TX / lanes_n;");
    w.line("const int wy = wid / warps_per_row;");
    w.line("const int ty = wy * WARP_ROWS + lane / lanes_n;");
    w.line("const int tx = (wid - wy * warps_per_row) * lanes_n + (lane - (lane / lanes_n) * lanes_n);");
  }
  const bool c = contiguous(pl);
  w.line(c ? "// Micro-tile mapping (axis lane_map = contiguous): adjacent tx -> adjacent columns."
           : "// Micro-tile mapping (axis lane_map = strided): each thread owns TN adjacent columns.");
  w.pp(c ? "#define ROW(i) (ty + (i) * TY)" : "#define ROW(i) (ty * TM + (i))");
  w.pp(c ? "#define COL(j) (tx + (j) * TX)" : "#define COL(j) (tx * TN + (j))");
  const auto& rt = pl.p->axes.reg_tile;
  w.line("float acc[TM][TN];");
  emit_unroll(w, pl, rt.m);
  w.line("for (int i = 0; i < TM; ++i)");
  emit_unroll(w, pl, rt.n);
  w.line("  for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;");
}

/// Shared/local memory of the SIMT block (axis smem_stage): fp32 tiles stored k-major
/// (As[BK][BM], Bs[BK][BN]) so that a thread's micro-tile reads consecutive elements.
void emit_smem(CodeWriter& w, const Plan& pl) {
  const auto& a = pl.p->axes;
  const uint32_t op_bytes = (a.tile.m * a.tile.k + a.tile.k * a.tile.n) * 4u;
  w.line("// Shared/local memory of the block (axis smem_stage): {} B operand tiles.", op_bytes);
  if (pl.dialect == Dialect::kCuda) {
    w.line("__shared__ __align__(32) unsigned char smem[{}];", op_bytes);
  } else {
    w.line("unsigned char* smem = (unsigned char*)__local_mem({});", op_bytes);
  }
  w.line("float (*As)[BM] = reinterpret_cast<float (*)[BM]>(smem);");
  w.line("float (*Bs)[BN] = reinterpret_cast<float (*)[BN]>(smem + BM * BK * sizeof(float));");
}

/// Where a cooperative fill puts what it loads.
enum class Fill { kToSmem, kToRegs, kRegsToSmem };

/// Row and column of element e of a rows x cols tile; `fast_is_col`: the column index runs fastest
/// over consecutive e (axis lane_map, relative to the operand's contiguous dimension).
std::pair<std::string, std::string> fill_rc(bool fast_is_col, const char* rows, const char* cols) {
  if (fast_is_col) return {fmt::format("e / {}", cols), fmt::format("e % {}", cols)};
  return {fmt::format("e % {}", rows), fmt::format("e / {}", rows)};
}

/// One operand's fill loop: `slot` is the tile element, `load` the loader call, `reg` the register
/// (`unroll` > 0: the Vortex unroll pragma for a loop over the register array, emit_unroll).
void emit_fill_loop(CodeWriter& w, const std::string& count, uint32_t unroll,
                    std::pair<std::string, std::string> rc, const std::string& slot, const std::string& load,
                    const std::string& reg, Fill mode) {
  if (unroll > 0 && mode != Fill::kToSmem) w.line("#pragma GCC unroll {}", unroll);
  w.open(fmt::format("for (int i = 0; i < {}; ++i)", count));
  w.line("const int e = tid + i * BS;");
  w.line("const int r = {};", rc.first);
  w.line("const int c = {};", rc.second);
  switch (mode) {
    case Fill::kToSmem: w.line("{} = {};", slot, load); break;
    case Fill::kToRegs: w.line("{} = {};", reg, load); break;
    case Fill::kRegsToSmem: w.line("{} = {};", slot, reg); break;
  }
  w.close();
}

/// Cooperative fill of the SIMT A and B tiles of the stage starting at k = `k0` (axis lane_map).
void emit_fill(CodeWriter& w, const Plan& pl, const std::string& k0, Fill mode) {
  const bool c = contiguous(pl);
  const bool b_fast_col = pl.b_k_contiguous ? !c : c;  // B tile rows are k, columns n
  w.line("// Cooperative fill (axis lane_map = {}).", to_string(pl.p->axes.lane_map));
  // Unroll counts of the register-array fills (Vortex only, emit_unroll): FILL_A and FILL_B.
  const auto& t = pl.p->axes.tile;
  const uint32_t bs = pl.p->fixed.block_size;
  const bool vx = pl.dialect == Dialect::kVortex;
  emit_fill_loop(w, "FILL_A", vx ? t.m * t.k / bs : 0, fill_rc(c, "BM", "BK"), "As[c][r]",
                 fmt::format("vxs_load_a(A, d, z, m0 + r, {} + c)", k0), "pa[i]", mode);
  emit_fill_loop(w, "FILL_B", vx ? t.k * t.n / bs : 0, fill_rc(b_fast_col, "BK", "BN"), "Bs[r][c]",
                 fmt::format("vxs_load_b(B, d, z, {} + r, n0 + c)", k0), "pb[i]", mode);
}

/// One stage of SIMT math: the TM x TN micro-tile over BK (from smem, or straight from the loaders).
void emit_simt_stage(CodeWriter& w, const Plan& pl) {
  const auto& rt = pl.p->axes.reg_tile;
  w.open("for (int kk = 0; kk < BK; ++kk)");
  w.line("float av[TM], bv[TN];");
  const bool smem = pl.p->axes.smem_stage;
  emit_unroll(w, pl, rt.m);
  w.line(smem ? "for (int i = 0; i < TM; ++i) av[i] = As[kk][ROW(i)];"
              : "for (int i = 0; i < TM; ++i) av[i] = vxs_load_a(A, d, z, m0 + ROW(i), k0 + kk);");
  emit_unroll(w, pl, rt.n);
  w.line(smem ? "for (int j = 0; j < TN; ++j) bv[j] = Bs[kk][COL(j)];"
              : "for (int j = 0; j < TN; ++j) bv[j] = vxs_load_b(B, d, z, k0 + kk, n0 + COL(j));");
  emit_unroll(w, pl, rt.m);
  w.line("for (int i = 0; i < TM; ++i)");
  emit_unroll(w, pl, rt.n);
  w.line("  for (int j = 0; j < TN; ++j) acc[i][j] += av[i] * bv[j];");
  w.close();
}

/// The SIMT K loop over this split's stages: fill (with prefetch: from the registers loaded one stage
/// ahead, then the next stage into registers), synchronise, compute.
void emit_k_loop(CodeWriter& w, const Plan& pl) {
  const auto& a = pl.p->axes;
  if (a.prefetch) {
    w.line("float pa[FILL_A] = {}, pb[FILL_B] = {};  // next stage in registers (axis prefetch)");
    w.open("");
    w.line("const int k0 = k_begin;");
    emit_fill(w, pl, "k0", Fill::kToRegs);
    w.close();
  }
  w.open("for (int t = 0; t < kt_per_split; ++t)");
  w.line("const int k0 = k_begin + t * BK;");
  if (a.smem_stage) {
    emit_fill(w, pl, "k0", a.prefetch ? Fill::kRegsToSmem : Fill::kToSmem);
    w.line("__syncthreads();");
    if (a.prefetch) {
      w.open("if (t + 1 < kt_per_split)", "uniform: t is the same for every thread");
      w.line("const int k1 = k0 + BK;");
      emit_fill(w, pl, "k1", Fill::kToRegs);
      w.close();
    }
  }
  emit_simt_stage(w, pl);
  if (a.smem_stage) w.line("__syncthreads();");
  w.close();
}

/// Bias (fused epilogue, axis fused_act) and activation of value v at output (z, m, n); `ok` is the
/// 0/1 guard when `guarded`.
void emit_bias_act(CodeWriter& w, const Plan& pl, bool guarded, const char* comment) {
  if (pl.has_bias) {
    const bool cuda = pl.dialect == Dialect::kCuda;
    const std::string bias_t = cuda ? pl.in_t : (pl.bf16 ? "uint16_t" : "float");
    if (!guarded) {
      w.line("v += VXS_BIAS_F(bias[vxs_bias_index(d, z, m, n)]);{}", comment);
    } else {
      w.line("{} bv = {};", bias_t, (cuda && pl.bf16) ? "__float2bfloat16(0.0f)" : "0");
      w.line("VXS_GLD(bv, &bias[vxs_bias_index(d, z, m, n)], ok);");
      w.line("v += VXS_BIAS_F(bv);{}", comment);
    }
  }
  if (pl.relu) w.line("v = fmaxf(v, 0.0f);");
}

void emit_simt_epilogue(CodeWriter& w, const Plan& pl) {
  emit_unroll(w, pl, pl.p->axes.reg_tile.m);
  w.open("for (int i = 0; i < TM; ++i)");
  emit_unroll(w, pl, pl.p->axes.reg_tile.n);
  w.open("for (int j = 0; j < TN; ++j)");
  w.line("const int m = m0 + ROW(i);");
  w.line("const int n = n0 + COL(j);");
  emit_store(w, pl, "float v = acc[i][j];");
  w.close();
  w.close();
  w.pp("#undef ROW");
  w.pp("#undef COL");
}

}  // namespace

/// Block coordinates and this split's K range (axis split_k), uniform over the block.
void emit_block_coords(CodeWriter& w, const Plan& pl) {
  w.line("const int tid = (int)threadIdx.x;");
  if (m_tiles_fast(*pl.p)) {
    w.line("// Block order: M tiles along x, so consecutive blocks share a column panel of {} (the larger", pl.b_name);
    w.line("// operand streams once while the smaller, {}, is re-read from L2).", pl.a_name);
    w.line("const int m0 = (int)blockIdx.x * BM;");
    w.line("const int n0 = (int)blockIdx.y * BN;");
  } else {
    w.line("const int n0 = (int)blockIdx.x * BN;");
    w.line("const int m0 = (int)blockIdx.y * BM;");
  }
  w.line("const int z = (int)blockIdx.z / SPLIT_K;");
  w.line("const int ks = (int)blockIdx.z - z * SPLIT_K;");
  w.line("// K range of this split (axis split_k): kt_per_split stages of BK, uniform over the block.");
  w.line("const int k_tiles = (d.K + BK - 1) / BK;");
  w.line("const int kt_per_split = (k_tiles + SPLIT_K - 1) / SPLIT_K;");
  w.line("const int k_begin = ks * kt_per_split * BK;");
}

/// Writes output element (m, n) from the statement `value` (which defines v): the fp32 partial to
/// the workspace (two launches), else bias, activation and the output.
void emit_store(CodeWriter& w, const Plan& pl, const std::string& value) {
  const bool guarded = pl.p->axes.boundary != Boundary::kExact;
  w.line(value);
  if (guarded) w.line("const int ok = (m < d.M) & (n < d.N);");
  auto store = [&](const std::string& ptr, const std::string& val) {
    if (guarded) {
      w.line("VXS_GST({}, {}, ok);", ptr, val);
    } else {
      w.line("*({}) = {};", ptr, val);
    }
  };
  if (pl.two_launch) {
    store("&ws[((ks * d.Z + z) * d.M + m) * d.N + n]", "v");
    w.line("// fp32 partial; kernel 2 reduces the split-K slices and applies the epilogue");
    return;
  }
  emit_bias_act(w, pl, guarded, "  // fused epilogue (axis fused_act)");
  store("&out[vxs_out_index(d, z, m, n)]", "VXS_FROM_F(v)");
}

void emit_gemm_body(CodeWriter& w, const Plan& pl) {
  if (pl.tc) {
    emit_tc_gemm_body(w, pl);
    return;
  }
  emit_block_coords(w, pl);
  emit_simt_threads(w, pl);
  if (pl.p->axes.smem_stage) emit_smem(w, pl);
  emit_k_loop(w, pl);
  emit_simt_epilogue(w, pl);
}

void emit_epilogue_body(CodeWriter& w, const Plan& pl) {
  w.line("// Kernel 2: sum the SPLIT_K fp32 partials in a fixed order (no atomics), then bias/activation.");
  w.line("const int i = (int)blockIdx.x * BS + (int)threadIdx.x;");
  w.line("const int total = d.Z * d.M * d.N;");
  w.line("const int ok = i < total;  // every access below is guarded by ok");
  w.line("const int z = i / (d.M * d.N);");
  w.line("const int mn = i - z * d.M * d.N;");
  w.line("const int m = mn / d.N;");
  w.line("const int n = mn - m * d.N;");
  w.line("float v = 0.0f;");
  w.open("for (int s = 0; s < SPLIT_K; ++s)");
  w.line("float part = 0.0f;");
  w.line("VXS_GLD(part, &ws[s * total + i], ok);");
  w.line("v += part;");
  w.close();
  emit_bias_act(w, pl, true, "");
  w.line("VXS_GST(&out[vxs_out_index(d, z, m, n)], VXS_FROM_F(v), ok);");
}

}  // namespace vxsynth::codegen::detail
