// suite collect (docs/suite.md "suite.json", "SUITE.md"): indexes the built benchmarks.
#include <iostream>

#include <sstream>

#include <fmt/format.h>

#include "suite_files.h"
#include "suite_index.h"
#include "validation.h"
#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/core/bundle.h"
#include "vxsynth/core/metrics.h"
#include "vxsynth/refine/record.h"
#include "vxsynth/suite/suite.h"

namespace vxsynth::suite {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json read_json(const fs::path& p) { return json::parse(read_file(p)); }

// The locked revision's two checks, as the record holds them.
json locked_checks(const fs::path& bench, int locked) {
  const refine::RecordRead rr = refine::read_record(bench / "record.jsonl", false);
  if (locked < 0 || static_cast<size_t>(locked) >= rr.entries.size())
    throw make_error("{}: no revision {} (the summary's locked revision)", (bench / "record.jsonl").string(), locked);
  const json e = refine::to_json(rr.entries[static_cast<size_t>(locked)]);
  return json{{"source_output", e["source_output_check"]}, {"candidate", e["candidate_check"]}};
}

// Seconds per revision step summed over the benchmark's revisions (the record's step_wall_s);
// empty for records made before the field.
json step_totals(const fs::path& bench) {
  std::map<refine::RevisionStep, double> sum;
  for (const refine::RevisionEntry& e : refine::read_record(bench / "record.jsonl", false).entries)
    for (const auto& [step, s] : e.step_wall.seconds()) sum[step] += s;
  json j = json::object();
  for (const auto& [step, s] : sum) j[std::string(refine::step_name(step))] = s;
  return j;
}

// Vortex-side D: the locked kernel's vxsim signature against the reference signature.
json vortex_side(const fs::path& bench, const core::Signature& reference, const json& summary) {
  const fs::path f = bench / "vortex_signature.json";
  if (!fs::is_regular_file(f)) return json{{"D", nullptr}, {"note", summary.value("vortex_signature", "")}};
  const core::DistanceReport r = core::distance(core::load_signature_ref(f.string()).signature, reference);
  return json{{"D", r.d_value ? json(*r.d_value) : json(nullptr)},
              {"metrics_compared", r.entered().size()},
              {"signature_file", "vortex_signature.json"}};
}

json metrics_of(const json& summary) {
  json m = json::array();
  int compared = 0, measured = 0;
  for (const json& r : summary["metrics"]) {
    compared += r["d_final"].is_null() ? 0 : 1;
    measured += r["reference"].is_null() ? 0 : 1;
    m.push_back(json{{"metric", r["metric"]}, {"reference", r["reference"]}, {"final", r["final"]},
                     {"d_seed", r["d_seed"]}, {"d_final", r["d_final"]}});
  }
  return json{{"per_metric", m}, {"compared", compared}, {"reference_measured", measured}};
}

json provenance_of(const fs::path& suite_dir, const json& plan_entry, const json& run, const json& summary) {
  const json bundle = read_json(suite_dir / plan_entry["bundle"].get<std::string>());
  return json{{"bundle", plan_entry["bundle"]},
              {"bundle_sha256", run.value("bundle_sha256", "")},
              {"reference_profile", bundle.value("provenance", json::object())},
              {"run_id", run.value("run_id", "")},
              {"created_utc", run.value("created_utc", "")},
              {"agent", run.value("agent", "")},
              {"profile_backend", run.value("profile_backend", "")},
              {"seed", run.value("seed", 0)},
              {"tool_versions", summary.value("tool_versions", json::object())}};
}

// The tensors.json of a benchmark, kept while the summary it was made from is unchanged.
json tensors_for(const fs::path& suite_dir, const std::string& name, const json& run, int locked) {
  const fs::path bench = suite_dir / name, t = suite_dir / "validation" / name / "tensors.json";
  const std::string summary_sha = sha256_file(bench / "summary.json");
  if (fs::is_regular_file(t)) {
    const json old = json::parse(read_file(t), nullptr, false);
    if (old.is_object() && old.value("summary_sha256", "") == summary_sha) return old;
  }
  json tensors = make_tensors_json(bench, run.value("input_key", uint64_t{1}), locked);
  tensors["summary_sha256"] = summary_sha;
  fs::create_directories(t.parent_path());
  write_file_atomic(t, tensors.dump(1));
  return tensors;
}

json built_entry(const fs::path& suite_dir, const json& p) {
  const std::string name = p["name"].get<std::string>();
  const fs::path bench = suite_dir / name;
  const json summary = read_json(bench / "summary.json"), run = read_json(bench / "run.json");
  const BenchmarkReference ref = benchmark_reference(suite_dir, p);
  const core::BundleKernel& k = *ref.kernel;
  const int locked = summary["locked_revision"].get<int>();
  const json tensors = tensors_for(suite_dir, name, run, locked);
  return json{{"status", "built"},
              {"op", core::to_string(k.context.op)},
              {"shape", core::shape_string(k.context)},
              {"engine", core::to_string(k.context.engine)},
              {"precision", tensors["precision"]},
              {"reference_kernel", {{"id", k.id}, {"rank", k.rank}, {"name", k.name}, {"launches", k.launches},
                                    {"total_us", k.total_us}}},
              {"share", k.share},
              {"revisions", {{"tried", summary["revisions_tried"]}, {"retained", summary["revisions_retained"]},
                             {"reverted", summary["revisions_reverted"]}, {"rejected", summary["revisions_rejected"]},
                             {"locked", locked}, {"stop", summary["stop_reason"]}}},
              {"seed_D", summary["seed_D"]},
              {"final_D", summary["final_D"]},
              {"metrics", metrics_of(summary)},
              {"checks", locked_checks(bench, locked)},
              {"vortex", vortex_side(bench, *k.signature, summary)},
              {"validation", fmt::format("validation/{}/tensors.json", name)},
              {"wall_time_s", summary["wall_time_s"]},
              {"step_wall_s", step_totals(bench)},
              {"provenance", provenance_of(suite_dir, p, run, summary)}};
}

/// Revisions recorded in a benchmark directory's record.jsonl: its lines that parse as JSON objects
/// (a line torn by a kill does not count; reconstruct --resume drops it too).
int recorded_revisions(const fs::path& bench) {
  if (!fs::is_regular_file(bench / "record.jsonl")) return 0;
  std::istringstream lines(read_file(bench / "record.jsonl"));
  int n = 0;
  for (std::string line; std::getline(lines, line);) n += json::parse(line, nullptr, false).is_object();
  return n;
}

/// Why a benchmark without a job outcome is not built: still running (another process owns its
/// directory), stopped from outside after some revisions or before its seed was recorded, or not started.
json unfinished_entry(const fs::path& bench) {
  const int revisions = recorded_revisions(bench);
  const std::string so_far = revisions > 0 ? fmt::format("revision {} recorded so far", revisions - 1)
                                           : std::string("no revision recorded yet");
  if (directory_owned_elsewhere(bench)) return json{{"status", "not built"}, {"reason", "running: " + so_far}};
  const std::string resume = "`vxsynth suite build --resume` with the build's arguments continues it";
  if (revisions > 0)
    return json{{"status", "not built"},
                {"reason", fmt::format("interrupted after revision {} ({} record.jsonl {}, none locked): {}",
                                       revisions - 1, revisions, revisions == 1 ? "entry" : "entries", resume)}};
  if (fs::exists(bench / "run.json"))
    return json{{"status", "not built"}, {"reason", "interrupted before its seed was recorded: " + resume}};
  return json{{"status", "not built"}, {"reason", "its job has not run"}};
}

json failed_entry(const fs::path& suite_dir, const std::string& name) {
  const fs::path o = suite_dir / kStateDir / "jobs" / (name + ".json");
  // A job stopped from outside (the build's wall-clock guard, a killed executor) writes no outcome.
  if (!fs::is_regular_file(o)) return unfinished_entry(suite_dir / name);
  const json j = json::parse(read_file(o), nullptr, false);
  return json{{"status", "failed"},
              {"reason", j.is_object() ? j.value("status", "") + ": " + j.value("tail", "") : "unreadable job outcome"}};
}

void write_manifest(const fs::path& suite_dir) {
  json files = json::object();
  for (const std::string& f : manifest_files(suite_dir)) files[f] = sha256_file(suite_dir / f);
  write_file_atomic(suite_dir / kManifestFile,
                    json{{"schema", "vxsynth.suite-manifest"}, {"version", 1}, {"files", files}}.dump(1));
}

}  // namespace

