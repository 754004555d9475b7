#pragma once
/// \file
/// The refinement sandbox (paper §3.3; docs/signature.md §2): the constraint set that
/// every revision is validated against before it is built, run or profiled, whatever agent wrote it.
///
/// Layers, each with a stable rule id that the record's rejection reason names (docs/sandbox.md):
///  1. file rules (sandbox_files.cc): only the named files may change, byte for byte everything
///     else is the harness's own rendering of the design (and the swap target never changes);
///  2. source rules (sandbox_source_rules.cc): no vendor-library calls, no atomics, no file I/O,
///     no dynamic loading or process spawning, on the raw text and again on what the compiler saw
///     (the preprocessed translation units, sandbox_artefacts.cc);
///  3. artefact rules (sandbox_artefacts.cc): the built kernels and programs themselves — RISC-V
///     disassembly without AMO/LR/SC, PTX/SASS without atom/red or calls into other code, host
///     programs without dlopen/dlsym or dynamic libraries the harness's own build does not need;
///  4. fixed properties (sandbox_fixed.cc): engine class, data types, block size and shape,
///     re-checked from what the harness's own launch and the counters report.
/// Builds, runs and external agents run under an Isolation (isolation.h); time limits are part of
/// the rules and enforced by the process runner.

#include <array>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "vxsynth/core/context.h"
#include "vxsynth/core/ncu_import.h"
#include "vxsynth/refine/isolation.h"

