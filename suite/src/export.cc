// suite export (docs/suite.md "A suite to commit"): the files of a suite that a repository keeps.
#include <iostream>
#include <iterator>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "generated.h"
#include "runtime_copies.h"
#include "suite_files.h"
#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/refine/agent.h"
#include "vxsynth/suite/suite.h"

namespace vxsynth::suite {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

/// Measurement files of a revision work directory (<bench>/work/revisions/rNNNN/…) kept beside the
/// manifest's files: ncu's CSV and log, the Vortex run and self-check logs. Generated sources,
/// build outputs, tensors, ncu reports and harness copies are left out (the record pins the
/// sources: docs/reconstruct.md "Evidence as data").
constexpr const char* kRevisionFiles[] = {"cuda/ncu_raw.csv", "cuda/ncu.log", "run.log", "self_check.log",
                                          "run_timing.log"};
/// Larger measurement files are left out (a log of a runaway kernel; the CSV of one launch is ~10 KB).
constexpr std::uintmax_t kMaxRevisionFile = 256 * 1024;

void copy_one(const fs::path& from, const fs::path& to) {
  fs::create_directories(to.parent_path());
  fs::copy_file(from, to, fs::copy_options::none);
}

/// Relative paths of the kept revision files and job records.
std::vector<std::string> measurement_files(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& b : fs::directory_iterator(dir)) {
    const fs::path revs = b.path() / "work" / "revisions";
    if (!b.is_directory() || !fs::is_directory(revs)) continue;
    for (const auto& r : fs::directory_iterator(revs))
      for (const char* f : kRevisionFiles)
        if (fs::is_regular_file(r.path() / f) && fs::file_size(r.path() / f) <= kMaxRevisionFile)
          out.push_back((r.path() / f).lexically_relative(dir).generic_string());
  }
  // Job records, and the device script's provenance and logs of a suite built on a GPU machine.
  for (const char* sub : {"jobs", "logs", "device"}) {
    const fs::path s = dir / kStateDir / sub;
    if (!fs::is_directory(s)) continue;
    for (const auto& e : fs::directory_iterator(s))
      if (e.is_regular_file() && fs::file_size(e.path()) <= kMaxRevisionFile)
        out.push_back(e.path().lexically_relative(dir).generic_string());
  }
  return out;
}

/// The benchmark directories among the manifest's files (those with a summary.json).
std::set<std::string> benchmarks_of(const json& files) {
  std::set<std::string> out;
  for (const auto& [rel, sha] : files.items()) {
    const fs::path p(rel);
    if (std::distance(p.begin(), p.end()) == 2 && p.filename() == "summary.json") out.insert(p.begin()->string());
  }
  return out;
}

/// Erases every file an entry lists from the manifest's files of benchmark `b`.
void erase_listed(json& files, const std::string& b, const json& entry) {
  for (const auto& [rel, f] : entry["files"].items()) files.erase(b + "/" + rel);
}

/// The manifest of the copy: the runtime copies of every benchmark (docs/suite.md "Runtime files")
/// and the generated sources this vxsynth renders again byte-identically ("Generated sources") left
/// out of `files` and listed in its runtime and generated objects instead; what an earlier export
/// left out stays listed, the reasons for the files kept are stated anew.
json exported_manifest(const fs::path& dir, json m) {
  json runtime = m.contains(kManifestRuntime) ? m[kManifestRuntime] : json::object();
  json generated = m.contains(kManifestGenerated) ? m[kManifestGenerated] : json::object();
  for (const std::string& b : benchmarks_of(m["files"])) {
    json e = runtime_entry(dir / b);
    erase_listed(m["files"], b, e);
    if (runtime.contains(b)) e["files"].update(runtime[b]["files"]);
    if (!e["files"].empty()) runtime[b] = std::move(e);
    json g = generated_entry(dir / b);  // of the files present; those an earlier export left out stay out
    erase_listed(m["files"], b, g);
    if (generated.contains(b)) g["files"].update(generated[b]["files"]);
    generated[b] = std::move(g);
  }
  if (!runtime.empty()) m[kManifestRuntime] = std::move(runtime);
  if (!generated.empty()) m[kManifestGenerated] = std::move(generated);
  // This vxsynth's Makefile, which builds the sources `suite materialize` writes.
  m["files"][kSuiteMakefile] = refine::sha256_hex(detail::suite_makefile());
  return m;
}

/// Files an object of the manifest lists (runtime or generated), over every benchmark.
size_t listed(const json& m, const char* key) {
  size_t n = 0;
  if (m.contains(key))
    for (const auto& [b, e] : m[key].items()) n += e["files"].size();
  return n;
}

}  // namespace

int export_suite(const fs::path& suite_dir, const fs::path& out_dir) {
  const fs::path dir = suite_path(suite_dir), out = suite_path(out_dir);
  if (fs::exists(out) && !(fs::is_directory(out) && fs::is_empty(out)))
    throw make_error("suite export -o {}: exists and is not an empty directory; vxsynth never writes over it",
                     out.string());
  const fs::path manifest = dir / kManifestFile;
  if (!fs::is_regular_file(manifest))
    throw make_error("{}: missing: collect the suite first (vxsynth suite collect {})", manifest.string(),
                     dir.string());
  const json m = json::parse(read_file(manifest), nullptr, false);
  if (m.is_discarded() || !m.contains("files") || !m["files"].is_object())
    throw make_error("{}: not a manifest (no 'files' object)", manifest.string());
  std::vector<std::string> problems;
  check_runtime(dir, m, problems);
  check_generated(dir, m, problems);
  if (!problems.empty()) throw make_error("{}", problems.front());
  const json kept = exported_manifest(dir, m);
  std::vector<std::string> files;
  for (const auto& [rel, sha] : m["files"].items()) {
    if (!fs::is_regular_file(dir / rel)) throw make_error("{}: listed in the manifest, missing", (dir / rel).string());
    if (sha256_file(dir / rel) != sha)
      throw make_error("{}: modified since the suite was collected (SHA-256 differs from the manifest)",
                       (dir / rel).string());
    if (kept["files"].contains(rel) && rel != kSuiteMakefile) files.push_back(rel);
  }
  const std::vector<std::string> extra = measurement_files(dir);
  files.insert(files.end(), extra.begin(), extra.end());
  std::uintmax_t bytes = 0;
  for (const std::string& rel : files) {
    copy_one(dir / rel, out / rel);
    bytes += fs::file_size(out / rel);
  }
  write_file_atomic(out / kSuiteMakefile, std::string(detail::suite_makefile()));
  write_file_atomic(out / kManifestFile, kept.dump(1));
  bytes += fs::file_size(out / kManifestFile);
  std::cout << fmt::format("[suite] export: {} files ({:.1f} MB; {} in the manifest, {} measurements and job "
                           "records; left out: {} runtime copies, taken from codegen/runtime, and {} generated "
                           "sources, rendered again from the records) to {}\n",
                           files.size() + 2, static_cast<double>(bytes) / 1e6, kept["files"].size() + 1, extra.size(),
                           listed(kept, kManifestRuntime), listed(kept, kManifestGenerated), out.string());
  return 0;
}

}  // namespace vxsynth::suite
