// suite run (docs/suite.md "Running a suite"): every benchmark built and run on vxsim in timing
// mode against its validation tensors; one CSV row per benchmark.
#include <algorithm>
#include <atomic>
#include <fstream>
#include <optional>
#include <iostream>
#include <mutex>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "generated.h"
#include "sources.h"
#include "suite_files.h"
#include "validation.h"
#include "vxsynth/check/equivalence.h"
#include "vxsynth/codegen/design_point.h"
#include "vxsynth/codegen/emit.h"
#include "vxsynth/codegen/vortex_check.h"
#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/common/process.h"
#include "vxsynth/core/bundle.h"
#include "vxsynth/core/metrics.h"
#include "vxsynth/suite/suite.h"
#include "vxsim/timing/config.h"

namespace vxsynth::suite {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct RunRow {
  std::string name, status = "error", detail, output_check;
  bool self_check = false;
  double max_abs = 0, max_rel = 0, wall_s = 0, ipc = 0;
  uint64_t cycles = 0, instructions = 0;
  std::optional<uint64_t> dram_bytes;  ///< DRAM bytes read and written over every launch (when run)
  uint64_t operand_bytes = 0;  ///< the operator's inputs and output in device memory (codegen::vortex_operand_bytes)
  std::optional<double> d;
  core::Signature signature{};
};

core::Signature reference_signature(const fs::path& bench) {
  const json p = json::parse(read_file(bench / "reference" / "profile.json"));
  core::Signature s{};
  for (const core::MetricDef& m : core::metric_table()) {
    const json& v = p["signature"].value(std::string(m.key), json());
    if (v.is_number()) s[m.id] = v.get<double>();
  }
  return s;
}

// Cycles, warp instructions and DRAM bytes over every launch of the signature file, and the main
// launch's metrics.
void read_signature(const fs::path& f, const fs::path& bench, RunRow& r) {
  const json s = json::parse(read_file(f));
  uint64_t dram = 0;
  for (const json& l : s.value("launches", json::array())) {
    r.cycles += l.value("cycles", uint64_t{0});
    r.instructions += l.value("instructions", uint64_t{0});
    const json counters = l.value("counters", json::object());
    dram += counters.value("dram_bytes_read", uint64_t{0}) + counters.value("dram_bytes_written", uint64_t{0});
  }
  r.dram_bytes = dram;
  r.ipc = r.cycles > 0 ? static_cast<double>(r.instructions) / static_cast<double>(r.cycles) : 0.0;
  r.signature = core::load_signature_ref(f.string()).signature;
  r.d = core::distance(r.signature, reference_signature(bench)).d_value;
}

std::string set_env(const std::vector<std::string>& set) {
  std::string s;
  for (const std::string& kv : set) s += (s.empty() ? "" : ",") + kv;
  return s;
}

}  // namespace

BenchmarkRun run_benchmark(const fs::path& dir, const json& entry, const BenchmarkRunOptions& o, const Tools& t) {
  BenchmarkRun r;
  const fs::path bench = dir / entry.at("name").get<std::string>(), data = o.work / "data";
  fs::create_directories(o.work);
  const json tensors = json::parse(read_file(dir / entry["validation"].get<std::string>()));
  const fs::path src = o.work / "src";  // the benchmark's vortex/ with the runtime files it leaves out
  stage_vortex_sources(dir, entry.at("name").get<std::string>(), src);
  const TensorSpec spec = tensor_spec(codegen::design_point_from_json(locked_entry(bench).design));
  if (o.stage_tensors) {
    if (const std::string bad = materialize_tensors(tensors, spec, bench / "data", data); !bad.empty()) {
      r.detail = "validation tensors: " + bad;
      return r;
    }
  }
  std::map<std::string, std::string> env = o.env;
  env["VXSIM_SIGNATURE"] = o.signature.string();
  env["VXSIM_STRICT_DIVERGENCE"] = "1";
  env["VXSIM_TIMING"] = "1";
  fs::remove(o.signature);
  fs::remove(data / "out.bin");
  const ProcessResult p = run_process({"make", "-C", o.work.string(), "-f", (src / "Makefile").string(),
                                       "VXSDK=" + t.sdk.string(), "run", "OPTS=-d " + data.string()},
                                      {o.timeout_s, {}, env});
  write_file_atomic(o.signature.parent_path() / "run.log", "$ " + p.command + "\n" + p.output);
  r.wall_s = p.wall_s;
  r.self_check = p.output.find("PASSED!") != std::string::npos;
  if (!p.ok() || !fs::exists(data / "out.bin")) {
    r.detail = fmt::format("make run: {}: {}", p.status_text(), tail_lines(p.output, 3));
    return r;
  }
  const int64_t n = check::output_numel(spec.op);
  const check::CheckReport c = check::compare_outputs(check::read_tensor_file(data / "out.bin", n, spec.ftype),
                                                      check::read_tensor_file(data / "ref_output.bin", n, spec.ftype),
                                                      spec.path, check::CheckKind::kCandidate,
                                                      check::ReferenceKind::kCpuFloat64);
  r.output_check = c.passed ? "pass" : "FAIL";
  r.max_abs = c.max_abs_error;
  r.max_rel = c.max_rel_error;
  r.status = c.passed && r.self_check ? "PASSED" : "FAILED";
  if (!c.passed) r.detail = c.reason;
  else if (!r.self_check) r.detail = "the benchmark did not print PASSED!";
  return r;
}

