#include "vxsim/timing/perf_report.h"

#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <sstream>

namespace vxsim::timing {
namespace {

/// MPM values keyed by (core, slot).
struct Values {
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> v;
  uint64_t operator()(uint32_t c, uint32_t i) const {
    auto it = v.find({c, i});
    return it == v.end() ? 0 : it->second;
  }
};

TEST(PerfReport, NoClassOneCoreIsOneLine) {
  Values v;
  v.v[{0, 0}] = 1000;
  v.v[{0, 2}] = 250;
  PerfReportInfo info;
  EXPECT_EQ(format_perf_report(info, std::cref(v)), "PERF: instrs=250, cycles=1000, IPC=0.250000\n");
}

TEST(PerfReport, MultiCoreHasPerCoreLinesAndMaxCycles) {
  Values v;
  v.v[{0, 0}] = 1000;
  v.v[{0, 2}] = 300;
  v.v[{1, 0}] = 1200;
  v.v[{1, 2}] = 300;
  PerfReportInfo info;
  info.num_cores = 2;
  EXPECT_EQ(format_perf_report(info, std::cref(v)),
            "PERF: core0: instrs=300, cycles=1000, IPC=0.300000\n"
            "PERF: core1: instrs=300, cycles=1200, IPC=0.250000\n"
            "PERF: instrs=600, cycles=1200, IPC=0.500000\n");
}

TEST(PerfReport, CoreClassLines) {
  Values v;
  v.v[{0, 0}] = 200;
  v.v[{0, 2}] = 100;
  v.v[{0, 0x03}] = 20;   // idle
  v.v[{0, 0x06}] = 50;   // scoreboard
  v.v[{0, 0x08}] = 30;   // alu
  v.v[{0, 0x0A}] = 10;   // lsu
  v.v[{0, 0x09}] = 10;   // fpu
  v.v[{0, 0x0E}] = 40;   // ifetches
  v.v[{0, 0x11}] = 160;  // ifetch latency sum
  v.v[{0, 0x0F}] = 5;
  v.v[{0, 0x12}] = 101;
  PerfReportInfo info;
  info.mpm_class = MpmClass::kCore;
  std::string r = format_perf_report(info, std::cref(v));
  EXPECT_NE(r.find("PERF: scheduler idle=20 (10%)\n"), std::string::npos) << r;
  EXPECT_NE(r.find("PERF: scoreboard stalls=50 (25%) (alu=60%, lsu=20%, csrs=0%, wctl=0%, fpu=20%, tcu=0%)\n"),
            std::string::npos) << r;
  EXPECT_NE(r.find("PERF: ifetch latency=4 cycles\n"), std::string::npos) << r;
  EXPECT_NE(r.find("PERF: load latency=20 cycles\n"), std::string::npos) << r;
  EXPECT_NE(r.find("PERF: ifetches=40\nPERF: loads=5\nPERF: stores=0\n"), std::string::npos) << r;
}

TEST(PerfReport, MemClassLines) {
  Values v;
  v.v[{0, 0}] = 100;
  v.v[{0, 0x06}] = 200;  // dcache reads
  v.v[{0, 0x08}] = 50;   // read misses
  v.v[{0, 0x1F}] = 20;   // coalescer misses
  v.v[{0, 0x18}] = 60;   // mem reads
  v.v[{0, 0x19}] = 40;
  v.v[{0, 0x1A}] = 600;
  PerfReportInfo info;
  info.mpm_class = MpmClass::kMem;
  std::string r = format_perf_report(info, std::cref(v));
  EXPECT_NE(r.find("PERF: core0: dcache read misses=50 (hit ratio=75%)\n"), std::string::npos) << r;
  EXPECT_NE(r.find("PERF: core0: coalescer misses=20 (hit ratio=90%)\n"), std::string::npos) << r;
  EXPECT_NE(r.find("PERF: memory requests=100 (reads=60, writes=40)\n"), std::string::npos) << r;
  EXPECT_NE(r.find("PERF: memory latency=10 cycles\n"), std::string::npos) << r;
  EXPECT_NE(r.find("PERF: core0: lmem bank stalls=0 (utilization=0%)\n"), std::string::npos) << r;
  // Every line has SimX's shape.
  std::istringstream in(r);
  std::string line;
  std::regex shape(R"(PERF: (core\d+: )?[a-z0-9 ]+=\d+.*)");
  while (std::getline(in, line)) EXPECT_TRUE(std::regex_match(line, shape)) << line;
}

}  // namespace
}  // namespace vxsim::timing
