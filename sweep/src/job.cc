// One benchmark's points (`vxsynth sweep-job DIR NAME`, what an executor runs; docs/sweep.md
// "Jobs"): built once in run/NAME/, each unfinished feasible point run on vxsim in timing mode and
// its row appended to rows/NAME.csv (one writer per file, one O_APPEND write per row).
#include <chrono>
#include <iostream>
#include <map>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "sweep_files.h"
#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/core/bundle.h"
#include "vxsynth/core/metrics.h"

namespace vxsynth::sweep {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The point's environment: device-shape parameters through their runtime variables, the rest as
// VXSIM_SET (docs/vxsim.md "Environment variables", docs/timing.md).
std::map<std::string, std::string> point_env(const Grid& g, const Point& p, unsigned host_threads) {
  std::map<std::string, std::string> env{{"VXSIM_HOST_THREADS", std::to_string(host_threads)}};
  std::string set;
  for (const GridParam& gp : g.params) {
    const std::string v = p.value(gp.key);
    if (!gp.env.empty()) env[gp.env] = v;
    else set += (set.empty() ? "" : ",") + gp.key + "=" + v;
  }
  if (!set.empty()) env["VXSIM_SET"] = set;
  return env;
}

core::Signature reference_signature(const fs::path& bench) {
  const json p = parse_json_file(bench / "reference" / "profile.json");
  core::Signature s{};
  for (const core::MetricDef& m : core::metric_table()) {
    const json& v = p["signature"].value(std::string(m.key), json());
    if (v.is_number()) s[m.id] = v.get<double>();
  }
  return s;
}

std::string num(double v) { return fmt::format("{:.6g}", v); }

// Cycles, instructions and counters summed over every launch; the ten metrics of the main launch.
void signature_columns(const fs::path& f, const fs::path& bench, std::map<std::string, std::string>& v) {
  const json s = parse_json_file(f);
  std::map<std::string, uint64_t> sum;
  uint64_t launches = 0;
  for (const json& l : s.value("launches", json::array())) {
    ++launches;
    for (const auto& [k, c] : l.at("counters").items())
      if (c.is_number_unsigned()) sum[k] += c.get<uint64_t>();
  }
  for (const auto& [k, c] : sum) v["counter." + k] = std::to_string(c);
  v["launches"] = std::to_string(launches);
  v["cycles"] = std::to_string(sum["cycles"]);
  v["warp_instrs"] = std::to_string(sum["warp_instrs"]);
  v["thread_instrs"] = std::to_string(sum["thread_instrs"]);
  v["ipc"] = sum["cycles"] > 0 ? fmt::format("{:.4f}", static_cast<double>(sum["warp_instrs"]) /
                                                             static_cast<double>(sum["cycles"]))
                               : "";
  const core::Signature sig = core::load_signature_ref(f.string()).signature;
  for (const core::MetricDef& m : core::metric_table())
    if (sig[m.id]) v[std::string(m.key)] = num(*sig[m.id]);
  if (const auto d = core::distance(sig, reference_signature(bench)).d_value) v["vortex_D"] = fmt::format("{:.4f}", *d);
}

// The first line of a failed run's log that names an error ("vx_start: device error: …", a
// compiler's "error:"), so the row says why without opening run.log; "" when there is none.
std::string first_error_line(const fs::path& log) {
  if (!fs::exists(log)) return {};
  std::istringstream lines(read_file(log));
  std::string line;
  std::getline(lines, line);  // the command
  while (std::getline(lines, line))
    if (line.find("error:") != std::string::npos) return line;
  return {};
}

// A point run again keeps the log of its earlier attempt as run.<attempt - 1>.log (its row, with
// status and detail, stays in rows/NAME.csv).
void keep_earlier_log(const fs::path& point_dir, int attempt) {
  const fs::path log = point_dir / "run.log";
  if (attempt > 1 && fs::exists(log)) fs::rename(log, point_dir / fmt::format("run.{}.log", attempt - 1));
}

std::string row_line(const Grid& g, std::map<std::string, std::string> v) {
  std::string line;
  for (const std::string& c : csv_columns(g)) line += (line.empty() ? "" : ",") + v[c];
  return line;
}

}  // namespace

