#include "vxsynth/check/precision.h"

#include <bit>
#include <cmath>

#include "vxsynth/common/error.h"

namespace vxsynth::check {

const PrecisionRow& precision_row(PrecisionPath path) {
  for (const auto& row : kPrecisionTable) {
    if (row.path == path) return row;
  }
  throw make_error("precision path {} has no tolerance row", static_cast<int>(path));
}

Tolerance tolerance(PrecisionPath path, CheckKind kind) {
  const auto& row = precision_row(path);
  return kind == CheckKind::kSourceOutput ? row.source_output : row.candidate;
}

std::string_view to_string(PrecisionPath path) { return precision_row(path).id; }

PrecisionPath precision_path_from_string(std::string_view s) {
  for (const auto& row : kPrecisionTable) {
    if (row.id == s) return row.path;
  }
  throw make_error("unknown precision path '{}' (expected fp32, tf32, bf16 or tf32-fp16)", s);
}

std::string_view to_string(CheckKind kind) {
  return kind == CheckKind::kSourceOutput ? "source-output" : "candidate";
}

PrecisionPath precision_path_for(core::DType operand, core::EngineClass engine) {
  switch (operand) {
    case core::DType::kBf16: return PrecisionPath::kBf16;
    case core::DType::kTf32: return PrecisionPath::kTf32;
    case core::DType::kFp32:
      return engine == core::EngineClass::kTensorCore ? PrecisionPath::kTf32 : PrecisionPath::kFp32;
    case core::DType::kFp16:
    case core::DType::kFp64:
    case core::DType::kInt8: break;
  }
  throw make_error("operand type {} has no precision path (supported: fp32, tf32, bf16)",
                   static_cast<int>(operand));
}

bool stores_bf16(PrecisionPath path) { return path == PrecisionPath::kBf16; }

uint16_t float_to_bf16_bits(float f) {
  const uint32_t u = std::bit_cast<uint32_t>(f);
  if (std::isnan(f)) return static_cast<uint16_t>((u >> 16) | 0x40u);
  const uint32_t rounding = 0x7FFFu + ((u >> 16) & 1u);
  return static_cast<uint16_t>((u + rounding) >> 16);
}

float bf16_bits_to_float(uint16_t h) { return std::bit_cast<float>(static_cast<uint32_t>(h) << 16); }

uint16_t float_to_fp16_bits(float f) {
  const uint32_t u = std::bit_cast<uint32_t>(f);
  const uint32_t sign = (u >> 16) & 0x8000u;
  const uint32_t abs = u & 0x7FFFFFFFu;
  if (abs > 0x7F800000u) return static_cast<uint16_t>(sign | 0x7E00u);  // NaN
  if (abs >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // rounds to >= 65520: Inf
  if (abs < 0x38800000u) {
    // Subnormal half (or zero): value = abs_float * 2^24 rounded to an integer, nearest even.
    const float scaled = std::bit_cast<float>(abs) * 16777216.0f;  // exact (power of two)
    const float r = std::nearbyint(scaled);                         // default mode: nearest even
    return static_cast<uint16_t>(sign | static_cast<uint32_t>(r));
  }
  // Normal: rebias exponent 127 → 15, keep 10 mantissa bits, round to nearest even.
  const uint32_t mant_round = 0xFFFu + ((abs >> 13) & 1u);
  const uint32_t v = (abs + mant_round - (112u << 23)) >> 13;
  return static_cast<uint16_t>(sign | v);
}

float fp16_bits_to_float(uint16_t h) {
  const uint32_t sign = (static_cast<uint32_t>(h) & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1Fu;
  const uint32_t mant = h & 0x3FFu;
  if (exp == 0) {
    const float mag = static_cast<float>(mant) * (1.0f / 16777216.0f);  // mant · 2^-24
    return sign ? -mag : mag;
  }
  if (exp == 31) return std::bit_cast<float>(sign | 0x7F800000u | (mant << 13));
  return std::bit_cast<float>(sign | ((exp + 112u) << 23) | (mant << 13));
}

}  // namespace vxsynth::check
