// $VXSIM_SIGNATURE with several launches (sim/runtime, docs/timing.md "Signature file"): a real
// two-launch split-K program (kernels/splitk.cpp, built with the SDK) through vortex.h in timing
// mode. Checks the per-launch array, the main-launch choice (most cycles, wherever it sits), that
// each launch's counters are its own (not cumulative), that the file is complete after every
// launch, and that a single-launch program's file keeps the old top level.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "splitk.h"
#include "vortex.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/core/bundle.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) { ::setenv(name, value.c_str(), 1); }
  ~ScopedEnv() { ::unsetenv(name_); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
};

constexpr uint32_t kM = 64, kK = 512, kSplits = 4;

/// One device with the split-K buffers; launch() runs one phase the way codegen's host does
/// (fresh argument buffer per launch, freed after it).
class SplitkProgram {
 public:
  SplitkProgram() {
    if (vx_dev_open(&dev_) != 0) return;
    a_.resize(kM * kK);
    for (uint32_t i = 0; i < kM * kK; ++i) a_[i] = static_cast<float>((i * 7u) % 13u) * 0.25f;
    ok_ = vx_mem_alloc(dev_, a_.size() * 4, VX_MEM_READ, &ba_) == 0 &&
          vx_mem_alloc(dev_, kSplits * kM * 4, VX_MEM_READ_WRITE, &bws_) == 0 &&
          vx_mem_alloc(dev_, kM * 4, VX_MEM_READ_WRITE, &bout_) == 0 &&
          vx_copy_to_dev(ba_, a_.data(), 0, a_.size() * 4) == 0 &&
          vx_upload_kernel_file(dev_, VXSIM_SPLITK_VXBIN, &bk_) == 0;
  }
  ~SplitkProgram() {
    for (vx_buffer_h b : {ba_, bws_, bout_, bk_}) vx_mem_free(b);
    if (dev_ != nullptr) vx_dev_close(dev_);
  }
  SplitkProgram(const SplitkProgram&) = delete;
  SplitkProgram& operator=(const SplitkProgram&) = delete;

  [[nodiscard]] bool ok() const { return ok_; }

  int launch(splitk_phase_t phase) {
    splitk_arg_t arg{phase, kM, kK, kSplits, 0, 0, 0};
    vx_mem_address(ba_, &arg.a);
    vx_mem_address(bws_, &arg.ws);
    vx_mem_address(bout_, &arg.out);
    vx_buffer_h bargs = nullptr;
    if (vx_upload_bytes(dev_, &arg, sizeof arg, &bargs) != 0) return -1;
    int rc = vx_start(dev_, bk_, bargs);
    if (rc == 0) rc = vx_ready_wait(dev_, VX_MAX_TIMEOUT);
    vx_mem_free(bargs);
    return rc;
  }

  /// What vx_dump_perf prints for this device.
  std::string dump_perf() {
    char* buf = nullptr;
    size_t len = 0;
    FILE* f = ::open_memstream(&buf, &len);
    if (f == nullptr) return {};
    vx_dump_perf(dev_, f);
    std::fclose(f);
    std::string text(buf, len);
    std::free(buf);
    return text;
  }

  /// Row sums read back from the device, and the expected ones.
  std::vector<float> out() {
    std::vector<float> o(kM);
    vx_copy_from_dev(o.data(), bout_, 0, kM * 4);
    return o;
  }
  [[nodiscard]] std::vector<float> expected() const {
    std::vector<float> e(kM, 0.0f);
    for (uint32_t i = 0; i < kM; ++i) {
      for (uint32_t s = 0; s < kSplits; ++s) {
        float acc = 0.0f;
        for (uint32_t kk = 0; kk < kK / kSplits; ++kk) acc += a_[i * kK + s * (kK / kSplits) + kk];
        e[i] += acc;
      }
    }
    return e;
  }

 private:
  vx_device_h dev_ = nullptr;
  vx_buffer_h ba_ = nullptr, bws_ = nullptr, bout_ = nullptr, bk_ = nullptr;
  std::vector<float> a_;
  bool ok_ = false;
};

fs::path temp_file(const std::string& name) {
  fs::path p = fs::temp_directory_path() / (name + "." + std::to_string(::getpid()) + ".json");
  fs::remove(p);
  return p;
}

json read_json(const fs::path& p) { return json::parse(vxsynth::read_file(p)); }

