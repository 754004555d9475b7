// How the loop knows an output directory is its own (run_dir.h): foreign directories of the shape
// users have (their own run.json, data files) are refused and left untouched; the committed H200
// evidence runs (run.json from before the schema field) are recognised.
#include "vxsynth/refine/run_dir.h"

#include <gtest/gtest.h>

#include <filesystem>

#include <fmt/format.h>

#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"

namespace vxsynth::refine {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

fs::path temp_dir(const std::string& name) {
  fs::path d = fs::temp_directory_path() / fmt::format("refine_run_dir_{}_{}", name, ::getpid());
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string refusal_of(const fs::path& dir) {
  try {
    (void)inspect_run_dir(dir);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

json our_run() {
  return json{{"schema", kRunSchema},     {"version", kRunVersion}, {"run_id", new_run_id()},
              {"kernel_id", "k4"},        {"bundle_sha256", std::string(64, 'a')},
              {"agent", "builtin"},       {"profile_backend", "vxsim"},
              {"seed", 1},                {"retain_margin", 0.005},
              {"kernel_name", "void gemm<float>(float*)"}};
}

const fs::path kEvidence = fs::path(VXSYNTH_SOURCE_DIR) / "data/evidence/h200/reconstruct-ncu-2026-11-30";

TEST(RunDir, AbsentAndEmpty) {
  const fs::path d = temp_dir("empty");
  EXPECT_EQ(inspect_run_dir(d / "nope").state, RunDirState::kAbsent);
  EXPECT_EQ(inspect_run_dir(d).state, RunDirState::kEmpty);
  write_file_atomic(d / "f", "x");
  EXPECT_NE(refusal_of(d / "f").find("exists and is not a directory"), std::string::npos);
  fs::remove_all(d);
}

TEST(RunDir, AForeignRunJsonIsNotTakenForARun) {
  const fs::path d = temp_dir("foreign");
  write_file_atomic(d / "notes.txt", "my notes");
  std::string e = refusal_of(d);
  EXPECT_NE(e.find("has no run.json"), std::string::npos) << e;
  EXPECT_NE(e.find("choose a new or empty -o"), std::string::npos) << e;
  write_file_atomic(d / "run.json", "not json");
  e = refusal_of(d);
  EXPECT_NE(e.find("not valid JSON"), std::string::npos) << e;
  write_file_atomic(d / "run.json", R"({"name": "my training run", "epochs": 3})");
  e = refusal_of(d);
  EXPECT_NE(e.find("no \"schema\" field"), std::string::npos) << e;
  write_file_atomic(d / "run.json", R"({"schema": "wandb.run", "version": 1})");
  e = refusal_of(d);
  EXPECT_NE(e.find("expected \"vxsynth.run\""), std::string::npos) << e;
  json future = our_run();
  future["version"] = 2;
  write_file_atomic(d / "run.json", future.dump());
  e = refusal_of(d);
  EXPECT_NE(e.find("schema version 2, this vxsynth reads version 1"), std::string::npos) << e;
  json bad = our_run();
  bad["seed"] = "one";
  write_file_atomic(d / "run.json", bad.dump());
  e = refusal_of(d);
  EXPECT_NE(e.find("field 'seed' has the wrong type"), std::string::npos) << e;
  EXPECT_EQ(read_file(d / "notes.txt"), "my notes");
  fs::remove_all(d);
}

TEST(RunDir, OurRunIsRecognisedAndItsRecordMustMatch) {
  const fs::path d = temp_dir("ours");
  write_file_atomic(d / "run.json", our_run().dump(2));
  EXPECT_EQ(inspect_run_dir(d).state, RunDirState::kRun);  // interrupted before the seed was recorded
  write_file_atomic(d / "record.jsonl", R"({"revision": 0, "agent": "builtin", "profile_backend": "vxsim"})"
                                        "\n");
  const RunDir r = inspect_run_dir(d);
  EXPECT_EQ(r.state, RunDirState::kRun);
  EXPECT_EQ(r.run["kernel_id"], "k4");
  write_file_atomic(d / "record.jsonl", R"({"revision": 0, "agent": "cmd:x", "profile_backend": "vxsim"})"
                                        "\n");
  const std::string e = refusal_of(d);
  EXPECT_NE(e.find("record.jsonl line 1 has agent \"cmd:x\" but run.json has \"builtin\""), std::string::npos) << e;
  fs::remove_all(d);
}

TEST(RunDir, CommittedEvidenceRunsAreRecognised) {
  int seen = 0;
  for (const auto& entry : fs::directory_iterator(kEvidence)) {
    if (!fs::exists(entry.path() / "run.json")) continue;
    const RunDir r = inspect_run_dir(entry.path());
    EXPECT_EQ(r.state, RunDirState::kLegacyRun) << entry.path();
    EXPECT_EQ(r.run["profile_backend"], "ncu") << entry.path();
    ++seen;
  }
  EXPECT_EQ(seen, 4);
}

// A legacy-shaped run.json next to a record from another backend is not one run.
TEST(RunDir, LegacyRunJsonWithAnotherRunsRecordIsRefused) {
  const fs::path d = temp_dir("legacy");
  fs::copy_file(kEvidence / "act-k4" / "run.json", d / "run.json");
  write_file_atomic(d / "record.jsonl", R"({"revision": 0, "agent": "builtin", "profile_backend": "vxsim"})"
                                        "\n");
  const std::string e = refusal_of(d);
  EXPECT_NE(e.find("profile_backend \"vxsim\" but run.json has \"ncu\""), std::string::npos) << e;
  fs::remove_all(d);
}

}  // namespace
}  // namespace vxsynth::refine
