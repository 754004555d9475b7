#include "vxsynth/report/inputs.h"

#include <set>

#include <fmt/format.h>

#include "vxsynth/check/precision.h"
#include "vxsynth/codegen/design_point.h"
#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/core/bundle.h"
#include "vxsynth/core/context.h"
#include "vxsynth/refine/run_dir.h"

namespace vxsynth::report {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Suite files (docs/suite.md "Layout"): the plan every suite step reads, and the collected index.
constexpr const char* kPlanFile = "plan.json";
constexpr const char* kPlanSchema = "vxsynth.suite-plan";
constexpr const char* kSuiteFile = "suite.json";
constexpr const char* kSuiteSchema = "vxsynth.suite";

json read_json_file(const fs::path& p) {
  const json j = json::parse(read_file(p), nullptr, false);
  if (j.is_discarded()) throw make_error("{}: not valid JSON", p.string());
  if (!j.is_object()) throw make_error("{}: not a JSON object", p.string());
  return j;
}

// The value at `key` of `obj`, which must have JSON type `type`; the error names file and field.
const json& field(const json& obj, const char* key, json::value_t type, const std::string& where) {
  if (!obj.is_object() || !obj.contains(key)) throw make_error("{}: no field '{}'", where, key);
  const json& v = obj[key];
  const bool ok = type == json::value_t::number_float ? v.is_number()
                  : type == json::value_t::number_integer ? v.is_number_integer()
                                                          : v.type() == type;
  if (!ok) throw make_error("{}: field '{}' has the wrong type ({})", where, key, v.type_name());
  return v;
}

std::string platform_of(const json& entry, const std::string& where) {
  const json& prov = field(entry, "provenance", json::value_t::object, where);
  if (prov.contains("gpu") && prov["gpu"].is_string() && !prov["gpu"].get<std::string>().empty())
    return prov["gpu"];
  return "unknown";
}

// reference/profile.json: the bundle kernel the run reconstructs.
void read_reference(RunInput& r) {
  const fs::path p = r.dir / "reference" / "profile.json";
  if (!fs::is_regular_file(p)) throw make_error("{}: missing (every reconstruct run writes it)", p.string());
  const json j = read_json_file(p);
  const std::string where = p.string();
  r.entry = field(j, "entry", json::value_t::object, where);
  const std::string ew = where + ": entry";
  r.reference = core::signature_from_json(field(j, "signature", json::value_t::object, where), where + ": signature");
  const core::ReferenceContext c = core::entry_context(r.entry, ew);
  r.op = core::to_string(c.op);
  r.type = benchmark_type(r.op);
  r.precision = c.op == core::OpKind::kOther
                    ? "-"
                    : std::string(check::to_string(check::precision_path_for(c.operand_type, c.engine)));
  r.workload = field(r.entry, "workload", json::value_t::string, ew);
  r.share = field(r.entry, "share", json::value_t::number_float, ew);
  r.rank = field(r.entry, "rank", json::value_t::number_integer, ew);
  r.platform = platform_of(r.entry, ew);
  r.bundle_sha256 = field(j, "bundle_sha256", json::value_t::string, where);
}

// The CUDA translation of the run's designs (the seed's: every revision keeps it) and the precision
// its CUDA candidates ran at (a TF32 reference at FP16 under a translation with the Vortex formats).
void read_translation(RunInput& r) {
  const json& d = r.record.front().design;
  if (!d.is_object() || !d.contains("cuda_translation") || r.precision == "-") return;
  const json& t = d["cuda_translation"];
  for (const codegen::TranslationInfo& row : codegen::kTranslationTable) {
    if (!t.is_string() || row.key != t.get<std::string>()) continue;
    r.cuda_translation = std::string(row.key);
    if (row.vortex_formats)
      r.precision = check::to_string(check::precision_row(check::precision_path_from_string(r.precision)).vortex_tcu);
    return;
  }
  throw make_error("{}: revision 0: field 'design.cuda_translation' is {}, not a translation of the generator's table",
                   (r.dir / refine::kRecordFile).string(), t.dump());
}

void read_vortex_signature(RunInput& r) {
  const fs::path p = r.dir / "vortex_signature.json";
  if (!fs::is_regular_file(p)) return;
  const json j = read_json_file(p);
  r.vortex_locked = core::signature_from_json(field(j, "metrics", json::value_t::object, p.string()),
                                              p.string() + ": metrics");
}

bool is_suite(const fs::path& dir) { return fs::is_regular_file(dir / kPlanFile); }

SuiteInput read_suite(const fs::path& dir) {
  SuiteInput s;
  s.dir = dir;
  const fs::path pp = dir / kPlanFile;
  s.plan = read_json_file(pp);
  if (s.plan.value("schema", json()) != kPlanSchema)
    throw make_error("{}: field 'schema' is {}, expected \"{}\"", pp.string(), s.plan.value("schema", json()).dump(),
                     kPlanSchema);
  field(s.plan, "benchmarks", json::value_t::array, pp.string());
  field(s.plan, "workloads", json::value_t::array, pp.string());
  const fs::path sp = dir / kSuiteFile;
  if (fs::is_regular_file(sp)) {
    s.suite = read_json_file(sp);
    if (s.suite.value("schema", json()) != kSuiteSchema)
      throw make_error("{}: field 'schema' is {}, expected \"{}\"", sp.string(),
                       s.suite.value("schema", json()).dump(), kSuiteSchema);
  }
  return s;
}

// suite.json's entry of benchmark `name` (null when there is no suite.json or no such entry).
json suite_entry(const SuiteInput& s, const std::string& name) {
  if (!s.suite.is_object() || !s.suite.contains("benchmarks") || !s.suite["benchmarks"].is_array()) return json();
  for (const json& b : s.suite["benchmarks"])
    if (b.is_object() && b.value("name", json()) == name) return b;
  return json();
}

void add_suite(Inputs& in, const fs::path& dir) {
  in.suite = read_suite(dir);
  const std::string pp = (dir / kPlanFile).string();
  int i = 0;
  for (const json& b : in.suite->plan["benchmarks"]) {
    const std::string where = fmt::format("{}: benchmarks[{}]", pp, i++);
    const std::string name = field(b, "name", json::value_t::string, where);
    const fs::path bench = dir / name;
    const json se = suite_entry(*in.suite, name);
    // A benchmark the suite did not build (failed, not run) is listed, not drawn: its record may
    // hold only a rejected seed (π0 k2 of the committed H200 suite).
    if (se.is_object() && se.value("status", std::string("built")) != "built") {
      in.notes.push_back(fmt::format("{}: {} (suite.json)", name, se.value("status", std::string())));
      continue;
    }
    if (!fs::is_regular_file(bench / refine::kRecordFile) || fs::file_size(bench / refine::kRecordFile) == 0) {
      in.notes.push_back(fmt::format("{}: not built yet (no {})", name, (bench / refine::kRecordFile).string()));
      continue;
    }
    in.runs.push_back(read_run(bench, name));
    if (se.is_object() && se.contains("label") && se["label"].is_string()) in.runs.back().label = se["label"];
  }
}

}  // namespace

