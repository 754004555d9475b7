// Tensor-core strategy of the kernel-body generator (docs/codegen.md "Tensor-core strategy"): operand
// tiles staged through shared/local memory by cooperative fills of the whole block, fragments loaded
// from it, a warp grid over the block tile, and on CUDA with prefetch a two-stage pipeline of
// asynchronous copies (Vortex: software prefetch into registers, paper §3.3). A warpgroup shape
// (FragShapeInfo::owner_threads 128) lowers the CUDA side to wgmma: canonical K-major shared tiles
// read through descriptors, accumulators in registers (docs/codegen.md "Warpgroup MMA").
#include <string>
#include <vector>

#include <fmt/format.h>

#include "emit_common.h"

namespace vxsynth::codegen::detail {

namespace {

bool cuda(const Plan& pl) { return pl.dialect == Dialect::kCuda; }
bool warp_epilogue(const Plan& pl) { return schedule_info(pl.p->tc_schedule).warp_epilogue; }

/// One operand tile of the block as the fills see it: rows x cols in shared memory, the
/// columns being the operand's contiguous dimension in global memory.
struct TcOperand {
  char id;                    ///< 'a' or 'b'
  std::string ptr, tile;      ///< global pointer and shared tile ("A", "As")
  std::string rows, cols;     ///< tile extents (macros)
  uint32_t vec;               ///< elements per fill (16-byte vectors on CUDA, else 1)
  bool rows_are_k;            ///< B stored k x n (row-major fragments); A and linear B are rows x k
  bool b_col_major;           ///< B stored n x k: matrix_b fragments are column-major
  /// The part of the tile an element fill covers (Plan::live_m / live_n: "LIVE_M" rows or "LIVE_N"
  /// along N where the GEMM extent is smaller than the tile's; else rows and cols).
  std::string fill_rows, fill_cols;
  [[nodiscard]] std::string upper() const { return id == 'a' ? "A" : "B"; }
  [[nodiscard]] bool partly_live() const { return fill_rows != rows || fill_cols != cols; }
};

std::vector<TcOperand> tc_operands(const Plan& pl) {
  const bool cm = pl.b_k_contiguous;
  const std::string a_rows = pl.fill_m_macro(), b_n = pl.fill_n_macro();
  return {{'a', "A", "As", "BM", "BK", pl.vec_a, false, false, a_rows, "BK"},
          {'b', "B", "Bs", cm ? "BN" : "BK", cm ? "BK" : "BN", pl.vec_b, !cm, cm, cm ? b_n : "BK", cm ? "BK" : b_n}};
}

/// GEMM coordinates of tile element (r, c) of the stage at `k0`, as the loader's arguments.
std::string coords(const TcOperand& o, const std::string& k0) {
  if (o.id == 'a') return fmt::format("m0 + r, {} + c", k0);
  return o.rows_are_k ? fmt::format("{} + r, n0 + c", k0) : fmt::format("{} + c, n0 + r", k0);
}

/// 0/1 validity of the 16-byte vector at tile element (r, c): the vector lies wholly inside or
/// wholly outside the operand (its extent along the columns is a multiple of the vector).
std::string vector_valid(const TcOperand& o, const std::string& k0) {
  if (o.id == 'a') return fmt::format("(m0 + r < d.M) & ({} + c < d.K)", k0);
  return o.rows_are_k ? fmt::format("({} + r < d.K) & (n0 + c < d.N)", k0)
                      : fmt::format("({} + c < d.K) & (n0 + r < d.N)", k0);
}

std::string smem_elem(const Plan& pl) {
  if (!cuda(pl)) return "uint16_t";
  if (pl.fp16) return "__half";
  return pl.bf16 ? "__nv_bfloat16" : "float";
}

/// A loaded element (fp32 from the CUDA loader) in the shared tile's type. TF32 operands stay fp32
/// in shared memory: the fragments are rounded to TF32 after loading (vxs_round_tf32). A TF32
/// reference at FP16 is rounded to FP16 here, on the fill (round to nearest even, as the Vortex
/// host rounds its operands).
std::string to_tile(const Plan& pl, const std::string& v) {
  if (cuda(pl) && pl.fp16) return "__float2half_rn(" + v + ")";
  return cuda(pl) && pl.bf16 ? "__float2bfloat16(" + v + ")" : v;
}

/// How a fill moves an element operand's elements.
enum class Move { kNone, kDirect, kToRegs, kRegsToTile };
/// How a fill moves a vector operand's 16-byte vectors.
enum class VecMove { kNone, kSync, kAsync };

/// Elements of operand tile `o` an element fill covers (fill_rows x fill_cols).
uint32_t tile_elements(const Plan& pl, const TcOperand& o) {
  return o.id == 'a' ? pl.fill_m() * pl.bk : pl.bk * pl.fill_n();
}

/// Zero of the shared tile's element type.
std::string tile_zero(const Plan& pl) {
  if (!cuda(pl)) return "(uint16_t)0";
  return to_tile(pl, "0.0f");
}

/// The part of an element operand's tile outside its fill (trailing rows or columns of every
/// stage), zeroed once at the block's start: no block's operand data ever lands there, so the
/// fills leave it and the fragments read zeros, as over padding. Predicated stores, like the fills.
void emit_zero_outside_fill(CodeWriter& w, const Plan& pl, const TcOperand& o) {
  const bool rows_dead = o.fill_rows != o.rows;
  const std::string dr = rows_dead ? fmt::format("({} - {})", o.rows, o.fill_rows) : o.rows;
  const std::string dc = rows_dead ? o.cols : fmt::format("({} - {})", o.cols, o.fill_cols);
  w.line("// {} outside {} x {}: zeroed once per block; no operand data ever lands there.", o.tile, o.fill_rows,
         o.fill_cols);
  w.open(fmt::format("for (int i = 0; i < (STAGES * {} * {} + BS - 1) / BS; ++i)", dr, dc));
  w.line("const int in = tid + i * BS < STAGES * {} * {};", dr, dc);
  w.line("const int e = (tid + i * BS) & -in;");
  w.line("const int s = e / ({} * {});", dr, dc);
  w.line("const int x = e - s * ({} * {});", dr, dc);
  w.line("const int r = {}x / {};", rows_dead ? o.fill_rows + " + " : "", dc);
  w.line("const int c = {}x % {};", rows_dead ? "" : o.fill_cols + " + ", dc);
  w.line("VXS_GST(&{}[s][r][c], {}, in);", o.tile, tile_zero(pl));
  w.close();
}

/// Element fill of one operand (one element per thread and step; axis lane_map orders them).
/// Where the tile is not a multiple of the block (warp-epilogue schedule) the last step covers part
/// of it: lanes past the tile read element 0's coordinates and store nothing (0/1 `in`, predicated
/// stores: no thread-dependent branch, docs/codegen.md "Divergence safety").
void emit_element_fill(CodeWriter& w, const Plan& pl, const TcOperand& o, const std::string& stage,
                       const std::string& k0, Move mv) {
  const bool fast_col = lanes_adjacent(pl.p->axes.lane_map);
  const bool partial = tile_elements(pl, o) % pl.p->fixed.block_size != 0;
  const std::string reg = fmt::format("p{}[i]", o.id);
  const std::string slot = fmt::format("{}[{}][r][c]", o.tile, stage);
  const std::string load = to_tile(pl, fmt::format("vxs_load_{}({}, d, z, {})", o.id, o.ptr, coords(o, k0)));
  w.open(fmt::format("for (int i = 0; i < FILL_{}; ++i)", o.upper()));
  if (partial) {
    w.line("const int in = tid + i * BS < {} * {};  // the last step covers part of the tile", o.fill_rows,
           o.fill_cols);
    w.line("const int e = (tid + i * BS) & -in;");
  } else {
    w.line("const int e = tid + i * BS;");
  }
  if (fast_col) {  // consecutive e along the operand's contiguous dimension
    w.line("const int r = e / {};", o.fill_cols);
    w.line("const int c = e % {};", o.fill_cols);
  } else {
    w.line("const int r = e % {};", o.fill_rows);
    w.line("const int c = e / {};", o.fill_rows);
  }
  auto store = [&](const std::string& val) {
    if (partial) {
      w.line("VXS_GST(&{}, {}, in);", slot, val);
    } else {
      w.line("{} = {};", slot, val);
    }
  };
  switch (mv) {
    case Move::kToRegs: w.line("{} = {};", reg, load); break;
    case Move::kRegsToTile: store(reg); break;
    case Move::kDirect: store(load); break;
    case Move::kNone: break;
  }
  w.close();
}

/// 16-byte vector fill of one operand (CUDA): each thread moves VEC consecutive elements of a row.
void emit_vector_fill(CodeWriter& w, const Plan& pl, const TcOperand& o, const std::string& stage,
                      const std::string& k0, bool async) {
  const auto& t = pl.p->axes.tile;
  const uint32_t rows = o.id == 'a' ? t.m : (o.rows_are_k ? t.k : t.n);
  const uint32_t cols = o.id == 'a' ? t.k : (o.rows_are_k ? t.n : t.k);
  const bool partial = (rows * cols / o.vec) % pl.p->fixed.block_size != 0;
  const std::string U = o.upper();
  w.open(fmt::format("for (int i = 0; i < VFILL_{}; ++i)", U));
  w.line("const int e = tid + i * BS;");
  if (pl.warpgroup) {  // consecutive threads on consecutive rows of a core matrix: distinct banks
    w.line("const int r = (e / BK) * 8 + (e & 7);");
    w.line("const int c = ((e >> 3) % (BK / 8)) * 8;");
  } else {
    w.line("const int r = e / ({} / VEC_{});", o.cols, U);
    w.line("const int c = (e - r * ({} / VEC_{})) * VEC_{};", o.cols, U, U);
  }
  w.line("const int v = {};", vector_valid(o, k0));
  const std::string dst = pl.warpgroup ? fmt::format("&{}[{}][vxs_canonical(r, c, BK)]", o.tile, stage)
                                       : fmt::format("&{}[{}][r][c]", o.tile, stage);
  const std::string call = fmt::format("{}({}, &{}[vxs_index_{}(d, z, {}) & -v], v);",
                                       async ? "vxs_fill16_async" : "vxs_fill16", dst, o.ptr, o.id, coords(o, k0));
  if (partial) {
    w.line("if (e < {} * {} / VEC_{}) {}  // the last step covers part of the tile", o.rows, o.cols, U, call);
  } else {
    w.line(call);
  }
  w.close();
}

/// Fill of both operand tiles of stage `stage` at `k0`: vector operands per `vm`, element
/// operands per `mv` (kNone leaves that kind out).
void emit_fill(CodeWriter& w, const Plan& pl, const std::string& stage, const std::string& k0, VecMove vm, Move mv) {
  for (const TcOperand& o : tc_operands(pl)) {
    if (o.vec > 1 && vm != VecMove::kNone) emit_vector_fill(w, pl, o, stage, k0, vm == VecMove::kAsync);
    if (o.vec == 1 && mv != Move::kNone) emit_element_fill(w, pl, o, stage, k0, mv);
  }
}

/// Registers that carry the element operands' next stage (software prefetch).
void emit_prefetch_registers(CodeWriter& w, const Plan& pl) {
  for (const TcOperand& o : tc_operands(pl)) {
    if (o.vec == 1)
      w.line("{} p{}[FILL_{}];  // next stage of {} in registers (axis prefetch)", smem_elem(pl), o.id, o.upper(),
             o.ptr);
  }
}

/// Shared/local memory: STAGES x (As, Bs) with padded rows; the fp32 accumulator staging (Cs, or
/// one fragment per warp) reuses it.
void emit_tc_smem(CodeWriter& w, const Plan& pl) {
  const std::string t = smem_elem(pl);
  if (pl.warpgroup) {
    w.line("// Shared memory (axis smem_stage; dynamic, {} B per block, set by vxs_launch_dims): STAGES x operand",
           smem_bytes(*pl.p));
    w.line("// tiles in wgmma's canonical K-major layout (vxs_canonical: core matrices of 8 rows x 16 bytes).");
    w.line("extern __shared__ __align__(128) unsigned char smem[];");
    w.line("{0} (*As)[BM * BK] = reinterpret_cast<{0} (*)[BM * BK]>(smem);", t);
    w.line("{0} (*Bs)[BN * BK] = reinterpret_cast<{0} (*)[BN * BK]>(smem + STAGES * BM * BK * sizeof({0}));", t);
    return;
  }
  if (cuda(pl) && warp_epilogue(pl)) {
    w.line("// Shared memory (axis smem_stage; dynamic, {} B per block, set by vxs_launch_dims): STAGES x operand",
           smem_bytes(*pl.p));
    w.line("// tiles with rows of LDA/LDB elements; each warp's fragment scratch Cw reuses it after the last stage.");
    w.line("extern __shared__ __align__(128) unsigned char smem[];");
  } else if (warp_epilogue(pl)) {
    w.line("// Local memory (axis smem_stage): the operand tiles; each warp's fragment scratch Cw reuses it.");
    w.line("unsigned char* smem = (unsigned char*)__local_mem({});", vortex_local_mem_bytes(*pl.p));
  } else if (cuda(pl)) {
    w.line("// Shared memory (axis smem_stage): STAGES x operand tiles with rows of LDA/LDB elements; the fp32");
    w.line("// accumulator tile Cs reuses it after the last stage.");
    w.line("__shared__ __align__(128) unsigned char smem[{}];", smem_bytes(*pl.p));
  } else {
    w.line("// Local memory (axis smem_stage): the operand tiles; the fp32 accumulator tile Cs reuses it.");
    w.line("unsigned char* smem = (unsigned char*)__local_mem({});", vortex_local_mem_bytes(*pl.p));
  }
  w.line("{0} (*As)[BM][LDA] = reinterpret_cast<{0} (*)[BM][LDA]>(smem);", t);
  w.line("{0} (*Bs)[B_ROWS][LDB] = reinterpret_cast<{0} (*)[B_ROWS][LDB]>(smem + STAGES * BM * LDA * sizeof({0}));",
         t);
  if (!warp_epilogue(pl)) w.line("float (*Cs)[BN] = reinterpret_cast<float (*)[BN]>(smem);");
}

std::string ns(const Plan& pl) { return cuda(pl) ? "wmma" : "vxs_ctx"; }

/// Warpgroup tiling: each thread of a warpgroup holds FN / 2 fp32 accumulators of each of its
/// WTM x WTN operations (vxs_wgmma_row / _col place them), pinned before the first wgmma.fence.
void emit_wgmma_accumulators(CodeWriter& w) {
  w.line("// Warpgroup tiling: warpgroup (wm, wn) of the WGM x WGN grid owns WTM x WTN operations of FM x FN.");
  w.line("const int wid = tid / 128;  // warpgroup: 4 consecutive warps");
  w.line("const int wm = wid / WGN;");
  w.line("const int wn = wid - wm * WGN;");
  w.line("float acc[WTM][WTN][FN / 2];");
  w.line("#pragma unroll");
  w.open("for (int i = 0; i < WTM; ++i)");
  w.line("#pragma unroll");
  w.open("for (int j = 0; j < WTN; ++j)");
  w.line("#pragma unroll");
  w.line("for (int e = 0; e < FN / 2; ++e) acc[i][j][e] = 0.0f;");
  w.close();
  w.close();
  w.line("vxs_wgmma_fence_operand(acc);  // the zeros stay before the first wgmma.fence");
}

void emit_tc_accumulators(CodeWriter& w, const Plan& pl) {
  if (pl.warpgroup) {
    emit_wgmma_accumulators(w);
    return;
  }
  w.line("// Warp tiling: warp (wm, wn) of the WGM x WGN warp grid owns WTM x WTN fragments.");
  w.line("const int wid = tid / WARP;");
  w.line("const int wm = wid / WGN;");
  w.line("const int wn = wid - wm * WGN;");
  if (cuda(pl)) {
    w.line("wmma::fragment<wmma::accumulator, FM, FN, FK, float> acc[WTM][WTN];");
  } else {
    w.line("vxs_ctx::fragment_acc acc[WTM][WTN];");
  }
  w.line("for (int i = 0; i < WTM; ++i)");
  w.line("  for (int j = 0; j < WTN; ++j) {}::fill_fragment(acc[i][j], 0.0f);", ns(pl));
}

/// The fragment declarations of one k step.
void emit_fragments(CodeWriter& w, const Plan& pl) {
  if (!cuda(pl)) {
    w.line("vxs_ctx::fragment_a fa[WTM];");
    w.line("vxs_ctx::fragment_b fb[WTN];");
    return;
  }
  const std::string t = pl.bf16 ? "__nv_bfloat16" : (pl.fp16 ? "half" : "wmma::precision::tf32");
  w.line("wmma::fragment<wmma::matrix_a, FM, FN, FK, {}, wmma::row_major> fa[WTM];", t);
  w.line("wmma::fragment<wmma::matrix_b, FM, FN, FK, {}, wmma::{}> fb[WTN];", t,
         pl.b_k_contiguous ? "col_major" : "row_major");
}

/// One stage of warpgroup MMA on stage buffer `s`: per 16-deep k step one wgmma per operation,
/// both operands read from shared memory through descriptors; the group is waited for before the
/// next stage's barrier frees these buffers for the copies.
void emit_wgmma_compute(CodeWriter& w, const Plan& pl, const std::string& s) {
  w.line("vxs_wgmma_fence_operand(acc);  // the compiler keeps accumulator accesses on their side of the fence");
  w.line("vxs_wgmma_fence();  // accumulator accesses so far before this stage's wgmma");
  w.line("#pragma unroll");
  w.open("for (int kk = 0; kk < BK; kk += FK)");
  w.line("#pragma unroll");
  w.open("for (int i = 0; i < WTM; ++i)");
  w.line("#pragma unroll");
  w.open("for (int j = 0; j < WTN; ++j)");
  w.line("const uint64_t da = vxs_wgmma_desc(&As[{}][vxs_canonical((wm * WTM + i) * FM, kk, BK)], BK);", s);
  w.line("const uint64_t db = vxs_wgmma_desc(&Bs[{}][vxs_canonical((wn * WTN + j) * FN, kk, BK)], BK);", s);
  w.line("vxs_wgmma_{}(acc[i][j], da, db);", pl.fp16 ? "f16" : "bf16");
  w.close();
  w.close();
  w.close();
  w.line("vxs_wgmma_commit();");
  w.line("vxs_wgmma_wait<0>();  // done with stage {}: its buffers may be refilled after the next barrier", s);
  w.line("vxs_wgmma_fence_operand(acc);  // accumulators read or written after the wait stay after it");
}

/// One stage of tensor-core math on stage buffer `s`: per k step, WTM A and WTN B fragments
/// from shared memory, each reused by WTN (WTM) mma operations (warpgroup shapes: wgmma).
void emit_tc_compute(CodeWriter& w, const Plan& pl, const std::string& s) {
  if (pl.warpgroup) {
    emit_wgmma_compute(w, pl, s);
    return;
  }
  const bool c = cuda(pl);
  const std::string b_at = pl.b_k_contiguous ? fmt::format("&Bs[{}][(wn * WTN + j) * FN][kk]", s)
                                             : fmt::format("&Bs[{}][kk][(wn * WTN + j) * FN]", s);
  // CUDA: vxs_wmma.cuh's shared-memory fragment loads (nvcc leaves TF32/BF16 wmma.load generic).
  const std::string a_load = c ? "vxs_load_shared" : "vxs_ctx::load_matrix_sync";
  const std::string b_load = c ? "vxs_load_shared"
                               : (pl.b_k_contiguous ? "vxs_ctx::load_matrix_sync<vortex::tensor::col_major>"
                                                    : "vxs_ctx::load_matrix_sync");
  w.open("for (int kk = 0; kk < BK; kk += FK)");
  emit_fragments(w, pl);
  w.open("for (int i = 0; i < WTM; ++i)");
  w.line("{}(fa[i], &As[{}][(wm * WTM + i) * FM][kk], LDA);", a_load, s);
  if (c && pl.tf32) w.line("vxs_round_tf32(fa[i]);");
  w.close();
  w.open("for (int j = 0; j < WTN; ++j)");
  w.line("{}(fb[j], {}, LDB);", b_load, b_at);
  if (c && pl.tf32) w.line("vxs_round_tf32(fb[j]);");
  w.close();
  w.line("for (int i = 0; i < WTM; ++i)");
  w.line("  for (int j = 0; j < WTN; ++j) {}::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);", ns(pl));
  w.close();
}

/// One shared stage: fill, synchronise, compute; with prefetch (Vortex, or CUDA when two stages do
/// not fit in shared memory) the element operands' next stage is loaded into registers while this
/// one is computed (paper §3.3: software prefetch).
void emit_single_stage_loop(CodeWriter& w, const Plan& pl) {
  const bool prefetch = pl.p->axes.prefetch;
  if (prefetch) {
    emit_prefetch_registers(w, pl);
    w.open("");
    w.line("const int k0 = k_begin;");
    emit_fill(w, pl, "0", "k0", VecMove::kNone, Move::kToRegs);
    w.close();
  }
  w.open("for (int t = 0; t < kt_per_split; ++t)");
  w.line("const int k0 = k_begin + t * BK;");
  w.line("// Cooperative fill of the whole block (axis lane_map = {}).", to_string(pl.p->axes.lane_map));
  emit_fill(w, pl, "0", "k0", VecMove::kSync, prefetch ? Move::kRegsToTile : Move::kDirect);
  w.line("__syncthreads();");
  if (prefetch) {
    w.open("if (t + 1 < kt_per_split)", "uniform: t is the same for every thread");
    w.line("const int k1 = k0 + BK;");
    emit_fill(w, pl, "0", "k1", VecMove::kNone, Move::kToRegs);
    w.close();
  }
  emit_tc_compute(w, pl, "0");
  w.line("__syncthreads();");
  w.close();
}

/// STAGES shared stages (CUDA, axis prefetch): while stage t is computed, stages t+1 ..
/// t+STAGES-1 are in flight as asynchronous copies (vector operands) or, for the stage issued
/// last, register loads (element operands). One barrier per stage: it both publishes stage t and
/// retires the buffer of stage t-1, which the next stage is copied into.
void emit_multi_stage_loop(CodeWriter& w, const Plan& pl) {
  emit_prefetch_registers(w, pl);
  w.open("for (int s = 0; s < STAGES - 1; ++s)", "prologue: the first STAGES - 1 stages in flight");
  w.open("if (s < kt_per_split)", "uniform over the block");
  w.line("const int k0 = k_begin + s * BK;");
  emit_fill(w, pl, "s", "k0", VecMove::kAsync, Move::kDirect);
  w.close();
  w.line("vxs_async_commit();");
  w.close();
  w.open("for (int t = 0; t < kt_per_split; ++t)");
  w.line("const int s = t % STAGES;");
  w.line("vxs_async_wait<STAGES - 2>();  // stage t has landed; later stages stay in flight");
  if (pl.warpgroup) w.line("vxs_fence_async_shared();      // this thread's copies, visible to wgmma (async proxy)");
  w.line("__syncthreads();               // ... for every thread, and stage t-1's buffer is free");
  w.line("const int tn = t + STAGES - 1;  // the stage issued now, into stage t-1's buffer");
  w.line("const int sn = tn % STAGES;");
  w.line("const int k1 = k_begin + tn * BK;");
  w.line("const int more = tn < kt_per_split;  // uniform over the block");
  w.open("if (more)", "axis prefetch: cp.async for vector operands, registers for element operands");
  emit_fill(w, pl, "sn", "k1", VecMove::kAsync, Move::kToRegs);
  w.close();
  w.line("vxs_async_commit();");
  emit_tc_compute(w, pl, "s");
  bool element_operand = false;
  for (const TcOperand& o : tc_operands(pl)) element_operand = element_operand || o.vec == 1;
  if (element_operand) {
    w.open("if (more)");
    emit_fill(w, pl, "sn", "k1", VecMove::kNone, Move::kRegsToTile);
    w.close();
  }
  w.close();
  w.line("vxs_async_wait<0>();");
  if (pl.warpgroup) return;  // the accumulators leave from registers: the tiles are not reused
  w.line(warp_epilogue(pl) ? "__syncthreads();  // every warp is done with the operand tiles before the scratch Cw reuses them"
                           : "__syncthreads();  // every warp is done with the operand tiles before Cs reuses them");
}

/// One write-out loop of staged accumulators: `steps` steps of the loop variable `var`, element
/// `e` of a rows x cols tile (axis lane_map: consecutive e along the columns, or the rows) to output
/// element (m, n), whose value statement `value` reads the staging.
struct WriteOut {
  const char *var, *steps, *e, *rows, *cols, *m, *n, *value;
};

void emit_write_out(CodeWriter& w, const Plan& pl, const WriteOut& o) {
  const bool c = lanes_adjacent(pl.p->axes.lane_map);
  w.open(fmt::format("for (int {0} = 0; {0} < {1}; ++{0})", o.var, o.steps));
  w.line("const int e = {};", o.e);
  w.line("const int r = e {} {};", c ? "/" : "%", c ? o.cols : o.rows);
  w.line("const int c = e {} {};", c ? "%" : "/", c ? o.cols : o.rows);
  w.line("const int m = {};", o.m);
  w.line("const int n = {};", o.n);
  emit_store(w, pl, o.value);
  w.close();
}

/// Warp-epilogue schedule: each warp stores its fragments one at a time to its own FM x FN scratch
/// Cw and its lanes write them out, guarded (axis lane_map orders the lanes). No block barrier: a
/// warp reads only what it wrote.
void emit_tc_warp_epilogue(CodeWriter& w, const Plan& pl) {
  const std::string sync = cuda(pl) ? "__syncwarp();" : "";
  w.line("// Accumulators -> this warp's scratch, one fragment at a time, then a guarded write-out by its lanes.");
  w.line("float* Cw = reinterpret_cast<float*>(smem) + wid * (FM * FN);");
  w.line("const int lane = tid - wid * WARP;");
  // CUDA: unrolled, acc[i][j] has constant indices and the fragments stay in registers (nvcc
  // leaves these loops rolled and keeps acc in a local-memory frame otherwise: ptxas -v).
  if (cuda(pl)) w.line("#pragma unroll");
  w.open("for (int i = 0; i < WTM; ++i)");
  if (cuda(pl)) w.line("#pragma unroll");
  w.open("for (int j = 0; j < WTN; ++j)");
  if (cuda(pl)) {
    w.line("vxs_store_shared(Cw, acc[i][j], FN);  // wmma::store_matrix_sync, row-major, .shared");
    w.line("__syncwarp();  // the fragment is in Cw for every lane");
  } else {
    w.line("vxs_ctx::store_matrix_sync(Cw, acc[i][j], FN);  // the warp's lanes run in lockstep: in Cw for every lane");
  }
  emit_write_out(w, pl, {"q", "FM * FN / WARP", "lane + q * WARP", "FM", "FN", "m0 + (wm * WTM + i) * FM + r",
                         "n0 + (wn * WTN + j) * FN + c", "float v = Cw[r * FN + c];"});
  if (!sync.empty()) w.line("{}  // every lane has read Cw before the next fragment overwrites it", sync);
  w.close();
  w.close();
  if (!cuda(pl)) {
    // vx_spawn runs the blocks of one slot back to back on the same warps and local memory
    // (docs/sdk.md "`vx_spawn_threads` behaviour"): the next block's fill must wait for every Cw read.
    w.line("__syncthreads();  // the slot's next block overwrites the scratch with its operand tiles");
  }
}

/// Warpgroup MMA: each thread writes its accumulators out from registers, guarded, at the places
/// vxs_wgmma_row / vxs_wgmma_col give (no scratch, no barrier).
void emit_wgmma_epilogue(CodeWriter& w, const Plan& pl) {
  w.line("// Accumulators -> output straight from registers: element e of operation (i, j) of this thread.");
  w.line("const int lane = tid - wid * 128;  // thread of its warpgroup");
  w.line("#pragma unroll");
  w.open("for (int i = 0; i < WTM; ++i)");
  w.line("#pragma unroll");
  w.open("for (int j = 0; j < WTN; ++j)");
  w.line("#pragma unroll");
  w.open("for (int e = 0; e < FN / 2; ++e)");
  w.line("const int m = m0 + (wm * WTM + i) * FM + vxs_wgmma_row(lane, e);");
  w.line("const int n = n0 + (wn * WTN + j) * FN + vxs_wgmma_col(lane, e);");
  emit_store(w, pl, "float v = acc[i][j][e];");
  w.close();
  w.close();
  w.close();
}

void emit_tc_epilogue(CodeWriter& w, const Plan& pl) {
  if (pl.warpgroup) {
    emit_wgmma_epilogue(w, pl);
    return;
  }
  if (warp_epilogue(pl)) {
    emit_tc_warp_epilogue(w, pl);
    return;
  }
  w.line("// Accumulators -> shared memory, then a cooperative, guarded write-out (axis lane_map).");
  w.open("for (int i = 0; i < WTM; ++i)");
  w.open("for (int j = 0; j < WTN; ++j)");
  w.line("float* at = &Cs[(wm * WTM + i) * FM][(wn * WTN + j) * FN];");
  if (cuda(pl)) {
    w.line("vxs_store_shared(at, acc[i][j], BN);  // wmma::store_matrix_sync, row-major, .shared");
  } else {
    w.line("vxs_ctx::store_matrix_sync(at, acc[i][j], BN);");
  }
  w.close();
  w.close();
  w.line("__syncthreads();");
  emit_write_out(w, pl, {"i", "OUT_PER_THREAD", "tid + i * BS", "BM", "BN", "m0 + r", "n0 + c", "float v = Cs[r][c];"});
  if (!cuda(pl)) {
    // vx_spawn runs the blocks of one slot back to back on the same warps and local memory
    // (docs/sdk.md "`vx_spawn_threads` behaviour"), so the next block's operand fill must wait for every read of Cs.
    w.line("__syncthreads();  // the slot's next block overwrites Cs with its operand tiles");
  }
}

/// VEC_ and VFILL_ of the operands filled with 16-byte vectors.
void emit_vector_defines(CodeWriter& w, const Plan& pl) {
  for (const TcOperand& o : tc_operands(pl)) {
    if (o.vec == 1) continue;
    w.pp(fmt::format("#define VEC_{} {}     // elements of {} per 16-byte fill", o.upper(), o.vec, o.ptr));
    w.pp(fmt::format("#define VFILL_{0} (({1} * {2} / VEC_{0} + BS - 1) / BS)  // vector fills per thread and stage",
                     o.upper(), o.rows, o.cols));
  }
}

}  // namespace

void emit_tc_defines(CodeWriter& w, const Plan& pl) {
  const char* what = pl.warpgroup ? "operation" : "fragment";
  const char* owner = pl.warpgroup ? "warpgroup" : "warp";
  w.pp(fmt::format("#define FM {}        // {} rows (axis tensor_core{})", pl.frag[0], what,
                   cuda(pl) ? (pl.warpgroup ? ": one warpgroup's wgmma" : "") : "; Vortex TCU tile of the warp width"));
  w.pp(fmt::format("#define FN {}        // {} columns", pl.frag[1], what));
  w.pp(fmt::format("#define FK {}        // {} depth", pl.frag[2], what));
  w.pp(fmt::format("#define WGM {}       // {} grid: {}s along M (the block size decides)", pl.warps.m, owner, owner));
  w.pp(fmt::format("#define WGN {}       // {} grid: {}s along N", pl.warps.n, owner, owner));
  w.pp(fmt::format("#define WTM (BM / FM / WGM)  // {}s per {} along M", what, owner));
  w.pp(fmt::format("#define WTN (BN / FN / WGN)  // {}s per {} along N", what, owner));
  const std::string many = warp_epilogue(pl)
                               ? fmt::format("as many of the {} asked for as 227 KiB hold",
                                             pl.p->cuda_stages ? pl.p->cuda_stages : 4)
                               : "as many as 48 KiB hold, up to 4";
  w.pp(fmt::format("#define STAGES {}    // shared-memory stages ({})", pl.stages,
                   pl.stages > 1 ? "axis prefetch: asynchronous copies, " + many : "one"));
  // STAGES 1 with prefetch: the next stage goes through registers (emit_single_stage_loop).
  if (pl.warpgroup) {
    emit_vector_defines(w, pl);
    return;
  }
  w.pp(fmt::format("#define LDA (BK + {}) // row length of As{}", pl.pad, pl.pad ? " (16-byte pad against bank conflicts)" : ""));
  w.pp(pl.b_k_contiguous ? "#define B_ROWS BN     // Bs holds B as n x k (column-major fragments)"
                         : "#define B_ROWS BK     // Bs holds B as k x n (row-major fragments)");
  w.pp(fmt::format("#define LDB ({} + {}) // row length of Bs", pl.b_k_contiguous ? "BK" : "BN", pl.pad));
  emit_vector_defines(w, pl);
  if (!warp_epilogue(pl))
    w.pp("#define OUT_PER_THREAD (BM * BN / BS)  // accumulator elements each thread writes out");
}

void emit_tc_gemm_body(CodeWriter& w, const Plan& pl) {
  emit_block_coords(w, pl);
  emit_tc_smem(w, pl);
  for (const TcOperand& o : tc_operands(pl)) {
    if (o.vec == 1 && o.partly_live()) emit_zero_outside_fill(w, pl, o);
  }
  emit_tc_accumulators(w, pl);
  if (pl.stages > 1) {
    emit_multi_stage_loop(w, pl);
  } else {
    emit_single_stage_loop(w, pl);
  }
  emit_tc_epilogue(w, pl);
}

}  // namespace vxsynth::codegen::detail
