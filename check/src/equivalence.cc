#include "vxsynth/check/equivalence.h"

#include <cmath>

#include <fmt/format.h>

namespace vxsynth::check {

std::string_view to_string(ReferenceKind kind) {
  switch (kind) {
    case ReferenceKind::kFrameworkOp: return "framework-op";
    case ReferenceKind::kCudaCandidate: return "cuda-candidate";
    case ReferenceKind::kCpuFloat64: return "cpu-float64";
  }
  return "?";
}

std::string CheckReport::summary() const {
  return fmt::format("{} check vs {} [{}, atol {:g} rtol {:g}]: {} elements={} failed={} non_finite={} "
                     "max_abs={:.3e} max_rel={:.3e}{}{}",
                     to_string(kind), to_string(reference), to_string(path), tolerance.atol, tolerance.rtol,
                     passed ? "PASS" : "FAIL", elements, failed, non_finite, max_abs_error, max_rel_error,
                     reason.empty() ? "" : ": ", reason);
}

CheckReport compare_outputs(std::span<const double> candidate, std::span<const double> reference,
                            PrecisionPath path, CheckKind kind, ReferenceKind ref_kind) {
  CheckReport r;
  r.kind = kind;
  r.reference = ref_kind;
  r.path = path;
  r.tolerance = tolerance(path, kind);
  r.elements = static_cast<int64_t>(candidate.size());
  if (candidate.size() != reference.size()) {
    r.reason = fmt::format("candidate has {} elements, reference {}", candidate.size(), reference.size());
    return r;
  }
  if (candidate.empty()) {
    r.reason = "empty output";
    return r;
  }
  bool all_zero = true;
  bool constant = true;
  double worst_excess = -1.0;
  std::string first_fail;
  for (size_t i = 0; i < candidate.size(); ++i) {
    const double c = candidate[i];
    const double ref = reference[i];
    if (!std::isfinite(c)) {
      ++r.non_finite;
      ++r.failed;
      if (first_fail.empty()) {
        first_fail = fmt::format("element {} is {} (NaN means it was never written: outputs are NaN-poisoned)", i,
                                 std::isnan(c) ? "NaN" : "Inf");
      }
      continue;
    }
    if (c != 0.0) all_zero = false;
    if (c != candidate[0]) constant = false;
    const double d = std::abs(c - ref);
    r.max_abs_error = std::max(r.max_abs_error, d);
    if (ref != 0.0) r.max_rel_error = std::max(r.max_rel_error, d / std::abs(ref));
    const double allowed = r.tolerance.atol + r.tolerance.rtol * std::abs(ref);
    const double excess = d - allowed;
    if (excess > worst_excess) {
      worst_excess = excess;
      r.worst_index = static_cast<int64_t>(i);
    }
    if (!(d <= allowed)) {
      ++r.failed;
      if (first_fail.empty()) {
        first_fail = fmt::format("element {}: candidate {:.9g} vs reference {:.9g} (|d| {:.3e} > {:.3e})", i, c, ref,
                                 d, allowed);
      }
    }
  }
  if (r.non_finite > 0) {
    r.reason = fmt::format("{} non-finite element(s); first: {}", r.non_finite, first_fail);
  } else if (all_zero) {
    r.reason = "output is all zeros (a trivial output never passes)";
  } else if (constant && candidate.size() > 1) {
    r.reason = fmt::format("output is constant ({:.9g} everywhere; a trivial output never passes)", candidate[0]);
  } else if (r.failed > 0) {
    r.reason = fmt::format("{} of {} element(s) outside tolerance; first: {}", r.failed, r.elements, first_fail);
  } else {
    r.passed = true;
  }
  return r;
}

}  // namespace vxsynth::check