namespace {

// Why a benchmark is not run: its locked design's expected timing-mode cost (docs/vxsim.md "What the
// suite kernels cost to simulate") exceeds the per-benchmark limit; empty when it fits.
std::string beyond_timeout(const codegen::DesignPoint& p, double timeout_s) {
  const double expect_s = codegen::vxsim_expected_s(p, /*timing=*/true);
  if (expect_s <= timeout_s) return {};
  return fmt::format("not run: expected {:.0f} s of timing-mode simulation ({:.2g} warp instructions at {:.0e}/s), "
                     "more than --timeout {:g} s; give a larger --timeout to run it",
                     expect_s, static_cast<double>(codegen::vxsim_expected_warp_instrs(p)),
                     codegen::kVxsimTimingWarpInstrsPerS, timeout_s);
}

void run_one(const fs::path& dir, const json& entry, const RunOptions& o, const Tools& t, RunRow& r) {
  const fs::path bench = dir / r.name, work = dir / kRunDir / r.name;
  const codegen::DesignPoint locked = codegen::design_point_from_json(locked_entry(bench).design);
  r.operand_bytes = codegen::vortex_operand_bytes(locked);
  r.detail = beyond_timeout(locked, o.timeout_s);
  if (!r.detail.empty()) {
    r.status = "skipped";
    return;
  }
  fs::remove_all(work);
  BenchmarkRunOptions b;
  b.work = work;
  b.signature = work / "vortex_signature.json";
  // The machine is the default one plus --set: a VXSIM_CONFIG or VXSIM_SET of the caller's
  // environment would change it without the CSV saying so.
  b.env["VXSIM_CONFIG"] = "";
  b.env["VXSIM_SET"] = set_env(o.set);
  b.timeout_s = o.timeout_s;
  const BenchmarkRun run = run_benchmark(dir, entry, b, t);
  r.status = run.status;
  r.detail = run.detail;
  r.output_check = run.output_check;
  r.self_check = run.self_check;
  r.max_abs = run.max_abs;
  r.max_rel = run.max_rel;
  r.wall_s = run.wall_s;
  if (run.status != "error" && fs::exists(b.signature)) read_signature(b.signature, bench, r);
}

// The first columns of run.csv: how an earlier run's CSV is told from another file.
constexpr std::string_view kCsvHead = "benchmark,status,";

std::string csv(const std::vector<RunRow>& rows) {
  std::string s = std::string(kCsvHead) + "self_check,output_check,max_abs_err,max_rel_err,cycles,instructions,ipc,"
                  "dram_bytes,operand_bytes,dram_per_operand_byte,vortex_D";
  for (const core::MetricDef& m : core::metric_table()) s += "," + std::string(m.key);
  s += ",wall_s,detail\n";
  for (const RunRow& r : rows) {
    std::string detail = r.detail;
    for (char& c : detail) c = (c == '"' || c == '\n' || c == ',') ? ' ' : c;
    // Empty where not measured (a benchmark that was skipped or did not run).
    const std::string dram = r.dram_bytes ? std::to_string(*r.dram_bytes) : std::string();
    const std::string operands = r.operand_bytes > 0 ? std::to_string(r.operand_bytes) : std::string();
    const std::string per_byte =
        r.dram_bytes && r.operand_bytes > 0
            ? fmt::format("{:.2f}", static_cast<double>(*r.dram_bytes) / static_cast<double>(r.operand_bytes))
            : std::string();
    s += fmt::format("{},{},{},{},{:.3g},{:.3g},{},{},{:.4f},{},{},{},{}", r.name, r.status,
                     r.self_check ? "PASSED" : "no", r.output_check, r.max_abs, r.max_rel, r.cycles, r.instructions,
                     r.ipc, dram, operands, per_byte, r.d ? fmt::format("{:.4f}", *r.d) : "");
    for (const core::MetricDef& m : core::metric_table()) {
      const auto& v = r.signature[m.id];
      s += "," + (v ? fmt::format("{:.6g}", *v) : std::string());
    }
    s += fmt::format(",{:.1f},\"{}\"\n", r.wall_s, detail);
  }
  return s;
}

// The built benchmarks `opts.only` names (all when empty); a name that is not a built benchmark of
// the suite is an error, before anything runs or is written.
std::vector<json> selected_benchmarks(const fs::path& dir, const json& suite, const std::vector<std::string>& only) {
  std::vector<json> entries;
  std::vector<std::string> built;
  for (const json& b : suite["benchmarks"]) {
    if (b["status"] != "built") continue;
    built.push_back(b["name"].get<std::string>());
    if (only.empty() || std::find(only.begin(), only.end(), built.back()) != only.end()) entries.push_back(b);
  }
  for (const std::string& name : only)
    if (std::find(built.begin(), built.end(), name) == built.end())
      throw make_error("--benchmark {}: not a built benchmark of {} (built: {})", name, (dir / kSuiteFile).string(),
                       fmt::join(built, ", "));
  return entries;
}

// Fails before a run that may take hours: every --set is a timing parameter with a valid value,
// and the CSV can be written where asked without replacing a file that is not a run.csv.
void check_run_options(const RunOptions& opts, const fs::path& out) {
  vxsim::timing::TimingConfig cfg;
  for (const std::string& kv : opts.set) vxsim::timing::apply_override(cfg, kv);
  cfg.validate();
  const fs::path parent = out.parent_path().empty() ? fs::path(".") : out.parent_path();
  if (!fs::is_directory(parent)) throw make_error("--csv {}: directory {} does not exist", out.string(), parent.string());
  if (fs::exists(out) && !opts.csv.empty()) {
    std::ifstream in(out);
    std::string head(kCsvHead.size(), '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    if (!in || head != kCsvHead)
      throw make_error("--csv {}: the file exists and is not a suite run CSV; not overwriting it", out.string());
  }
}

}  // namespace

int run_suite(const RunOptions& opts, const Tools& tools) {
  const fs::path dir = suite_path(opts.suite);
  const json suite = json::parse(read_file(dir / kSuiteFile));
  const std::vector<json> entries = selected_benchmarks(dir, suite, opts.only);
  const fs::path out = opts.csv.empty() ? dir / kRunCsv : opts.csv;
  check_run_options(opts, out);
  std::vector<RunRow> rows(entries.size());
  std::atomic<size_t> next{0};
  std::mutex print;
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < entries.size();) {
      rows[i].name = entries[i]["name"].get<std::string>();
      try {
        run_one(dir, entries[i], opts, tools, rows[i]);
      } catch (const std::exception& e) {  // vxsynth::Error or a malformed suite.json field
        rows[i].detail = e.what();
      }
      const std::lock_guard<std::mutex> lock(print);
      std::cout << fmt::format("[suite run] {}: {} ({} cycles, IPC {:.3f}, Vortex D {}, {:.1f} s){}\n", rows[i].name,
                               rows[i].status, rows[i].cycles, rows[i].ipc,
                               rows[i].d ? fmt::format("{:.4f}", *rows[i].d) : "NA", rows[i].wall_s,
                               rows[i].detail.empty() ? "" : ": " + rows[i].detail)
                << std::flush;
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < std::max(1, std::min<int>(opts.parallel, static_cast<int>(entries.size()))); ++t)
    pool.emplace_back(worker);
  for (std::thread& t : pool) t.join();
  write_file_atomic(out, csv(rows));
  int failed = 0, skipped = 0;
  for (const RunRow& r : rows) {
    skipped += r.status == "skipped" ? 1 : 0;
    failed += r.status == "PASSED" || r.status == "skipped" ? 0 : 1;
  }
  std::cout << fmt::format("[suite run] {} of {} benchmarks passed, {} not run (beyond --timeout); {}\n",
                           rows.size() - static_cast<size_t>(failed + skipped), rows.size(), skipped, out.string());
  return failed == 0 ? 0 : 1;
}

}  // namespace vxsynth::suite
