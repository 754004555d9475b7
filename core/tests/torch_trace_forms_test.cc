// Both JSON forms of the Chrome Trace Event Format through the torch-trace importer: the object
// form ({"traceEvents": [...]}, what torch writes with CUDA activities) and the bare-array form (a
// top-level array of events, written by some CPU-only exports; its closing ']' is optional). Each
// fixture is written to a file by the test and read through read_torch_trace.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <string>

#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/core/torch_trace.h"

namespace vxsynth::core {
namespace {

namespace fs = std::filesystem;

// An aten::linear → aten::addmm op pair on the host and the GEMM kernel it launched (External id 7),
// plus a memcpy-like event of another category and a metadata event, which the importer skips.
const char* kEvents = R"(
  {"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":10.0,"dur":50.0,"args":{"External id":6}},
  {"ph":"X","cat":"cpu_op","name":"aten::addmm","pid":1,"tid":1,"ts":12.0,"dur":40.0,
   "args":{"External id":7,"Input Dims":[[512],[100,512],[512,512]],"Input type":["float","float","float"]}},
  {"ph":"M","name":"process_name","pid":1,"args":{"name":"python"}},
  {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD","pid":0,"tid":7,"ts":5.0,"dur":1.0,"args":{}},
  {"ph":"X","cat":"kernel","name":"sgemm_128x64_nn","pid":0,"tid":7,"ts":60.0,"dur":8.5,
   "args":{"External id":7,"grid":[8,2,1],"block":[256,1,1],"correlation":21,"device":0,"stream":7}}
)";

fs::path fixture(const std::string& name, const std::string& text) {
  const fs::path dir = fs::temp_directory_path() / ("vxsynth_torch_forms_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path p = dir / name;
  write_file_atomic(p, text);
  return p;
}

std::string error_of(const fs::path& p) {
  try {
    (void)read_torch_trace(p);
  } catch (const vxsynth::Error& e) {
    return e.what();
  }
  return "no error";
}

void expect_the_gemm(const TorchTrace& t) {
  ASSERT_EQ(t.kernels.size(), 1u);
  const TraceKernel& k = t.kernels[0];
  EXPECT_EQ(k.name, "sgemm_128x64_nn");
  EXPECT_DOUBLE_EQ(k.dur_us, 8.5);
  EXPECT_EQ(k.grid, (std::array<uint32_t, 3>{8, 2, 1}));
  EXPECT_EQ(k.block, (std::array<uint32_t, 3>{256, 1, 1}));
  ASSERT_EQ(k.op_stack.size(), 2u);
  EXPECT_EQ(k.op_stack[0].name, "aten::linear");
  EXPECT_EQ(k.op_stack[1].name, "aten::addmm");
  ASSERT_EQ(k.op_stack[1].args.size(), 3u);
  EXPECT_EQ(k.op_stack[1].args[1].dims, (std::vector<int64_t>{100, 512}));
}

TEST(TorchTraceForms, ObjectFormStillParses) {
  const TorchTrace t = read_torch_trace(fixture(
      "object.json", std::string(R"({"cuda_driver_version": 12040, "traceEvents": [)") + kEvents + "]}"));
  expect_the_gemm(t);
  EXPECT_EQ(t.cuda_driver_version, "12040");
}

TEST(TorchTraceForms, BareArrayParsesLikeTheObjectForm) {
  const fs::path p = fixture("bare.json", std::string("[") + kEvents + "]");
  const TorchTrace t = read_torch_trace(p);
  expect_the_gemm(t);
  EXPECT_EQ(t.path, p.string());
  EXPECT_TRUE(t.cuda_driver_version.empty());  // metadata exists only in the object form
  EXPECT_TRUE(t.gpu_name.empty());
}

TEST(TorchTraceForms, BareArrayMayLackItsClosingBracket) {
  expect_the_gemm(read_torch_trace(fixture("open.json", std::string("[") + kEvents + "\n")));
  expect_the_gemm(read_torch_trace(fixture("open_comma.json", std::string("[") + kEvents + ",\n")));
}

TEST(TorchTraceForms, BareArrayCutInsideAnEventIsInvalidJson) {
  std::string text = std::string("[") + kEvents;
  text.resize(text.size() - 20);  // inside the kernel event's args
  const std::string e = error_of(fixture("cut.json", text));
  EXPECT_NE(e.find("cut.json: not valid JSON"), std::string::npos) << e;
}

TEST(TorchTraceForms, BareArrayWithGarbageAfterTheLastEventIsInvalidJson) {
  const std::string e = error_of(fixture("junk.json", std::string("[") + kEvents + ", 12"));
  EXPECT_NE(e.find("junk.json: not valid JSON"), std::string::npos) << e;
}

TEST(TorchTraceForms, CpuOnlyBareArrayNamesTheRealProblem) {
  // What a CPU-only export looks like: host ops, no kernels. The error must be the missing GPU
  // activity, not a missing 'traceEvents'.
  const std::string e = error_of(fixture(
      "cpu_only.json",
      R"([{"ph":"X","cat":"cpu_op","name":"aten::addmm","pid":1,"tid":1,"ts":1.0,"dur":2.0,"args":{}}])"));
  EXPECT_NE(e.find("no GPU kernel events (cat \"kernel\") among 1 events"), std::string::npos) << e;
  EXPECT_EQ(e.find("traceEvents"), std::string::npos) << e;
}

TEST(TorchTraceForms, BareArrayErrorsNameTheEventIndex) {
  const std::string e = error_of(fixture(
      "bad_kernel.json",
      R"([{"ph":"M","name":"x"},{"ph":"X","cat":"kernel","name":"k","ts":1.0,"dur":2.0,"args":{"block":[1,1,1]}}])"));
  EXPECT_NE(e.find("bad_kernel.json: events[1]: kernel args field 'grid'"), std::string::npos) << e;
}

TEST(TorchTraceForms, EmptyOrNonTraceJsonIsStillRejected) {
  EXPECT_NE(error_of(fixture("empty.json", "[]")).find("the events array is empty"), std::string::npos);
  EXPECT_NE(error_of(fixture("obj.json", "{}")).find("no 'traceEvents' array and no top-level array"),
            std::string::npos);
  EXPECT_NE(error_of(fixture("num.json", "5")).find("no 'traceEvents' array"), std::string::npos);
}

}  // namespace
}  // namespace vxsynth::core
