// The sweep's plan (docs/sweep.md "Plan, resume"): the suite's built benchmarks with their locked
// design points, the grid, the infeasible (benchmark, point) pairs with their reasons, and the
// output directory's ownership rules.
#include "sweep_files.h"

#include <algorithm>
#include <chrono>
#include <sstream>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/refine/agent.h"
#include "vxsynth/sweep/feasibility.h"

namespace vxsynth::sweep {

namespace fs = std::filesystem;
using nlohmann::json;

json parse_json_file(const fs::path& f) {
  if (!fs::is_regular_file(f)) throw make_error("{}: no such file", f.string());
  try {
    return json::parse(read_file(f));
  } catch (const json::parse_error& e) {
    throw make_error("{}: not JSON: {}", f.string(), e.what());
  }
}

codegen::DesignPoint locked_design(const fs::path& bench) {
  const json summary = parse_json_file(bench / "summary.json");
  const int locked = summary.at("locked_revision").get<int>();
  const fs::path record = bench / "record.jsonl";
  std::istringstream lines(read_file(record));
  int n = 0;
  for (std::string line; std::getline(lines, line);) {
    ++n;
    if (line.empty()) continue;
    const json r = json::parse(line, nullptr, false);
    if (r.is_object() && r.value("revision", -1) == locked) {
      try {
        return codegen::design_point_from_json(r.at("design"));
      } catch (const std::exception& e) {
        throw make_error("{}:{}: design: {}", record.string(), n, e.what());
      }
    }
  }
  throw make_error("{}: no record of the locked revision {} (summary.json)", record.string(), locked);
}

std::vector<Benchmark> suite_benchmarks(const fs::path& suite_dir, const std::vector<std::string>& only) {
  const json suite = parse_json_file(suite_dir / suite::kSuiteFile);
  if (suite.value("schema", "") != suite::kSuiteSchema)
    throw make_error("{}: not a suite index (schema {})", (suite_dir / suite::kSuiteFile).string(), suite::kSuiteSchema);
  std::vector<Benchmark> out;
  for (const json& b : suite.at("benchmarks")) {
    const std::string name = b.at("name").get<std::string>();
    if (b.value("status", "") != "built") continue;
    if (!only.empty() && std::find(only.begin(), only.end(), name) == only.end()) continue;
    Benchmark x;
    x.name = name;
    x.workload = b.value("workload", "");
    x.op = b.value("op", "");
    x.label = b.value("label", "");
    x.entry = b;
    x.design = locked_design(suite_dir / name);
    out.push_back(std::move(x));
  }
  for (const std::string& n : only)
    if (std::none_of(out.begin(), out.end(), [&](const Benchmark& b) { return b.name == n; }))
      throw make_error("--benchmark {}: no built benchmark of that name in {}", n, (suite_dir / suite::kSuiteFile).string());
  if (out.empty()) throw make_error("{}: the suite has no built benchmark", (suite_dir / suite::kSuiteFile).string());
  return out;
}

json make_plan(const fs::path& suite_dir, const Grid& grid, int baseline, const std::vector<Benchmark>& benchmarks) {
  if (baseline < 0 || baseline >= static_cast<int>(grid.points.size()))
    throw make_error("--baseline {}: the grid has points 0..{}", baseline, grid.points.size() - 1);
  json bench = json::array(), skipped = json::array();
  for (const Benchmark& b : benchmarks) {
    const auto& t = b.design.vortex;
    bench.push_back({{"name", b.name}, {"workload", b.workload}, {"op", b.op}, {"label", b.label},
                     {"block_size", b.design.fixed.block_size},
                     {"target", {{"cores", t.cores}, {"warps", t.warps}, {"threads", t.threads}}}});
    for (const Point& p : grid.points)
      if (std::string why = infeasible_reason(b.design, p); !why.empty())
        skipped.push_back({{"benchmark", b.name}, {"point", p.index}, {"reason", why}});
  }
  return {{"schema", kSweepSchema}, {"version", kSweepVersion}, {"suite", suite_dir.string()},
          {"suite_sha256", refine::sha256_hex(read_file(suite_dir / suite::kSuiteFile))}, {"grid", to_json(grid)},
          {"baseline", baseline}, {"benchmarks", bench}, {"skipped", skipped}};
}

json read_sweep(const fs::path& dir) {
  const fs::path f = dir / kSweepFile;
  const json j = parse_json_file(f);
  if (j.value("schema", "") != kSweepSchema || j.value("version", 0) != kSweepVersion)
    throw make_error("{}: not a sweep (schema {} v{})", f.string(), kSweepSchema, kSweepVersion);
  for (const char* field : {"suite", "grid", "baseline", "benchmarks", "skipped"})
    if (!j.contains(field)) throw make_error("{}: no field '{}'", f.string(), field);
  return j;
}

void claim_output(const fs::path& dir, const json& plan, bool resume) {
  const fs::path f = dir / kSweepFile;
  if (fs::exists(f)) {
    const json old = read_sweep(dir);
    if (!resume) throw make_error("{} holds a sweep: add --resume to continue it, or choose a new -o", dir.string());
    for (const char* field : {"suite_sha256", "grid", "baseline", "benchmarks", "skipped"})
      if (old.value(field, json()) != plan.at(field))
        throw make_error("--resume: {} differs from {}'s '{}' (same suite, grid, baseline and benchmarks are needed)",
                         field, f.string(), field);
    return;
  }
  if (fs::exists(dir) && (!fs::is_directory(dir) || !fs::is_empty(dir)))
    throw make_error("{} is not empty and is not a sweep (no {}); choose a new or empty -o", dir.string(), kSweepFile);
  fs::create_directories(dir / kRowsDir);
  json p = plan;
  p["created_utc"] = fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::chrono::system_clock::to_time_t(
                                                                  std::chrono::system_clock::now())));
  write_file_atomic(f, p.dump(1) + "\n");
}

}  // namespace vxsynth::sweep
