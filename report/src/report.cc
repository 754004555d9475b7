#include "vxsynth/report/report.h"

#include <algorithm>
#include <ctime>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/common/process.h"
#include "vxsynth/refine/run_dir.h"
#include "vxsynth/report/analysis.h"
#include "vxsynth/report/inputs.h"
#ifdef VXSYNTH_HAVE_SWEEP
#include "vxsynth/sweep/sweep.h"
#endif

namespace vxsynth::report {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string refusal(const fs::path& out, const std::string& why) {
  return fmt::format(
      "{}: the output directory is not empty and is not a vxsynth report ({}); vxsynth writes a report only into a "
      "new or empty directory or one holding its own report: choose a new or empty -o",
      out.string(), why);
}

// The report.json of a directory check_report_dir accepted (null when it has none).
json previous_report(const fs::path& out) {
  const fs::path p = out / kReportFile;
  return fs::is_regular_file(p) ? json::parse(read_file(p)) : json();
}

// Removes the files a previous report into `out` wrote (its report.json's list), nothing else.
void remove_previous(const fs::path& out, const json& prev) {
  if (!prev.is_object()) return;
  for (const json& f : prev.value("files", json::array())) {
    if (!f.is_string()) continue;
    const fs::path rel = fs::path(f.get<std::string>()).lexically_normal();
    if (rel.is_absolute() || rel.empty() || *rel.begin() == "..") continue;  // only inside the report
    std::error_code ec;
    fs::remove(out / rel, ec);
  }
}

std::vector<std::string> files_under(const fs::path& out) {
  std::vector<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(out))
    if (e.is_regular_file()) files.push_back(e.path().lexically_relative(out).generic_string());
  std::sort(files.begin(), files.end());
  return files;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

void draw_figures(const ReportOptions& o, const fs::path& data_json) {
  std::map<std::string, std::string> env;
  if (!o.python_path.empty()) env["PYTHONPATH"] = o.python_path.string();
  ProcessOptions po{o.figure_timeout_s, {}, env};
  const ProcessResult r =
      run_process({o.python, "-m", "vxsynth_torch.figures", data_json.string(), o.out.string()}, po);
  if (!r.ok())
    throw make_error("{}: the figure layer failed ({}):\n{}\n(it needs python3-matplotlib: scripts/install-deps.sh; "
                     "--data-only writes the data files without figures)",
                     r.command, r.status_text(), tail_lines(r.output, 12));
}

// The sweep section's numbers (docs/sweep.md "Figures"); the sweep must be of the report's suite.
// Returns the sweep's CSV, copied to data/sweep.csv.
std::string add_sweep(json& data, const Inputs& in, const fs::path& dir) {
#ifndef VXSYNTH_HAVE_SWEEP
  (void)data, (void)in;
  throw make_error("--sweep {}: this vxsynth was built without sweep/", dir.string());
#else
  if (!in.suite) throw make_error("--sweep {}: a sweep is reported with its suite directory as the input", dir.string());
  json sw = sweep::sweep_data(dir);
  const fs::path of = fs::weakly_canonical(sw["suite"].get<std::string>());
  if (of != fs::weakly_canonical(in.suite->dir))
    throw make_error("--sweep {}: it is a sweep of {}, not of {}", dir.string(), of.string(), in.suite->dir.string());
  data["sweep"] = std::move(sw);
  return read_file(dir / sweep::kSweepCsv);
#endif
}

}  // namespace

void check_report_dir(const fs::path& out) {
  std::error_code ec;
  const fs::file_status st = fs::status(out, ec);
  if (!fs::exists(st)) return;
  if (!fs::is_directory(st)) throw make_error("-o {}: exists and is not a directory", out.string());
  if (fs::is_empty(out)) return;
  const fs::path p = out / kReportFile;
  if (!fs::is_regular_file(p)) throw make_error("{}", refusal(out, "it has no report.json"));
  const json j = json::parse(read_file(p), nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw make_error("{}", refusal(out, "its report.json is not a JSON object"));
  if (j.value("schema", json()) != kReportSchema)
    throw make_error("{}", refusal(out, fmt::format("report.json field 'schema' is {}, expected \"{}\"",
                                                    j.value("schema", json()).dump(), kReportSchema)));
  if (j.value("version", json()) != kReportVersion)
    throw make_error("{}", refusal(out, fmt::format("report.json is version {}, this vxsynth writes version {}",
                                                    j.value("version", json()).dump(), kReportVersion)));
  if (!j.contains("files") || !j["files"].is_array())
    throw make_error("{}", refusal(out, "report.json field 'files' is missing or not an array"));
}

std::vector<std::string> write_report(const ReportOptions& o) {
  const Inputs in = load_inputs(o.inputs);  // every input validated before anything is written
  check_report_dir(o.out);
  const fs::path out = fs::absolute(o.out).lexically_normal();
  for (const RunInput& r : in.runs)
    if (out == r.dir || (in.suite && out == in.suite->dir))
      throw make_error("-o {}: is one of the inputs; choose another directory", o.out.string());
  json data = report_data(in, out);
  const std::string sweep_csv = o.sweep.empty() ? std::string() : add_sweep(data, in, o.sweep);
  remove_previous(out, previous_report(out));
  fs::create_directories(out / "data");
  json rep{{"schema", kReportSchema}, {"version", kReportVersion}, {"report_id", refine::new_run_id()},
           {"created_utc", utc_now()}, {"inputs", data["inputs"]}, {"files", json::array()}};
  write_file_atomic(out / kReportFile, rep.dump(1) + "\n");
  write_file_atomic(out / "data" / "report_data.json", data.dump(1) + "\n");
  for (const auto& [name, text] : report_csv(data)) write_file_atomic(out / "data" / name, text);
  if (!o.sweep.empty()) write_file_atomic(out / "data" / "sweep.csv", sweep_csv);
  if (o.figures) {
    ReportOptions oo = o;
    oo.out = out;
    draw_figures(oo, out / "data" / "report_data.json");
  }
  std::vector<std::string> files = files_under(out);
  rep["files"] = files;
  write_file_atomic(out / kReportFile, rep.dump(1) + "\n");
  return files;
}

}  // namespace vxsynth::report
