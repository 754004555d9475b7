#include "vxsynth/core/vortex_signature.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace vxsim::timing {
namespace {

using vxsynth::core::vortex_signature;
using vxsynth::core::vortex_signature_json;

using vxsynth::core::MetricId;

DeviceCounters sample() {
  DeviceCounters d;
  CoreCounters c;
  c.cycles = 1000;
  c.warp_instrs = 200;
  c.thread_instrs = 400;   // 4 threads, half the lanes on average
  c.dcache.reads = 80;
  c.dcache.read_misses = 20;
  c.gld_bytes = 320;
  c.gld_sectors = 20;      // 320 / (20 × 32) = 50 %
  c.busy = {300, 100, 500, 10, 0};
  c.amo_instrs = 2;
  c.fp_flops = 640;
  c.active_warp_cycles = 3000;  // 3 of 4 warps on average
  d.cores.push_back(c);
  d.cycles = 1000;
  d.dram.bytes_read = 256;
  d.dram.bytes_written = 64;
  return d;
}

TEST(VortexSignature, MetricsFromCounters) {
  TimingConfig cfg;
  vxsynth::core::Signature s = vortex_signature(sample(), cfg);
  EXPECT_DOUBLE_EQ(*s[MetricId::kL1HitRate], 75.0);
  EXPECT_FALSE(s[MetricId::kL2HitRate].has_value());  // no L2 in the config: NA
  EXPECT_DOUBLE_EQ(*s[MetricId::kCoalescing], 50.0);
  EXPECT_DOUBLE_EQ(*s[MetricId::kPeakCompute], 50.0);  // LSU busiest, 500 / 1000
  EXPECT_DOUBLE_EQ(*s[MetricId::kTensorMfu], 0.0);
  EXPECT_DOUBLE_EQ(*s[MetricId::kAtomicsPerInst], 0.01);
  EXPECT_DOUBLE_EQ(*s[MetricId::kArithIntensity], 2.0);  // 640 FLOP / 320 B
  EXPECT_DOUBLE_EQ(*s[MetricId::kDramBandwidth], 320.0 / (1000.0 / 400e6));
  EXPECT_DOUBLE_EQ(*s[MetricId::kActiveLanes], 0.5);
  EXPECT_DOUBLE_EQ(*s[MetricId::kOccupancy], 75.0);
}

TEST(VortexSignature, BusyCyclesAreNormalisedByIssueSlots) {
  // 32 warps give two issue slots (ISSUE_WIDTH = ceil(warps/16)), each with its own unit
  // instances: 1500 LSU-busy cycles over 1000 cycles is 75 % of the two LSUs, never 150 %.
  TimingConfig cfg;
  cfg.warps = 32;
  ASSERT_EQ(cfg.eff_issue_width(), 2u);
  DeviceCounters d = sample();
  d.cores[0].busy = {300, 100, 1500, 10, 0};
  vxsynth::core::Signature s = vortex_signature(d, cfg);
  EXPECT_DOUBLE_EQ(*s[MetricId::kPeakCompute], 75.0);
}

TEST(VortexSignature, L2MeasuredWhenPresentAndNoLoadsGiveZeroCoalescing) {
  TimingConfig cfg;
  cfg.l2.enabled = true;
  DeviceCounters d = sample();
  d.l2.push_back(CacheCounters{30, 10, 10, 10, 0, 0});
  d.cores[0].gld_sectors = 0;
  d.cores[0].gld_bytes = 0;
  vxsynth::core::Signature s = vortex_signature(d, cfg);
  EXPECT_DOUBLE_EQ(*s[MetricId::kL2HitRate], 50.0);
  EXPECT_DOUBLE_EQ(*s[MetricId::kCoalescing], 0.0);  // paper §3.2: 0 and kept in D
}

TEST(VortexSignature, NoDramTrafficMakesArithIntensityNA) {
  TimingConfig cfg;
  DeviceCounters d = sample();
  d.dram = DramCounters{};
  vxsynth::core::Signature s = vortex_signature(d, cfg);
  EXPECT_FALSE(s[MetricId::kArithIntensity].has_value());
  EXPECT_DOUBLE_EQ(*s[MetricId::kDramBandwidth], 0.0);
}

TEST(VortexSignature, JsonHasAllTenKeys) {
  TimingConfig cfg;
  DeviceCounters d = sample();
  auto j = nlohmann::json::parse(vortex_signature_json(vortex_signature(d, cfg), d, cfg, "k.vxbin"));
  const auto& m = j.at("metrics");
  EXPECT_EQ(m.size(), 10u);
  EXPECT_TRUE(m.at("l2_hit_rate").is_null());
  EXPECT_DOUBLE_EQ(m.at("occupancy").get<double>(), 75.0);
  EXPECT_EQ(j.at("platform"), "vortex");
  EXPECT_EQ(j.at("schema"), "vxsynth.signature");
  EXPECT_EQ(j.at("label"), "k.vxbin");
  EXPECT_EQ(j.at("counters").at("cycles"), 1000);
}

}  // namespace
}  // namespace vxsim::timing

