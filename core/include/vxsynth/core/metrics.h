#pragma once
/// \file
/// THE metric table: the ten profile-signature metrics (paper §3.2, Table 2;
/// docs/signature.md §1), their ncu sources per NVIDIA architecture
/// (docs/ncu.md §0, §2, §9), the Vortex source each is computed from (implemented by the timing
/// adapter, not here), and the distance transforms. Adding a metric is a row in metrics.cc.
///
/// Every ncu-derived metric is a ratio of two linear forms over ncu counters:
///   value = (Σ coef_i · counter_i) / (Σ coef_j · counter_j)     (denominator empty → 1)
/// which covers the direct metrics (one term), atomics per instruction ((atom + red) / inst),
/// arithmetic intensity ((SASS FLOPs + tensor FLOPs) / DRAM bytes) and active lanes (ratio / 32).

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vxsynth/core/signature.h"

namespace vxsynth::core {

/// NVIDIA architectures whose ncu metric sets we know (docs/ncu.md §0, §9).
enum class Arch : uint8_t { kHopper, kAmpere, kAda, kOrin };
inline constexpr std::size_t kNumArchs = 4;

/// One row per architecture.
struct ArchInfo {
  Arch arch;
  std::string_view sm;        ///< "sm_90"
  std::string_view cc;        ///< compute capability as ncu's CC column prints it: "9.0"
  std::string_view chip;      ///< ncu --chip name: "gh100"
  std::string_view name;      ///< "Hopper (H100/H200)"
  bool has_dram_counters;     ///< false on Orin: no dram__* metrics (docs/ncu.md §0.2)
  /// nvcc's target for candidates: Hopper's arch-specific sm_90a, whose warpgroup MMA (wgmma)
  /// plain sm_90 lacks (PTX ISA, "Target ISA notes"; nvcc 13's `-arch=sm_90a` also embeds
  /// compute_90 PTX, which ptxas rejects for wgmma, so the target is spelled as -gencode).
  std::string_view nvcc_target;
};

/// The architecture table (docs/ncu.md §0, §9).
[[nodiscard]] std::span<const ArchInfo> arch_table();
[[nodiscard]] const ArchInfo& arch_info(Arch arch);
/// Architecture for a CC string ("9.0", "8.0", "8.9", "8.7"); nullopt for any other.
[[nodiscard]] std::optional<Arch> arch_from_cc(std::string_view cc);
/// nvcc's target flag for `sm` ("sm_90": "-gencode=arch=compute_90a,code=sm_90a"); "-arch=<sm>" for
/// an architecture the table does not know.
[[nodiscard]] std::string nvcc_target_flag(std::string_view sm);
/// Architecture for "sm_90"/"sm90"/"gh100"/"hopper" (case-insensitive); nullopt if unknown.
[[nodiscard]] std::optional<Arch> arch_from_name(std::string_view name);

/// Pressure group of a metric (paper §3.2).
enum class MetricGroup : uint8_t { kTraffic, kEngineCommit, kWorkPerByte, kMachineBusy };
[[nodiscard]] std::string_view to_string(MetricGroup g);

/// Distance transform (docs/signature.md §1, paper Table 2).
enum class Transform : uint8_t {
  kPercent,   ///< d = |c − r| / 100            (percent metrics)
  kDirect,    ///< d = |c − r|                  (atomics per instruction, active-lane fraction)
  kLogRatio,  ///< d = |ln((c+ε)/(r+ε))| / ln C  (arithmetic intensity, DRAM bandwidth)
};

/// ε and C of the log-ratio transform (docs/signature.md §1).
inline constexpr double kLogEpsilon = 1e-12;
inline constexpr double kLogRatioC = 5.0;

/// One ncu counter in a linear form: coef × value(name), where `fallback` is used when the file has
/// no column `name` (e.g. the deprecated active-lane ratio, docs/ncu.md §2.9).
struct NcuTerm {
  double coef = 1.0;
  std::string_view name;
  std::string_view fallback = {};
  /// Unit ncu prints with `--print-units base`; empty = not checked (unitless or not confirmed).
  std::string_view unit = {};
};

/// value = Σ numerator / Σ denominator; `numerator` empty = the metric is NA on that architecture.
struct NcuFormula {
  std::span<const NcuTerm> numerator;
  std::span<const NcuTerm> denominator;  ///< empty → 1
  [[nodiscard]] bool available() const { return !numerator.empty(); }
};

/// One row of the metric table.
struct MetricDef {
  MetricId id;
  std::string_view key;      ///< stable string id, e.g. "l1_hit_rate" (JSON key everywhere)
  std::string_view label;    ///< human name, e.g. "L1 hit rate"
  MetricGroup group;
  std::string_view unit;     ///< "%", "ratio", "FLOP/byte", "byte/s", "fraction"
  Transform transform;
  std::array<NcuFormula, kNumArchs> ncu;  ///< indexed by Arch
  std::string_view ncu_text;     ///< the ncu formula in words (docs and reports)
  std::string_view vortex_text;  ///< Vortex source (simulator counters), for the timing adapter
};

/// The ten rows, in MetricId order.
[[nodiscard]] std::span<const MetricDef> metric_table();
[[nodiscard]] const MetricDef& metric_def(MetricId id);
/// Row for a string key; nullopt when `key` names no metric.
[[nodiscard]] std::optional<MetricId> metric_from_key(std::string_view key);

/// ncu metrics recorded per kernel besides the signature inputs (provenance and guards,
/// docs/signature.md §1 "Also store"). `required` ones must have a column.
struct RecordedNcuMetric {
  std::string_view name;
  bool required;
  std::string_view why;
};
[[nodiscard]] std::span<const RecordedNcuMetric> recorded_ncu_metrics();

/// Every ncu metric name a capture on `arch` must request (signature inputs, primary names, plus
/// the required recorded metrics), deduplicated, in table order: the `--metrics` list.
[[nodiscard]] std::vector<std::string> required_ncu_metrics(Arch arch);

/// Per-metric distance d ∈ [0,1] between candidate c and reference r (paper Table 2).
[[nodiscard]] double metric_distance(MetricId id, double candidate, double reference);

/// Signed response of a change reference→candidate with the same transform as the distance,
/// keeping the sign (paper §4.3, Fig. 4): percent → (c−r)/100, direct → c−r,
/// rates → ln((c+ε)/(r+ε))/ln C; clipped to [−1, 1].
[[nodiscard]] double signed_response(MetricId id, double candidate, double reference);

/// One metric's line of a distance report.
struct MetricDistance {
  MetricId id;
  std::optional<double> candidate;
  std::optional<double> reference;
  std::optional<double> d;        ///< set iff both sides measured the metric
  std::optional<double> signed_response;
  [[nodiscard]] bool in_d() const { return d.has_value(); }
};

/// Signature distance report: D = mean of d over the metrics both signatures measured
/// (docs/signature.md §1); `d_value` is nullopt when no metric is shared.
struct DistanceReport {
  std::array<MetricDistance, kNumMetrics> per_metric;
  std::optional<double> d_value;
  [[nodiscard]] std::vector<MetricId> entered() const;   ///< metrics that entered D
  [[nodiscard]] std::vector<MetricId> left_out() const;  ///< measured by at most one side
};

/// Distance between a candidate and a reference signature.
[[nodiscard]] DistanceReport distance(const Signature& candidate, const Signature& reference);

}  // namespace vxsynth::core
