#pragma once
/// \file
/// The ten-metric profile signature (paper §3.2, Table 2; docs/signature.md §1).
/// The metric table itself (ids, units, ncu sources, Vortex sources, distance transforms) lives in
/// metrics.h; this header only holds values.

#include <array>
#include <cstdint>
#include <optional>

namespace vxsynth::core {

/// Stable metric ids, in the order of docs/signature.md §1. The string ids
/// ("l1_hit_rate", …) are in the metric table.
enum class MetricId : uint8_t {
  kL1HitRate,
  kL2HitRate,
  kCoalescing,
  kPeakCompute,
  kTensorMfu,
  kAtomicsPerInst,
  kArithIntensity,
  kDramBandwidth,
  kActiveLanes,
  kOccupancy,
};
inline constexpr std::size_t kNumMetrics = 10;

/// Measured values; std::nullopt = NA (the platform or config cannot measure it). Units per the
/// metric table: percent for rates, FLOP/byte, byte/s, fraction 0–1 for active_lanes.
struct Signature {
  std::array<std::optional<double>, kNumMetrics> values{};
  [[nodiscard]] const std::optional<double>& operator[](MetricId id) const {
    return values[static_cast<std::size_t>(id)];
  }
  std::optional<double>& operator[](MetricId id) { return values[static_cast<std::size_t>(id)]; }
};

}  // namespace vxsynth::core
