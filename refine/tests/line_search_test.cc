// The line-search agent's time model and line search on the committed H200 records
// (data/evidence/h200/reconstruct-ncu-2026-11-30): the model's durations of the recorded
// revisions against the durations ncu measured for them, and the split-K line search from the
// ACT k4 record's retained split-K step.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "vxsynth/common/file_io.h"
#include "vxsynth/core/bundle.h"
#include "vxsynth/refine/agent_line_search.h"
#include "vxsynth/refine/backends.h"
#include "vxsynth/refine/record.h"
#include "vxsynth/refine/sandbox.h"

namespace vxsynth::refine {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kSession = fs::path(VXSYNTH_SOURCE_DIR) / "data/evidence/h200/reconstruct-ncu-2026-11-30";

// Fields of one ncu CSV line ("a","1,234",…): quotes stripped, thousands separators kept.
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (const char c : line) {
    if (c == '"') quoted = !quoted;
    else if (c == ',' && !quoted) out.emplace_back();
    else out.back() += c;
  }
  return out;
}

double number(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), ','), s.end());
  return std::stod(s);
}

// Sum of gpu__time_duration.sum over the launches of an ncu_raw.csv (header, units, launches).
double measured_ns(const fs::path& csv) {
  std::ifstream f(csv);
  std::string line;
  std::getline(f, line);
  const auto header = csv_fields(line);
  const auto col = std::find(header.begin(), header.end(), "gpu__time_duration.sum") - header.begin();
  EXPECT_LT(static_cast<size_t>(col), header.size()) << csv;
  std::getline(f, line);  // units
  double sum = 0;
  while (std::getline(f, line)) {
    const auto row = csv_fields(line);
    if (row.size() == header.size()) sum += number(row[static_cast<size_t>(col)]);
  }
  return sum;
}

struct Point {
  std::string what;
  double measured = 0, predicted = 0;
};

std::vector<Point> recorded_points() {
  std::vector<Point> out;
  for (const char* run : {"act-k4", "pi0-k1", "diffusion_policy-k2", "act-k5"}) {
    const RecordRead rec = read_record(kSession / run / "record.jsonl", /*repair=*/false);
    for (const RevisionEntry& e : rec.entries) {
      const fs::path csv = kSession / run / "work/revisions" / fmt::format("r{:04}", e.revision) / "cuda/ncu_raw.csv";
      if (!fs::exists(csv)) continue;
      const auto est = estimate_time(e.design);
      if (!est) continue;
      out.push_back({fmt::format("{} r{}", run, e.revision), measured_ns(csv), est->time_ns});
    }
  }
  return out;
}

TEST(TimeModel, LogDurationsCorrelateWithNcuOverTheRecordedRevisions) {
  const auto pts = recorded_points();
  ASSERT_GE(pts.size(), 25u);
  double mx = 0, my = 0;
  for (const auto& p : pts) mx += std::log(p.measured), my += std::log(p.predicted);
  mx /= static_cast<double>(pts.size()), my /= static_cast<double>(pts.size());
  double sxy = 0, sxx = 0, syy = 0;
  for (const auto& p : pts) {
    const double x = std::log(p.measured) - mx, y = std::log(p.predicted) - my;
    sxy += x * y, sxx += x * x, syy += y * y;
  }
  EXPECT_GT(sxy / std::sqrt(sxx * syy), 0.9);
}

TEST(TimeModel, SplitKRanksLikeNcuOnActK4) {
  // ACT k4 r0 (64×64 tile, 16 blocks) ran 60.2 us, r2 (32×32) 36.4 us, r4 (split_k 4) 15.8 us.
  const RecordRead rec = read_record(kSession / "act-k4/record.jsonl", /*repair=*/false);
  const auto t0 = estimate_time(rec.entries[0].design), t2 = estimate_time(rec.entries[2].design);
  const auto t4 = estimate_time(rec.entries[4].design);
  ASSERT_TRUE(t0 && t2 && t4);
  EXPECT_GT(t0->time_ns, t2->time_ns);
  EXPECT_GT(t2->time_ns, t4->time_ns);
  EXPECT_GT(t4->blocks, t2->blocks);
  EXPECT_GT(t4->dram_bytes, t2->dram_bytes);  // the split-K workspace
}

TEST(TimeModel, OperandTrafficFollowsTheBlockOrder) {
  // π0 k2's shape (linear bf16 M=816 N=16384 K=2048): A (3.3 MB) is walked from L2, B (67 MB)
  // streams once, whatever the tile: about the reference's 72.8 MB (data/references/h200/pi0).
  json d = {{"fixed", {{"engine", "tensor_core"}, {"path", "bf16"}, {"block_size", 384},
                       {"op", {{"family", "linear"}, {"gemm", {{"batch", 1}, {"m", 816}, {"n", 16384}, {"k", 2048}}}}}}},
            {"axes", {{"tile", {{"m", 48}, {"n", 64}, {"k", 48}}}, {"split_k", 1}}}};
  const auto e = estimate_time(d);
  ASSERT_TRUE(e);
  EXPECT_NEAR(e->dram_bytes, 2.0 * (816.0 * 2048 + 2048.0 * 16384), 1.0);
  // Both operands above L2 (M = N = 16384): the walked one is re-read by every panel, so a larger
  // tile along the panel dimension moves fewer bytes.
  d["fixed"]["op"]["gemm"]["m"] = 16384;
  const auto small = estimate_time(d);
  d["axes"]["tile"]["m"] = 96;  // N tiles on grid x (A is not smaller): B is walked once per M panel
  const auto large = estimate_time(d);
  ASSERT_TRUE(small && large);
  EXPECT_GT(small->dram_bytes, 1.9 * large->dram_bytes);
}

