#pragma once
/// \file
/// The configuration grid of a sweep (docs/sweep.md "Grid"): vxsim parameters and the values each
/// takes, as a cartesian product (`--grid "cores=1,2,4 dcache.size=16384,65536"` or a TOML `[grid]`
/// table) or as an explicit list of points (TOML `[[point]]`). Parameter names, types and value
/// checks are those of vxsim's timing parameter table (`vxsim::timing::timing_params()`,
/// sim/timing/src/config.cc); nothing here names a parameter.

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace vxsynth::sweep {

/// One swept parameter.
struct GridParam {
  std::string key;                  ///< the table's dotted key, e.g. "dcache.size"
  std::vector<std::string> values;  ///< canonical text (vxsim's get_param form), in the order given
  /// The runtime environment variable that sets it (VXSIM_CORES, …) for the parameters the timing
  /// model takes from the functional device; empty: passed through VXSIM_SET.
  std::string env;
};

/// One configuration point: a value for every swept parameter, in the grid's parameter order.
struct Point {
  int index = 0;
  std::vector<std::pair<std::string, std::string>> settings;
  /// "cores=2 dcache.size=65536".
  [[nodiscard]] std::string label() const;
  /// The value of `key`, or "" when the point does not set it.
  [[nodiscard]] std::string value(std::string_view key) const;
};

struct Grid {
  std::vector<GridParam> params;
  std::vector<Point> points;
};

/// Parses `--grid` text: whitespace-separated `key=v1,v2,…` items, one per parameter; the points
/// are their cartesian product, the last parameter varying fastest. Throws vxsynth::Error for an
/// empty grid, an item without '=', an unknown key (listing the valid ones), a key given twice,
/// a value the parameter's type rejects, a point the timing model's config validation rejects, or
/// a parameter that cannot be set per run (the error says why).
[[nodiscard]] Grid parse_grid(std::string_view spec);

/// Reads a TOML grid file: either a `[grid]` table whose values are arrays (cartesian product,
/// keys in file order, dotted keys as `"dcache.size" = […]` or `[grid.dcache] size = […]`) or an
/// array of `[[point]]` tables (each a point; every point must set the same keys). Errors name the
/// file and line.
[[nodiscard]] Grid load_grid_file(const std::filesystem::path& file);

/// Every key of vxsim's parameter table, comma-separated (for messages and --help).
[[nodiscard]] std::string parameter_names();

/// JSON form (sweep.json `grid`): params [{key, values, env}], points [{index, label, settings}].
[[nodiscard]] nlohmann::json to_json(const Grid& g);
[[nodiscard]] Grid grid_from_json(const nlohmann::json& j);

}  // namespace vxsynth::sweep
