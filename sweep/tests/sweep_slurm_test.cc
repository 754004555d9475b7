// vxsynth sweep --executor slurm against a real single-node Slurm that the test starts and stops
// (suite/tests/slurm_cluster.sh, the suite's Slurm fixture: munged, slurmctld and slurmd on this
// host, every file in a temporary directory). Skipped, with the reason, where Slurm cannot start
// (not root, Slurm or munge missing). ACT k4 of the committed suite runs as the array's one task;
// π0 k3 is skipped at the point (its 16 KiB of local memory per block); the dependent collect job
// writes sweep.csv; a resubmission finds nothing to run.
#include <unistd.h>

#include <gtest/gtest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "vxsynth/common/file_io.h"
#include "vxsynth/common/process.h"
#include "vxsynth/sweep/sweep.h"

namespace vxsynth::sweep {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kSource = VXSYNTH_SOURCE_DIR;
const fs::path kCluster = kSource / "suite" / "tests" / "slurm_cluster.sh";

class SlurmSweep : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / fmt::format("vxsynth_sweep_slurm_{}", ::getpid());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    const ProcessResult r = run_process({kCluster.string(), "start", (dir_ / "cluster").string()}, {120.0});
    if (r.exit_code == 77) GTEST_SKIP() << "no Slurm here: " << r.output;
    ASSERT_TRUE(r.ok()) << r.output;
    env_["SLURM_CONF"] = (dir_ / "cluster" / "slurm.conf").string();
    started_ = true;
  }
  void TearDown() override {
    if (started_) (void)run_process({kCluster.string(), "stop", (dir_ / "cluster").string()}, {60.0});
    if (!HasFailure()) fs::remove_all(dir_);
  }
  ProcessResult vxsynth(std::vector<std::string> args) const {
    args.insert(args.begin(), VXSYNTH_EXE);
    return run_process(args, {600.0, {}, env_});
  }
  fs::path dir_;
  std::map<std::string, std::string> env_;
  bool started_ = false;
};

TEST_F(SlurmSweep, JobArrayRunsTheRowsAndTheDependentCollectWritesTheCsv) {
  const fs::path out = dir_ / "sweep";
  const std::vector<std::string> args{"sweep", (kSource / "data" / "suite" / "vx-robotics-h200").string(),
                                      "--grid", "lmem.size=8192", "-o", out.string(), "--benchmark", "act-k4",
                                      "--benchmark", "pi0-k3", "--executor", "slurm", "-j", "2", "--sdk",
                                      VXSYNTH_SDK_DIR};
  const ProcessResult r = vxsynth(args);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("[sweep] skip pi0-k3 at point 0 (lmem.size=8192)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("1 rows to run in 1 jobs"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("slurm: array job"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("(1 tasks)"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::exists(out / kStateDir / "slurm" / "array.sh"));
  EXPECT_EQ(json::parse(read_file(out / kStateDir / "jobs" / "act-k4.json"))["exit"], 0);
  const json data = sweep_data(out);
  ASSERT_EQ(data["rows"].size(), 2u);
  EXPECT_EQ(data["rows"][0]["benchmark"], "act-k4");
  EXPECT_EQ(data["rows"][0]["status"], "PASSED") << data["rows"][0].dump();
  EXPECT_GT(data["rows"][0]["cycles"].get<double>(), 0);
  EXPECT_EQ(data["rows"][1]["status"], "skipped");

  // Resubmitted: nothing left to run, only the collect job runs.
  std::vector<std::string> again = args;
  again.push_back("--resume");
  const ProcessResult r2 = vxsynth(again);
  ASSERT_EQ(r2.exit_code, 0) << r2.output;
  EXPECT_NE(r2.output.find("0 rows to run in 0 jobs"), std::string::npos) << r2.output;
  EXPECT_NE(r2.output.find("array job - (0 tasks)"), std::string::npos) << r2.output;
}

}  // namespace
}  // namespace vxsynth::sweep