TEST(SignatureLaunches, SplitKTwoLaunchesRecordBothAndPickTheLongest) {
  const fs::path path = temp_file("vxsim_sig_splitk");
  ScopedEnv sig("VXSIM_SIGNATURE", path.string());
  SplitkProgram prog;
  ASSERT_TRUE(prog.ok());
  ASSERT_EQ(prog.launch(kSplitkPartials), 0);
  // Written after the first launch already: a crash in the second would keep this one.
  const json after_first = read_json(path);
  ASSERT_EQ(after_first.at("launches").size(), 1u);
  EXPECT_EQ(after_first.at("main_launch"), 0);

  ASSERT_EQ(prog.launch(kSplitkReduce), 0);
  EXPECT_EQ(prog.out(), prog.expected());
  const json j = read_json(path);
  fs::remove(path);
  ASSERT_EQ(j.at("launches").size(), 2u);
  const json& l0 = j["launches"][0];
  const json& l1 = j["launches"][1];
  EXPECT_EQ(l0.at("index"), 0);
  EXPECT_EQ(l1.at("index"), 1);
  EXPECT_EQ(l0.at("kernel_addr"), l1.at("kernel_addr"));  // one image, two argument buffers
  EXPECT_NE(l0.at("kernel_addr").get<uint64_t>(), 0u);
  EXPECT_NE(l0.at("args_addr").get<uint64_t>(), 0u);
  // The partials launch is the long one and the main launch, although it is not the last.
  EXPECT_GT(l0.at("cycles").get<uint64_t>(), 4 * l1.at("cycles").get<uint64_t>());
  EXPECT_GT(l0.at("instructions").get<uint64_t>(), l1.at("instructions").get<uint64_t>());
  EXPECT_EQ(j.at("main_launch"), 0);
  EXPECT_EQ(j.at("metrics"), l0.at("metrics"));
  EXPECT_EQ(j.at("counters"), l0.at("counters"));
  EXPECT_NE(l0.at("metrics"), l1.at("metrics"));
  EXPECT_NE(j.at("label").get<std::string>().find("index 0 of 2"), std::string::npos) << j.at("label");
  // The first launch's entry did not change when the second ran.
  EXPECT_EQ(after_first.at("launches")[0], l0);
  // core's signature reader takes the top level (the main launch).
  const fs::path again = temp_file("vxsim_sig_splitk_read");
  vxsynth::write_file_atomic(again, j.dump());
  const vxsynth::core::SignatureRef ref = vxsynth::core::load_signature_ref(again.string());
  fs::remove(again);
  ASSERT_TRUE(ref.signature[vxsynth::core::MetricId::kOccupancy]);
  EXPECT_DOUBLE_EQ(*ref.signature[vxsynth::core::MetricId::kOccupancy], l0["metrics"]["occupancy"].get<double>());
}

TEST(SignatureLaunches, PerLaunchCountersAreNotCumulative) {
  // The reduction launch measured alone on a fresh device (same buffers, same addresses) must read
  // exactly what it read as the second launch: a cumulative counter would add the partials launch.
  const fs::path two = temp_file("vxsim_sig_two");
  const fs::path alone = temp_file("vxsim_sig_alone");
  {
    ScopedEnv sig("VXSIM_SIGNATURE", two.string());
    SplitkProgram prog;
    ASSERT_TRUE(prog.ok());
    ASSERT_EQ(prog.launch(kSplitkPartials), 0);
    ASSERT_EQ(prog.launch(kSplitkReduce), 0);
  }
  {
    ScopedEnv sig("VXSIM_SIGNATURE", alone.string());
    SplitkProgram prog;
    ASSERT_TRUE(prog.ok());
    ASSERT_EQ(prog.launch(kSplitkReduce), 0);
  }
  const json j2 = read_json(two);
  const json j1 = read_json(alone);
  fs::remove(two);
  fs::remove(alone);
  ASSERT_EQ(j2.at("launches").size(), 2u);
  ASSERT_EQ(j1.at("launches").size(), 1u);
  const json& second = j2["launches"][1];
  const json& single = j1["launches"][0];
  EXPECT_EQ(second.at("args_addr"), single.at("args_addr"));
  EXPECT_EQ(second.at("cycles"), single.at("cycles"));
  EXPECT_EQ(second.at("instructions"), single.at("instructions"));
  EXPECT_EQ(second.at("counters"), single.at("counters"));
  EXPECT_EQ(second.at("metrics"), single.at("metrics"));
  EXPECT_LT(second.at("instructions").get<uint64_t>(), j2["launches"][0].at("instructions").get<uint64_t>());
}