#include <filesystem>

#include "vxsynth/common/file_io.h"
#include "vxsynth/core/bundle.h"

namespace vxsim::timing {
namespace {

using vxsynth::core::vortex_signature;
using vxsynth::core::vortex_signature_json;

TEST(VortexSignature, FileReadsBackThroughTheSignatureReader) {
  TimingConfig cfg;
  DeviceCounters d = sample();
  vxsynth::core::Signature s = vortex_signature(d, cfg);
  auto path = std::filesystem::temp_directory_path() / "vxsim_signature_test.json";
  vxsynth::write_file_atomic(path, vortex_signature_json(s, d, cfg, "micro"));
  vxsynth::core::SignatureRef back = vxsynth::core::load_signature_ref(path.string());
  std::filesystem::remove(path);
  EXPECT_EQ(back.label, "micro");
  for (std::size_t i = 0; i < s.values.size(); ++i) EXPECT_EQ(back.signature.values[i], s.values[i]) << i;
}

}  // namespace
}  // namespace vxsim::timing

#include "vxsim/timing/signature_hook.h"
#include "vxsynth/common/error.h"

namespace vxsim::timing {
namespace {

TEST(VortexSignatureHook, LinkingTheHookObjectInstallsTheAdapter) {
  // This program calls nothing to install it: the object's static initialiser did.
  const SignatureAdapter* a = signature_adapter();
  ASSERT_NE(a, nullptr);
  EXPECT_NE(dynamic_cast<const vxsynth::core::VortexSignatureAdapter*>(a), nullptr);
  TimingConfig cfg;
  DeviceCounters d = sample();
  EXPECT_EQ(a->run_file(d, cfg, "k"), vortex_signature_json(vortex_signature(d, cfg), d, cfg, "k"));
  EXPECT_EQ(a->report_lines(d, cfg), vxsynth::core::vortex_signature_lines(vortex_signature(d, cfg)));
}

TEST(VortexSignatureFile, MainLaunchIsTheOneWithMostCycles) {
  MeasuredLaunch small;
  small.index = 0;
  small.kernel_addr = 0x80000000;
  small.counters = sample();
  small.counters.cycles = 500;
  MeasuredLaunch big = small;
  big.index = 1;
  big.args_addr = 0x1000;
  big.counters.cycles = 2000;
  const auto j = nlohmann::json::parse(vxsynth::core::vortex_signature_file_json({small, big}));
  EXPECT_EQ(j.at("main_launch"), 1);
  EXPECT_EQ(j.at("counters").at("cycles"), 2000);
  EXPECT_EQ(j.at("label"), "vxsim launch index 1 of 2 launches (most cycles)");
  ASSERT_EQ(j.at("launches").size(), 2u);
  EXPECT_EQ(j.at("launches")[0].at("cycles"), 500);
  EXPECT_EQ(j.at("launches")[1].at("args_addr"), 0x1000);
  EXPECT_EQ(j.at("launches")[1].at("instructions"), 200);
  // One launch: its own document plus main_launch and launches (docs/timing.md).
  const auto one = nlohmann::json::parse(vxsynth::core::vortex_signature_file_json({small}));
  EXPECT_EQ(one.at("label"), "vxsim launch");
  EXPECT_EQ(one.at("main_launch"), 0);
  const std::vector<MeasuredLaunch> none;
  EXPECT_THROW((void)vxsynth::core::vortex_signature_file_json(none), vxsynth::Error);
}

}  // namespace
}  // namespace vxsim::timing