const std::vector<WorkflowInfo>& workflow_table() {
  static const std::vector<WorkflowInfo> t{
      {Workflow::kCudaFirst, "cuda-first", "CUDA-first (ncu on the reference GPU)", true},
      {Workflow::kVortexFirst, "vortex-first", "Vortex-first (CUDA translation, ncu on the reference GPU)", true},
      {Workflow::kVxsimCounters, "vxsim-counters", "Vortex vxsim counters vs the reference GPU (not paper §4.5)",
       false},
  };
  return t;
}

const WorkflowInfo& workflow_info(Workflow w) { return workflow_table()[static_cast<size_t>(w)]; }

std::string benchmark_type(std::string_view op) { return op == "bmm" ? "matmul" : std::string(op); }

Workflow workflow_of(const json& run, const std::string& where) {
  if (run.contains("order")) {
    const json& o = run["order"];
    for (const WorkflowInfo& w : workflow_table())
      if (o.is_string() && o.get<std::string>() == w.key && w.record_is_cuda) return w.workflow;
    throw make_error("{}: field 'order' is {}, expected \"cuda-first\" or \"vortex-first\"", where, o.dump());
  }
  const std::string b = field(run, "profile_backend", json::value_t::string, where);
  if (b == "ncu") return Workflow::kCudaFirst;
  if (b == "vxsim") return Workflow::kVxsimCounters;
  throw make_error("{}: field 'profile_backend' is \"{}\", expected \"ncu\" or \"vxsim\"", where, b);
}

