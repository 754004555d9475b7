#include "runtime_copies.h"

#include <fmt/format.h>

#include "generated.h"
#include "vxsynth/codegen/generator_version.h"
#include "vxsynth/codegen/runtime_files.h"
#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/refine/agent.h"
#include "vxsynth/suite/suite.h"

namespace vxsynth::suite {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

/// The benchmark directories that hold runtime copies (reconstruct's output layout).
constexpr const char* kSourceDirs[] = {"vortex", "cuda"};
/// The directories of codegen/runtime/ whose files candidates copy (docs/codegen.md "Fixed runtime files").
constexpr const char* kRuntimeDirs[] = {"common", "cuda", "vortex"};
/// Where older versions are kept, and how many hex digits of the SHA-256 end their names.
constexpr const char* kPreviousDir = "previous";
constexpr size_t kShaSuffix = 16;

std::string string_field(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string generator_text(const json& entry) {
  const json g = entry.contains("generator_version") ? entry["generator_version"] : json();
  return g.is_string() ? g.get<std::string>() : g.dump();
}

/// A previous/ file's runtime path: its name without the ".<SHA-256 prefix>" suffix, which must be
/// the prefix of its text's SHA-256; empty when it is not.
std::string previous_path(const std::string& rel, const std::string& sha) {
  const size_t dot = rel.rfind('.');
  if (dot == std::string::npos || rel.size() - dot - 1 != kShaSuffix || sha.compare(0, kShaSuffix, rel, dot + 1) != 0)
    return {};
  return rel.substr(0, dot);
}

}  // namespace

void RuntimeStore::add(std::string path, std::string text, bool is_current) {
  RuntimeVersion v{std::move(path), refine::sha256_hex(text), std::move(text)};
  if (!is_current) {
    const std::string p = previous_path(v.path, v.sha256);
    if (p.empty())
      throw make_error("codegen/runtime/{}/{}: the name does not end in '.' and the first {} hex digits of its "
                       "SHA-256 ({})", kPreviousDir, v.path, kShaSuffix, v.sha256);
    v.path = p;
  }
  (is_current ? current_ : previous_).push_back(std::move(v));
}

const RuntimeStore& RuntimeStore::embedded() {
  static const RuntimeStore store = [] {
    RuntimeStore s;
    for (const codegen::RuntimeFile& f : codegen::runtime_files()) s.add(std::string(f.path), std::string(f.text), true);
    for (const EmbeddedFile& f : detail::runtime_history()) s.add(std::string(f.path), std::string(f.text), false);
    return s;
  }();
  return store;
}

RuntimeStore RuntimeStore::from_directory(const fs::path& dir) {
  RuntimeStore s;
  for (const char* sub : kRuntimeDirs)
    for (const auto& f : fs::directory_iterator(dir / sub))
      if (f.is_regular_file()) s.add(fmt::format("{}/{}", sub, f.path().filename().string()), read_file(f.path()), true);
  if (fs::is_directory(dir / kPreviousDir))
    for (const auto& f : fs::recursive_directory_iterator(dir / kPreviousDir))
      if (f.is_regular_file() && f.path().filename() != "README.md")
        s.add(f.path().lexically_relative(dir / kPreviousDir).generic_string(), read_file(f.path()), false);
  return s;
}

const RuntimeVersion* RuntimeStore::current(std::string_view path) const {
  for (const RuntimeVersion& v : current_)
    if (v.path == path) return &v;
  return nullptr;
}

const RuntimeVersion* RuntimeStore::find(std::string_view path, std::string_view sha) const {
  for (const auto* list : {&current_, &previous_})
    for (const RuntimeVersion& v : *list)
      if (v.path == path && v.sha256 == sha) return &v;
  return nullptr;
}

const RuntimeVersion* RuntimeStore::find_copy(std::string_view name, std::string_view sha) const {
  for (const auto* list : {&current_, &previous_})
    for (const RuntimeVersion& v : *list)
      if (fs::path(v.path).filename() == name && v.sha256 == sha) return &v;
  return nullptr;
}

json runtime_entry(const fs::path& bench, const RuntimeStore& store) {
  json files = json::object();
  for (const char* sub : kSourceDirs) {
    if (!fs::is_directory(bench / sub)) continue;
    for (const auto& e : fs::directory_iterator(bench / sub)) {
      if (!e.is_regular_file()) continue;
      const std::string name = e.path().filename().string();
      if (const RuntimeVersion* v = store.find_copy(name, refine::sha256_hex(read_file(e.path()))))
        files[fmt::format("{}/{}", sub, name)] = json{{"runtime", v->path}, {"sha256", v->sha256}};
    }
  }
  const std::string gen = generator_of(locked_entry(bench));
  const bool number = !gen.empty() && gen.find_first_not_of("0123456789") == std::string::npos;
  return json{{"generator_version", number ? json(std::stoi(gen)) : json(gen)}, {"files", files}};
}

refine::SourceTree runtime_listed(const fs::path& suite_dir, const std::string& name, const json& manifest,
                                  std::vector<std::string>& problems, const RuntimeStore& store) {
  const json all = manifest.contains(kManifestRuntime) ? manifest[kManifestRuntime] : json::object();
  if (!all.contains(name)) return {};
  const json& entry = all[name];
  refine::SourceTree out;
  const json listed = entry.value("files", json::object());
  for (const auto& [rel, file] : listed.items()) {
    const std::string want = string_field(file, "sha256"), path = string_field(file, "runtime");
    if (const RuntimeVersion* v = store.find(path, want)) {
      out[rel] = v->text;
      continue;
    }
    const RuntimeVersion* now = store.current(path);
    problems.push_back(fmt::format(
        "{}: benchmark {} uses codegen/runtime/{} with SHA-256 {} (generator {}, recorded at export); this vxsynth's "
        "codegen/runtime/{} {} (generator {}) and codegen/runtime/previous/ holds no {}.{}: the runtime changed since "
        "the suite was exported and its old version was not kept (docs/suite.md \"Runtime files\")",
        (suite_dir / name / rel).string(), name, path, want, generator_text(entry), path,
        now ? "has SHA-256 " + now->sha256 : std::string("does not exist"), codegen::kGeneratorVersion, path,
        want.substr(0, kShaSuffix)));
  }
  return out;
}

void check_runtime(const fs::path& suite_dir, const json& manifest, std::vector<std::string>& problems,
                   const RuntimeStore& store) {
  const json rt = manifest.contains(kManifestRuntime) ? manifest[kManifestRuntime] : json::object();
  for (const auto& [bench, entry] : rt.items()) {
    if (!fs::is_directory(suite_dir / bench)) {
      problems.push_back(fmt::format("{}: runtime files listed for benchmark {}, which the suite does not have",
                                     (suite_dir / kManifestFile).string(), bench));
      continue;
    }
    (void)runtime_listed(suite_dir, bench, manifest, problems, store);
    const json listed = entry.value("files", json::object());
    for (const auto& [rel, file] : listed.items())
      if (fs::exists(suite_dir / bench / rel))
        problems.push_back(fmt::format("{}: present, and also listed as a runtime file taken from codegen/runtime",
                                       (suite_dir / bench / rel).string()));
  }
}

}  // namespace vxsynth::suite
