#include "generated.h"

#include <algorithm>

#include <fmt/format.h>

#include "vxsynth/codegen/generator_version.h"
#include "vxsynth/codegen/runtime_files.h"
#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/core/bundle.h"
#include "vxsynth/refine/agent.h"
#include "vxsynth/refine/backends.h"
#include "vxsynth/suite/suite.h"

namespace vxsynth::suite {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

/// The benchmark directories the generator renders into (reconstruct's output layout).
constexpr const char* kRenderedDirs[] = {"cuda", "vortex"};

const std::string kCurrent = std::to_string(codegen::kGeneratorVersion);

/// The sources of revision `e` rendered again: the design space of the benchmark's reference
/// context (reference/profile.json, what reconstruct seeded it from) renders the recorded design.
refine::SourceTree render_revision(const fs::path& bench, const refine::RevisionEntry& e) {
  const fs::path p = bench / "reference" / "profile.json";
  const json profile = json::parse(read_file(p), nullptr, false);
  if (profile.is_discarded() || !profile.contains("entry") || !profile["entry"].contains("context"))
    throw make_error("{}: no entry.context to render the design from", p.string());
  return refine::make_codegen_space(core::entry_context(profile["entry"], p.string() + ": entry"))->render(e.design);
}

/// Files of the benchmark's cuda/ and vortex/ other than the runtime copies, relative, sorted.
std::vector<std::string> rendered_files_present(const fs::path& bench) {
  std::vector<std::string> out;
  for (const char* sub : kRenderedDirs) {
    if (!fs::is_directory(bench / sub)) continue;
    for (const auto& f : fs::directory_iterator(bench / sub))
      if (f.is_regular_file() && codegen::find_runtime_file(f.path().filename().string()) == nullptr)
        out.push_back(fmt::format("{}/{}", sub, f.path().filename().string()));
  }
  std::sort(out.begin(), out.end());
  return out;
}

json version_json(const std::string& v) {
  if (!v.empty() && v.find_first_not_of("0123456789") == std::string::npos) return std::stoi(v);
  return v.empty() ? json(nullptr) : json(v);
}

std::string version_text(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

/// Why a present file is kept rather than left out, or empty when it regenerates byte-identically.
std::string keep_reason(const std::string& rel, const std::string& text, const refine::SourceTree& tree,
                        const refine::RevisionEntry& e) {
  const auto it = tree.find(rel);
  if (it == tree.end()) return "not a file the generator renders for this design";
  const std::string have = refine::sha256_hex(text), again = refine::sha256_hex(it->second);
  if (again != have) return fmt::format("regenerated SHA-256 {} differs from the file's {}", again, have);
  const auto rec = e.source_hashes.find(rel);
  if (rec == e.source_hashes.end() || rec->second != have)
    return fmt::format("record.jsonl revision {} does not pin it with SHA-256 {}", e.revision, have);
  return {};
}

}  // namespace

refine::RevisionEntry locked_entry(const fs::path& bench) {
  const json summary = json::parse(read_file(bench / "summary.json"), nullptr, false);
  const int locked = summary.is_object() ? summary.value("locked_revision", -1) : -1;
  const refine::RecordRead rr = refine::read_record(bench / "record.jsonl", false);
  if (locked < 0 || static_cast<size_t>(locked) >= rr.entries.size())
    throw make_error("{}: locked_revision {} is not a revision of {}", (bench / "summary.json").string(), locked,
                     (bench / "record.jsonl").string());
  return rr.entries[static_cast<size_t>(locked)];
}

std::string generator_of(const refine::RevisionEntry& e) {
  const auto it = e.tool_versions.find(codegen::kGeneratorVersionKey);
  return it == e.tool_versions.end() ? std::string() : it->second;
}

json generated_entry(const fs::path& bench) {
  const refine::RevisionEntry e = locked_entry(bench);
  const std::string gen = generator_of(e);
  json files = json::object(), kept = json::object();
  refine::SourceTree tree;
  std::string not_rendered;
  if (gen != kCurrent) {
    not_rendered = fmt::format("made by generator {}; this vxsynth renders generator {}", gen.empty() ? "?" : gen,
                               kCurrent);
  } else {
    try {
      tree = render_revision(bench, e);
    } catch (const std::exception& x) {  // vxsynth::Error or a design the generator refuses
      not_rendered = fmt::format("not rendered again: {}", x.what());
    }
  }
  for (const std::string& rel : rendered_files_present(bench)) {
    const std::string text = read_file(bench / rel);
    const std::string why = not_rendered.empty() ? keep_reason(rel, text, tree, e) : not_rendered;
    if (why.empty()) files[rel] = refine::sha256_hex(text);
    else kept[rel] = why;
  }
  return json{{"generator_version", version_json(gen)}, {"revision", e.revision}, {"files", files}, {"kept", kept}};
}

refine::SourceTree regenerate_listed(const fs::path& suite_dir, const std::string& name, const json& manifest,
                                     std::vector<std::string>& problems) {
  const json all = manifest.contains(kManifestGenerated) ? manifest[kManifestGenerated] : json::object();
  if (!all.contains(name) || !all[name].contains("files") || all[name]["files"].empty()) return {};
  const json& entry = all[name];
  const fs::path bench = suite_dir / name;
  const std::string gen = version_text(entry.value("generator_version", json()));
  const int revision = entry.value("revision", -1);
  const std::string where = fmt::format("benchmark {}: left out by the export (generator {}, record.jsonl revision {})",
                                        name, gen, revision);
  const std::string hint = gen == kCurrent ? std::string()
                           : fmt::format("; this vxsynth renders generator {}: use a vxsynth of generator {} "
                                         "(docs/reconstruct.md \"Evidence as data\" lists its commits)", kCurrent, gen);
  refine::SourceTree tree, out;
  try {
    const refine::RecordRead rr = refine::read_record(bench / "record.jsonl", false);
    if (revision < 0 || static_cast<size_t>(revision) >= rr.entries.size())
      throw make_error("{}: no revision {}", (bench / "record.jsonl").string(), revision);
    tree = render_revision(bench, rr.entries[static_cast<size_t>(revision)]);
  } catch (const std::exception& x) {
    problems.push_back(fmt::format("{}: {}, not rendered again: {}{}", bench.string(), where, x.what(), hint));
    return {};
  }
  for (const auto& [rel, sha] : entry["files"].items()) {
    const std::string want = sha.is_string() ? sha.get<std::string>() : sha.dump();
    const auto it = tree.find(rel);
    if (it == tree.end()) {
      problems.push_back(fmt::format("{}: {}, expected SHA-256 {}: the generator no longer renders this file{}",
                                     (bench / rel).string(), where, want, hint));
    } else if (const std::string have = refine::sha256_hex(it->second); have != want) {
      problems.push_back(fmt::format("{}: {}, expected SHA-256 {}, regenerated SHA-256 {}{}", (bench / rel).string(),
                                     where, want, have, hint));
    } else {
      out[rel] = it->second;
    }
  }
  return out;
}

void check_generated(const fs::path& suite_dir, const json& manifest, std::vector<std::string>& problems) {
  const json all = manifest.contains(kManifestGenerated) ? manifest[kManifestGenerated] : json::object();
  for (const auto& [name, entry] : all.items()) {
    if (!fs::is_directory(suite_dir / name)) {
      problems.push_back(fmt::format("{}: generated sources listed for benchmark {}, which the suite does not have",
                                     (suite_dir / kManifestFile).string(), name));
      continue;
    }
    (void)regenerate_listed(suite_dir, name, manifest, problems);
    const json listed = entry.value("files", json::object());
    for (const auto& [rel, sha] : listed.items())
      if (fs::exists(suite_dir / name / rel))
        problems.push_back(fmt::format("{}: present, and also listed as generated (left out by the export)",
                                       (suite_dir / name / rel).string()));
  }
}

}  // namespace vxsynth::suite
