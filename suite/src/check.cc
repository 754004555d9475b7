// suite check (docs/suite.md "Checking a suite"): schema, manifest hashes, benchmark files, tensors,
// the runtime files and generated sources the manifest lists instead of copies.
#include <iostream>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "generated.h"
#include "runtime_copies.h"
#include "suite_files.h"
#include "validation.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/suite/suite.h"

namespace vxsynth::suite {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

/// Files every built benchmark directory holds (docs/reconstruct.md "Output directory").
constexpr const char* kBenchmarkFiles[] = {
    "run.json", "record.jsonl", "summary.json", "summary.md", "reference/profile.json",
    "vortex/Makefile", "vortex/kernel.cpp", "vortex/main.cpp", "vortex/common.h", "cuda/candidate.cu",
};
/// Fields every benchmark entry of suite.json has, and those of a built one.
constexpr const char* kEntryFields[] = {"name", "workload", "platform", "kernel_id", "bundle", "status", "directory"};
constexpr const char* kBuiltFields[] = {"op", "shape", "precision", "reference_kernel", "share", "revisions", "seed_D",
                                        "final_D", "metrics", "checks", "vortex", "validation", "provenance"};

struct Problems {
  std::vector<std::string> list;
  void add(std::string s) { list.push_back(std::move(s)); }
};

json load(const fs::path& p, Problems& pr) {
  if (!fs::is_regular_file(p)) {
    pr.add(fmt::format("{}: missing", p.string()));
    return json();
  }
  json j = json::parse(read_file(p), nullptr, false);
  if (j.is_discarded()) pr.add(fmt::format("{}: not valid JSON", p.string()));
  return j.is_discarded() ? json() : j;
}

void check_manifest(const fs::path& dir, const json& m, Problems& pr) {
  if (!m.is_object() || !m.contains("files") || !m["files"].is_object()) {
    if (m.is_object()) pr.add(fmt::format("{}: no 'files' object", (dir / kManifestFile).string()));
    return;
  }
  std::set<std::string> listed;
  for (const auto& [rel, sha] : m["files"].items()) {
    listed.insert(rel);
    const fs::path f = dir / rel;
    if (!fs::is_regular_file(f)) pr.add(fmt::format("{}: listed in the manifest, missing", f.string()));
    else if (sha256_file(f) != sha) pr.add(fmt::format("{}: modified (SHA-256 differs from the manifest)", f.string()));
  }
  for (const std::string& rel : manifest_files(dir))
    if (!listed.count(rel)) pr.add(fmt::format("{}: not in the manifest (added after the suite was collected)", (dir / rel).string()));
  check_runtime(dir, m, pr.list);
  check_generated(dir, m, pr.list);
}

/// Whether the manifest lists `rel` of benchmark `name` as left out (runtime file or generated source).
bool listed_as_left_out(const json& m, const std::string& name, const std::string& rel) {
  for (const char* key : {kManifestRuntime, kManifestGenerated})
    if (m.is_object() && m.contains(key) && m[key].contains(name) && m[key][name].contains("files") &&
        m[key][name]["files"].contains(rel))
      return true;
  return false;
}

void check_tensors(const fs::path& dir, const std::string& name, Problems& pr) {
  const fs::path t = dir / "validation" / name / "tensors.json";
  const json j = load(t, pr);
  if (!j.is_object()) return;
  if (j.value("schema", "") != kTensorsSchema || j.value("version", 0) != kTensorsVersion)
    pr.add(fmt::format("{}: not schema {} v{}", t.string(), kTensorsSchema, kTensorsVersion));
  json files = j.value("inputs", json::array());
  files.push_back(j.value("reference_output", json::object()));
  for (const json& e : files) {
    if (!e.contains("file") || !e.contains("sha256")) {
      pr.add(fmt::format("{}: a tensor without 'file' and 'sha256'", t.string()));
      continue;
    }
    const fs::path f = dir / name / e["file"].get<std::string>();
    if (fs::is_regular_file(f) && sha256_file(f) != e["sha256"])
      pr.add(fmt::format("{}: modified (SHA-256 differs from {})", f.string(), t.string()));
  }
}

void check_entry(const fs::path& dir, const json& b, const json& manifest, Problems& pr) {
  const std::string where = fmt::format("{}: benchmark {}", (dir / kSuiteFile).string(), b.value("name", "?"));
  for (const char* f : kEntryFields)
    if (!b.contains(f)) pr.add(fmt::format("{}: no field '{}'", where, f));
  if (b.value("status", "") != "built") return;
  for (const char* f : kBuiltFields)
    if (!b.contains(f)) pr.add(fmt::format("{}: no field '{}'", where, f));
  const std::string name = b.value("name", "");
  for (const char* f : kBenchmarkFiles)
    if (!fs::is_regular_file(dir / name / f) && !listed_as_left_out(manifest, name, f)) pr.add(fmt::format("{}: missing", (dir / name / f).string()));
  check_tensors(dir, name, pr);
}

}  // namespace

int check_suite(const fs::path& suite_dir) {
  const fs::path dir = suite_path(suite_dir);
  Problems pr;
  const json s = load(dir / kSuiteFile, pr);
  const json m = load(dir / kManifestFile, pr);
  if (s.is_object()) {
    if (s.value("schema", "") != kSuiteSchema || s.value("version", 0) != kSuiteVersion)
      pr.add(fmt::format("{}: schema {} version {}, expected {} version {}", (dir / kSuiteFile).string(),
                         s.value("schema", json()).dump(), s.value("version", json()).dump(), kSuiteSchema, kSuiteVersion));
    for (const json& b : s.value("benchmarks", json::array())) check_entry(dir, b, m, pr);
  }
  check_manifest(dir, m, pr);
  for (const std::string& p : pr.list) std::cout << "suite check: " << p << "\n";
  const size_t n = s.is_object() ? s.value("benchmarks", json::array()).size() : 0;
  std::cout << fmt::format("suite check: {}: {} benchmarks, {}\n", dir.string(), n,
                           pr.list.empty() ? std::string("OK") : fmt::format("{} problems", pr.list.size()));
  return pr.list.empty() ? 0 : 1;
}

}  // namespace vxsynth::suite
