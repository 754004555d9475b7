#include "vxsynth/refine/run_dir.h"

#include <array>
#include <fstream>
#include <random>
#include <set>

#include <fmt/format.h>

#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"

namespace vxsynth::refine {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

/// The identity fields of run.json and their JSON types (docs/reconstruct.md, "Output directory").
struct RunField {
  const char* key;
  json::value_t type;  ///< number_unsigned also accepts number_integer >= 0
};
constexpr std::array<RunField, 7> kIdentity{{
    {"kernel_id", json::value_t::string},
    {"bundle_sha256", json::value_t::string},
    {"agent", json::value_t::string},
    {"profile_backend", json::value_t::string},
    {"seed", json::value_t::number_unsigned},
    {"retain_margin", json::value_t::number_float},
    {"kernel_name", json::value_t::string},
}};

bool has_type(const json& v, json::value_t t) {
  if (t == json::value_t::number_unsigned) return v.is_number_unsigned();
  if (t == json::value_t::number_float) return v.is_number();
  return v.type() == t;
}

std::string refusal(const fs::path& out, const std::string& why) {
  return fmt::format(
      "{}: the output directory is not empty and is not a vxsynth run ({}); vxsynth writes only into a new or "
      "empty directory or one holding its own run: choose a new or empty -o",
      out.string(), why);
}

// Empty string when `run` is a run.json that vxsynth wrote, else why not. Sets `legacy` for a
// run.json that predates the schema field (exactly the identity keys, nothing else).
std::string run_json_problem(const json& run, bool& legacy) {
  if (!run.is_object()) return "run.json is not a JSON object";
  legacy = !run.contains("schema");
  if (legacy) {
    std::set<std::string> keys;
    for (auto it = run.begin(); it != run.end(); ++it) keys.insert(it.key());
    if (keys.size() != kIdentity.size()) return "run.json has no \"schema\" field";
  } else {
    if (run["schema"] != kRunSchema)
      return fmt::format("run.json field 'schema' is {}, expected \"{}\"", run["schema"].dump(), kRunSchema);
    if (!run.contains("version") || !run["version"].is_number_integer())
      return "run.json field 'version' is missing or not an integer";
    if (run["version"].get<int64_t>() != kRunVersion)
      return fmt::format("run.json is schema version {}, this vxsynth reads version {}",
                         run["version"].get<int64_t>(), kRunVersion);
    if (!run.contains("run_id") || !run["run_id"].is_string() || run["run_id"].get<std::string>().empty())
      return "run.json field 'run_id' is missing or not a string";
  }
  for (const RunField& f : kIdentity) {
    if (!run.contains(f.key)) return fmt::format("run.json has no field '{}'", f.key);
    if (!has_type(run[f.key], f.type)) return fmt::format("run.json field '{}' has the wrong type", f.key);
  }
  return {};
}

// Empty string when record.jsonl is absent, has no complete line yet, or starts with a seed made by
// the agent and backend that run.json names; else why the two files are not one run.
std::string record_problem(const fs::path& record, const json& run) {
  std::ifstream in(record);
  std::string first;
  if (!in || !std::getline(in, first) || in.eof()) return {};  // no complete first line: nothing recorded
  const json e = json::parse(first, nullptr, false);
  if (e.is_discarded() || !e.is_object()) return "record.jsonl line 1 is not a JSON object";
  if (e.value("revision", json()) != 0) return "record.jsonl line 1 is not revision 0";
  for (const char* k : {"agent", "profile_backend"})
    if (e.value(k, json()) != run[k])
      return fmt::format("record.jsonl line 1 has {} {} but run.json has {}", k, e.value(k, json()).dump(),
                         run[k].dump());
  return {};
}

}  // namespace

RunDir inspect_run_dir(const fs::path& out) {
  RunDir d;
  std::error_code ec;
  const fs::file_status st = fs::status(out, ec);
  if (!fs::exists(st)) return d;
  if (!fs::is_directory(st)) throw make_error("-o {}: exists and is not a directory", out.string());
  if (fs::is_empty(out)) {
    d.state = RunDirState::kEmpty;
    return d;
  }
  const fs::path run_path = out / kRunFile;
  if (!fs::is_regular_file(run_path)) throw make_error("{}", refusal(out, "it has no run.json"));
  const json run = json::parse(read_file(run_path), nullptr, false);
  if (run.is_discarded()) throw make_error("{}", refusal(out, "its run.json is not valid JSON"));
  bool legacy = false;
  std::string why = run_json_problem(run, legacy);
  if (why.empty()) why = record_problem(out / kRecordFile, run);
  if (!why.empty()) throw make_error("{}", refusal(out, why));
  d.state = legacy ? RunDirState::kLegacyRun : RunDirState::kRun;
  d.run = run;
  return d;
}

std::string new_run_id() {
  std::random_device rd;
  std::string id;
  for (int i = 0; i < 4; ++i) id += fmt::format("{:08x}", rd());
  return id;
}

}  // namespace vxsynth::refine
