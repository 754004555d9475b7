#include "vxsynth/refine/record.h"
#include "vxsynth/refine/loop.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"

namespace vxsynth::refine {
namespace {

namespace fs = std::filesystem;

fs::path temp_dir(const std::string& name) {
  fs::path d = fs::temp_directory_path() / fmt::format("refine_record_{}_{}", name, ::getpid());
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

CheckOutcome passed_check(double abs_err) {
  CheckOutcome c;
  c.ran = true;
  c.passed = true;
  c.method = "vortex_vs_cpu_f64";
  c.max_abs_err = abs_err;
  c.max_rel_err = abs_err * 10;
  c.atol = 1e-5;
  c.rtol = 1e-4;
  return c;
}

RevisionEntry make_entry(int revision, int parent, Decision decision, double d,
                         std::optional<double> delta) {
  RevisionEntry e;
  e.revision = revision;
  e.parent = parent;
  e.agent = "builtin";
  if (revision > 0) e.axes = {{"tile", "forward"}};
  e.target_metrics = {"l1_hit_rate"};
  e.same_kernel = "same operator, shape, data types, engine class and block size";
  e.rationale = "largest gap first";
  e.source_output = passed_check(1e-7);
  e.candidate = passed_check(2e-7);
  e.signature = {{"l1_hit_rate", 42.5}, {"l2_hit_rate", std::nullopt}};
  e.distances = {{"l1_hit_rate", 0.1}, {"l2_hit_rate", std::nullopt}};
  e.d = d;
  e.delta_d = delta;
  e.decision = decision;
  e.wall_time_s = 1.25;
  e.tool_versions = {{"vxsynth", "0.1.0"}};
  e.source_hashes = {{"vortex/kernel.cpp", std::string(64, 'a')}};
  e.profile_backend = "vxsim";
  e.design = nlohmann::json{{"tile_m", 32}};
  e.started_utc = "2026-11-30T02:00:00Z";
  return e;
}

TEST(RetainRule, StrictMarginOfDelta) {
  EXPECT_TRUE(should_retain(0.30, 0.31));         // drops by 0.01 > δ
  EXPECT_FALSE(should_retain(0.306, 0.31));       // drops by 0.004 < δ
  EXPECT_FALSE(should_retain(0.305, 0.31));       // drops by exactly δ: not "more than"
  EXPECT_FALSE(should_retain(0.32, 0.31));        // rises
  EXPECT_DOUBLE_EQ(kRetainMargin, 0.005);
}

TEST(Record, RoundTripsEveryField) {
  const fs::path dir = temp_dir("roundtrip");
  const fs::path rec = dir / "record.jsonl";
  append_entry(rec, make_entry(0, -1, Decision::kSeed, 0.40, std::nullopt));
  RevisionEntry r1 = make_entry(1, 0, Decision::kReject, 0.0, std::nullopt);
  r1.d.reset();
  r1.rejection_reason = "sandbox: atomicAdd in cuda/candidate.cu:12";
  r1.source_output = CheckOutcome{};
  r1.candidate = CheckOutcome{};
  append_entry(rec, r1);
  append_entry(rec, make_entry(2, 0, Decision::kRetain, 0.30, -0.10));
  append_entry(rec, make_entry(3, 2, Decision::kRevert, 0.299, -0.001));

  RecordRead rr = read_record(rec, false);
  ASSERT_EQ(rr.entries.size(), 4u);
  EXPECT_FALSE(rr.repaired);
  EXPECT_EQ(to_json(rr.entries[2]), to_json(make_entry(2, 0, Decision::kRetain, 0.30, -0.10)));
  EXPECT_EQ(rr.entries[1].rejection_reason, "sandbox: atomicAdd in cuda/candidate.cu:12");
  EXPECT_FALSE(rr.entries[0].signature.at("l2_hit_rate").has_value());
  ASSERT_NE(last_retained(rr.entries), nullptr);
  EXPECT_EQ(last_retained(rr.entries)->revision, 2);
  fs::remove_all(dir);
}

TEST(Record, ProfiledInRoundTripsAndIsOptional) {
  RevisionEntry e = make_entry(0, -1, Decision::kSeed, 0.40, std::nullopt);
  EXPECT_FALSE(to_json(e).contains("profiled_in"));  // vxsim backend, and records made before the field
  e.profiled_in = ProfilePlace{"workload", "act", "act full: 2 warm-up step(s), then 2 step(s) in the ncu window",
                               {6, 6, 6, 6}, 6, ""};
  const nlohmann::json j = to_json(e);
  EXPECT_EQ(j["profiled_in"]["routed_per_step"], nlohmann::json({6, 6, 6, 6}));
  EXPECT_EQ(entry_from_json(j, "r:1").profiled_in, e.profiled_in);
  nlohmann::json bad = j;
  bad["profiled_in"]["where"] = "cloud";
  EXPECT_THROW((void)entry_from_json(bad, "r:1"), Error);
  bad = j;
  bad["profiled_in"].erase("routed_per_step");
  EXPECT_THROW((void)entry_from_json(bad, "r:1"), Error);
}

TEST(Record, StepTimesRoundTripByNameAndUnknownStepsAreNamed) {
  RevisionEntry e = make_entry(1, 0, Decision::kRetain, 0.30, -0.10);
  EXPECT_FALSE(to_json(e).contains("step_wall_s"));  // records made before the field
  e.step_wall.add(RevisionStep::kGpuLockWait, 12.5);
  e.step_wall.add(RevisionStep::kNcuSession, 2.25);
  e.step_wall.add(RevisionStep::kNcuSession, 1.0);  // a second session adds to the first
  const nlohmann::json j = to_json(e);
  EXPECT_EQ(j["step_wall_s"], nlohmann::json({{"gpu_lock_wait", 12.5}, {"ncu_session", 3.25}}));
  EXPECT_EQ(entry_from_json(j, "r:2").step_wall.seconds(), e.step_wall.seconds());
  nlohmann::json bad = j;
  bad["step_wall_s"]["ncu_replay"] = 1.0;
  try {
    (void)entry_from_json(bad, "record.jsonl:2");
    ADD_FAILURE() << "an unknown step was accepted";
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find("record.jsonl:2: step_wall_s: unknown step 'ncu_replay'"), std::string::npos)
        << err.what();
  }
  bad = j;
  bad["step_wall_s"]["ncu_session"] = -1.0;
  EXPECT_THROW((void)entry_from_json(bad, "r:2"), Error);
  for (const auto& row : kRevisionSteps) EXPECT_EQ(step_from_name(row.name), row.step) << row.name;
}

TEST(Record, TornLastLineIsDroppedAndRepaired) {
  const fs::path dir = temp_dir("torn");
  const fs::path rec = dir / "record.jsonl";
  append_entry(rec, make_entry(0, -1, Decision::kSeed, 0.40, std::nullopt));
  append_entry(rec, make_entry(1, 0, Decision::kRetain, 0.30, -0.10));
  const auto good_size = fs::file_size(rec);
  const std::string full = to_json(make_entry(2, 1, Decision::kRevert, 0.35, 0.05)).dump();
  {
    std::ofstream out(rec, std::ios::app | std::ios::binary);
    out << full.substr(0, full.size() / 2);  // an interrupted append: half a line, no newline
  }
  RecordRead peek = read_record(rec, false);
  EXPECT_EQ(peek.entries.size(), 2u);
  EXPECT_TRUE(peek.repaired);
  EXPECT_GT(fs::file_size(rec), good_size);  // not repaired on disk without `repair`

  RecordRead fixed = read_record(rec, true);
  EXPECT_EQ(fixed.entries.size(), 2u);
  EXPECT_EQ(fs::file_size(rec), good_size);
  // Appending continues cleanly after the repair.
  append_entry(rec, make_entry(2, 1, Decision::kRevert, 0.35, 0.05));
  EXPECT_EQ(read_record(rec, false).entries.size(), 3u);
  fs::remove_all(dir);
}

TEST(Record, CorruptMiddleLineIsAnErrorNamingTheLine) {
  const fs::path dir = temp_dir("middle");
  const fs::path rec = dir / "record.jsonl";
  append_entry(rec, make_entry(0, -1, Decision::kSeed, 0.40, std::nullopt));
  append_line_atomic(rec, "{\"revision\": 1, \"oops\"");
  append_entry(rec, make_entry(2, 0, Decision::kRevert, 0.45, 0.05));
  try {
    (void)read_record(rec, true);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("record.jsonl:2"), std::string::npos) << e.what();
  }
  fs::remove_all(dir);
}

TEST(Record, MissingFieldIsNamed) {
  nlohmann::json j = to_json(make_entry(1, 0, Decision::kRetain, 0.3, -0.1));
  j.erase("source_hashes");
  try {
    (void)entry_from_json(j, "r.jsonl:2");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'source_hashes'"), std::string::npos) << e.what();
  }
  j = to_json(make_entry(1, 0, Decision::kRetain, 0.3, -0.1));
  j["candidate_check"]["max_abs_err"] = "big";
  EXPECT_THROW((void)entry_from_json(j, "r.jsonl:2"), Error);
}

TEST(Record, RepeatedOrLostRevisionIsRejected) {
  const fs::path dir = temp_dir("order");
  const fs::path rec = dir / "record.jsonl";
  append_entry(rec, make_entry(0, -1, Decision::kSeed, 0.40, std::nullopt));
  append_entry(rec, make_entry(1, 0, Decision::kRevert, 0.41, 0.01));
  append_entry(rec, make_entry(1, 0, Decision::kRevert, 0.41, 0.01));
  EXPECT_THROW((void)read_record(rec, false), Error);
  fs::remove_all(dir);
  fs::create_directories(dir);
  append_entry(rec, make_entry(0, -1, Decision::kSeed, 0.40, std::nullopt));
  append_entry(rec, make_entry(2, 0, Decision::kRevert, 0.41, 0.01));
  EXPECT_THROW((void)read_record(rec, false), Error);
  fs::remove_all(dir);
}

TEST(Record, ParentMustBeTheLastRetained) {
  const fs::path dir = temp_dir("parent");
  const fs::path rec = dir / "record.jsonl";
  append_entry(rec, make_entry(0, -1, Decision::kSeed, 0.40, std::nullopt));
  append_entry(rec, make_entry(1, 0, Decision::kRetain, 0.30, -0.1));
  append_entry(rec, make_entry(2, 0, Decision::kRevert, 0.41, 0.01));  // should start from 1
  EXPECT_THROW((void)read_record(rec, false), Error);
  fs::remove_all(dir);
}

TEST(Record, DecisionsNeedConsistentFields) {
  RevisionEntry e = make_entry(1, 0, Decision::kRetain, 0.3, -0.1);
  e.candidate.passed = false;
  EXPECT_THROW((void)entry_from_json(to_json(e), "x"), Error);
  e = make_entry(1, 0, Decision::kReject, 0.3, std::nullopt);
  EXPECT_THROW((void)entry_from_json(to_json(e), "x"), Error);  // reject without reason
  e = make_entry(1, 0, Decision::kRevert, 0.3, -0.1);
  e.axes.push_back({"lane_map", "sideways"});
  EXPECT_THROW((void)entry_from_json(to_json(e), "x"), Error);
}

TEST(Progress, LineSaysRevisionBudgetDAxisAndDecision) {
  RevisionEntry e = make_entry(3, 2, Decision::kRetain, 0.2875, -0.0125);
  e.axes = {{"lane_map", "reverse"}};
  Progress p;
  p.budget = 12;
  p.has_retained = true;
  p.retained_revision = 3;
  p.retained_d = 0.2875;
  p.last = &e;
  const std::string line = progress_line(p);
  for (const char* want : {"revision 3 of 12", "lane_map reverse", "D 0.2875", "retain", "-0.0125",
                           "retained r3"})
    EXPECT_NE(line.find(want), std::string::npos) << want << " in " << line;
  RevisionEntry seed = make_entry(0, -1, Decision::kReject, 0.0, std::nullopt);
  seed.d.reset();
  seed.rejection_reason = "run (ncu): exit 127";
  p.has_retained = false;
  p.last = &seed;
  EXPECT_NE(progress_line(p).find("nothing retained"), std::string::npos) << progress_line(p);
  EXPECT_NE(progress_line(p).find("exit 127"), std::string::npos);
}

}  // namespace
}  // namespace vxsynth::refine
