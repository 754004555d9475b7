#pragma once
// Internal: the kernel-body generator shared by the CUDA and Vortex emitters.

#include <array>
#include <string>
#include <string_view>

#include "code_writer.h"
#include "vxsynth/codegen/design_point.h"
#include "vxsynth/codegen/emit.h"

namespace vxsynth::codegen::detail {

enum class Dialect { kCuda, kVortex };

/// Everything the body generator derives from a design point once.
struct Plan {
  const DesignPoint* p = nullptr;
  Dialect dialect = Dialect::kCuda;
  GemmView g;
  bool tc = false;          ///< tensor-core path
  bool bf16 = false;        ///< bf16 storage
  bool tf32 = false;        ///< tf32 path on this side (CUDA tf32 wmma; Vortex fp16 TCU)
  bool fp16 = false;        ///< CUDA fp16 wmma of a TF32 reference (translation with the Vortex formats)
  const TranslationInfo* tr = nullptr;  ///< the CUDA translation (kTranslationTable row)
  bool has_bias = false;
  bool relu = false;
  bool two_launch = false;  ///< GEMM writes fp32 partials to the workspace; kernel 2 reduces + epilogue
  bool b_k_contiguous = false;  ///< B operand contiguous along k (linear weight[n][k]) vs along n
  uint32_t warp = 32;       ///< warp width of this dialect
  uint32_t bk = 0;          ///< K depth of one stage on this side (BK; Vortex and its literal CUDA translation: vortex_stage_k)
  std::string in_t;         ///< element type of the inputs in global memory on this side
  std::string out_t;        ///< element type of the output in global memory
  std::string a_name, b_name;  ///< operand names of GEMM A and B (x/weight/a/b)
  // Tensor-core strategy (docs/codegen.md "Tensor-core strategy"); unset on SIMT paths.
  std::array<uint32_t, 3> frag{};  ///< fragment (CUDA) or TCU tile (Vortex) m, n, k
  WarpGrid warps;                  ///< warp (warpgroup) grid over the block's fragment grid
  bool warpgroup = false;          ///< CUDA warpgroup MMA (wgmma from canonical shared tiles; FragShapeInfo)
  uint32_t pad = 0;                ///< padding elements after each smem operand row (CUDA)
  uint32_t stages = 1;             ///< smem stages of the operand tiles (2: asynchronous copies)
  uint32_t vec_a = 1, vec_b = 1;   ///< elements per fill of A and B (16-byte vectors on CUDA, else 1)
  /// Element-filled operand tiles of the warp-epilogue schedule at a specialised shape whose GEMM
  /// extent is smaller than the tile's (one tile along it): the rows of As (live_m = M) and the N
  /// extent of Bs (live_n = N) that hold operand data. The fills cover only those; the rest of the
  /// tile is zeroed once per block (docs/codegen.md "Tensor-core strategy"). 0: the whole tile.
  uint32_t live_m = 0, live_n = 0;
  /// The rows of As and the N extent of Bs that an element fill covers, and their macros.
  [[nodiscard]] uint32_t fill_m() const { return live_m ? live_m : p->axes.tile.m; }
  [[nodiscard]] uint32_t fill_n() const { return live_n ? live_n : p->axes.tile.n; }
  /// This side stages each BK of the tile in steps of bk (vortex_stage_k).
  [[nodiscard]] bool sub_stages() const { return bk != p->axes.tile.k; }
  [[nodiscard]] const char* fill_m_macro() const { return live_m ? "LIVE_M" : "BM"; }
  [[nodiscard]] const char* fill_n_macro() const { return live_n ? "LIVE_N" : "BN"; }
};

[[nodiscard]] Plan make_plan(const DesignPoint& p, Dialect d);

/// Design-dependent helpers of both sides: load policy and conversions, index functions, loaders.
void emit_device_helpers(CodeWriter& w, const Plan& pl);
/// Global element offset of A(z, m, k) (`a`) or B(z, k, n) of the GEMM view (vector fills).
[[nodiscard]] std::string operand_index(const Plan& pl, bool a);
/// `vxs_index_a` / `vxs_index_b` for the operands that are filled with 16-byte vectors.
void emit_vector_index_functions(CodeWriter& w, const Plan& pl);
/// Block coordinates and this split's K range (axis split_k).
void emit_block_coords(CodeWriter& w, const Plan& pl);
/// Bias/activation and the store of output element (m, n) from the statement `value` (defines v).
void emit_store(CodeWriter& w, const Plan& pl, const std::string& value);
/// Tensor-core strategy: the GEMM kernel body (emit_tc.cc).
void emit_tc_gemm_body(CodeWriter& w, const Plan& pl);
/// Tensor-core strategy: the `#define`s of fragments, warp grid, rows, stages and fills.
void emit_tc_defines(CodeWriter& w, const Plan& pl);
/// Body of the main GEMM kernel (statements, after A, B, bias, out, ws, d are in scope).
void emit_gemm_body(CodeWriter& w, const Plan& pl);
/// Body of the reduce/epilogue kernel (launch 2).
void emit_epilogue_body(CodeWriter& w, const Plan& pl);
/// `#define`s of the tile constants.
void emit_tile_defines(CodeWriter& w, const Plan& pl);
/// The fixed runtime file `name` (codegen/runtime/, embedded at build time) as a candidate file.
[[nodiscard]] SourceFile runtime_source(std::string_view name);
/// C initializer of the profiled dims, e.g. "{1, 64, 32, 48, ...}".
[[nodiscard]] std::string dims_initializer(const check::OpSpec& op);
/// Header comment describing the design point.
[[nodiscard]] std::string emit_banner(const DesignPoint& p, const char* what);
/// Grid (x, y, z) of launch 1 and the 1-D grid of launch 2, for the profiled shape.
struct Grids {
  int64_t gx = 1, gy = 1, gz = 1;
  int64_t epi_blocks = 0;
};
/// vxs_out_index and (with a bias) vxs_bias_index: offsets of GEMM-view element (z, m, n) in the
/// output (and bias); used by the kernels and by the Vortex host's sampled-tile check.
void emit_index_functions(CodeWriter& w, const Plan& pl);
[[nodiscard]] Grids grids(const DesignPoint& p);
/// Workspace floats (split_k·Z·M·N when two launches, else 0).
[[nodiscard]] int64_t workspace_floats(const DesignPoint& p);

}  // namespace vxsynth::codegen::detail
