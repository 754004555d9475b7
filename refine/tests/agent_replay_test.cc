// The built-in agent replayed on the committed GPU evidence (data/evidence/h200/reconstruct-ncu-*,
// docs/reconstruct.md "GPU evidence"): for every revision of every built-in-agent record, the
// agent is given exactly what the loop gave it (the reference context and signature the run
// saved, the record up to that revision, the run's seed, codegen's design space) and must propose
// the axes, design point, target metrics and rationale that the record holds. A change to the
// axis table, its steps or priors, or the search rule that alters any choice makes this fail.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "vxsynth/common/file_io.h"
#include "vxsynth/core/bundle.h"
#include "vxsynth/core/metrics.h"
#include "vxsynth/refine/agent.h"
#include "vxsynth/refine/agent_line_search.h"
#include "vxsynth/refine/backends.h"
#include "vxsynth/refine/record.h"
#include "vxsynth/refine/sandbox.h"

namespace vxsynth::refine {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kEvidence = fs::path(VXSYNTH_SOURCE_DIR) / "data/evidence";
const fs::path kSuites = fs::path(VXSYNTH_SOURCE_DIR) / "data/suite";

// Run directories whose record was written by `agent` ("builtin", "line-search"): the GPU
// evidence sessions' runs (both GPUs, at any depth) and the committed suites' benchmarks.
std::vector<fs::path> runs_of(std::string_view agent) {
  std::vector<fs::path> runs;
  for (const fs::path& root : {kEvidence, kSuites}) {
    if (!fs::exists(root)) continue;
    for (const auto& e : fs::recursive_directory_iterator(root)) {
      if (!e.is_regular_file() || e.path().filename() != "run.json") continue;
      const fs::path run = e.path().parent_path();
      if (!fs::is_regular_file(run / "record.jsonl") || !fs::is_regular_file(run / "reference/profile.json")) continue;
      const json r = json::parse(read_file(e.path()));
      if (r.value("agent", "") == agent) runs.push_back(run);
    }
  }
  std::sort(runs.begin(), runs.end());
  return runs;
}

// The built-in agent version that made a record (its seed entry's tool_versions; 1 before the key).
std::string agent_version_of(const std::vector<RevisionEntry>& record) {
  if (record.empty()) return "1";
  const auto it = record.front().tool_versions.find(kBuiltinAgentVersionKey);
  return it == record.front().tool_versions.end() ? "1" : it->second;
}

// What version 2 of the built-in agent changed (kBuiltinAgentVersion): the same axis and direction,
// with lane_map stepping through element where version 1 had no such value.
bool changed_by_version_2(const Proposal& p, const RevisionEntry& want) {
  const bool lane_map_step = std::any_of(want.axes.begin(), want.axes.end(), [](const AxisStep& s) { return s.axis == "lane_map"; });
  if (!lane_map_step || p.axes != want.axes || p.design["axes"]["lane_map"] != "element") return false;
  json design = p.design;
  design["axes"]["lane_map"] = want.design["axes"]["lane_map"];
  return design == want.design;
}

// Replays revision `n` of `record` (n ≥ 1) and compares the proposal with the recorded entry. A
// record of version 1 may differ where version 2 changed the choice: returns false there.
bool replay(const std::vector<RevisionEntry>& record, size_t n, const core::ReferenceContext& ctx,
            const json& entry, const core::Signature& reference, uint64_t seed, bool version_1,
            bool line_search = false) {
  const std::vector<RevisionEntry> history(record.begin(), record.begin() + static_cast<long>(n));
  const RevisionEntry retained = *last_retained(history);
  // The design space the revision was proposed in (its tool_versions; version 1 before the key).
  const auto v = record[n].tool_versions.find(codegen::kDesignSpaceVersionKey);
  const int space_version = v == record[n].tool_versions.end() ? 1 : std::stoi(v->second);
  const auto space = make_codegen_space(ctx, codegen::CudaTranslation::kNative, space_version);
  const SourceTree sources = space->render(retained.design);
  const SandboxRules rules = default_rules();
  AgentInput in;
  in.revision = static_cast<int>(n);
  in.context = &ctx;
  in.context_json = entry;
  in.reference = &reference;
  in.retained = &retained;
  in.retained_sources = &sources;
  in.history = &history;
  in.rules = &rules;
  in.axes = space->refinable_axes();
  in.seed = seed;
  const Proposal p = line_search ? LineSearchAgent(*space).propose(in) : BuiltinAgent(*space).propose(in);
  const RevisionEntry& want = record[n];
  EXPECT_FALSE(p.stop) << p.stop_reason;
  if (p.stop) return false;
  if (version_1 && changed_by_version_2(p, want)) return false;
  EXPECT_EQ(p.axes, want.axes);
  EXPECT_EQ(p.design, want.design);
  EXPECT_EQ(p.target_metrics, want.target_metrics);
  EXPECT_EQ(p.rationale, want.rationale);
  return true;
}

// The operator a record was built for differs from the one today's seeding reads from the same
// reference context (a seed rule changed since, e.g. a bmm operand the trace shows broadcast now
// keeps batch stride 0): codegen's space of that context holds none of the record's design points,
// so its choices cannot be replayed.
bool seeded_for_another_operator(const std::vector<RevisionEntry>& record, const core::ReferenceContext& ctx) {
  return record.front().design["fixed"]["op"] != make_codegen_space(ctx)->seed_design()["fixed"]["op"];
}

// Records of the current version must be reproduced revision by revision; records of version 1
// too, except where version 2 changed the choice (counted and printed). Records seeded for another
// operator than today's seed are listed and left out.
TEST(AgentReplay, EveryRecordedBuiltinChoiceIsReproduced) {
  const auto runs = runs_of("builtin");
  ASSERT_GE(runs.size(), 4u) << "no built-in-agent evidence under " << kEvidence << " or " << kSuites;
  const std::string current = std::to_string(kBuiltinAgentVersion);
  int replayed = 0;
  std::vector<std::string> changed;
  std::vector<std::string> reseeded;
  for (const fs::path& run : runs) {
    SCOPED_TRACE(run.string());
    const RecordRead rec = read_record(run / "record.jsonl", /*repair=*/false);
    const std::string version = agent_version_of(rec.entries);
    ASSERT_TRUE(version == current || version == "1") << "made by built-in agent " << version;
    const json run_json = json::parse(read_file(run / "run.json"));
    const fs::path profile_path = run / "reference/profile.json";
    const json profile = json::parse(read_file(profile_path));
    const core::ReferenceContext ctx = core::entry_context(profile["entry"], profile_path.string());
    const core::Signature reference = core::signature_from_json(profile["signature"], profile_path.string());
    if (seeded_for_another_operator(rec.entries, ctx)) {
      reseeded.push_back(fs::relative(run, VXSYNTH_SOURCE_DIR).generic_string());
      continue;
    }
    for (size_t n = 1; n < rec.entries.size(); ++n) {
      SCOPED_TRACE(fmt::format("r{}", n));
      if (replay(rec.entries, n, ctx, profile["entry"], reference, run_json["seed"].get<uint64_t>(), version == "1"))
        ++replayed;
      else
        changed.push_back(fmt::format("{} r{}", fs::relative(run, VXSYNTH_SOURCE_DIR).generic_string(), n));
    }
  }
  std::cout << fmt::format("{} revisions reproduced; {} of version-1 records changed by lane_map element: {}\n",
                           replayed, changed.size(), fmt::join(changed, ", "));
  std::cout << fmt::format("{} records seeded for another operator than today's seed, left out: {}\n",
                           reseeded.size(), fmt::join(reseeded, ", "));
  EXPECT_GE(replayed, 20);
  EXPECT_LT(reseeded.size(), runs.size() / 4) << "most records no longer match today's seed";
}

// The line-search agent's records (the committed H100 suite): every revision's proposal, its
// time-model rationale included, is reproduced from the record's history and the bundle entry.
TEST(AgentReplay, EveryRecordedLineSearchChoiceIsReproduced) {
  const auto runs = runs_of("line-search");
  ASSERT_GE(runs.size(), 4u) << "no line-search evidence under " << kSuites;
  int replayed = 0, by_time_model = 0;
  for (const fs::path& run : runs) {
    SCOPED_TRACE(run.string());
    const RecordRead rec = read_record(run / "record.jsonl", /*repair=*/false);
    const json run_json = json::parse(read_file(run / "run.json"));
    const fs::path profile_path = run / "reference/profile.json";
    const json profile = json::parse(read_file(profile_path));
    const core::ReferenceContext ctx = core::entry_context(profile["entry"], profile_path.string());
    const core::Signature reference = core::signature_from_json(profile["signature"], profile_path.string());
    for (size_t n = 1; n < rec.entries.size(); ++n) {
      SCOPED_TRACE(fmt::format("r{}", n));
      ASSERT_TRUE(replay(rec.entries, n, ctx, profile["entry"], reference, run_json["seed"].get<uint64_t>(),
                         /*version_1=*/false, /*line_search=*/true));
      ++replayed;
      by_time_model += rec.entries[n].rationale.find("time model predicts") != std::string::npos ? 1 : 0;
    }
  }
  std::cout << fmt::format("{} line-search revisions reproduced, {} of them proposed by the time model\n", replayed,
                           by_time_model);
  EXPECT_GE(by_time_model, 10);
}

}  // namespace
}  // namespace vxsynth::refine
