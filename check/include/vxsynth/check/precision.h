#pragma once
/// \file
/// Precision paths and the ONE tolerance table of output equivalence
/// (docs/signature.md §4; paper §3.5, Table 5), plus the 16-bit float roundings the
/// paths use.

#include <array>
#include <cstdint>
#include <string_view>

#include "vxsynth/core/context.h"

namespace vxsynth::check {

/// A precision path: reference data types → CUDA candidate → Vortex candidate.
enum class PrecisionPath : uint8_t {
  kFp32,  ///< FP32 → FP32 SIMT → FP32 SIMT
  kTf32,  ///< TF32 math on fp32 storage → CUDA TF32 mma/wmma → Vortex FP16 TCU (Vortex has no TF32)
  kBf16,  ///< BF16 → CUDA bf16 mma/wmma (fp32 accumulate, bf16 output) → Vortex BF16 TCU
  /// A TF32 reference computed at FP16 on both sides: the Vortex-first CUDA translation keeps to
  /// the Vortex TCU's formats (FP16/BF16, docs/vortex.md §7.1), so its wmma is FP16 (fp32
  /// accumulate) with the fp32 operands rounded to FP16 on the fill. Not a reference's data types:
  /// the design's fixed path stays kTf32.
  kTf32Fp16,
};

/// Which of the two checks of §4 ran.
enum class CheckKind : uint8_t {
  kSourceOutput,  ///< CUDA candidate vs the framework op (float64 CPU reference where no GPU)
  kCandidate,     ///< CUDA candidate vs Vortex candidate (Vortex vs float64 CPU reference where no GPU)
};

/// Per-element tolerance: |cand − ref| ≤ atol + rtol·|ref|.
struct Tolerance {
  double atol = 0.0;
  double rtol = 0.0;
};

/// One row of the tolerance table.
struct PrecisionRow {
  PrecisionPath path;
  std::string_view id;           ///< stable id: "fp32", "tf32", "bf16"
  std::string_view description;  ///< "reference → CUDA → Vortex"
  Tolerance source_output;
  Tolerance candidate;
  bool reference_types;          ///< a reference kernel's data types can select it (precision_path_for)
  PrecisionPath vortex_tcu;      ///< the path when the CUDA side keeps to the Vortex TCU's FP16/BF16 formats
};

/// The tolerance table, values exactly as docs/signature.md §4 (starting
/// tolerances; tighten only with measured evidence), in PrecisionPath order. The tf32-fp16 row's
/// source-output tolerance is the TF32 path's candidate tolerance, the one that accounts for the
/// change from TF32 to FP16 (paper §3.5): its CUDA candidate computes at FP16 against a TF32
/// framework op.
inline constexpr std::array<PrecisionRow, 4> kPrecisionTable{{
    {PrecisionPath::kFp32, "fp32", "FP32 -> FP32 SIMT -> FP32 SIMT", {1e-5, 1e-4}, {1e-5, 1e-4}, true,
     PrecisionPath::kFp32},
    {PrecisionPath::kTf32, "tf32", "TF32 (fp32 storage) -> CUDA TF32 -> Vortex FP16 TCU", {1e-3, 2e-2},
     {1e-2, 1.5e-1}, true, PrecisionPath::kTf32Fp16},
    {PrecisionPath::kBf16, "bf16", "BF16 -> CUDA BF16 -> Vortex BF16 TCU (fp32 accumulate, bf16 output)",
     {1e-2, 1.6e-2}, {1e-2, 5e-2}, true, PrecisionPath::kBf16},
    {PrecisionPath::kTf32Fp16, "tf32-fp16",
     "TF32 (fp32 storage) -> CUDA FP16 wmma (operands rounded on the fill) -> Vortex FP16 TCU", {1e-2, 1.5e-1},
     {1e-2, 1.5e-1}, false, PrecisionPath::kTf32Fp16},
}};

/// The table row of `path`.
[[nodiscard]] const PrecisionRow& precision_row(PrecisionPath path);
/// Tolerance of `path` for the check `kind`.
[[nodiscard]] Tolerance tolerance(PrecisionPath path, CheckKind kind);
/// Stable id of the path ("fp32", "tf32", "bf16", "tf32-fp16").
[[nodiscard]] std::string_view to_string(PrecisionPath path);
/// Parses a path id; throws vxsynth::Error naming the bad value.
[[nodiscard]] PrecisionPath precision_path_from_string(std::string_view s);
/// "source-output" / "candidate".
[[nodiscard]] std::string_view to_string(CheckKind kind);

/// The path a reference kernel's data types select: bf16 operands → kBf16; tf32 operands, or fp32
/// operands on the tensor-core engine → kTf32; fp32 SIMT → kFp32. Throws vxsynth::Error for
/// combinations no path covers (fp16, fp64, int8 operands).
[[nodiscard]] PrecisionPath precision_path_for(core::DType operand, core::EngineClass engine);

/// Storage element type of the path's tensors in memory: fp32 for kFp32/kTf32, bf16 for kBf16.
[[nodiscard]] bool stores_bf16(PrecisionPath path);

/// IEEE binary32 → bfloat16 bits, round to nearest even (NaN stays NaN).
[[nodiscard]] uint16_t float_to_bf16_bits(float f);
/// bfloat16 bits → binary32 (exact).
[[nodiscard]] float bf16_bits_to_float(uint16_t h);
/// IEEE binary32 → binary16 bits, round to nearest even, overflow to ±Inf, subnormals kept.
[[nodiscard]] uint16_t float_to_fp16_bits(float f);
/// binary16 bits → binary32 (exact).
[[nodiscard]] float fp16_bits_to_float(uint16_t h);

}  // namespace vxsynth::check
