#pragma once
/// \file
/// Output equivalence (docs/signature.md §4; paper §3.5): every element checked
/// against atol + rtol·|ref|; NaN/Inf never pass (an unwritten, NaN-poisoned element shows up
/// here); an all-zero or constant output fails even inside the tolerance.

#include <cstdint>
#include <span>
#include <string>

#include "vxsynth/check/precision.h"

namespace vxsynth::check {

/// What the candidate output was compared against, recorded with every result.
enum class ReferenceKind : uint8_t {
  kFrameworkOp,    ///< the PyTorch op on the GPU (source-output check)
  kCudaCandidate,  ///< the CUDA candidate's output on the GPU (candidate check)
  kCpuFloat64,     ///< float64 CPU reference (fallback where no GPU or no operator swap)
};

/// "framework-op", "cuda-candidate", "cpu-float64".
[[nodiscard]] std::string_view to_string(ReferenceKind kind);

/// Outcome of one check.
struct CheckReport {
  CheckKind kind = CheckKind::kCandidate;
  ReferenceKind reference = ReferenceKind::kCpuFloat64;
  PrecisionPath path = PrecisionPath::kFp32;
  Tolerance tolerance;
  bool passed = false;
  int64_t elements = 0;        ///< elements compared (all of them)
  int64_t failed = 0;          ///< elements outside the tolerance (NaN/Inf included)
  int64_t non_finite = 0;      ///< NaN or ±Inf candidate elements
  double max_abs_error = 0.0;  ///< max |cand − ref| over finite elements
  double max_rel_error = 0.0;  ///< max |cand − ref| / |ref| over finite elements with ref ≠ 0
  int64_t worst_index = -1;    ///< element with the largest excess over its tolerance (−1: none)
  std::string reason;          ///< empty when passed; else the first failing rule, with an element index

  /// One line: "candidate check vs cpu-float64 [fp32, atol 1e-05 rtol 0.0001]: PASS max_abs=… max_rel=…".
  [[nodiscard]] std::string summary() const;
};

/// Compares `candidate` to `reference` element by element under `tol`. The report's `passed` is
/// false (with a reason) when sizes differ, the output is empty, any element is NaN/Inf, every
/// element is zero, every element equals the first (constant output, more than one element), or
/// any element exceeds atol + rtol·|ref|. Never throws on bad data.
[[nodiscard]] CheckReport compare_outputs(std::span<const double> candidate, std::span<const double> reference,
                                          PrecisionPath path, CheckKind kind, ReferenceKind ref_kind);

}  // namespace vxsynth::check
