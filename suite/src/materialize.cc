// suite materialize (docs/suite.md "Materializing the sources"): the sources of every built
// benchmark, written where `suite run` and the suite's Makefile build them.
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "generated.h"
#include "sources.h"
#include "suite_files.h"
#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/suite/suite.h"

namespace vxsynth::suite {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kSourceDirs[] = {"cuda", "vortex"};
/// Written into a materialize output directory: a later materialize may write over its files.
constexpr const char* kMarker = ".vxsynth-suite-sources";

void write_if_different(const fs::path& to, const std::string& text) {
  if (fs::is_regular_file(to) && read_file(to) == text) return;
  fs::create_directories(to.parent_path());
  write_file_atomic(to, text);
}

json manifest_of(const fs::path& dir) {
  const fs::path mf = dir / kManifestFile;
  if (!fs::is_regular_file(mf)) return json::object();
  const json m = json::parse(read_file(mf), nullptr, false);
  if (m.is_discarded()) throw make_error("{}: not valid JSON", mf.string());
  return m;
}

}  // namespace

refine::SourceTree benchmark_sources(const fs::path& suite_dir, const std::string& name, const RuntimeStore& store) {
  const fs::path dir = suite_path(suite_dir), bench = dir / name;
  refine::SourceTree tree;
  for (const char* sub : kSourceDirs) {
    if (!fs::is_directory(bench / sub)) continue;
    for (const auto& e : fs::directory_iterator(bench / sub))
      if (e.is_regular_file()) tree[fmt::format("{}/{}", sub, e.path().filename().string())] = read_file(e.path());
  }
  const json m = manifest_of(dir);
  std::vector<std::string> problems;
  tree.merge(runtime_listed(dir, name, m, problems, store));
  tree.merge(regenerate_listed(dir, name, m, problems));
  if (!problems.empty()) {
    std::string all;
    for (const std::string& p : problems) all += (all.empty() ? "" : "\n") + p;
    throw make_error("{}", all);
  }
  return tree;
}

void stage_vortex_sources(const fs::path& suite_dir, const std::string& name, const fs::path& out) {
  fs::create_directories(out);
  for (const auto& [rel, text] : benchmark_sources(suite_dir, name)) {
    const fs::path p(rel);
    if (p.begin()->string() == "vortex") write_if_different(out / p.filename(), text);
  }
}

int materialize(const fs::path& suite_dir, const fs::path& out_dir) {
  const fs::path dir = suite_path(suite_dir);
  const fs::path out = out_dir.empty() ? dir / kMakeBuildDir / kMakeSourceDir : suite_path(out_dir);
  const json suite = json::parse(read_file(dir / kSuiteFile), nullptr, false);
  if (suite.is_discarded() || !suite.contains("benchmarks"))
    throw make_error("{}: not a suite index (no 'benchmarks')", (dir / kSuiteFile).string());
  if (fs::exists(out) && !fs::is_empty(out) && !fs::exists(out / kMarker))
    throw make_error("suite materialize -o {}: exists, is not empty and holds no earlier materialize output ({}); "
                     "vxsynth never writes over it", out.string(), kMarker);
  fs::create_directories(out);
  write_if_different(out / kMarker, fmt::format("sources of the suite {} (vxsynth suite materialize)\n", dir.string()));
  size_t benches = 0, files = 0;
  for (const json& b : suite["benchmarks"]) {
    if (b.value("status", "") != "built") continue;
    const std::string name = b.value("name", "");
    for (const auto& [rel, text] : benchmark_sources(dir, name)) {
      write_if_different(out / name / rel, text);
      ++files;
    }
    ++benches;
  }
  std::cout << fmt::format("[suite] materialize: {} files of {} benchmarks in {} (<name>/cuda/, <name>/vortex/)\n",
                           files, benches, out.string());
  return 0;
}

}  // namespace vxsynth::suite
