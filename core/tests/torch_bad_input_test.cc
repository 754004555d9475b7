// Bad-input tests for the torch-trace importer (small synthetic inputs; real traces are tested in
// real_data_test.cc).
#include <gtest/gtest.h>

#include <zlib.h>

#include <filesystem>
#include <string>

#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/core/torch_trace.h"

namespace vxsynth::core {
namespace {

std::string error_of(const std::string& text) {
  try {
    (void)parse_torch_trace(text, "t.json");
  } catch (const vxsynth::Error& e) {
    return e.what();
  }
  return "";
}

TEST(TorchBadInput, NotJson) { EXPECT_NE(error_of("{\"traceEvents\": [").find("t.json: not valid JSON"), std::string::npos); }

TEST(TorchBadInput, EmptyTrace) {
  EXPECT_NE(error_of("{}").find("no 'traceEvents'"), std::string::npos);
  EXPECT_NE(error_of("{\"traceEvents\": []}").find("'traceEvents' is empty"), std::string::npos);
}

TEST(TorchBadInput, NoCudaEvents) {
  const std::string t = R"({"traceEvents": [
    {"ph":"X","cat":"cpu_op","name":"aten::addmm","pid":1,"tid":1,"ts":1.0,"dur":2.0,"args":{"External id":3}}]})";
  const std::string e = error_of(t);
  EXPECT_NE(e.find("no GPU kernel events"), std::string::npos) << e;
  EXPECT_NE(e.find("ProfilerActivity.CUDA"), std::string::npos) << e;
}

TEST(TorchBadInput, KernelWithoutGrid) {
  const std::string t = R"({"traceEvents": [
    {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1.0,"dur":2.0,"args":{"block":[1,1,1]}}]})";
  const std::string e = error_of(t);
  EXPECT_NE(e.find("traceEvents[0]"), std::string::npos) << e;
  EXPECT_NE(e.find("'grid'"), std::string::npos) << e;
}

TEST(TorchBadInput, TruncatedGzip) {
  const std::string json = R"({"traceEvents": [{"ph":"X","cat":"kernel","name":"k","ts":1,"dur":1,"args":{}}]})";
  uLongf n = compressBound(static_cast<uLong>(json.size())) + 32;
  std::string gz(n, '\0');
  z_stream zs{};
  ASSERT_EQ(deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(json.data()));
  zs.avail_in = static_cast<uInt>(json.size());
  zs.next_out = reinterpret_cast<Bytef*>(gz.data());
  zs.avail_out = static_cast<uInt>(gz.size());
  ASSERT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  gz.resize(zs.total_out);
  deflateEnd(&zs);
  EXPECT_EQ(gunzip(gz, "t.json.gz"), json);
  const std::string e = [&] {
    try {
      (void)gunzip(gz.substr(0, gz.size() / 2), "t.json.gz");
    } catch (const vxsynth::Error& err) {
      return std::string(err.what());
    }
    return std::string();
  }();
  EXPECT_NE(e.find("t.json.gz"), std::string::npos) << e;
}

}  // namespace
}  // namespace vxsynth::core
