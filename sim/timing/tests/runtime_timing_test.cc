// The host runtime (vortex.h, sim/runtime) in its default timing mode: a regression-style launch of
// the micro-kernel through vx_upload_kernel_file/vx_start, then vx_mpm_query, vx_dump_perf with
// VORTEX_PROFILING=1|2 and the VXSIM_SIGNATURE file — all numbers from the timing model, carried
// by the kernel's perf dump.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "micro.h"
#include "vortex.h"
#include "vxsynth/common/file_io.h"

namespace {

/// Environment variable set for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) { ::setenv(name, value, 1); }
  ~ScopedEnv() { ::unsetenv(name_); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
};

struct Launch {
  int rc = -1;
  std::string perf;
  uint64_t cycles = 0;
  uint64_t instrs = 0;
  uint64_t dcache_reads = 0;
};

/// Unit-stride loads by 16 threads (1 core × 4 warps × 4 threads), then vx_dump_perf.
Launch launch() {
  Launch r;
  vx_device_h dev = nullptr;
  if (vx_dev_open(&dev) != 0) return r;
  micro_arg_t a{};
  a.mode = kMicroStrideLoad;
  a.n = 16;
  a.stride = 1;
  a.iters = 32;
  a.reps = 4;
  std::vector<float> src(a.n * a.iters, 1.0f);
  vx_buffer_h bsrc = nullptr, bdst = nullptr, bk = nullptr, barg = nullptr;
  vx_mem_alloc(dev, src.size() * 4, VX_MEM_READ, &bsrc);
  vx_mem_alloc(dev, a.n * 4, VX_MEM_READ_WRITE, &bdst);
  vx_copy_to_dev(bsrc, src.data(), 0, src.size() * 4);
  vx_mem_address(bsrc, &a.src);
  vx_mem_address(bdst, &a.dst);
  vx_upload_kernel_file(dev, VXSIM_MICRO_VXBIN, &bk);
  vx_upload_bytes(dev, &a, sizeof a, &barg);
  r.rc = vx_start(dev, bk, barg);
  if (r.rc == 0) r.rc = vx_ready_wait(dev, VX_MAX_TIMEOUT);
  vx_mpm_query(dev, 0xB00, 0, &r.cycles);
  vx_mpm_query(dev, 0xB02, 0, &r.instrs);
  vx_mpm_query(dev, 0xB06, 0, &r.dcache_reads);
  std::FILE* f = std::tmpfile();
  vx_dump_perf(dev, f);
  std::rewind(f);
  char buf[512];
  while (std::fgets(buf, sizeof buf, f) != nullptr) r.perf += buf;
  std::fclose(f);
  for (vx_buffer_h b : {bsrc, bdst, bk, barg}) vx_mem_free(b);
  vx_dev_close(dev);
  return r;
}

TEST(RuntimeTiming, MemoryClassPerfLinesComeFromTheTimingModel) {
  ScopedEnv prof("VORTEX_PROFILING", "2");
  Launch r = launch();
  ASSERT_EQ(r.rc, 0) << r.perf;
  EXPECT_GT(r.dcache_reads, 0u);  // a D-cache counter: the functional engine has none
  EXPECT_NE(r.perf.find("PERF: core0: dcache reads=" + std::to_string(r.dcache_reads) + "\n"), std::string::npos)
      << r.perf;
  EXPECT_TRUE(std::regex_search(r.perf, std::regex(R"(PERF: memory requests=\d+ \(reads=\d+, writes=\d+\)\n)")))
      << r.perf;
  // IPC below 1 thread instruction per cycle per lane: cycles are simulated, not instructions.
  EXPECT_GT(r.cycles, r.instrs / 4);
}

TEST(RuntimeTiming, CoreClassPerfLines) {
  ScopedEnv prof("VORTEX_PROFILING", "1");
  Launch r = launch();
  ASSERT_EQ(r.rc, 0);
  EXPECT_TRUE(std::regex_search(
      r.perf, std::regex(R"(PERF: scoreboard stalls=\d+ \(\d+%\) \(alu=\d+%, lsu=\d+%, csrs=\d+%, wctl=\d+%, fpu=\d+%, tcu=\d+%\)\n)")))
      << r.perf;
  EXPECT_NE(r.perf.find("PERF: instrs=" + std::to_string(r.instrs) + ", cycles=" + std::to_string(r.cycles)),
            std::string::npos)
      << r.perf;
}

TEST(RuntimeTiming, FunctionalModeAndConfigSelection) {
  Launch timing = launch();
  Launch functional;
  {
    ScopedEnv off("VXSIM_TIMING", "0");
    functional = launch();
  }
  ASSERT_EQ(timing.rc, 0);
  ASSERT_EQ(functional.rc, 0);
  // Functional mcycle counts warp instructions; the timing model's cycles are simulated. (minstret
  // is not compared: it is sampled by the kernel's exit path while other warps may still run, and
  // the two modes interleave warps differently.)
  EXPECT_NE(timing.cycles, functional.cycles);
  EXPECT_GT(functional.instrs, 0u);
  {
    ScopedEnv set("VXSIM_SET", "dram.row_miss_latency=400,dram.row_hit_latency=300");
    Launch slow = launch();
    EXPECT_GT(slow.cycles, timing.cycles);
  }
  {
    ScopedEnv bad("VXSIM_SET", "dcache.nonsense=1");
    testing::internal::CaptureStderr();
    Launch failed = launch();
    std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(failed.rc, 0);
    EXPECT_NE(err.find("dcache.nonsense"), std::string::npos) << err;
  }
}

TEST(RuntimeTiming, SignatureFilePerLaunch) {
  auto path = std::filesystem::temp_directory_path() / "vxsim_runtime_signature.json";
  std::filesystem::remove(path);
  {
    ScopedEnv sig("VXSIM_SIGNATURE", path.c_str());
    ASSERT_EQ(launch().rc, 0);
  }
  auto j = nlohmann::json::parse(vxsynth::read_file(path));
  std::filesystem::remove(path);
  EXPECT_EQ(j.at("schema"), "vxsynth.signature");
  EXPECT_EQ(j.at("metrics").size(), 10u);
  EXPECT_TRUE(j.at("metrics").at("l2_hit_rate").is_null());
  EXPECT_DOUBLE_EQ(j.at("metrics").at("tensor_mfu").get<double>(), 0.0);
}

TEST(RuntimeTiming, OneCycleCountEverywhere) {
  // vx_mpm_query's mcycle, the PERF line's cycles= and the signature file's cycles are the same
  // number: the timing model's cycles until the core finished (the kernel's exit path samples
  // mcycle before its last instructions, which used to make PERF show fewer cycles).
  auto path = std::filesystem::temp_directory_path() / "vxsim_runtime_one_cycle_count.json";
  std::filesystem::remove(path);
  Launch r;
  {
    ScopedEnv sig("VXSIM_SIGNATURE", path.c_str());
    r = launch();
  }
  ASSERT_EQ(r.rc, 0) << r.perf;
  auto j = nlohmann::json::parse(vxsynth::read_file(path));
  std::filesystem::remove(path);
  const uint64_t cycles = j.at("counters").at("cycles").get<uint64_t>();
  EXPECT_EQ(r.cycles, cycles);
  EXPECT_NE(r.perf.find(", cycles=" + std::to_string(cycles) + ","), std::string::npos) << r.perf;
}

TEST(RuntimeTiming, MemoryProfileFileAccountsForTheDramBytes) {
  // VXSIM_MEM_PROFILE: one tab-separated line per memory instruction of the launch plus a fetch
  // line; their DRAM bytes add up to the signature's, and the cycles are those of a run without.
  const auto dir = std::filesystem::temp_directory_path();
  const auto sig_path = dir / "vxsim_runtime_mem_profile.json", prof_path = dir / "vxsim_runtime_mem_profile.tsv";
  std::filesystem::remove(prof_path);
  const Launch plain = launch();
  Launch r;
  {
    ScopedEnv sig("VXSIM_SIGNATURE", sig_path.c_str());
    ScopedEnv prof("VXSIM_MEM_PROFILE", prof_path.c_str());
    r = launch();
  }
  ASSERT_EQ(r.rc, 0) << r.perf;
  EXPECT_EQ(r.cycles, plain.cycles);
  const auto counters = nlohmann::json::parse(vxsynth::read_file(sig_path)).at("counters");
  const std::string tsv = vxsynth::read_file(prof_path);
  std::filesystem::remove(sig_path);
  std::filesystem::remove(prof_path);
  ASSERT_EQ(tsv.rfind("launch\tpc\tinstruction\t", 0), 0u) << tsv.substr(0, 200);
  uint64_t dram = 0, lines = 0;
  bool float_load = false, fetch = false;
  std::istringstream in(tsv.substr(tsv.find('\n') + 1));
  for (std::string line; std::getline(in, line); ++lines) {
    std::vector<std::string> f;
    std::istringstream cols(line);
    for (std::string c; std::getline(cols, c, '\t');) f.push_back(c);
    ASSERT_EQ(f.size(), 12u) << line;
    EXPECT_EQ(f[0], "0") << line;  // one launch
    dram += std::stoull(f[10]) + std::stoull(f[11]);
    float_load = float_load || (f[2].rfind("flw ", 0) == 0 && f[3] == "load");
    fetch = fetch || f[1] == "fetch";
  }
  EXPECT_GT(lines, 10u);
  EXPECT_TRUE(float_load) << tsv;  // the kernel's strided load
  EXPECT_TRUE(fetch) << tsv;
  EXPECT_EQ(dram, counters.at("dram_bytes_read").get<uint64_t>() + counters.at("dram_bytes_written").get<uint64_t>());
}

TEST(RuntimeTiming, AMemoryProfileThatCannotBeWrittenStopsTheLaunchBeforeItRuns) {
  // A path in a missing directory or a directory is refused by vx_start before the simulation (a
  // kernel of hours would otherwise lose its run at the end).
  for (const std::string& bad : {std::string("/nonexistent-vxsim-dir/p.tsv"),
                                std::filesystem::temp_directory_path().string()}) {
    ScopedEnv prof("VXSIM_MEM_PROFILE", bad.c_str());
    const Launch r = launch();
    EXPECT_NE(r.rc, 0) << bad;
    EXPECT_EQ(r.cycles, 0u) << bad << ": the launch ran";
  }
}

TEST(RuntimeTiming, FunctionalAndTimingCountTheSameThreadInstructions) {
  // minstret as the kernel's exit path reads it: the instructions before the CSR read, in both
  // modes, on every core.
  for (const char* cores : {"1", "2"}) {
    ScopedEnv shape("VXSIM_CORES", cores);
    Launch timing = launch();
    Launch functional;
    {
      ScopedEnv off("VXSIM_TIMING", "0");
      functional = launch();
    }
    ASSERT_EQ(timing.rc, 0);
    ASSERT_EQ(functional.rc, 0);
    EXPECT_EQ(functional.instrs, timing.instrs) << cores << " cores";
    const std::regex total(R"(PERF: instrs=(\d+),)");
    std::smatch mt, mf;
    ASSERT_TRUE(std::regex_search(timing.perf, mt, total)) << timing.perf;
    ASSERT_TRUE(std::regex_search(functional.perf, mf, total)) << functional.perf;
    EXPECT_EQ(mf[1].str(), mt[1].str()) << cores << " cores";
  }
}

}  // namespace