TEST(TimeModel, NoEstimateWithoutAGemmView) {
  EXPECT_FALSE(estimate_time(json::object()));
  EXPECT_FALSE(estimate_time(json{{"fixed", {{"op", {{"family", "other"}}}}}, {"axes", json::object()}}));
}

TEST(TimeModel, ReferenceTimingFromTheBundleEntry) {
  const json profile = json::parse(read_file(kSession / "act-k4/reference/profile.json"));
  const auto ref = reference_timing(profile["entry"]);
  ASSERT_TRUE(ref);
  EXPECT_EQ(ref->time_ns, 17344.0);
  EXPECT_EQ(ref->dram_bytes, 1469184.0);
  EXPECT_FALSE(reference_timing(json::object()));
}

// The ACT k4 run up to its retained split_k 2 step (r3), then the agent's own proposals retained.
class LineSearch : public ::testing::Test {
 protected:
  void SetUp() override {
    profile_ = json::parse(read_file(kSession / "act-k4/reference/profile.json"));
    ctx_ = core::context_from_json(profile_["entry"]["context"], "profile.json");
    ref_ = core::signature_from_json(profile_["signature"], "profile.json");
    const RecordRead rec = read_record(kSession / "act-k4/record.jsonl", /*repair=*/false);
    history_.assign(rec.entries.begin(), rec.entries.begin() + 4);
    space_ = make_codegen_space(ctx_);
  }
  Proposal propose(uint64_t seed) {
    const RevisionEntry retained = *last_retained(history_);
    const SourceTree sources = space_->render(retained.design);
    const SandboxRules rules = default_rules();
    AgentInput in;
    in.revision = static_cast<int>(history_.size());
    in.context = &ctx_;
    in.context_json = profile_["entry"];
    in.reference = &ref_;
    in.retained = &retained;
    in.retained_sources = &sources;
    in.history = &history_;
    in.rules = &rules;
    in.axes = space_->refinable_axes();
    in.seed = seed;
    LineSearchAgent agent(*space_);
    return agent.propose(in);
  }
  void retain(const Proposal& p) {
    RevisionEntry e = history_.back();
    e.parent = last_retained(history_)->revision;
    e.revision = static_cast<int>(history_.size());
    e.axes = p.axes;
    e.design = p.design;
    e.decision = Decision::kRetain;
    history_.push_back(e);
  }
  json profile_;
  core::ReferenceContext ctx_;
  core::Signature ref_;
  std::vector<RevisionEntry> history_;
  std::unique_ptr<DesignSpace> space_;
};

TEST_F(LineSearch, ContinuesSplitKTwoFourEightAfterRetainedSteps) {
  ASSERT_EQ(history_.back().design["axes"]["split_k"], 2);
  for (const int want : {4, 8, 16}) {
    const Proposal p = propose(7);
    ASSERT_FALSE(p.stop) << p.stop_reason;
    ASSERT_TRUE(p.failure.empty()) << p.failure;
    ASSERT_EQ(p.axes, (std::vector<AxisStep>{{"split_k", "forward"}})) << p.rationale;
    EXPECT_EQ(p.design["axes"]["split_k"], want);
    EXPECT_NE(p.rationale.find("line search"), std::string::npos) << p.rationale;
    retain(p);
  }
}

TEST_F(LineSearch, TriedContinuationFallsBackToTheTimeModelOrBuiltin) {
  // A reverted split_k 4 from r3: the line search must not repeat it.
  RevisionEntry e = history_.back();
  e.parent = 3;
  e.revision = 4;
  e.axes = {{"split_k", "forward"}};
  e.decision = Decision::kRevert;
  history_.push_back(e);
  const Proposal p = propose(7);
  ASSERT_FALSE(p.stop) << p.stop_reason;
  EXPECT_NE(p.axes, (std::vector<AxisStep>{{"split_k", "forward"}})) << p.rationale;
}

TEST_F(LineSearch, DeterministicForASeed) {
  history_.resize(3);  // from r2 (32×32 tile, split_k 1): the time model ranks the moves
  const Proposal a = propose(11), b = propose(11);
  ASSERT_FALSE(a.stop) << a.stop_reason;
  EXPECT_EQ(a.axes, b.axes);
  EXPECT_EQ(a.design, b.design);
  EXPECT_EQ(a.rationale, b.rationale);
  EXPECT_EQ(tree_hashes(a.sources), tree_hashes(b.sources));
}

}  // namespace
}  // namespace vxsynth::refine
