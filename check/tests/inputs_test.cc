#include "vxsynth/check/inputs.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "vxsynth/common/error.h"

namespace vxsynth::check {
namespace {

OpSpec linear(int64_t m, int64_t n, int64_t k) {
  OpSpec op;
  op.family = OpFamily::kLinear;
  op.gemm = {1, m, n, k};
  op.has_bias = true;
  return op;
}

double stddev(const std::vector<double>& v) {
  double s = 0, s2 = 0;
  for (double x : v) { s += x; s2 += x * x; }
  const double n = static_cast<double>(v.size());
  return std::sqrt(s2 / n - (s / n) * (s / n));
}

TEST(Inputs, ScaledLikeWorkloadAndFreshPerSeed) {
  const OpSpec op = linear(64, 64, 256);
  const auto a = generate_inputs(op, PrecisionPath::kFp32, 1);
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a[0].info.name, "x");
  EXPECT_NEAR(stddev(a[0].values), 1.0, 0.05);
  EXPECT_NEAR(stddev(a[1].values), 1.0 / 16.0, 0.005);  // N(0, 1/K), K = 256
  const auto b = generate_inputs(op, PrecisionPath::kFp32, 2);
  EXPECT_NE(a[0].values, b[0].values);
  const auto a2 = generate_inputs(op, PrecisionPath::kFp32, 1);
  EXPECT_EQ(a[0].values, a2[0].values);
  for (double v : a[0].values) EXPECT_EQ(v, static_cast<double>(static_cast<float>(v)));
}

TEST(Inputs, Bf16ValuesAreOnTheBf16Grid) {
  const auto in = generate_inputs(linear(4, 4, 8), PrecisionPath::kBf16, 7);
  for (double v : in[0].values) {
    EXPECT_EQ(v, static_cast<double>(bf16_bits_to_float(float_to_bf16_bits(static_cast<float>(v)))));
  }
}

TEST(Inputs, TensorFilesRoundTripAndSizeErrors) {
  const auto dir = std::filesystem::temp_directory_path() / ("vxsynth_check_inputs_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::vector<double> v{1.5, -2.25, 0.0, 3.0};
  write_tensor_file(dir / "t.bin", v, FileDType::kF32);
  EXPECT_EQ(read_tensor_file(dir / "t.bin", 4, FileDType::kF32), v);
  write_tensor_file(dir / "h.bin", v, FileDType::kBf16);
  EXPECT_EQ(std::filesystem::file_size(dir / "h.bin"), 8u);
  EXPECT_EQ(read_tensor_file(dir / "h.bin", 4, FileDType::kBf16), v);
  try {
    (void)read_tensor_file(dir / "t.bin", 5, FileDType::kF32);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("t.bin: 16 bytes, expected 20"), std::string::npos) << e.what();
  }
  write_poison_file(dir / "p.bin", 3, FileDType::kF32);
  for (double x : read_tensor_file(dir / "p.bin", 3, FileDType::kF32)) EXPECT_TRUE(std::isnan(x));
  EXPECT_THROW((void)read_tensor_file(dir / "missing.bin", 1, FileDType::kF32), Error);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace vxsynth::check
