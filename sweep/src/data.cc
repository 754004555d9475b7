// The numbers of a sweep's report section (docs/sweep.md "Figures"): per row the speedup against
// the baseline point, and the main effect of each parameter value on speedup, IPC and the ten
// metrics, per op family and per workload. The figure layer draws these and computes nothing.
#include <map>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "sweep_files.h"
#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/core/metrics.h"

namespace vxsynth::sweep {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using Row = std::map<std::string, std::string>;

std::vector<Row> read_rows(const fs::path& csv) {
  if (!fs::is_regular_file(csv)) throw make_error("{}: no such file (vxsynth sweep-collect writes it)", csv.string());
  std::istringstream lines(read_file(csv));
  std::string header;
  std::getline(lines, header);
  const std::vector<std::string> cols = split_row(header);
  std::vector<Row> rows;
  int n = 1;
  for (std::string line; std::getline(lines, line);) {
    ++n;
    const std::vector<std::string> v = split_row(line);
    if (v.size() != cols.size())
      throw make_error("{}:{}: {} fields, the header has {}", csv.string(), n, v.size(), cols.size());
    Row r;
    for (size_t i = 0; i < cols.size(); ++i) r[cols[i]] = v[i];
    rows.push_back(std::move(r));
  }
  return rows;
}

std::optional<double> number(const Row& r, const std::string& key) {
  const auto it = r.find(key);
  if (it == r.end() || it->second.empty()) return std::nullopt;
  return std::stod(it->second);
}

json opt(std::optional<double> v) { return v ? json(*v) : json(); }

// Quantities whose main effect is drawn: speedup, IPC, then the metric table's keys.
std::vector<std::string> quantities() {
  std::vector<std::string> q{"speedup", "ipc"};
  for (const core::MetricDef& m : core::metric_table()) q.emplace_back(m.key);
  return q;
}

json main_effects(const json& rows, const Grid& g) {
  json out = json::array();
  for (const char* by : {"op", "workload"}) {
    std::map<std::string, bool> groups;
    for (const json& r : rows) groups[r[by].get<std::string>()] = true;
    for (const auto& [group, unused] : groups)
      for (const GridParam& p : g.params)
        for (const std::string& value : p.values)
          for (const std::string& q : quantities()) {
            double sum = 0;
            int n = 0;
            for (const json& r : rows) {
              if (r[by] != group || r["settings"][p.key] != value || r["status"] != "PASSED") continue;
              const json& v = q == "speedup" || q == "ipc" ? r[q] : r["metrics"][q];
              if (v.is_number()) sum += v.get<double>(), ++n;
            }
            out.push_back({{"group_by", by}, {"group", group}, {"param", p.key}, {"value", value}, {"quantity", q},
                           {"mean", n > 0 ? json(sum / n) : json()}, {"n", n}});
          }
  }
  return out;
}

}  // namespace

json sweep_data(const fs::path& dir) {
  const json plan = read_sweep(dir);
  const Grid g = grid_from_json(plan["grid"]);
  const int baseline = plan["baseline"].get<int>();
  const std::vector<Row> csv = read_rows(dir / kSweepCsv);
  std::map<std::string, double> base_cycles;
  for (const Row& r : csv)
    if (std::stoi(r.at("point")) == baseline && r.at("status") == "PASSED")
      if (auto c = number(r, "cycles"); c && *c > 0) base_cycles[r.at("benchmark")] = *c;
  json rows = json::array();
  std::map<std::string, int> counts;
  for (const Row& r : csv) {
    const std::string status = r.at("status");
    ++counts[status];
    json settings = json::object(), metrics = json::object();
    for (const GridParam& p : g.params) settings[p.key] = r.at(p.key);
    for (const core::MetricDef& m : core::metric_table()) metrics[std::string(m.key)] = opt(number(r, std::string(m.key)));
    const auto cycles = number(r, "cycles");
    const auto base = base_cycles.find(r.at("benchmark"));
    std::optional<double> speedup;
    if (status == "PASSED" && cycles && *cycles > 0 && base != base_cycles.end()) speedup = base->second / *cycles;
    rows.push_back({{"benchmark", r.at("benchmark")}, {"workload", r.at("workload")}, {"op", r.at("op")},
                    {"label", r.at("label")}, {"point", std::stoi(r.at("point"))}, {"settings", settings},
                    {"status", status}, {"cycles", opt(cycles)}, {"ipc", opt(number(r, "ipc"))},
                    {"speedup", opt(speedup)}, {"metrics", metrics}, {"wall_s", opt(number(r, "wall_s"))},
                    {"detail", r.at("detail")}});
  }
  json metric_rows = json::array();
  for (const core::MetricDef& m : core::metric_table())
    metric_rows.push_back({{"key", m.key}, {"label", m.label}, {"unit", m.unit}});
  return {{"schema", "vxsynth.sweep-data"}, {"version", 1}, {"sweep", dir.string()}, {"suite", plan["suite"]},
          {"baseline", {{"index", baseline}, {"label", g.points.at(static_cast<size_t>(baseline)).label()}}},
          {"grid", to_json(g)}, {"metrics", metric_rows}, {"benchmarks", plan["benchmarks"]},
          {"skipped", plan["skipped"]}, {"rows", rows}, {"counts", counts}, {"main_effects", main_effects(rows, g)}};
}

}  // namespace vxsynth::sweep