RunInput read_run(const fs::path& dir_in, const std::string& name) {
  RunInput r;
  r.dir = fs::absolute(dir_in).lexically_normal();
  r.name = name;
  refine::RunDir rd;
  try {
    rd = refine::inspect_run_dir(r.dir);
  } catch (const Error& e) {
    // refine's message is about an output directory: keep only its reason, "… run (WHY); vxsynth writes …".
    std::string why = e.what();
    const size_t a = why.find("vxsynth run ("), b = why.rfind("); vxsynth writes");
    if (a != std::string::npos && b != std::string::npos && b > a) why = why.substr(a + 13, b - a - 13);
    throw make_error("{}: is neither a suite (no plan.json) nor a reconstruction run directory ({})", r.dir.string(),
                     why);
  }
  if (rd.state != refine::RunDirState::kRun && rd.state != refine::RunDirState::kLegacyRun)
    throw make_error("{}: {} (a reconstruction run directory holds run.json and record.jsonl)", r.dir.string(),
                     rd.state == refine::RunDirState::kAbsent ? "does not exist" : "is empty");
  r.run = rd.run;
  const std::string rw = (r.dir / refine::kRunFile).string();
  r.workflow = workflow_of(r.run, rw);
  r.kernel_id = field(r.run, "kernel_id", json::value_t::string, rw);
  r.kernel_name = field(r.run, "kernel_name", json::value_t::string, rw);
  const fs::path rec = r.dir / refine::kRecordFile;
  if (!fs::is_regular_file(rec)) throw make_error("{}: missing: the run has no revisions yet", rec.string());
  r.record = refine::read_record(rec, /*repair=*/false).entries;
  if (r.record.empty()) throw make_error("{}: holds no complete revision (not even the seed)", rec.string());
  read_reference(r);
  read_translation(r);
  if (fs::is_regular_file(r.dir / "summary.json")) r.summary = read_json_file(r.dir / "summary.json");
  read_vortex_signature(r);
  return r;
}

Inputs load_inputs(const std::vector<fs::path>& paths) {
  if (paths.empty()) throw make_error("report: no input (give a suite directory or run directories)");
  Inputs in;
  std::set<fs::path> seen;
  for (const fs::path& p0 : paths) {
    const fs::path p = fs::absolute(p0).lexically_normal();
    if (!fs::exists(p)) throw make_error("{}: does not exist", p0.string());
    if (!fs::is_directory(p))
      throw make_error("{}: is not a directory (give a suite directory or reconstruction run directories)",
                       p0.string());
    if (is_suite(p)) {
      if (paths.size() > 1)
        throw make_error("{}: is a suite; give one suite directory alone, or run directories", p0.string());
      add_suite(in, p);
      continue;
    }
    if (!seen.insert(p).second) throw make_error("{}: given twice", p0.string());
    in.runs.push_back(read_run(p, p.filename().string()));
  }
  std::set<std::string> names;
  for (RunInput& r : in.runs)
    if (!names.insert(r.name).second) r.name = r.dir.parent_path().filename().string() + "/" + r.name;
  if (in.runs.empty()) throw make_error("{}: no benchmark of the suite is built yet", paths.front().string());
  return in;
}

}  // namespace vxsynth::report
