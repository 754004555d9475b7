#include "vxsynth/check/inputs.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>
#include <random>

#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"

namespace vxsynth::check {
namespace {

/// Standard normal from two uniform draws (Box–Muller), independent of the C++ library's
/// std::normal_distribution so values are reproducible across platforms.
double normal(std::mt19937_64& rng) {
  constexpr double kScale = 1.0 / 9007199254740992.0;  // 2^-53
  const double u1 = (static_cast<double>(rng() >> 11) + 1.0) * kScale;  // (0, 1]
  const double u2 = static_cast<double>(rng() >> 11) * kScale;          // [0, 1)
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

double round_to_storage(double v, PrecisionPath path) {
  const float f = static_cast<float>(v);
  return stores_bf16(path) ? static_cast<double>(bf16_bits_to_float(float_to_bf16_bits(f))) : static_cast<double>(f);
}

size_t elem_bytes(FileDType d) { return d == FileDType::kBf16 ? 2 : 4; }

}  // namespace

std::vector<InputTensor> generate_inputs(const OpSpec& op, PrecisionPath path, uint64_t seed) {
  op.validate();
  std::mt19937_64 rng(seed);
  const double weight_std = 1.0 / std::sqrt(static_cast<double>(op.fan_in()));
  std::vector<InputTensor> out;
  for (auto& info : operands(op)) {
    InputTensor t{info, {}};
    const double stddev = info.role == OperandRole::kActivation ? 1.0 : weight_std;
    t.values.resize(static_cast<size_t>(info.numel()));
    for (double& v : t.values) v = round_to_storage(stddev * normal(rng), path);
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<std::vector<double>> values_of(const std::vector<InputTensor>& inputs) {
  std::vector<std::vector<double>> v;
  v.reserve(inputs.size());
  for (const auto& t : inputs) v.push_back(t.values);
  return v;
}

FileDType file_dtype(PrecisionPath path) { return stores_bf16(path) ? FileDType::kBf16 : FileDType::kF32; }

void write_tensor_file(const std::filesystem::path& path, std::span<const double> values, FileDType dtype) {
  std::string bytes(values.size() * elem_bytes(dtype), '\0');
  for (size_t i = 0; i < values.size(); ++i) {
    const float f = static_cast<float>(values[i]);
    if (dtype == FileDType::kBf16) {
      const uint16_t h = float_to_bf16_bits(f);
      bytes[2 * i] = static_cast<char>(h & 0xFF);
      bytes[2 * i + 1] = static_cast<char>(h >> 8);
    } else {
      const uint32_t u = std::bit_cast<uint32_t>(f);
      for (size_t b = 0; b < 4; ++b) bytes[4 * i + b] = static_cast<char>((u >> (8 * b)) & 0xFF);
    }
  }
  write_file_atomic(path, bytes);
}

std::vector<double> read_tensor_file(const std::filesystem::path& path, int64_t numel, FileDType dtype) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw make_error("{}: output tensor file does not exist", path.string());
  const std::string bytes = read_file(path);
  const size_t want = static_cast<size_t>(numel) * elem_bytes(dtype);
  if (bytes.size() != want) {
    throw make_error("{}: {} bytes, expected {} ({} elements of {} bytes)", path.string(), bytes.size(), want, numel,
                     elem_bytes(dtype));
  }
  std::vector<double> out(static_cast<size_t>(numel));
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  for (size_t i = 0; i < out.size(); ++i) {
    if (dtype == FileDType::kBf16) {
      const auto h = static_cast<uint16_t>(p[2 * i] | (p[2 * i + 1] << 8));
      out[i] = bf16_bits_to_float(h);
    } else {
      uint32_t u = 0;
      for (size_t b = 0; b < 4; ++b) u |= static_cast<uint32_t>(p[4 * i + b]) << (8 * b);
      out[i] = std::bit_cast<float>(u);
    }
  }
  return out;
}

void write_poison_file(const std::filesystem::path& path, int64_t numel, FileDType dtype) {
  const std::vector<double> nan(static_cast<size_t>(numel), std::numeric_limits<double>::quiet_NaN());
  write_tensor_file(path, nan, dtype);
}

void write_inputs(const std::filesystem::path& dir, const std::vector<InputTensor>& inputs, PrecisionPath path) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw make_error("{}: cannot create input directory: {}", dir.string(), ec.message());
  for (const auto& t : inputs) write_tensor_file(dir / (t.info.name + ".bin"), t.values, file_dtype(path));
}

}  // namespace vxsynth::check