int collect(const fs::path& dir) {
  const fs::path suite_dir = suite_path(dir);
  const json plan = read_plan(suite_dir);
  if (directory_owned_elsewhere(suite_dir))
    std::cout << fmt::format("[suite] collect: a build is still running in {}; its unfinished kernels are listed as "
                             "running\n", suite_dir.string());
  json benchmarks = json::array();
  int missing = 0;
  for (const json& p : plan["benchmarks"]) {
    const std::string name = p["name"].get<std::string>();
    json e{{"name", name}, {"workload", p["workload"]}, {"platform", p["platform"]}, {"kernel_id", p["kernel_id"]},
           {"bundle", p["bundle"]}, {"directory", name}};
    e.update(benchmark_complete(suite_dir / name) ? built_entry(suite_dir, p) : failed_entry(suite_dir, name));
    missing += e["status"] == "built" ? 0 : 1;
    benchmarks.push_back(std::move(e));
  }
  const json suite = index_suite(plan, benchmarks);
  write_file_atomic(suite_dir / kSuiteFile, suite.dump(1));
  write_file_atomic(suite_dir / "SUITE.md", suite_markdown(suite));
  write_file_atomic(suite_dir / kSuiteMakefile, std::string(detail::suite_makefile()));
  write_manifest(suite_dir);
  fs::create_directories(suite_dir / kStateDir);
  write_file_atomic(suite_dir / kStateDir / "collect.json",
                    json{{"benchmarks", benchmarks.size()}, {"not_built", missing}}.dump());
  std::cout << fmt::format("[suite] collect: {} benchmarks, {} built, {} not built; {}\n", benchmarks.size(),
                           benchmarks.size() - static_cast<size_t>(missing), missing,
                           (suite_dir / "SUITE.md").string());
  return 0;
}

}  // namespace vxsynth::suite
