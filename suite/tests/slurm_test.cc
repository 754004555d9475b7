// The Slurm executor against a real single-node Slurm that the test starts and stops
// (suite/tests/slurm_cluster.sh: munged, slurmctld, slurmd on this host, files in a temporary
// directory). Skipped, with the reason, where it cannot start (not root, Slurm or munge missing).
#include <memory>

#include <gtest/gtest.h>

#include "suite_test_util.h"

namespace vxsynth::suite::test {
namespace {

using nlohmann::json;

const fs::path kCluster = kSource / "suite" / "tests" / "slurm_cluster.sh";

class SlurmSuite : public ::testing::Test {
 protected:
  void SetUp() override {
    tmp_ = std::make_unique<TempDir>("vxsuite_slurm");
    dir_ = tmp_->path();
    const ProcessResult r = run_process({kCluster.string(), "start", (dir_ / "cluster").string()}, {120.0});
    if (r.exit_code == 77) GTEST_SKIP() << "no Slurm here: " << r.output;
    ASSERT_TRUE(r.ok()) << r.output;
    env_["SLURM_CONF"] = (dir_ / "cluster" / "slurm.conf").string();
    started_ = true;
  }
  void TearDown() override {
    if (started_) (void)run_process({kCluster.string(), "stop", (dir_ / "cluster").string()}, {60.0});
    tmp_.reset();  // after the daemons that write into it have stopped
  }
  std::unique_ptr<TempDir> tmp_;
  fs::path dir_;
  std::map<std::string, std::string> env_;
  bool started_ = false;
};

TEST_F(SlurmSuite, JobArrayAndDependentCollectBuildTheSuiteAndAResubmissionSkipsFinishedKernels) {
  const fs::path suite = dir_ / "suite";
  const std::vector<std::string> args{"suite", "build", (kRefs / "act" / "bundle.json").string(), "-o", suite.string(),
                                      "--executor", "slurm", "--profile", "vxsim", "--budget", "0", "--kernel", "act:k4",
                                      "-j", "2", "--sdk", VXSYNTH_SDK_DIR};
  const ProcessResult r = vxsynth(args, 600, env_);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("slurm: array job"), std::string::npos) << r.output;
  const json s = json_file(suite / "suite.json");
  EXPECT_EQ(s["benchmarks_built"], 1);
  EXPECT_TRUE(fs::exists(suite / ".suite" / "slurm" / "array.sh"));
  EXPECT_EQ(json_file(suite / ".suite" / "jobs" / "act-k4.json")["exit"], 0);
  EXPECT_EQ(vxsynth({"suite", "check", suite.string()}).exit_code, 0);

  // Resubmitted: nothing left to build, only the collect job runs.
  std::vector<std::string> again = args;
  again.push_back("--resume");
  const ProcessResult r2 = vxsynth(again, 600, env_);
  ASSERT_EQ(r2.exit_code, 0) << r2.output;
  EXPECT_NE(r2.output.find("1 built already, 0 to build"), std::string::npos) << r2.output;
  EXPECT_NE(r2.output.find("array job - (0 tasks)"), std::string::npos) << r2.output;
}

}  // namespace
}  // namespace vxsynth::suite::test
