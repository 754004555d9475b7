#pragma once
// Internal pieces of the sweep shared by plan, job, rows and collect (docs/sweep.md "Layout").

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "vxsynth/codegen/design_point.h"
#include "vxsynth/sweep/sweep.h"

namespace vxsynth::sweep {

/// A built benchmark of the suite and its locked design point.
struct Benchmark {
  std::string name, workload, op, label;
  nlohmann::json entry;  ///< its suite.json entry
  codegen::DesignPoint design;
};

/// JSON of a file; throws vxsynth::Error naming it when missing or not JSON.
[[nodiscard]] nlohmann::json parse_json_file(const std::filesystem::path& f);
/// The design point of `bench`'s locked revision (summary.json locked_revision, record.jsonl).
[[nodiscard]] codegen::DesignPoint locked_design(const std::filesystem::path& bench);
/// The suite's built benchmarks (suite.json), restricted to `only` when not empty.
[[nodiscard]] std::vector<Benchmark> suite_benchmarks(const std::filesystem::path& suite_dir,
                                                      const std::vector<std::string>& only);
/// sweep.json's content (without created_utc).
[[nodiscard]] nlohmann::json make_plan(const std::filesystem::path& suite_dir, const Grid& grid, int baseline,
                                       const std::vector<Benchmark>& benchmarks);
/// DIR/sweep.json, checked for schema and fields.
[[nodiscard]] nlohmann::json read_sweep(const std::filesystem::path& dir);
/// Makes DIR the sweep's directory: new or empty → writes sweep.json; a sweep → only with `resume`
/// and an equal plan; anything else is refused.
void claim_output(const std::filesystem::path& dir, const nlohmann::json& plan, bool resume);

/// What rows/<benchmark>.csv says of one point: how many rows (attempts) it has and the status of
/// the last one (the file is append-only, so the last row is the latest attempt).
struct PointAttempts {
  int attempts = 0;
  std::string status;
};
/// Every point of `benchmark` with a row, from rows/<benchmark>.csv (`grid` gives the status column).
[[nodiscard]] std::map<int, PointAttempts> point_attempts(const std::filesystem::path& dir, const std::string& benchmark,
                                                          const Grid& grid);
/// Point indices of `benchmark` whose latest row PASSED: the finished points that --resume keeps.
/// A point whose latest row FAILED or is an error runs again; its earlier rows stay in the file.
[[nodiscard]] std::set<int> finished_points(const std::filesystem::path& dir, const std::string& benchmark,
                                            const Grid& grid);
/// Index of the `status` column in a row (csv_columns: six fixed columns, then the grid's).
[[nodiscard]] size_t status_column(const Grid& grid);
/// Splits a CSV line of ours (no field holds a comma: detail is sanitised and quoted).
[[nodiscard]] std::vector<std::string> split_row(const std::string& line);
/// Replaces characters a row field cannot hold (comma, quote, newline) with spaces.
[[nodiscard]] std::string sanitize(std::string s);

/// Keys of the "counters" object of vxsim's signature file (core::vortex_signature_json), sorted.
[[nodiscard]] std::vector<std::string> counter_keys();

}  // namespace vxsynth::sweep