int job(const fs::path& dir_in, const std::string& name, const suite::Tools& tools, unsigned host_threads,
        double point_timeout_s) {
  const auto t0 = std::chrono::steady_clock::now();
  const fs::path dir = fs::absolute(dir_in).lexically_normal();
  const json plan = read_sweep(dir);
  const Grid g = grid_from_json(plan["grid"]);
  const fs::path suite_dir = plan["suite"].get<std::string>();
  const json* bench = nullptr;
  for (const json& b : plan["benchmarks"])
    if (b["name"] == name) bench = &b;
  if (bench == nullptr) throw make_error("{}: no benchmark {} in the sweep", (dir / kSweepFile).string(), name);
  json entry;
  const json suite_index = parse_json_file(suite_dir / suite::kSuiteFile);
  for (const json& b : suite_index.at("benchmarks"))
    if (b["name"] == name) entry = b;
  if (entry.is_null()) throw make_error("{}: no benchmark {}", (suite_dir / suite::kSuiteFile).string(), name);
  const std::map<int, PointAttempts> before = point_attempts(dir, name, g);
  std::set<int> skip = finished_points(dir, name, g);
  for (const json& s : plan["skipped"])
    if (s["benchmark"] == name) skip.insert(s["point"].get<int>());
  if (host_threads == 0) host_threads = std::max(1u, std::thread::hardware_concurrency());
  int failed = 0, ran = 0;
  for (const Point& p : g.points) {
    if (skip.count(p.index) != 0) continue;
    suite::BenchmarkRunOptions o;
    o.work = dir / kRunDir / name;
    o.signature = o.work / fmt::format("p{}", p.index) / "vortex_signature.json";
    fs::create_directories(o.signature.parent_path());
    o.env = point_env(g, p, host_threads);
    const auto prior = before.find(p.index);
    const int attempt = prior == before.end() ? 1 : prior->second.attempts + 1;
    keep_earlier_log(o.signature.parent_path(), attempt);
    o.stage_tensors = ran == 0;
    o.timeout_s = point_timeout_s;
    suite::BenchmarkRun r;
    try {
      r = suite::run_benchmark(suite_dir, entry, o, tools);
    } catch (const std::exception& e) {
      r.detail = e.what();
    }
    std::map<std::string, std::string> v{{"benchmark", name}, {"workload", (*bench)["workload"]},
                                         {"op", (*bench)["op"]}, {"label", (*bench)["label"]},
                                         {"point", std::to_string(p.index)}, {"config", p.label()},
                                         {"status", r.status}, {"attempt", std::to_string(attempt)},
                                         {"output_check", r.output_check},
                                         {"max_rel_err", r.output_check.empty() ? "" : num(r.max_rel)},
                                         {"host_threads", std::to_string(host_threads)},
                                         {"wall_s", fmt::format("{:.2f}", r.wall_s)}};
    for (const auto& [k, val] : p.settings) v[k] = val;
    if (r.status != "error" && fs::exists(o.signature)) {
      try {
        signature_columns(o.signature, suite_dir / name, v);
      } catch (const std::exception& e) {
        r.status = "error";
        r.detail = fmt::format("{}: {}", o.signature.string(), e.what());
      }
    }
    if (r.status != "PASSED")
      if (const std::string why = first_error_line(o.signature.parent_path() / "run.log"); !why.empty())
        r.detail = why + " (run.log); " + r.detail;
    v["status"] = r.status;
    v["detail"] = "\"" + sanitize(r.detail) + "\"";
    append_line_atomic(dir / kRowsDir / (name + ".csv"), row_line(g, v));
    ++ran;
    failed += r.status == "PASSED" ? 0 : 1;
    std::cout << fmt::format("[sweep] {} at point {} ({}){}: {} ({} cycles, {:.1f} s){}\n", name, p.index,
                             p.label(), attempt > 1 ? fmt::format(", attempt {}", attempt) : "", r.status,
                             v["cycles"].empty() ? "no" : v["cycles"], r.wall_s,
                             r.detail.empty() ? "" : ": " + r.detail)
              << std::flush;
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  fs::create_directories(dir / kStateDir / "jobs");
  write_file_atomic(dir / kStateDir / "jobs" / (name + ".json"),
                    json{{"benchmark", name}, {"exit", failed == 0 ? 0 : 1}, {"rows", ran}, {"failed", failed},
                         {"wall_s", wall}}.dump(1) + "\n");
  return failed == 0 ? 0 : 1;
}

}  // namespace vxsynth::sweep
