#pragma once
/// \file
/// A design point: the four fixed reference properties plus a value for each of the twelve
/// optimization axes (docs/signature.md §2–3; paper §3.3–3.4, Tables 3–4).
/// Codegen renders one design point into a CUDA candidate and a Vortex candidate that implement
/// the same strategy. Validation rejects points that break a fixed property or a constraint, with
/// a reason naming the axis and the numbers involved.

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "vxsynth/check/op_spec.h"
#include "vxsynth/check/precision.h"
#include "vxsynth/core/context.h"
#include "vxsynth/core/signature.h"

namespace vxsynth::codegen {

/// The twelve axes of paper Table 3, in the order of docs/signature.md §3 (ids are
/// stable; the axis table below is in this order).
enum class AxisId : uint8_t {
  kTile, kRegTile, kPrefetch, kSmemStage, kReadOnce, kLaneMap,
  kTensorCore, kFusedAct, kSplitK, kBlockDecomp, kBoundary, kKRange,
};
inline constexpr int kNumAxes = 12;

/// The four properties fixed before refinement (paper Table 4; docs/signature.md §2). Every candidate of
/// a chain keeps them; validation compares a point's derived engine/types/block/shape with these.
struct FixedProperties {
  core::EngineClass engine = core::EngineClass::kSimt;  ///< 1. engine class
  check::PrecisionPath path = check::PrecisionPath::kFp32;  ///< 2. data types (operand → accumulator path)
  uint32_t block_size = 256;                            ///< 3. threads per block of the profiled launch
  check::OpSpec op;                                     ///< 4. shape (plus bias/activation semantics)
};

/// Vortex machine the Vortex candidate targets (SimX defaults are 1 core × 4 warps × 4 threads;
/// docs/vortex.md §8.1). vx_spawn_threads needs warps·threads ≥ block size (§4.2); the TCU tile
/// shape follows from `threads` (§7.1).
struct VortexTarget {
  uint32_t cores = 1;
  uint32_t warps = 32;
  uint32_t threads = 8;
  uint32_t local_mem_bytes = 16384;  ///< LMEM_LOG_SIZE = 14: 16 KiB per core (docs/vortex.md §3.1)
  /// Tensor-core operand tiles too large for the local memory at BK are staged in shallower K steps
  /// (vortex_stage_k). Set by tensor-core seeds of design space 6; design-point JSON `vortex.k_steps`
  /// (absent: false, as every earlier record).
  bool k_steps = false;
};

/// Lane-contiguous mapping (axis lane_map). Order of the axis: strided < element < contiguous.
enum class LaneMap : uint8_t {
  kContiguous,  ///< adjacent lanes touch adjacent addresses (fills and outputs); the CUDA tensor-core
                ///< fills of aligned operands as 16-byte vectors (paper §3.3: lane-contiguous
                ///< mapping replaces vectorised loads; cuda_fill_vectors)
  kStrided,     ///< the axis applied in reverse: adjacent lanes are a micro-tile/tile row apart
  kElement,     ///< adjacent lanes touch adjacent addresses, one element per lane and load on both
                ///< sides (valid only where contiguous has 16-byte vector fills)
};
/// Whether adjacent lanes touch adjacent addresses (contiguous and element).
constexpr bool lanes_adjacent(LaneMap m) { return m != LaneMap::kStrided; }
/// Boundary handling at tile edges (axis boundary).
enum class Boundary : uint8_t {
  kGuard,  ///< predicated loads and stores (CUDA `if`; Vortex vx_vote_any + PRED/TMC asm)
  kClamp,  ///< loads from clamped indices times a 0/1 validity (branch-free); stores guarded
  kExact,  ///< no edge code: every tile is full (requires the shape to divide the tile)
};
/// Where the bias/activation epilogue runs (axis fused_act).
enum class Epilogue : uint8_t {
  kFused,     ///< inside the GEMM kernel
  kSeparate,  ///< a second elementwise kernel (launch 2)
};
/// K loop specialisation (axis k_range).
enum class KRange : uint8_t {
  kSpecialized,  ///< M, N, K are compile-time constants of the profiled shape
  kGeneric,      ///< shape passed at run time
};
/// Threads of a CUDA warpgroup: 4 consecutive warps whose first warp's index is a multiple of 4
/// (PTX ISA, "Asynchronous Warpgroup Level Matrix Multiply-Accumulate Instructions").
inline constexpr uint32_t kCudaWarpgroup = 128;

/// CUDA tensor-core instruction shape (axis tensor_core). Vortex's shape is fixed by its warp width.
enum class FragShape : uint8_t { kM16N16K8, kM16N16K16, kM32N8K16, kM8N32K16, kM64N64K16, kM64N128K16, kM64N256K16 };

/// One row of the fragment-shape table: the extents of one tensor-core operation and who issues it.
struct FragShapeInfo {
  FragShape id;
  std::string_view key;     ///< design-point JSON `tensor_core.shape`
  uint32_t m, n, k;         ///< extents of one operation
  /// Threads that issue one operation together: 32, a warp's `wmma::mma_sync` on register
  /// fragments; 128, a warpgroup's `wgmma.mma_async` reading both operands from shared memory
  /// (sm_90a; docs/codegen.md "Warpgroup MMA").
  uint32_t owner_threads;
};

/// THE fragment-shape table, in FragShape order. WMMA shapes: CUDA C++ Programming Guide, "Warp
/// Matrix Functions" (tf32 only m16n16k8; bf16/fp16 m16n16k16, m32n8k16, m8n32k16). Warpgroup
/// shapes: PTX ISA, wgmma.mma_async with .bf16/.f16 inputs is m64nNk16 for N a multiple of 8 up to
/// 256; the table keeps the N of the fixed header's forms (codegen/runtime/cuda/vxs_wgmma.cuh).
inline constexpr std::array<FragShapeInfo, 7> kFragShapeTable{{
    {FragShape::kM16N16K8, "m16n16k8", 16, 16, 8, 32},
    {FragShape::kM16N16K16, "m16n16k16", 16, 16, 16, 32},
    {FragShape::kM32N8K16, "m32n8k16", 32, 8, 16, 32},
    {FragShape::kM8N32K16, "m8n32k16", 8, 32, 16, 32},
    {FragShape::kM64N64K16, "m64n64k16", 64, 64, 16, kCudaWarpgroup},
    {FragShape::kM64N128K16, "m64n128k16", 64, 128, 16, kCudaWarpgroup},
    {FragShape::kM64N256K16, "m64n256k16", 64, 256, 16, kCudaWarpgroup},
}};

/// Most fp32 accumulators per thread of a warpgroup point at any block size: m64n256k16's 128.
inline constexpr uint32_t kWarpgroupMaxAccumulators = 128;
/// Registers a warpgroup thread keeps for addresses, descriptors and loop state beside its
/// accumulators: at the π0 reference's 384 threads a thread has 168 registers (65,536 per SM / 384,
/// allocated in units of 8) and bench/tc/wgmma_probe.cu and the generated π0 k2 seed compile with
/// 128 accumulators in 162–166 registers without spills (ptxas -v); at 512 threads (128 registers)
/// 128 accumulators do not compile (ptxas C7602) and 4 x 32 serialise the wgmma (C7511).
inline constexpr uint32_t kWarpgroupOtherRegisters = 40;
/// Most fp32 accumulators per thread of a warpgroup point at `block_size` threads: the registers
/// __launch_bounds__(block_size) leaves a thread (65,536 / block_size in units of 8, at most 255)
/// less kWarpgroupOtherRegisters, at most kWarpgroupMaxAccumulators.
[[nodiscard]] uint32_t warpgroup_max_accumulators(uint32_t block_size);

/// Row of `s`.
[[nodiscard]] const FragShapeInfo& frag_shape_info(FragShape s);
/// The shape is a warpgroup's wgmma (owner_threads 128).
[[nodiscard]] inline bool warpgroup_mma(FragShape s) { return frag_shape_info(s).owner_threads > 32; }

/// How the CUDA candidate expresses a design point (docs/codegen.md "CUDA translations"). Not an
/// axis: a refinement order renders every revision with one translation (refine/order.h).
enum class CudaTranslation : uint8_t {
  kNative,         ///< each axis with the GPU's own mechanism (CUDA-first)
  kVortexLiteral,  ///< only what the Vortex kernel has (Vortex-first, paper §4.5)
};

/// One row of the translation table: which GPU mechanisms the CUDA candidate may use where the
/// Vortex kernel has none (paper §3.3: software prefetch replaces asynchronous copies,
/// lane-contiguous mapping replaces vectorised loads; docs/vortex.md §7.1: the TCU has FP16 and
/// BF16 formats only).
struct TranslationInfo {
  CudaTranslation id;
  std::string_view key;     ///< design-point JSON `cuda_translation` (absent: native)
  std::string_view banner;  ///< line in the CUDA candidate's header comment (empty: none)
  bool async_copies;        ///< prefetch as cp.async stages (else one stage, register prefetch as on Vortex)
  bool vector_fills;        ///< 16-byte vector fills of aligned operands (else one element per thread and step)
  bool padded_rows;         ///< 16-byte padded shared rows (else the Vortex side's unpadded tiles)
  bool cache_hints;         ///< read_once as __ldg / __ldcg (else plain loads: Vortex has no cache hints)
  bool vortex_formats;      ///< tensor-core formats of the Vortex TCU (check::PrecisionRow::vortex_tcu)
  bool vortex_k_steps;      ///< shared stages as deep as the Vortex side's (vortex_stage_k) instead of BK
  std::span<const AxisId> inert_axes;  ///< axes with no construct on either side (not refined)
};

/// read_once has no construct in the literal translation: plain loads on both sides.
inline constexpr AxisId kVortexLiteralInertAxes[] = {AxisId::kReadOnce};

/// THE translation table, in CudaTranslation order.
inline constexpr std::array<TranslationInfo, 2> kTranslationTable{{
    {CudaTranslation::kNative, "native", "", true, true, true, true, false, false, {}},
    {CudaTranslation::kVortexLiteral, "vortex-literal",
     "CUDA translation vortex-literal (Vortex-first, paper §4.5): one shared stage with register prefetch, "
     "element fills, unpadded tiles, plain loads, the Vortex TCU's FP16/BF16 formats",
     false, false, false, false, true, true, kVortexLiteralInertAxes},
}};

/// Row of `t`.
[[nodiscard]] const TranslationInfo& translation_info(CudaTranslation t);
/// Stable key of `t` ("native", "vortex-literal").
[[nodiscard]] std::string_view to_string(CudaTranslation t);

/// How the tensor-core strategy lays out a block's memory and pipeline (docs/codegen.md
/// "Tensor-core schedules"). Not an axis: a seed of design space 3 or later takes the warp
/// epilogue, every refinement step keeps its parent's schedule, and a record without the field
/// renders as it always did.
enum class TcSchedule : uint8_t {
  kTileEpilogue,  ///< the fp32 accumulators of the whole block tile staged in Cs for the write-out
  kWarpEpilogue,  ///< each warp stages its own fragments, one at a time, for the write-out
};

/// One row of the schedule table: the switches the emitters and the memory checks read.
struct TcScheduleInfo {
  TcSchedule id;
  std::string_view key;           ///< design-point JSON `tc_schedule` (absent: tile-epilogue)
  bool warp_epilogue;             ///< accumulators leave through a per-warp FM x FN scratch (no block tile Cs)
  uint32_t cuda_smem_limit;       ///< bytes of CUDA shared memory a block may use (static or opt-in dynamic)
  uint32_t cuda_max_stages;       ///< most CUDA shared stages with prefetch (DesignPoint::cuda_stages asks)
  bool partial_fills;             ///< element fills whose last step covers part of the tile (no multiple-of-BS rule)
};

/// THE schedule table, in TcSchedule order. 48 KiB: CUDA's static shared-memory limit per block;
/// 227 KiB: sm_90's opt-in dynamic limit per block (cudaDevAttrMaxSharedMemoryPerBlockOptin = 232448
/// on the H100 and H200, CUDA C++ Programming Guide, compute capability 9.0).
inline constexpr std::array<TcScheduleInfo, 2> kTcScheduleTable{{
    {TcSchedule::kTileEpilogue, "tile-epilogue", false, 48 * 1024, 4, false},
    {TcSchedule::kWarpEpilogue, "warp-epilogue", true, 227 * 1024, 16, true},
}};

/// Row of `s`.
[[nodiscard]] const TcScheduleInfo& schedule_info(TcSchedule s);

/// Values of the twelve axes.
struct Axes {
  struct Tile { uint32_t m = 64, n = 64, k = 8; } tile;        ///< block tile BM×BN×BK
  struct RegTile { uint32_t m = 4, n = 4; } reg_tile;          ///< per-thread TM×TN (SIMT)
  bool prefetch = false;                                       ///< register double-buffering of the next K slice
  bool smem_stage = true;                                      ///< operands staged through shared memory
  bool read_once = false;                                      ///< direct loads served by L1 (CUDA __ldg) vs L2 (__ldcg)
  LaneMap lane_map = LaneMap::kContiguous;
  struct TensorCore { bool enabled = false; FragShape shape = FragShape::kM16N16K16; } tensor_core;
  Epilogue fused_act = Epilogue::kFused;
  uint32_t split_k = 1;                                        ///< K slices reduced without atomics
  uint32_t warp_rows = 0;                                      ///< block_decomp: 0 = row-major threads; r = each warp covers r thread rows
  Boundary boundary = Boundary::kGuard;
  KRange k_range = KRange::kGeneric;
};

/// A full design point.
struct DesignPoint {
  FixedProperties fixed;
  VortexTarget vortex;
  Axes axes;
  /// How the CUDA candidate expresses the point (JSON `cuda_translation`, written when not native).
  CudaTranslation cuda_translation = CudaTranslation::kNative;
  /// Memory layout and pipeline of a tensor-core point (JSON `tc_schedule`, written when not
  /// tile-epilogue).
  TcSchedule tc_schedule = TcSchedule::kTileEpilogue;
  /// Warp epilogue with prefetch: the CUDA shared stages asked for (JSON `cuda_stages`, written when
  /// set; 0: 4), e.g. the reference kernel name's stage count. cuda_tc_stages keeps as many of them
  /// as the schedule's shared-memory limit holds.
  uint32_t cuda_stages = 0;
  /// Where the seed's values came from (paper §3.1: reference geometry), axis key → one line, e.g.
  /// "tile": "kernel name tilesize64x32x64: 160 CTAs = 80 tiles ..."; JSON `seed_origin` (written
  /// when non-empty). Later revisions carry it unchanged: it describes revision 0.
  std::map<std::string, std::string> seed_origin;
};

/// The precision path the CUDA candidate of `p` computes: the fixed path, or under a translation
/// with the Vortex formats the path's Vortex TCU row (a TF32 reference at FP16: tf32-fp16).
/// The checks of its output use this path's tolerances (check::kPrecisionTable).
[[nodiscard]] check::PrecisionPath cuda_path(const DesignPoint& p);

/// A row of the built-in agent's prior response map (paper §4.3 Fig. 4 and §4.4): the expected
/// signed response of `metric` (with the metric's distance transform, paper §4.3) when the axis
/// moves one step forward; reverse is the negation.
struct AxisPrior {
  std::optional<core::OpKind> op;  ///< the operator kind the row is for; nullopt: every kind
  core::MetricId metric;
  double response;
  std::string_view source;         ///< the paper statement the value comes from
};

/// Moves `a` one step forward or in reverse; false when it cannot move that way (at a bound, or
/// not expressible in the point's engine class). The caller validates the result.
using AxisStepFn = bool (*)(Axes& a, bool forward);
/// The same for a variant that moves a design-point field outside the axes (e.g. cuda_stages).
using PointStepFn = bool (*)(DesignPoint& p, bool forward);
/// Version of the design space the axis table spans: the variants each axis steps through. A
/// reconstruction records it with every revision (`tool_versions["vxsynth-design-space"]`; a record
/// without the key is version 1), and a space of an older version skips the variants added since,
/// so that a recorded run's agent choices replay unchanged (refine/tests/agent_replay_test.cc).
/// Version 2: the tile axis's aspect variant for tensor-core points. Version 3: tensor-core seeds
/// take the warp-epilogue schedule (TcSchedule; docs/codegen.md "Tensor-core schedules"). Version 4:
/// the prefetch axis steps a warp-epilogue point's CUDA stage count, seeds keep no more stages
/// than a split has K tiles, and tensor-core seeds take at least 16 threads per Vortex warp (the
/// TCU's fragments then stay in registers: sdk/include/vx_tensor.h). Version 5: tensor-core seeds
/// pad like the reference (its measured tensor work picks the orientation of the kernel name's tile
/// and orders the candidate tiles: codegen/seed.h). Version 6: tensor-core seeds stage the Vortex
/// operand tiles in K steps that fit the core's local memory (`VortexTarget::k_steps`,
/// vortex_stage_k), so tiles larger than 16 KiB holds at BK are valid on both sides. Version 7: the
/// tensor_core axis's warpgroup shapes (m64nNk16, FragShapeInfo::owner_threads 128) with their
/// N step, and warpgroup seeds where the reference computes with wgmma (codegen/seed.h).
inline constexpr int kDesignSpaceVersion = 7;
/// Key of the design-space version in a revision's `tool_versions`.
inline constexpr const char* kDesignSpaceVersionKey = "vxsynth-design-space";

/// One refinement variant of an axis: its step and the design-space version that added it.
struct AxisVariant {
  constexpr AxisVariant(AxisStepFn s, int since_version = 1) : step(s), since(since_version) {}  // NOLINT: rows list bare steps
  constexpr AxisVariant(PointStepFn s, int since_version) : point_step(s), since(since_version) {}
  /// Applies the variant to `p`; false when it cannot move that way.
  bool apply(DesignPoint& p, bool forward) const {
    return point_step ? point_step(p, forward) : step(p.axes, forward);
  }
  AxisStepFn step = nullptr;
  PointStepFn point_step = nullptr;
  int since;  ///< first kDesignSpaceVersion with this variant
};

/// The axis's value in the design point's JSON (`axes.<key>`).
using AxisToJsonFn = nlohmann::json (*)(const Axes& a);
/// Reads the axis's value `v` (found at field path `where`, e.g. "axes.tile") into `a`; throws
/// vxsynth::Error naming the field.
using AxisFromJsonFn = void (*)(const nlohmann::json& v, std::string_view where, Axes& a);
/// Appends the axis's reasons (text after "<key>: ") for `p` to `out`. `bounds` checks the axis's
/// own value ranges; `check` (run only when every axis is within its bounds) its constraints
/// with the other axes and the fixed properties.
using AxisCheckFn = void (*)(const DesignPoint& p, std::vector<std::string>& out);

/// One row of the axis table: what the axis is (paper Table 3), how it is stored, validated,
/// stepped during refinement, what the built-in agent expects it to move, and what each emitter
/// renders for it.
struct AxisInfo {
  AxisId id;
  std::string_view key;         ///< stable id (JSON key, revision records, reason prefix)
  std::string_view name;        ///< paper Table 3 name
  std::string_view json_fields; ///< fields of `axes.<key>` (or the scalar itself)
  std::string_view parameters;  ///< parameters and their ranges in this generator
  std::string_view direction;   ///< what each direction of a change means
  std::string_view metrics;     ///< metrics the axis is expected to move (paper §4.3, Fig. 4)
  std::string_view cuda;        ///< CUDA construct
  std::string_view vortex;      ///< Vortex construct (docs/codegen.md "paired constructs")
  std::string_view emitters;    ///< the emitter functions that render it (codegen/src/emit_common.h)
  bool fixed_at_seed;           ///< decided by op and shape at seed (paper §4.3), not refined
  AxisToJsonFn to_json;
  AxisFromJsonFn from_json;
  AxisCheckFn bounds;
  AxisCheckFn check;
  std::span<const AxisVariant> steps;   ///< refinement variants, tried in order (first valid wins)
  std::span<const AxisPrior> priors;    ///< the agent's prior rows (empty when fixed at seed)
};

/// THE axis table (one table for the concept), in AxisId order.
extern const std::array<AxisInfo, kNumAxes> kAxisTable;

/// Row of `id`.
[[nodiscard]] const AxisInfo& axis_info(AxisId id);
/// Parses an axis key ("tile", "split_k", …); throws vxsynth::Error naming the bad key.
[[nodiscard]] AxisId axis_from_key(std::string_view key);
/// The axis of `key`, or nullopt.
[[nodiscard]] std::optional<AxisId> find_axis(std::string_view key);
/// Forward prior response of `axis` on an operator of kind `op`, metric → response: the
/// all-kinds rows, each overridden by a row for `op` on the same metric.
[[nodiscard]] std::map<core::MetricId, double> prior_response(AxisId axis, core::OpKind op);
/// `p` moved one step along `axis` (forward or reverse): the first variant of the axis's steps in
/// design space `space_version` that moves and leaves a valid point keeping `fixed`; nullopt with
/// `why_not` set otherwise.
[[nodiscard]] std::optional<DesignPoint> step_axis(const DesignPoint& p, AxisId axis, bool forward,
                                                   const FixedProperties& fixed, std::string* why_not,
                                                   int space_version = kDesignSpaceVersion);

/// The op seen as a batched GEMM (core::GemmView: conv is the implicit GEMM).
using GemmView = core::GemmView;
/// GEMM view of `op`.
[[nodiscard]] GemmView gemm_view(const check::OpSpec& op);

/// Elements per CUDA tensor-core fill of A and B when lane_map is contiguous: 16-byte vectors (4
/// fp32 or 8 bf16) where the translation has vector fills and the operand is contiguous along the
/// tile's fast dimension with every row 16-byte aligned (extent and batch stride multiples of the
/// vector); else 1. Convolution inputs are gathered (im2col): 1. SIMT paths and Vortex: 1, 1.
[[nodiscard]] std::array<uint32_t, 2> cuda_fill_vectors(const DesignPoint& p);

/// Fragment dimensions (m, n, k) of a CUDA shape (its kFragShapeTable row).
[[nodiscard]] std::array<uint32_t, 3> frag_dims(FragShape s);
/// Vortex TCU tile (M, N, K in input elements) for warp width `threads` and 16-bit inputs
/// (docs/vortex.md §7.1: tile_cap = NT·8, M×N a split of log2(tile_cap) with M ≥ N,
/// xtileK = tile_cap / M, K = 2·xtileK for 16-bit types). Throws for NT not in {2,4,8,16,32}.
[[nodiscard]] std::array<uint32_t, 3> vortex_tcu_tile(uint32_t threads);

/// Shared/local memory bytes one block uses (operand tiles; + the fp32 accumulator staging tile
/// on tensor-core paths).
[[nodiscard]] uint32_t smem_bytes(const DesignPoint& p);
/// The same on the Vortex side (local memory; 16-bit operands on tensor-core paths), its operand
/// tiles vortex_stage_k deep.
[[nodiscard]] uint32_t vortex_local_mem_bytes(const DesignPoint& p);
/// Blocks resident on one Vortex core at once: the core's warps over the warps one block spawns
/// (vx_spawn_threads, docs/vortex.md §4.2), at least 1. Each holds its own local memory.
[[nodiscard]] uint32_t vortex_blocks_per_core(const DesignPoint& p);
/// K depth of one Vortex local-memory stage: the tile's BK, or with `vortex.k_steps` the largest
/// BK / 2^i that is still a multiple of the Vortex TCU tile's K when the BK-deep operand tiles of
/// the core's resident blocks exceed its local memory (16 KiB by default: a 192x128x32 BF16 tile
/// needs 20 KiB at BK 32, 10 KiB at 16); under a translation with `vortex_k_steps` (whose CUDA side
/// takes the same depth) also a multiple of the CUDA fragment's K. The Vortex kernel then stages each BK of the CUDA side in
/// BK / vortex_stage_k steps: the same work and the same split-K ranges, in less local memory.
[[nodiscard]] uint32_t vortex_stage_k(const DesignPoint& p);
/// CUDA tensor-core paths: elements of padding after each shared-memory operand row (16 bytes:
/// 8 bf16 or 4 fp32), so that the rows of a fragment start in different banks
/// (docs/codegen.md "Tensor-core strategy"). 0 on SIMT paths and warpgroup points (canonical tiles).
[[nodiscard]] uint32_t cuda_tc_row_pad(const DesignPoint& p);
/// fp32 accumulators each thread of a warpgroup point holds: its warpgroup's operations (the
/// block tile's over the block's warpgroups) times FN / 2; 0 where the shape does not divide the
/// tile or the block has no whole warpgroup (validation says why).
[[nodiscard]] uint32_t warpgroup_accumulators(const DesignPoint& p);
/// CUDA tensor-core paths: shared-memory stages of the operand tiles. With prefetch as many as
/// the 48 KiB of static shared memory hold, up to 4 (the next stages' asynchronous copies run while
/// one is computed; 1 when two do not fit: the next stage is then prefetched into registers);
/// without prefetch 1.
[[nodiscard]] uint32_t cuda_tc_stages(const DesignPoint& p);

/// Block order, decided by the shape (not an axis): true puts the M tiles on grid x, so that
/// consecutive blocks share one B column panel and walk A, when A (z·M·K elements) is the smaller
/// operand; false (N tiles on grid x) otherwise. Blocks run roughly in launch order, so the
/// smaller operand is re-read from L2 (50 MB on the H200, NVIDIA H200 datasheet) while the larger
/// streams from DRAM once (π0 k2: B is 67 MB, A 3.3 MB).
[[nodiscard]] bool m_tiles_fast(const DesignPoint& p);
/// Warp grid over a block's fragment grid: `m` x `n` warps, each owning (tiles_m/m) x (tiles_n/n)
/// fragments. The most square per-warp tile (in elements, fragment `fm` x `fn`) among the
/// factorizations of `warps` that divide the fragment grid; nullopt when none does.
struct WarpGrid { uint32_t m = 1, n = 1; };
[[nodiscard]] std::optional<WarpGrid> warp_grid(uint32_t tiles_m, uint32_t tiles_n, uint32_t warps, uint32_t fm,
                                                uint32_t fn);
/// Number of kernel launches (1, or 2 with split-K or a separate epilogue).
[[nodiscard]] int launches(const DesignPoint& p);

/// CUDA warp width (threads).
inline constexpr uint32_t kCudaWarp = 32;
/// CUDA static shared memory limit per block: 48 KiB.
inline constexpr uint32_t kCudaStaticSmem = 48 * 1024;

/// Checks every fixed property, then every axis row's bounds and (when all are in bounds) its
/// constraints. Returns the empty string when the point is valid, else the reasons (one per line,
/// each starting with the axis key, "fixed:" or "vortex:").
[[nodiscard]] std::string validation_errors(const DesignPoint& p);
/// Throws vxsynth::Error with validation_errors(p) when non-empty.
void validate(const DesignPoint& p);
/// Checks that `p` keeps the four fixed properties of `ref`; returns reasons (empty if kept).
[[nodiscard]] std::string fixed_property_violations(const DesignPoint& p, const FixedProperties& ref);

/// JSON form (each axis under its table key, written and read by its row). from_json throws
/// vxsynth::Error naming the field.
[[nodiscard]] nlohmann::json to_json(const DesignPoint& p);
[[nodiscard]] DesignPoint design_point_from_json(const nlohmann::json& j);

/// Stable string ids of the enums above (used in JSON and docs).
[[nodiscard]] std::string_view to_string(LaneMap v);
[[nodiscard]] std::string_view to_string(Boundary v);
[[nodiscard]] std::string_view to_string(Epilogue v);
[[nodiscard]] std::string_view to_string(KRange v);
[[nodiscard]] std::string_view to_string(FragShape v);

/// A short, file-name-safe summary, e.g. "linear_fp32_t64x64x8_r4x4_smem_guard".
[[nodiscard]] std::string slug(const DesignPoint& p);

}  // namespace vxsynth::codegen
