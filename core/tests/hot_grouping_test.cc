// Hot-kernel grouping by the whole op signature and the answers to traces vxsynth cannot read, on the
// TCN fixture (tests/data/tcn, python -m vxsynth_torch.tcn_fixture) and the H200 captures.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/core/bundle.h"
#include "vxsynth/core/hot.h"
#include "vxsynth/core/reference.h"
#include "vxsynth/core/torch_trace.h"

namespace vxsynth::core {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string path(const std::string& rel) { return (fs::path(VXSYNTH_TEST_DATA_DIR) / rel).string(); }

json trace_json(const std::string& rel) {
  const std::string p = path(rel);
  return json::parse(gunzip(read_file(p), p));
}

std::string error_of(const json& j, const std::string& name) {
  try {
    (void)parse_torch_trace(j.dump(), name);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(HotGrouping, ConvolutionsThatDifferOnlyInDilationStayApart) {
  const TorchTrace tr = read_torch_trace(path("tcn/tcn.trace.json.gz"));
  ASSERT_EQ(tr.kernels.size(), 6u);
  // Same kernel name, grid, block and input dims for every launch: only the dilation tells them apart.
  for (const TraceKernel& k : tr.kernels) {
    EXPECT_EQ(k.name, tr.kernels[0].name);
    EXPECT_EQ(k.grid, tr.kernels[0].grid);
    EXPECT_EQ(k.op_stack.back().args[0].dims, tr.kernels[0].op_stack.back().args[0].dims);
  }
  const std::vector<HotKernel> hot = rank_hot_kernels(tr);
  ASSERT_EQ(hot.size(), 3u);
  std::set<int64_t> dilations;
  for (const HotKernel& h : hot) {
    EXPECT_EQ(h.launches.size(), 2u);
    const ReferenceContext c = build_context(tr.kernels[h.launches.front()], nullptr, Arch::kHopper);
    ASSERT_EQ(c.op, OpKind::kConv1d) << c.op_reason;
    ASSERT_TRUE(c.conv.has_value());
    EXPECT_EQ(c.conv->dilation[0], 1);
    dilations.insert(c.conv->dilation[1]);
    for (std::size_t i : h.launches) EXPECT_EQ(hot_group_key(tr.kernels[i]), h.key);
  }
  EXPECT_EQ(dilations, (std::set<int64_t>{2, 4, 8}));
  EXPECT_NEAR(hot[0].total_us, 2 * 80.0, 1e-9);  // 10 µs × dilation 8, twice: the largest first
}

TEST(HotGrouping, SignatureNamesEveryConvHyperParameter) {
  const TorchTrace tr = read_torch_trace(path("tcn/tcn.trace.json.gz"));
  const std::string s = op_signature(tr.kernels[0]);
  for (const char* part : {"aten::conv1d", "conv1d", "stride 1x1", "pad 0x0", "dilation 1x2", "groups 1", "|bias",
                           "1x16x64:float:1024,64,1"})
    EXPECT_NE(s.find(part), std::string::npos) << part << " in " << s;
}

TEST(HotGrouping, TraceWithoutShapesIsRefusedWithTheRecordingAdvice) {
  try {
    (void)read_torch_trace(path("tcn/tcn_no_shapes.trace.json.gz"));
    FAIL() << "accepted";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("tcn_no_shapes.trace.json.gz"), std::string::npos) << m;
    EXPECT_NE(m.find("input shapes are missing"), std::string::npos) << m;
    EXPECT_NE(m.find("record_shapes=True"), std::string::npos) << m;
  }
}

TEST(HotGrouping, UnreadConvolutionSaysWhy) {
  // The TCN trace with its convolutions made transposed (aten::conv_transpose1d, transposed=True).
  json j = trace_json("tcn/tcn.trace.json.gz");
  for (json& ev : j["traceEvents"]) {
    if (ev.value("name", "") == "aten::conv1d") ev["name"] = "aten::conv_transpose1d";
    if (ev.value("name", "") == "aten::convolution") ev["args"]["Concrete Inputs"][6] = "True";
  }
  const TorchTrace tr = parse_torch_trace(j.dump(), "transposed.json");
  const ReferenceContext c = build_context(tr.kernels[0], nullptr, Arch::kHopper);
  EXPECT_EQ(c.op, OpKind::kOther);
  EXPECT_NE(c.op_reason.find("aten::conv_transpose1d > aten::convolution"), std::string::npos) << c.op_reason;
  EXPECT_NE(c.op_reason.find("transposed convolution"), std::string::npos) << c.op_reason;
  EXPECT_EQ(context_to_json(c)["op_reason"], c.op_reason);  // the bundle keeps the reason
  // Still grouped by dilation: the unread op's arguments are in its signature.
  EXPECT_EQ(rank_hot_kernels(tr).size(), 3u);
}

TEST(HotGrouping, PaddingSameIsNamedInTheReason) {
  json j = trace_json("tcn/tcn.trace.json.gz");
  for (json& ev : j["traceEvents"])
    if (ev.value("cat", "") == "cpu_op") ev["args"]["Concrete Inputs"][4] = "same";
  const TorchTrace tr = parse_torch_trace(j.dump(), "same.json");
  const ReferenceContext c = build_context(tr.kernels[0], nullptr, Arch::kHopper);
  EXPECT_EQ(c.op, OpKind::kOther);
  EXPECT_NE(c.op_reason.find("padding 'same'"), std::string::npos) << c.op_reason;
}

TEST(HotGrouping, NcclKernelsAreCountedButNotRanked) {
  // The TCN trace with one all-reduce after the block, as PyTorch's NCCL process group launches it.
  json j = trace_json("tcn/tcn.trace.json.gz");
  j["traceEvents"].push_back(json::parse(R"J({"ph": "X", "cat": "cpu_op", "name": "nccl:all_reduce", "pid": 1,
      "tid": 1, "ts": 10000000.0, "dur": 50.0, "args": {"External id": 900, "Input Dims": [[1024]],
      "Input type": ["float"]}})J"));
  j["traceEvents"].push_back(json::parse(R"J({"ph": "X", "cat": "kernel",
      "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "pid": 0, "tid": 7,
      "ts": 10000010.0, "dur": 1000.0, "args": {"External id": 900, "correlation": 900, "device": 0,
      "stream": 7, "grid": [2, 1, 1], "block": [640, 1, 1]}})J"));
  const TorchTrace tr = parse_torch_trace(j.dump(), "ddp.json");
  const std::vector<HotKernel> hot = rank_hot_kernels(tr);
  ASSERT_EQ(hot.size(), 3u);  // the convolutions only
  const CommunicationTime comm = communication_time(tr);
  EXPECT_EQ(comm.launches, 1u);
  EXPECT_DOUBLE_EQ(comm.total_us, 1000.0);
  EXPECT_NEAR(comm.share, 1000.0 / tr.total_kernel_time_us(), 1e-12);
  double ranked = 0;
  for (const HotKernel& h : hot) ranked += h.share;
  EXPECT_NEAR(ranked + comm.share, 1.0, 1e-12);  // shares stay of all kernel time
}

TEST(HotGrouping, RocmTraceIsRefusedAsRocm) {
  // Kineto's ROCm backend: GPU kernel events without grid/block, hipLaunchKernel runtime events with them.
  const json j = {{"traceEvents",
                   {{{"ph", "X"}, {"cat", "kernel"}, {"name", "Cijk_Alik_Bljk_SB_MT64x64x8_MI16x16x4x1"}, {"pid", 2},
                     {"tid", 1}, {"ts", 10}, {"dur", 5}, {"args", {{"device", 0}, {"correlation", 7}}}},
                    {{"ph", "X"}, {"cat", "cuda_runtime"}, {"name", "hipLaunchKernel"}, {"pid", 1}, {"tid", 1},
                     {"ts", 5}, {"dur", 2},
                     {"args", {{"correlation", 7}, {"grid", {64, 1, 1}}, {"block", {256, 1, 1}}}}}}}};
  const std::string m = error_of(j, "rocm.json");
  EXPECT_NE(m.find("rocm.json"), std::string::npos) << m;
  EXPECT_NE(m.find("ROCm traces are not supported"), std::string::npos) << m;
  EXPECT_NE(m.find("hipLaunchKernel"), std::string::npos) << m;
}

TEST(HotGrouping, CommittedBundlesKeepTheirKernelIds) {
  // The H200 reference bundles' top-5 (built with the earlier name + grid + block + shape grouping)
  // keep their ids, kernels and launch counts: the linear launches of ACT k2 whose top-level inputs
  // differ only in rank ((302, 1, 512) and (302, 512)) are one GEMM and stay one group.
  const fs::path refs = fs::path(VXSYNTH_TEST_DATA_DIR).parent_path().parent_path() / "data/references/h200";
  for (const char* w : {"act"}) {  // the main job's bundle (pi0's holds too; its trace takes long to read)
    const json b = json::parse(read_file(refs / w / "bundle.json"));
    const std::vector<HotKernel> hot = rank_hot_kernels(read_torch_trace(refs / w / "trace.json.gz"), 5);
    ASSERT_EQ(hot.size(), b["kernels"].size()) << w;
    for (std::size_t r = 0; r < hot.size(); ++r) {
      EXPECT_EQ(hot[r].launches.size(), b["kernels"][r]["launches"].get<std::size_t>()) << w << " k" << r + 1;
      EXPECT_NEAR(hot[r].share, b["kernels"][r]["share"].get<double>(), 1e-9) << w << " k" << r + 1;
    }
  }
}

}  // namespace
}  // namespace vxsynth::core
