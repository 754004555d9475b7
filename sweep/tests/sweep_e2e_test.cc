// vxsynth sweep end to end on a committed suite (data/evidence/h200/cuda-first-suite-2026-12-02):
// three of its benchmarks at two points of a [[point]] grid file that changes the core's local
// memory (the functional device's, through the runtime's VXSIM_LMEM_SIZE) and the D-cache
// (VXSIM_SET). The cheapest committed benchmark (ACT k4, its full profiled shape) runs on vxsim in
// timing mode at both points; two tensor-core benchmarks need more local memory than either point
// gives and are skipped, listed before anything runs. Every run fails the first time (a bad value
// in the timing configuration file the runs inherit through VXSIM_CONFIG), is retried by --resume
// and passes; a finished point is never run again. Then the output directory's rules and the
// report's sweep section (docs/sweep.md).
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

// The H200 suite of the 2026-11-30 bundles (kept as evidence; generator 5): its DP k2 and π0 k3 need
// more local memory than the sweep's 8 KiB point.
const fs::path kSuite = fs::path(VXSYNTH_SOURCE_DIR) / "data" / "evidence" / "h200" / "cuda-first-suite-2026-12-02";
// ACT k4: the committed benchmark with the fewest simulated cycles (docs/sweep.md "Cost"); its
// design needs at most 4 KiB of local memory. The other two need 16 KiB and 12 KiB per block.
const std::string kCheap = "act-k4";
const std::vector<std::string> kLarge = {"pi0-k3", "diffusion_policy-k2"};

ProcessResult vxsynth(std::vector<std::string> args, const std::map<std::string, std::string>& env = {},
                      double limit_s = 400) {
  args.insert(args.begin(), VXSYNTH_EXE);
  return run_process(args, {limit_s, {}, env});
}

json json_file(const fs::path& p) { return json::parse(read_file(p)); }

std::vector<std::string> lines(const fs::path& f) {
  std::vector<std::string> out;
  std::istringstream s(read_file(f));
  for (std::string l; std::getline(s, l);) out.push_back(l);
  return out;
}

struct Fixture {
  fs::path root, grid, out;
};

std::vector<std::string> sweep_args(const Fixture& f, const fs::path& out) {
  return {"sweep", kSuite.string(), "--grid-file", f.grid.string(), "-o", out.string(), "--benchmark", kCheap,
          "--benchmark", kLarge[0], "--benchmark", kLarge[1], "--baseline", "1", "-j", "2", "--sdk", VXSYNTH_SDK_DIR};
}

fs::path signature_of(const Fixture& f, const std::string& bench, int point) {
  return f.out / kRunDir / bench / fmt::format("p{}", point) / "vortex_signature.json";
}

bool skipped(const json& row) { return row["benchmark"] != kCheap; }

