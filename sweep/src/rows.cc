// Rows of a sweep (docs/sweep.md "Output"): the CSV columns, the per-benchmark row files, collect.
#include <algorithm>
#include <iostream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "sweep_files.h"
#include "vxsim/timing/config.h"
#include "vxsim/timing/counters.h"
#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/core/metrics.h"
#include "vxsynth/core/vortex_signature.h"

namespace vxsynth::sweep {

namespace fs = std::filesystem;
using nlohmann::json;

std::vector<std::string> counter_keys() {
  const json j = json::parse(core::vortex_signature_json(core::Signature{}, vxsim::timing::DeviceCounters{},
                                                         vxsim::timing::TimingConfig{}, "columns"));
  std::vector<std::string> keys;
  for (const auto& [k, v] : j.at("counters").items()) keys.push_back(k);
  return keys;
}

std::vector<std::string> csv_columns(const Grid& grid) {
  std::vector<std::string> c{"benchmark", "workload", "op", "label", "point", "config"};
  for (const GridParam& p : grid.params) c.push_back(p.key);
  for (const char* k : {"status", "attempt", "cycles", "ipc", "warp_instrs", "thread_instrs", "launches"}) c.emplace_back(k);
  for (const std::string& k : counter_keys()) c.push_back("counter." + k);
  for (const core::MetricDef& m : core::metric_table()) c.emplace_back(m.key);
  for (const char* k : {"vortex_D", "output_check", "max_rel_err", "host_threads", "wall_s", "detail"}) c.emplace_back(k);
  return c;
}

size_t status_column(const Grid& grid) { return 6 + grid.params.size(); }

std::string sanitize(std::string s) {
  for (char& c : s) c = (c == ',' || c == '"' || c == '\n' || c == '\r') ? ' ' : c;
  return s;
}

std::vector<std::string> split_row(const std::string& line) {
  std::vector<std::string> f;
  std::istringstream s(line);
  for (std::string x; std::getline(s, x, ',');) f.push_back(x);
  if (!line.empty() && line.back() == ',') f.emplace_back();
  for (std::string& x : f)
    if (x.size() >= 2 && x.front() == '"' && x.back() == '"') x = x.substr(1, x.size() - 2);
  return f;
}

std::map<int, PointAttempts> point_attempts(const fs::path& dir, const std::string& benchmark, const Grid& grid) {
  std::map<int, PointAttempts> out;
  const fs::path f = dir / kRowsDir / (benchmark + ".csv");
  if (!fs::exists(f)) return out;
  const size_t status = status_column(grid);
  std::istringstream lines(read_file(f));
  int n = 0;
  for (std::string line; std::getline(lines, line);) {
    ++n;
    const std::vector<std::string> v = split_row(line);
    if (v.size() <= status || v[0] != benchmark) throw make_error("{}:{}: not a row of {}", f.string(), n, benchmark);
    PointAttempts& a = out[std::stoi(v[4])];
    ++a.attempts;
    a.status = v[status];
  }
  return out;
}

std::set<int> finished_points(const fs::path& dir, const std::string& benchmark, const Grid& grid) {
  std::set<int> done;
  for (const auto& [point, a] : point_attempts(dir, benchmark, grid))
    if (a.status == "PASSED") done.insert(point);
  return done;
}

namespace {

std::string skipped_row(const json& bench, const Point& p, const std::string& reason, const Grid& g) {
  std::map<std::string, std::string> v{{"benchmark", bench["name"]}, {"workload", bench["workload"]},
                                       {"op", bench["op"]}, {"label", bench["label"]},
                                       {"point", std::to_string(p.index)}, {"config", p.label()},
                                       {"status", "skipped"}, {"detail", "\"" + sanitize(reason) + "\""}};
  for (const auto& [k, val] : p.settings) v[k] = val;
  std::string line;
  for (const std::string& c : csv_columns(g)) line += (line.empty() ? "" : ",") + (v.count(c) ? v[c] : std::string());
  return line;
}

}  // namespace

int collect(const fs::path& dir) {
  const json plan = read_sweep(dir);
  const Grid g = grid_from_json(plan["grid"]);
  std::map<std::pair<std::string, int>, std::string> rows;
  for (const json& s : plan["skipped"]) {
    const json* b = nullptr;
    for (const json& x : plan["benchmarks"])
      if (x["name"] == s["benchmark"]) b = &x;
    if (b == nullptr) throw make_error("{}: skipped row of unknown benchmark {}", (dir / kSweepFile).string(), s["benchmark"].dump());
    const int idx = s["point"].get<int>();
    rows[{s["benchmark"], idx}] = skipped_row(*b, g.points.at(static_cast<size_t>(idx)), s["reason"], g);
  }
  int retried = 0;
  for (const json& b : plan["benchmarks"]) {
    const fs::path f = dir / kRowsDir / (b["name"].get<std::string>() + ".csv");
    if (!fs::exists(f)) continue;
    std::istringstream lines(read_file(f));
    // The file is append-only: a point's last row is its latest attempt, the one sweep.csv keeps.
    for (std::string line; std::getline(lines, line);) {
      const std::vector<std::string> v = split_row(line);
      if (v.size() <= status_column(g)) throw make_error("{}: a short row: {}", f.string(), line);
      rows[{v[0], std::stoi(v[4])}] = line;
    }
    for (const auto& [point, a] : point_attempts(dir, b["name"].get<std::string>(), g)) retried += a.attempts > 1;
  }
  int passed = 0, failed = 0;
  for (const auto& [key, line] : rows) {
    const std::string status = split_row(line).at(status_column(g));
    if (status != "skipped") (status == "PASSED" ? passed : failed) += 1;
  }
  std::map<std::string, size_t> order;
  for (const json& b : plan["benchmarks"]) order.emplace(b["name"].get<std::string>(), order.size());
  std::vector<std::pair<std::pair<size_t, int>, const std::string*>> sorted;
  for (const auto& [key, line] : rows) sorted.push_back({{order.at(key.first), key.second}, &line});
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string header;
  for (const std::string& c : csv_columns(g)) header += (header.empty() ? "" : ",") + c;
  std::string text = header + "\n";
  for (const auto& [key, line] : sorted) text += *line + "\n";
  write_file_atomic(dir / kSweepCsv, text);
  const size_t expected = plan["benchmarks"].size() * g.points.size();
  fs::create_directories(dir / kStateDir);
  write_file_atomic(dir / kStateDir / "collect.json",
                    json{{"rows", rows.size()}, {"expected", expected}, {"passed", passed}, {"failed", failed},
                         {"retried", retried}, {"skipped", plan["skipped"].size()}}.dump(1) + "\n");
  std::cout << fmt::format("[sweep] {}: {} of {} rows ({} passed, {} failed, {} skipped; {} run more than once)\n",
                           (dir / kSweepCsv).string(), rows.size(), expected, passed, failed, plan["skipped"].size(),
                           retried);
  return 0;
}

}  // namespace vxsynth::sweep
