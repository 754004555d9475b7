// vxsynth sweep end to end: a real suite built with the vxsim backend from the shipped ACT
// bundle, its two linear kernels at a reduced shape (M=16 N=64 K=64, so each point runs in about
// a second; block sizes 128 and 256 as profiled on the H200), swept over warps on vxsim in timing
// mode; the skipped point listed before anything runs, resume after a lost row, the output
// directory's ownership, and the report's sweep section (docs/sweep.md).
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

ProcessResult vxsynth(std::vector<std::string> args, double limit_s = 300) {
  args.insert(args.begin(), VXSYNTH_EXE);
  return run_process(args, {limit_s});
}

json json_file(const fs::path& p) { return json::parse(read_file(p)); }

// The ACT bundle with kernels k1 and k4 at M=16 N=64 K=64: every operand dimension and stride
// equal to one of the profiled M, N, K becomes the reduced one (the two kernels' operands are
// contiguous, so their strides are dimensions). The reference signatures stay the H200's.
fs::path small_bundle(const fs::path& dir) {
  json b = json_file(kSource / "data" / "references" / "h200" / "act" / "bundle.json");
  b["workload"] = "act_small";
  for (json& k : b["kernels"]) {
    if (k["id"] != "k1" && k["id"] != "k4") continue;
    json& g = k["context"]["gemm"];
    const std::map<int64_t, int64_t> to{{g["m"].get<int64_t>(), 16}, {g["n"].get<int64_t>(), 64},
                                        {g["k"].get<int64_t>(), 64}};
    for (json& op : k["context"]["operands"])
      for (const char* f : {"dims", "strides"})
        for (json& v : op[f])
          if (to.count(v.get<int64_t>()) != 0) v = to.at(v.get<int64_t>());
    g["m"] = 16;
    g["n"] = 64;
    g["k"] = 64;
  }
  write_file_atomic(dir / "act_small.json", b.dump(1));
  return dir / "act_small.json";
}

// One suite for every step, in a directory of this process (CTest runs tests in parallel).
struct Fixture {
  fs::path root, suite;
};

std::vector<std::string> sweep_args(const Fixture& f, const fs::path& out, const std::string& grid) {
  return {"sweep", f.suite.string(), "--grid", grid, "-o", out.string(), "-j", "2", "--sdk", VXSYNTH_SDK_DIR};
}

std::vector<std::string> lines(const fs::path& f) {
  std::vector<std::string> out;
  std::istringstream s(read_file(f));
  for (std::string l; std::getline(s, l);) out.push_back(l);
  return out;
}

void warps_sweep_skips_resumes_and_reports(const Fixture& f) {
  const fs::path out = f.root / "warps";
  const ProcessResult r = vxsynth(sweep_args(f, out, "warps=16,32"));
  ASSERT_TRUE(r.ok()) << r.output;
  // The skipped point is listed before any row runs.
  const size_t skip = r.output.find("[sweep] skip act_small-k4 at point 0 (warps=16): design: fixed: block size 256 "
                                    "exceeds the Vortex core's 16 warps x 8 threads");
  ASSERT_NE(skip, std::string::npos) << r.output;
  EXPECT_LT(skip, r.output.find("] act_small-k1 at point")) << r.output;
  EXPECT_NE(r.output.find("3 rows to run in 2 jobs"), std::string::npos) << r.output;

  const std::vector<std::string> csv = lines(out / kSweepCsv);
  ASSERT_EQ(csv.size(), 5u) << read_file(out / kSweepCsv);
  const json data = sweep_data(out);
  ASSERT_EQ(data["rows"].size(), 4u);
  for (const json& row : data["rows"]) {
    const bool skipped = row["benchmark"] == "act_small-k4" && row["point"] == 0;
    EXPECT_EQ(row["status"], skipped ? "skipped" : "PASSED") << row.dump();
    if (skipped) continue;
    EXPECT_GT(row["cycles"].get<double>(), 0) << row.dump();
    EXPECT_EQ(row["settings"]["warps"], row["point"] == 0 ? "16" : "32");
    // The run used the point's machine: the signature file's configuration has its warps.
    const fs::path sig = out / kRunDir / row["benchmark"].get<std::string>() /
                         fmt::format("p{}", row["point"].get<int>()) / "vortex_signature.json";
    EXPECT_EQ(json_file(sig)["config"]["warps"], std::stoi(row["settings"]["warps"].get<std::string>())) << sig;
    if (row["point"] == 0) {
      EXPECT_DOUBLE_EQ(row["speedup"].get<double>(), 1.0);
    }
  }
  // The counters behind the signature are columns, summed over the launches.
  EXPECT_NE(csv[0].find(",counter.dram_bytes_read,"), std::string::npos);
  EXPECT_NE(csv[0].find(",l1_hit_rate,"), std::string::npos);

  // Resume after losing act_small-k1's second row: only that row runs again; the first is kept.
  const fs::path rows = out / kRowsDir / "act_small-k1.csv";
  std::vector<std::string> k1 = lines(rows);
  ASSERT_EQ(k1.size(), 2u);
  write_file_atomic(rows, k1[0] + "\n");
  ProcessResult again = vxsynth(sweep_args(f, out, "warps=16,32"));
  EXPECT_EQ(again.exit_code, 2) << again.output;
  EXPECT_NE(again.output.find("holds a sweep: add --resume"), std::string::npos) << again.output;
  std::vector<std::string> resume = sweep_args(f, out, "warps=16,32");
  resume.push_back("--resume");
  again = vxsynth(resume);
  ASSERT_TRUE(again.ok()) << again.output;
  EXPECT_NE(again.output.find("1 rows to run in 1 jobs"), std::string::npos) << again.output;
  EXPECT_EQ(lines(rows)[0], k1[0]);
  EXPECT_EQ(lines(rows).size(), 2u);
  EXPECT_EQ(lines(out / kSweepCsv).size(), 5u);
  // Nothing left: a third run runs nothing.
  again = vxsynth(resume);
  EXPECT_NE(again.output.find("0 rows to run in 0 jobs"), std::string::npos) << again.output;
  // Another grid on the same directory is refused, naming the field.
  resume[3] = "warps=32";
  again = vxsynth(resume);
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_NE(again.output.find("--resume: grid differs"), std::string::npos) << again.output;

  // The report's sweep section.
  const ProcessResult rep = vxsynth({"report", f.suite.string(), "--sweep", out.string(), "-o",
                                     (f.root / "report").string(), "--data-only"});
  ASSERT_TRUE(rep.ok()) << rep.output;
  const json rd = json_file(f.root / "report" / "data" / "report_data.json");
  ASSERT_TRUE(rd.contains("sweep")) << rd.dump().substr(0, 400);
  EXPECT_EQ(rd["sweep"]["rows"].size(), 4u);
}