namespace vxsynth::refine {

/// A candidate pair's files: path relative to the candidate root ("cuda/candidate.cu",
/// "vortex/kernel.cpp", …) → content.
using SourceTree = std::map<std::string, std::string>;

/// The constraint set of one reconstruction, fixed before refinement (paper §3.3).
struct SandboxRules {
  /// The files an agent may change; any other change (edit, addition, removal) is rejected.
  std::vector<std::string> editable;
  /// Files that define the operator swap (which framework call at which shape the CUDA candidate
  /// replaces); changing one is rejected as "swap_target".
  std::vector<std::string> swap_target_files;
  /// Names under which sampled reference outputs are stored (e.g. "ref_output.bin"); a candidate
  /// that mentions one is rejected as "stored_output".
  std::vector<std::string> stored_output_names;
  /// Wall-clock limits (seconds) on one build and one run of a candidate. Defaults are generous
  /// for the small shapes the CPU path runs (a seed build + vxsim run takes a few seconds here).
  double build_timeout_s = 300.0;
  double run_timeout_s = 600.0;
  /// How builds and runs of candidates are confined (isolation.h); a plain child by default.
  std::shared_ptr<const Isolation> isolation = make_no_isolation();
};

/// The default editable files and swap-target files of a candidate pair in vxsynth's layout
/// (docs/reconstruct.md "Candidate layout").
[[nodiscard]] SandboxRules default_rules();

/// One broken rule.
struct Violation {
  std::string rule;     ///< rule id (docs/sandbox.md table): "edit_outside_named_files", "swap_target",
                        ///< "vendor_library", "atomics", "stored_output", "dynamic_loading",
                        ///< "process_spawn", "self_check", "input_changed", "decoy_launch",
                        ///< "launch_mismatch", "pair_alignment", "fixed_property"
  std::string file;     ///< candidate file, empty for launch/counter checks
  int line = 0;         ///< 1-based source line, 0 when not from a source
  std::string what;     ///< what was found, e.g. "atomicAdd(" or "block size 256 ≠ 128"
  /// "rule: file:line: what" — the record's rejection reason.
  [[nodiscard]] std::string message() const;
};

/// One row of the source-rule table (exposed for docs and tests).
struct SourceRule {
  const char* rule;        ///< rule id
  const char* pattern;     ///< ECMAScript regex, matched per line after comments are blanked
  const char* applies_to;  ///< "all", "device" (kernel sources: *.cu, kernel.cpp), or "host"
  const char* why;         ///< the paper/doc clause it enforces
};
[[nodiscard]] const std::vector<SourceRule>& source_rule_table();

/// Checks a candidate against `expected` (the harness's rendering of the design the candidate
/// descends from): every file outside `rules.editable` must be byte-identical to it, nothing added
/// or removed; then the source rules on every changed or added editable file (the seed by
/// passing an empty `expected`). Comments are ignored; string literals are scanned (inline asm
/// lives there), adjacent literals joined first. Returns all violations, empty = clean.
[[nodiscard]] std::vector<Violation> check_sources(const SourceTree& retained,
                                                   const SourceTree& candidate,
                                                   const SandboxRules& rules);

/// The source rules applied to one preprocessed translation unit (`cpp -E`/`-save-temps` output
/// with line markers): only text that came from the files in `scanned` (absolute path → candidate
/// path such as "vortex/kernel.cpp") is checked, after every macro and include was expanded, so a
/// macro defined in a header or pasted from tokens is seen as the compiler saw it.
[[nodiscard]] std::vector<Violation> check_preprocessed(const std::string& translation_unit,
                                                        const std::map<std::string, std::string>& scanned,
                                                        const SandboxRules& rules);

/// RISC-V disassembly (`objdump -d` of kernel.elf): no AMO, LR or SC instruction.
[[nodiscard]] std::vector<Violation> check_riscv_disassembly(const std::string& dump, const std::string& file);

/// PTX of a CUDA candidate: no atom/red (or other reducing memory) instruction, no call into a
/// function the module does not define.
[[nodiscard]] std::vector<Violation> check_ptx(const std::string& ptx, const std::string& file);

/// SASS (`cuobjdump -sass`): no ATOM/ATOMG/ATOMS/RED instruction, no absolute call.
[[nodiscard]] std::vector<Violation> check_sass(const std::string& sass, const std::string& file);

/// Dynamic facts of an ELF file: DT_NEEDED libraries and undefined symbols (demangled).
struct ElfFacts {
  std::vector<std::string> needed;
  std::vector<std::string> undefined;
};
/// Reads them with binutils' readelf and nm; throws vxsynth::Error when they cannot be read.
[[nodiscard]] ElfFacts read_elf_facts(const std::filesystem::path& elf);

/// A built program or object: no symbol of the dynamic loader, process spawning or a vendor
/// library undefined in it, and (when `allowed_needed` is given) no DT_NEEDED library outside it
/// (the harness's own build of the same program).
[[nodiscard]] std::vector<Violation> check_elf(const ElfFacts& facts, const std::vector<std::string>* allowed_needed,
                                               const std::string& file);

/// What a compiled CUDA candidate launches: its kernels (PTX `.entry` names), their launch bounds
/// (`.maxntid`/`.reqntid`), and its launch sites (the `<<<…>>>` configurations as the compiler saw
/// them after preprocessing, white space removed), each sorted.
struct CudaFacts {
  std::vector<std::string> entries;
  std::vector<std::string> bounds;
  std::vector<std::string> launch_sites;
};
/// Facts of the PTX `ptx` and the translation unit `tu` of the file at `cu_path` (absolute).
[[nodiscard]] CudaFacts cuda_facts(const std::string& ptx, const std::string& tu, const std::string& cu_path);

/// One strategy, two sides: the candidate launches exactly the kernels the design's own rendering
/// does, with the same launch bounds and launch configurations ("decoy_launch" for a kernel the
/// design does not name, "launch_mismatch" for a changed configuration).
[[nodiscard]] std::vector<Violation> check_cuda_launches(const CudaFacts& candidate, const CudaFacts& design,
                                                         const std::string& file);

/// The design's Vortex GEMM launch as the harness makes it: grid blocks, threads per block, and the
/// machine (docs/sandbox.md "Pair alignment").
struct VortexLaunchShape {
  uint64_t blocks = 1;
  uint32_t block_threads = 1;
  uint32_t cores = 1;
  uint32_t warps = 1;
  uint32_t threads = 1;
};

/// Relative arithmetic of every hardware warp (per core, per warp id) when the launch runs under
/// the SDK's vx_spawn_threads in block mode (docs/sdk.md "vx_spawn_threads": contiguous balanced
/// block ranges per core, ceil(block/threads) warps per block, warps/wpg resident blocks) and
/// every thread does the same work, as the generated kernels do (docs/codegen.md "Divergence
/// safety"): blocks the warp runs × its active lanes. Empty for a one-thread block (thread mode).
[[nodiscard]] std::vector<std::vector<uint64_t>> spawn_warp_weights(const VortexLaunchShape& s);

/// Pair alignment (rule "pair_alignment"): the per-warp arithmetic the simulator counted in the
/// main launch (`warp_flops[core][warp]`) must be spread as the design's launch spreads it — every
/// warp the design gives blocks does between half and twice its share, no other warp does
/// arithmetic. A kernel that computes on one warp, or on fewer warps or blocks than the design's
/// block decomposition, breaks it even when its output and occupancy are right.
[[nodiscard]] std::vector<Violation> check_warp_work(const std::vector<std::vector<uint64_t>>& warp_flops,
                                                     const VortexLaunchShape& s, const std::string& file);

/// Which ncu counter measures the GEMM's multiply-accumulates on the design's path, and how many
/// counts one MAC makes (sandbox_cuda_launch.cc's table).
enum class MacCounter : uint8_t { kFfma, kTensorTf32, kTensorBf16, kTensorFp16 };

/// The design's CUDA GEMM launch (docs/sandbox.md "Pair alignment"): its grid and block, and the
/// work it does — the op as a batched GEMM z × m × n × k, the block tile and split-K.
struct CudaLaunchShape {
  std::array<uint32_t, 3> grid{1, 1, 1};
  uint32_t block_threads = 1;
  int64_t z = 1, m = 0, n = 0, k = 0;
  uint32_t tile_m = 1, tile_n = 1, tile_k = 1, split_k = 1;
  MacCounter counter = MacCounter::kFfma;
};

/// The profiled main launch (ncu) against the design's: the same grid and block
/// (`launch_mismatch`), and its MAC count from the path's counter between the output's MACs
/// (z·m·n·k) and those of the tiles the design's grid covers (whole tiles, zero-filled past the
/// shape: z·⌈m⌉·⌈n⌉·⌈k⌉ rounded up to the tile, k to tile_k·split_k) (`pair_alignment`). A counter
/// the capture lacks is not checked.
[[nodiscard]] std::vector<Violation> check_cuda_launch(const core::NcuKernel& main, const CudaLaunchShape& s,
                                                       const std::string& file);

/// Properties a candidate exhibited in its own run (launch geometry and counters), as reported by
/// the profile backend. Unset fields were not observable by that backend and are not checked.
struct ObservedProperties {
  std::optional<uint32_t> block_size;           ///< threads per block of the launch
  std::optional<core::EngineClass> engine;      ///< from counters: tensor pipe / TCU busy > 0
  std::optional<core::DType> operand_type;      ///< from the launch arguments' element type
  std::optional<core::DType> accumulator_type;
  std::optional<core::GemmShape> gemm;          ///< the shape the launch computed
  std::optional<core::ConvShape> conv;
  std::optional<double> atomics_per_inst;       ///< counter: must be 0 (sandbox forbids atomics)
};

/// What the candidate must keep (docs/signature.md §2). Derived from the reference
/// context with the Vortex adaptation of paper §3.3: a TF32 tensor-core reference becomes FP16 on
/// the Vortex side (`for_vortex` = true).
struct FixedProperties {
  core::EngineClass engine = core::EngineClass::kSimt;
  core::DType operand_type = core::DType::kFp32;
  core::DType accumulator_type = core::DType::kFp32;
  uint32_t block_size = 0;
  std::optional<core::GemmShape> gemm;
  std::optional<core::ConvShape> conv;
};
[[nodiscard]] FixedProperties fixed_properties(const core::ReferenceContext& ctx, bool for_vortex);

/// Compares observed with fixed properties; also rejects any atomic instruction counted.
[[nodiscard]] std::vector<Violation> check_fixed_properties(const FixedProperties& fixed,
                                                            const ObservedProperties& observed);

}  // namespace vxsynth::refine