// First sweep: the skipped pairs listed up front, every feasible row an error whose detail says why.
void first_sweep_fails_with_the_reason(const Fixture& f) {
  write_file_atomic(f.root / "bad.toml", "[dcache]\nsize = \"large\"\n");
  const ProcessResult r = vxsynth(sweep_args(f, f.out), {{"VXSIM_CONFIG", (f.root / "bad.toml").string()}});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  const size_t skip = r.output.find(
      fmt::format("[sweep] skip {} at point 1 (lmem.size=8192 dcache.size=16384): design: tile: 16384 B of local "
                  "memory per block x 1 resident blocks per core exceeds the Vortex core's 8192 B", kLarge[0]));
  ASSERT_NE(skip, std::string::npos) << r.output;
  EXPECT_LT(skip, r.output.find("rows to run")) << r.output;
  EXPECT_NE(r.output.find("3 benchmarks × 2 points = 6 rows; 4 skipped"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("2 rows to run in 1 jobs"), std::string::npos) << r.output;
  const json data = sweep_data(f.out);
  ASSERT_EQ(data["rows"].size(), 6u);
  for (const json& row : data["rows"]) {
    if (skipped(row)) {
      EXPECT_EQ(row["status"], "skipped");
      EXPECT_NE(row["detail"].get<std::string>().find("of local memory per block"), std::string::npos) << row.dump();
      continue;
    }
    EXPECT_EQ(row["status"], "error") << row.dump();
    EXPECT_NE(row["detail"].get<std::string>().find("bad.toml:2: parameter 'dcache.size' must be a number"),
              std::string::npos)
        << row.dump();
  }
  EXPECT_EQ(json_file(f.out / ".sweep" / "collect.json")["failed"], 2);
}

// Resume: exactly the failed rows run again and pass; their first attempt stays on record.
void resume_retries_the_failed_rows(const Fixture& f) {
  std::vector<std::string> resume = sweep_args(f, f.out);
  resume.push_back("--resume");
  const ProcessResult r = vxsynth(resume);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("2 rows to run in 1 jobs"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("2 of them failed before and run again"), std::string::npos) << r.output;
  const std::vector<std::string> k4 = lines(f.out / kRowsDir / (kCheap + ".csv"));
  ASSERT_EQ(k4.size(), 4u);  // two attempts of each point, in order
  EXPECT_NE(k4[0].find(",error,1,"), std::string::npos) << k4[0];
  EXPECT_NE(k4[0].find("bad.toml"), std::string::npos) << k4[0];
  EXPECT_NE(k4[3].find(",PASSED,2,"), std::string::npos) << k4[3];
  EXPECT_NE(read_file(f.out / kRunDir / kCheap / "p0" / "run.1.log").find("bad.toml"), std::string::npos);
  EXPECT_EQ(read_file(f.out / kRunDir / kCheap / "p0" / "run.log").find("bad.toml"), std::string::npos);

  const json data = sweep_data(f.out);
  ASSERT_EQ(data["rows"].size(), 6u);
  for (const json& row : data["rows"]) {
    EXPECT_EQ(row["status"], skipped(row) ? "skipped" : "PASSED") << row.dump();
    if (skipped(row)) continue;
    EXPECT_GT(row["cycles"].get<double>(), 0) << row.dump();
    // The run used the point's machine: local memory and D-cache in the signature file.
    const json cfg = json_file(signature_of(f, row["benchmark"], row["point"].get<int>()))["config"];
    EXPECT_EQ(std::to_string(cfg["lmem_size"].get<int>()), row["settings"]["lmem.size"].get<std::string>());
    EXPECT_EQ(std::to_string(cfg["dcache_size"].get<int>()), row["settings"]["dcache.size"].get<std::string>());
    if (row["point"] == 1) {
      EXPECT_DOUBLE_EQ(row["speedup"].get<double>(), 1.0) << row.dump();  // --baseline 1
    }
  }
  // Rows in the plan's benchmark order (the suite's): ACT k4 at point 0, then at point 1.
  EXPECT_LT(data["rows"][0]["metrics"]["l1_hit_rate"].get<double>(),
            data["rows"][1]["metrics"]["l1_hit_rate"].get<double>());  // a 4 KiB D-cache hits less than 16 KiB
  const std::vector<std::string> csv = lines(f.out / kSweepCsv);
  ASSERT_EQ(csv.size(), 7u);
  EXPECT_NE(csv[0].find(",status,attempt,"), std::string::npos) << csv[0];
  EXPECT_NE(csv[0].find(",counter.dram_bytes_read,"), std::string::npos);

  // Nothing left: a finished point is never run again, its rows stay as they are.
  const ProcessResult again = vxsynth(resume);
  EXPECT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find("0 rows to run in 0 jobs"), std::string::npos) << again.output;
  EXPECT_EQ(lines(f.out / kRowsDir / (kCheap + ".csv")), k4);
}

void directory_rules(const Fixture& f) {
  ProcessResult r = vxsynth(sweep_args(f, f.out));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("holds a sweep: add --resume"), std::string::npos) << r.output;
  std::vector<std::string> other = sweep_args(f, f.out);
  other[2] = "--grid";
  other[3] = "lmem.size=8192,16384";
  other.push_back("--resume");
  r = vxsynth(other);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--resume: grid differs"), std::string::npos) << r.output;
  // A user's non-empty directory is refused and left as it was.
  const fs::path mine = f.root / "mine";
  fs::create_directories(mine);
  write_file_atomic(mine / "notes.txt", "mine\n");
  r = vxsynth(sweep_args(f, mine));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("is not empty and is not a sweep"), std::string::npos) << r.output;
  EXPECT_EQ(read_file(mine / "notes.txt"), "mine\n");
  EXPECT_FALSE(fs::exists(mine / kSweepFile));

  // The report's sweep section is sweep_data (above); the page itself is drawn by report --sweep.
}

TEST(SweepEndToEnd, CommittedSuiteFailedRowsRetriedOnResume) {
  Fixture f;
  f.root = fs::temp_directory_path() / fmt::format("vxsynth_sweep_e2e_{}", ::getpid());
  fs::remove_all(f.root);
  fs::create_directories(f.root);
  f.grid = f.root / "grid.toml";
  write_file_atomic(f.grid, "[[point]]\nlmem.size = 4096\ndcache.size = 4096\n"
                            "[[point]]\nlmem.size = 8192\ndcache.size = 16384\n");
  f.out = f.root / "sweep";
  first_sweep_fails_with_the_reason(f);
  if (::testing::Test::HasFatalFailure()) return;
  resume_retries_the_failed_rows(f);
  directory_rules(f);
  if (!::testing::Test::HasFailure()) fs::remove_all(f.root);
}

}  // namespace
}  // namespace vxsynth::sweep