void timing_parameters_reach_the_model_and_user_files_are_kept(const Fixture& f) {
  // A user's non-empty directory is refused and left as it was.
  const fs::path mine = f.root / "mine";
  fs::create_directories(mine);
  write_file_atomic(mine / "notes.txt", "mine\n");
  ProcessResult r = vxsynth(sweep_args(f, mine, "dcache.size=4096"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("is not empty and is not a sweep"), std::string::npos) << r.output;
  EXPECT_EQ(read_file(mine / "notes.txt"), "mine\n");
  EXPECT_FALSE(fs::exists(mine / kSweepFile));

  // VXSIM_SET parameters: a 1 KiB D-cache against a 64 KiB one on act_small-k4 (one point each).
  const fs::path out = f.root / "dcache";
  std::vector<std::string> a = sweep_args(f, out, "dcache.size=1024,65536");
  a.insert(a.end(), {"--benchmark", "act_small-k4", "--baseline", "1"});
  r = vxsynth(a);
  ASSERT_TRUE(r.ok()) << r.output;
  const json data = sweep_data(out);
  ASSERT_EQ(data["rows"].size(), 2u);
  const json& small = data["rows"][0];
  const json& large = data["rows"][1];
  for (const json* row : {&small, &large}) {
    const fs::path sig = out / kRunDir / "act_small-k4" / fmt::format("p{}", (*row)["point"].get<int>()) /
                         "vortex_signature.json";
    EXPECT_EQ(json_file(sig)["config"]["dcache_size"], std::stoi((*row)["settings"]["dcache.size"].get<std::string>()));
  }
  EXPECT_LT(small["metrics"]["l1_hit_rate"].get<double>(), large["metrics"]["l1_hit_rate"].get<double>());
  EXPECT_DOUBLE_EQ(large["speedup"].get<double>(), 1.0);  // --baseline 1
  EXPECT_LT(small["speedup"].get<double>(), 1.0);
}

TEST(SweepEndToEnd, SuiteOfTwoBenchmarksSweptResumedAndReported) {
  Fixture f;
  f.root = fs::temp_directory_path() / fmt::format("vxsynth_sweep_e2e_{}", ::getpid());
  fs::remove_all(f.root);
  fs::create_directories(f.root);
  f.suite = f.root / "suite";
  const ProcessResult r = vxsynth({"suite", "build", small_bundle(f.root).string(), "-o", f.suite.string(), "--profile",
                                   "vxsim", "--budget", "0", "--kernel", "act_small:k1", "--kernel", "act_small:k4",
                                   "-j", "2", "--sdk", VXSYNTH_SDK_DIR},
                                  600);
  ASSERT_TRUE(r.ok()) << r.output;
  warps_sweep_skips_resumes_and_reports(f);
  timing_parameters_reach_the_model_and_user_files_are_kept(f);
  if (!::testing::Test::HasFailure()) fs::remove_all(f.root);
}

}  // namespace
}  // namespace vxsynth::sweep
