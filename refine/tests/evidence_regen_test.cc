// Evidence as data (docs/reconstruct.md#evidence-as-data): the committed reconstruction runs under
// data/evidence/ keep their records, not the generated sources of every revision. A built-in-agent
// revision is its design point: this test renders every such design through the generator (the
// same DesignSpace::render the loop uses) and checks the SHA-256 of every file against the
// record's source_hashes. A record made by another generator version than the current one
// (codegen/include/vxsynth/codegen/generator_version.h) cannot be regenerated; the test says so
// for that run, with the git command that shows its sources. External-agent revisions are not
// designs: their edited sources must be kept under work/revisions/rNNNN/ and match the record.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <iostream>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "vxsynth/codegen/generator_version.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/core/bundle.h"
#include "vxsynth/refine/agent.h"
#include "vxsynth/refine/backends.h"
#include "vxsynth/refine/record.h"

namespace vxsynth::refine {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kSourceDir = VXSYNTH_SOURCE_DIR;
// VXSYNTH_EVIDENCE_DIR checks another evidence tree (e.g. a run directory's copy) the same way.
const fs::path kEvidence = std::getenv("VXSYNTH_EVIDENCE_DIR") != nullptr
                               ? fs::path(std::getenv("VXSYNTH_EVIDENCE_DIR"))
                               : kSourceDir / "data/evidence";
const std::string kCurrent = std::to_string(codegen::kGeneratorVersion);

// Every run directory (holding record.jsonl and reference/profile.json) under data/evidence.
std::vector<fs::path> evidence_runs() {
  std::vector<fs::path> runs;
  if (!fs::exists(kEvidence)) return runs;
  for (const auto& e : fs::recursive_directory_iterator(kEvidence))
    if (e.is_regular_file() && e.path().filename() == "record.jsonl" &&
        fs::exists(e.path().parent_path() / "reference/profile.json"))
      runs.push_back(e.path().parent_path());
  std::sort(runs.begin(), runs.end());
  return runs;
}

// generator.json of the session directory holding `run`: the generator of records made before
// revisions carried their own (docs/reconstruct.md#evidence-as-data). Null when absent.
json session_generator(const fs::path& run) {
  const fs::path f = run.parent_path() / "generator.json";
  return fs::exists(f) ? json::parse(read_file(f)) : json(nullptr);
}

// The generator version that made entry `e`: its own tool_versions entry, else the session's.
std::string generator_of(const RevisionEntry& e, const json& session) {
  const auto it = e.tool_versions.find(codegen::kGeneratorVersionKey);
  if (it != e.tool_versions.end()) return it->second;
  if (session.is_object() && session.contains(codegen::kGeneratorVersionKey))
    return session[codegen::kGeneratorVersionKey].get<std::string>();
  return "";
}

// Differences between the recorded hashes and the hashes of `tree`, one line each.
std::vector<std::string> hash_mismatches(const std::map<std::string, std::string>& recorded,
                                         const SourceTree& tree) {
  std::vector<std::string> out;
  const auto now = tree_hashes(tree);
  for (const auto& [rel, hash] : recorded) {
    const auto it = now.find(rel);
    if (it == now.end())
      out.push_back(fmt::format("{}: recorded but not produced", rel));
    else if (it->second != hash)
      out.push_back(fmt::format("{}: sha256 {} regenerated, {} recorded", rel, it->second, hash));
  }
  for (const auto& [rel, hash] : now)
    if (!recorded.count(rel)) out.push_back(fmt::format("{}: produced but not recorded", rel));
  return out;
}

// The sources of a built-in-agent revision, rendered from its recorded design point.
SourceTree regenerate(const core::ReferenceContext& ctx, const RevisionEntry& e) {
  return make_codegen_space(ctx)->render(e.design);
}

core::ReferenceContext run_context(const fs::path& run) {
  const fs::path p = run / "reference/profile.json";
  return core::entry_context(json::parse(read_file(p))["entry"], p.string());
}

// What checking one run found.
struct RunCheck {
  int regenerated = 0;                 // built-in revisions rendered and compared
  int kept_checked = 0;                // external-agent revisions checked from kept sources
  std::vector<std::string> other_generator;  // "rNNNN: generator N" not regenerable here
  std::vector<std::string> failures;   // hash mismatches, missing kept sources, unknown generator
};

RunCheck check_run(const fs::path& run) {
  RunCheck c;
  const core::ReferenceContext ctx = run_context(run);
  const json session = session_generator(run);
  const RecordRead rec = read_record(run / "record.jsonl", /*repair=*/false);
  for (const RevisionEntry& e : rec.entries) {
    const std::string r = fmt::format("r{:04d}", e.revision);
    if (e.agent != "builtin") {
      // An external agent's edit: the kept sources stand in for it.
      const fs::path dir = run / "work/revisions" / r;
      SourceTree kept;
      for (const auto& [rel, hash] : e.source_hashes)
        if (fs::exists(dir / rel)) kept[rel] = read_file(dir / rel);
      for (const std::string& m : hash_mismatches(e.source_hashes, kept))
        c.failures.push_back(fmt::format("{} (agent {}, kept sources): {}", r, e.agent, m));
      ++c.kept_checked;
      continue;
    }
    const std::string version = generator_of(e, session);
    if (version.empty()) {
      c.failures.push_back(fmt::format(
          "{}: no generator version (neither tool_versions[\"{}\"] nor {}/generator.json)", r,
          codegen::kGeneratorVersionKey, run.parent_path().string()));
      continue;
    }
    if (version != kCurrent) {
      c.other_generator.push_back(fmt::format("{}: generator {}", r, version));
      continue;
    }
    SourceTree tree;
    try {
      tree = regenerate(ctx, e);
    } catch (const std::exception& err) {
      c.failures.push_back(fmt::format("{}: the recorded design does not render: {}", r, err.what()));
      continue;
    }
    for (const std::string& m : hash_mismatches(e.source_hashes, tree))
      c.failures.push_back(fmt::format("{}: {}", r, m));
    ++c.regenerated;
  }
  return c;
}

std::string run_label(const fs::path& run) { return fs::relative(run, kEvidence).generic_string(); }

// ---------------------------------------------------------------------------------------------

class EvidenceRun : public ::testing::TestWithParam<fs::path> {};

TEST_P(EvidenceRun, EveryRevisionIsReproducedFromItsRecord) {
  const fs::path run = GetParam();
  const RunCheck c = check_run(run);
  for (const std::string& f : c.failures)
    ADD_FAILURE() << run_label(run) << ": " << f
                  << "\n  (a generator change that alters emitted text must raise "
                     "codegen::kGeneratorVersion in codegen/include/vxsynth/codegen/generator_version.h)";
  if (!c.other_generator.empty()) {
    const json session = session_generator(run);
    const std::string commit =
        session.is_object() && session.contains("sources_commit") ? session["sources_commit"].get<std::string>()
                                                                  : std::string("<see the evidence README>");
    const std::string msg = fmt::format(
        "{}: {} revision(s) made by another generator than the current one (version {}): {}{}; not "
        "regenerated. Their sources are in git history: git show {}:{}/work/revisions/rNNNN/<file>",
        run_label(run), c.other_generator.size(), kCurrent, c.other_generator.front(),
        c.other_generator.size() > 1 ? ", …" : "", commit,
        fs::relative(run, kSourceDir).generic_string());
    std::cout << msg << "\n";
    RecordProperty("not_regenerated", msg);
    if (c.regenerated == 0 && c.kept_checked == 0) GTEST_SKIP() << msg;
  }
  EXPECT_GT(c.regenerated + c.kept_checked, 0) << run_label(run) << ": nothing checked";
  std::cout << fmt::format("{}: {} built-in revision(s) regenerated (generator {}), {} external-agent "
                           "revision(s) checked from kept sources, {} failure(s)\n",
                           run_label(run), c.regenerated, kCurrent, c.kept_checked, c.failures.size());
}

std::string param_name(const ::testing::TestParamInfo<fs::path>& info) {
  std::string s = run_label(info.param);
  for (char& ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(Evidence, EvidenceRun, ::testing::ValuesIn(evidence_runs()), param_name);

TEST(EvidenceRegen, EvidenceIsPresent) {
  ASSERT_GE(evidence_runs().size(), 4u) << "no evidence runs under " << kEvidence;
}

// The check itself can fail: a record made now (hashes of the current generator's output, current
// version) passes; the same record with one design field flipped fails on the files it changes.
TEST(EvidenceRegen, AFlippedDesignFieldIsCaught) {
  const auto runs = evidence_runs();
  ASSERT_FALSE(runs.empty());
  const fs::path src = runs.front();
  const fs::path tmp = fs::temp_directory_path() / fmt::format("vxs_regen_{}", ::getpid());
  fs::remove_all(tmp);
  const fs::path run = tmp / "session" / "run";
  fs::create_directories(run / "reference");
  fs::copy_file(src / "reference/profile.json", run / "reference/profile.json");

  // A record of the seed only, as the loop would write it today.
  RevisionEntry seed = read_record(src / "record.jsonl", false).entries.front();
  ASSERT_EQ(seed.agent, "builtin");
  seed.tool_versions[codegen::kGeneratorVersionKey] = kCurrent;
  seed.source_hashes = tree_hashes(regenerate(run_context(run), seed));
  append_entry(run / "record.jsonl", seed);
  RunCheck ok = check_run(run);
  EXPECT_TRUE(ok.failures.empty()) << ok.failures.front();
  EXPECT_EQ(ok.regenerated, 1);

  // Flip one design field in the record file itself.
  json line = json::parse(read_file(run / "record.jsonl"));
  json& prefetch = line["design"]["axes"]["prefetch"];
  prefetch = !prefetch.get<bool>();
  write_file_atomic(run / "record.jsonl", line.dump() + "\n");
  const RunCheck bad = check_run(run);
  ASSERT_FALSE(bad.failures.empty());
  bool kernel_named = false;
  for (const std::string& f : bad.failures) kernel_named |= f.find("kernel.cpp") != std::string::npos;
  EXPECT_TRUE(kernel_named) << bad.failures.front();
  fs::remove_all(tmp);
}

}  // namespace
}  // namespace vxsynth::refine
