#pragma once
/// \file
/// The numbers behind the report's figures and tables (docs/report.md), each computed from the
/// run records alone: coverage (paper §4.1, Fig. 3), the suite table (Table 6), the axis-response
/// map (§4.3, Fig. 4), revision chains (§4.4, Table 7 / Fig. 5), seed vs final per-metric
/// distances on the CUDA and the Vortex side, and the CUDA-first vs Vortex-first comparison
/// (§4.5, Fig. 6a).

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vxsynth/core/signature.h"
#include "vxsynth/report/inputs.h"

namespace vxsynth::report {

/// A metric "moved" in a revision when |signed response| against the parent is at least this:
/// one percentage point of a percent metric, 1 % of ln 5 for a rate (docs/report.md "Chains").
inline constexpr double kMovedThreshold = 0.01;

// ---- coverage (Fig. 3) ----------------------------------------------------------------------
/// One reference kernel of a workload × platform that has a benchmark, in rank order.
struct CoverageRow {
  std::string workload, platform, kernel_id, benchmark, type;
  int rank = 0;
  double share = 0.0;
  double cumulative = 0.0;  ///< running sum of `share` over this workload × platform's rows
};
/// From a suite's plan (every kernel it gives a benchmark, duplicates of an earlier workload's
/// benchmark included), else from the runs' reference entries.
[[nodiscard]] std::vector<CoverageRow> coverage(const Inputs& in);

// ---- axis-response map (Fig. 4) -------------------------------------------------------------
/// Why a revision is left out of the map (paper §4.3 excludes two-axis revisions, fixed-property
/// restorations and re-measurements; ours also cannot use revisions without a signature).
enum class Exclusion : uint8_t { kSeed, kTwoAxes, kRejected, kFixedProperty, kRemeasurement, kNone };
[[nodiscard]] std::string_view to_string(Exclusion e);

/// Why `e` (with its retained parent `parent`) does not enter the map, or kNone.
[[nodiscard]] Exclusion exclusion(const refine::RevisionEntry& e, const refine::RevisionEntry* parent);

/// One cell: revisions that applied `axis` alone, the metric measured in both them and their parent.
struct AxisCell {
  int count = 0;         ///< revisions in the mean
  int retained = 0, reverted = 0;
  double sum = 0.0;      ///< Σ signed response
  [[nodiscard]] std::optional<double> mean() const {
    return count ? std::optional<double>(sum / count) : std::nullopt;
  }
};
/// One panel: a workflow × benchmark type; rows keyed by axis id (docs/signature.md §3).
struct AxisPanel {
  Workflow workflow;
  std::string type;
  int revisions = 0;     ///< single-axis revisions used
  std::map<std::string, std::array<AxisCell, core::kNumMetrics>> rows;
};
struct AxisMap {
  std::vector<AxisPanel> panels;
  std::vector<std::string> axes;           ///< row order: the refined axes (not fixed at seed)
  std::map<std::string, int> excluded;     ///< to_string(Exclusion) → revisions
  int used = 0;
};
[[nodiscard]] AxisMap axis_response_map(const std::vector<RunInput>& runs);

// ---- revision chains (Table 7, Fig. 5) ------------------------------------------------------
struct ChainRow {
  int revision = 0, parent = -1;
  std::string axes;                 ///< "seed", "tile forward", "tile forward + split_k forward"
  std::string decision;
  std::optional<double> d, delta_d; ///< as recorded
  std::optional<double> d_parent;   ///< D of the retained parent
  std::vector<std::pair<std::string, double>> moved;  ///< metric → signed response, |r| ≥ kMovedThreshold, largest first
  std::vector<std::string> target_metrics;
  std::string rejection_reason;
};
[[nodiscard]] std::vector<ChainRow> chain(const RunInput& run);

// ---- per-metric distances, seed vs final ---------------------------------------------------
/// d per metric of the seed and of the locked revision on one side (nullopt: not measured).
struct SideDistances {
  std::string side;                 ///< "cuda" or "vortex"
  std::array<std::optional<double>, core::kNumMetrics> seed{}, final{};
  std::optional<double> d_seed, d_final;
};
/// The record's side (CUDA for ncu workflows, Vortex for vxsim counters), and the Vortex side of
/// the locked kernel from vortex_signature.json when an ncu run measured it.
[[nodiscard]] std::vector<SideDistances> side_distances(const RunInput& run);

/// The locked revision: the last retained one (the seed when none was retained).
[[nodiscard]] const refine::RevisionEntry& locked(const RunInput& run);
/// The validated revision with the lowest D (paper §4.5: "the validated implementation with the
/// lowest aggregate signature distance"): seed, retained or reverted, never rejected.
[[nodiscard]] const refine::RevisionEntry& best_validated(const RunInput& run);

// ---- CUDA-first vs Vortex-first (Fig. 6a) ---------------------------------------------------
struct OrderSeries {
  Workflow workflow;
  std::vector<std::string> kernels;  ///< benchmarks in the mean
  std::array<std::optional<double>, core::kNumMetrics> mean{};
  std::array<int, core::kNumMetrics> count{};
};
struct OrderComparison {
  std::vector<OrderSeries> series;   ///< one per workflow with runs
  bool same_kernels = false;         ///< every series is over the same reference kernels
};
/// Per workflow, the mean over kernels of each metric's component distance d of the kernel's
/// best validated revision. Kernels (bundle SHA-256 + kernel id) are those every workflow with
/// runs has; when no kernel is common to them, each series is over its own kernels.
[[nodiscard]] OrderComparison order_comparison(const std::vector<RunInput>& runs);

// ---- everything, as the JSON the figure layer reads -----------------------------------------
/// The report's data (schema vxsynth.report-data v1, docs/report.md "Data files"); `out` is the
/// report directory, for the links to each benchmark.
[[nodiscard]] nlohmann::json report_data(const Inputs& in, const std::filesystem::path& out);

/// The CSV files of the data (file name → text), each with a header row.
[[nodiscard]] std::map<std::string, std::string> report_csv(const nlohmann::json& data);

}  // namespace vxsynth::report