TEST(SignatureLaunches, MainLaunchIsTheLongestWhereverItRuns) {
  const fs::path path = temp_file("vxsim_sig_middle");
  ScopedEnv sig("VXSIM_SIGNATURE", path.string());
  SplitkProgram prog;
  ASSERT_TRUE(prog.ok());
  ASSERT_EQ(prog.launch(kSplitkReduce), 0);
  ASSERT_EQ(prog.launch(kSplitkPartials), 0);
  ASSERT_EQ(prog.launch(kSplitkReduce), 0);
  const json j = read_json(path);
  fs::remove(path);
  ASSERT_EQ(j.at("launches").size(), 3u);
  EXPECT_EQ(j.at("main_launch"), 1);
  EXPECT_EQ(j.at("metrics"), j["launches"][1].at("metrics"));
  EXPECT_NE(j.at("metrics"), j["launches"][0].at("metrics"));
}

TEST(SignatureLaunches, SingleLaunchFileKeepsTheOldTopLevel) {
  const fs::path path = temp_file("vxsim_sig_single");
  {
    ScopedEnv sig("VXSIM_SIGNATURE", path.string());
    SplitkProgram prog;
    ASSERT_TRUE(prog.ok());
    ASSERT_EQ(prog.launch(kSplitkPartials), 0);
  }
  const json j = read_json(path);
  fs::remove(path);
  // The keys and order a single-launch file had before per-launch signatures, then the two new ones.
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
  std::vector<std::string> want = {"schema", "version", "label", "platform", "source", "metrics", "counters",
                                   "config", "main_launch", "launches"};
  std::sort(keys.begin(), keys.end());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(keys, want);
  EXPECT_EQ(j.at("label"), "vxsim launch");
  EXPECT_EQ(j.at("main_launch"), 0);
  ASSERT_EQ(j.at("launches").size(), 1u);
  EXPECT_EQ(j.at("metrics"), j["launches"][0].at("metrics"));
  EXPECT_EQ(j.at("counters").at("cycles"), j["launches"][0].at("cycles"));
  EXPECT_EQ(j.at("counters").at("warp_instrs"), j["launches"][0].at("instructions"));
}

TEST(SignatureLaunches, FunctionalModeWritesNoSignature) {
  const fs::path path = temp_file("vxsim_sig_functional");
  ScopedEnv sig("VXSIM_SIGNATURE", path.string());
  ScopedEnv off("VXSIM_TIMING", "0");
  SplitkProgram prog;
  ASSERT_TRUE(prog.ok());
  ASSERT_EQ(prog.launch(kSplitkPartials), 0);
  ASSERT_EQ(prog.launch(kSplitkReduce), 0);
  EXPECT_EQ(prog.out(), prog.expected());
  EXPECT_FALSE(fs::exists(path));
}

// vx_dump_perf after two launches: one PERF line per launch and their sum, then the SimX-format
// block of the last launch (each launch resets the processor's counters).
TEST(SignatureLaunches, DumpPerfNamesEveryLaunch) {
  SplitkProgram prog;
  ASSERT_TRUE(prog.ok());
  ASSERT_EQ(prog.launch(kSplitkPartials), 0);
  ASSERT_EQ(prog.launch(kSplitkReduce), 0);
  const std::string text = prog.dump_perf();
  auto number_after = [&](const std::string& key, size_t from) -> uint64_t {
    const size_t at = text.find(key, from);
    EXPECT_NE(at, std::string::npos) << key << " in\n" << text;
    return at == std::string::npos ? 0 : std::stoull(text.substr(at + key.size()));
  };
  const size_t l0 = text.find("PERF: launch 0 of 2: ");
  const size_t l1 = text.find("PERF: launch 1 of 2: ");
  const size_t all = text.find("PERF: all 2 launches: ");
  ASSERT_NE(l0, std::string::npos) << text;
  ASSERT_NE(l1, std::string::npos) << text;
  ASSERT_NE(all, std::string::npos) << text;
  const uint64_t i0 = number_after("instrs=", l0), i1 = number_after("instrs=", l1);
  const uint64_t c0 = number_after("cycles=", l0), c1 = number_after("cycles=", l1);
  EXPECT_GT(i0, i1);  // the partials launch does the work
  EXPECT_EQ(number_after("instrs=", all), i0 + i1);
  EXPECT_EQ(number_after("cycles=", all), c0 + c1);
  // The SimX-format total line that follows is the last launch's.
  const size_t last = text.find("PERF: instrs=", all);
  ASSERT_NE(last, std::string::npos) << text;
  EXPECT_EQ(number_after("instrs=", last), i1);
}

}  // namespace
