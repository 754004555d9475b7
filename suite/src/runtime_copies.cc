#include "runtime_copies.h"

#include <fmt/format.h>

#include "suite_files.h"
#include "vxsynth/codegen/generator_version.h"
#include "vxsynth/codegen/runtime_files.h"
#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/refine/agent.h"
#include "vxsynth/refine/record.h"
#include "vxsynth/suite/suite.h"

namespace vxsynth::suite {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

/// The benchmark directories that hold runtime copies (reconstruct's output layout).
constexpr const char* kSourceDirs[] = {"vortex", "cuda"};

/// `tool_versions["vxsynth-codegen"]` of the locked revision; empty when not recorded.
std::string locked_generator(const fs::path& bench) {
  const json summary = json::parse(read_file(bench / "summary.json"));
  const int locked = summary.value("locked_revision", -1);
  const refine::RecordRead rr = refine::read_record(bench / "record.jsonl", false);
  if (locked < 0 || static_cast<size_t>(locked) >= rr.entries.size()) return {};
  const auto& tv = rr.entries[static_cast<size_t>(locked)].tool_versions;
  const auto it = tv.find(codegen::kGeneratorVersionKey);
  return it == tv.end() ? std::string() : it->second;
}

std::string sha_of(std::string_view text) { return refine::sha256_hex(text); }

std::string string_field(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

int generator_of(const json& entry) {
  const json& g = entry.contains("generator_version") ? entry["generator_version"] : json();
  return g.is_number_integer() ? g.get<int>() : 0;
}

/// This build's runtime text for a manifest file entry, after comparing SHA-256; empty string and
/// a problem when it is missing or differs.
std::string runtime_text(const fs::path& suite_dir, const std::string& bench, const std::string& rel,
                         const json& file, int generator, std::string& problem) {
  const fs::path where = suite_dir / bench / rel;
  const codegen::RuntimeFile* rt = codegen::find_runtime_file(fs::path(rel).filename().string());
  const std::string want = string_field(file, "sha256"), path = string_field(file, "runtime");
  if (rt == nullptr || rt->path != path) {
    problem = fmt::format("{}: benchmark {} uses runtime file {} (generator {}), which this vxsynth's "
                          "codegen/runtime does not have", where.string(), bench, path, generator);
    return {};
  }
  if (const std::string have = sha_of(rt->text); have != want) {
    problem = fmt::format("{}: benchmark {} uses codegen/runtime/{} with SHA-256 {} (generator {}, recorded at "
                          "export); this vxsynth's codegen/runtime/{} has SHA-256 {} (generator {}): the runtime "
                          "changed since the suite was exported", where.string(), bench, path, want, generator,
                          path, have, codegen::kGeneratorVersion);
    return {};
  }
  return std::string(rt->text);
}

void write_if_different(const fs::path& to, const std::string& text) {
  if (fs::is_regular_file(to) && read_file(to) == text) return;
  write_file_atomic(to, text);
}

}  // namespace

json runtime_entry(const fs::path& bench) {
  const std::string gen = locked_generator(bench);
  json files = json::object();
  if (gen == std::to_string(codegen::kGeneratorVersion)) {  // else the copies are another runtime's
    for (const char* sub : kSourceDirs) {
      if (!fs::is_directory(bench / sub)) continue;
      for (const auto& e : fs::directory_iterator(bench / sub)) {
        const codegen::RuntimeFile* rt = codegen::find_runtime_file(e.path().filename().string());
        if (rt == nullptr || !e.is_regular_file() || read_file(e.path()) != rt->text) continue;
        files[fmt::format("{}/{}", sub, rt->name)] = json{{"runtime", rt->path}, {"sha256", sha_of(rt->text)}};
      }
    }
  }
  const bool current = gen == std::to_string(codegen::kGeneratorVersion);
  return json{{"generator_version", current ? json(codegen::kGeneratorVersion) : json(gen)}, {"files", files}};
}

void check_runtime(const fs::path& suite_dir, const json& manifest, std::vector<std::string>& problems) {
  const json rt = manifest.contains(kManifestRuntime) ? manifest[kManifestRuntime] : json::object();
  for (const auto& [bench, entry] : rt.items()) {
    if (!fs::is_directory(suite_dir / bench)) {
      problems.push_back(fmt::format("{}: runtime files listed for benchmark {}, which the suite does not have",
                                     (suite_dir / kManifestFile).string(), bench));
      continue;
    }
    const int generator = generator_of(entry);
    const json files = entry.contains("files") ? entry["files"] : json::object();
    for (const auto& [rel, file] : files.items()) {
      std::string problem;
      (void)runtime_text(suite_dir, bench, rel, file, generator, problem);
      if (!problem.empty()) problems.push_back(problem);
      if (fs::exists(suite_dir / bench / rel))
        problems.push_back(fmt::format("{}: present, and also listed as a runtime file taken from codegen/runtime",
                                       (suite_dir / bench / rel).string()));
    }
  }
}

void stage_vortex_sources(const fs::path& suite_dir, const std::string& name, const fs::path& out) {
  fs::create_directories(out);
  for (const auto& e : fs::directory_iterator(suite_dir / name / "vortex"))
    if (e.is_regular_file()) write_if_different(out / e.path().filename(), read_file(e.path()));
  const fs::path mf = suite_dir / kManifestFile;
  if (!fs::is_regular_file(mf)) return;
  const json m = json::parse(read_file(mf));
  const json rt = m.contains(kManifestRuntime) ? m[kManifestRuntime] : json::object();
  const json entry = rt.contains(name) ? rt[name] : json::object();
  const json files = entry.contains("files") ? entry["files"] : json::object();
  for (const auto& [rel, file] : files.items()) {
    if (fs::path(rel).begin()->string() != "vortex") continue;
    std::string problem;
    const std::string text = runtime_text(suite_dir, name, rel, file, generator_of(entry), problem);
    if (!problem.empty()) throw make_error("{}", problem);
    write_if_different(out / fs::path(rel).filename(), text);
  }
}

}  // namespace vxsynth::suite
