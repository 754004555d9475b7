#include "vxsynth/check/precision.h"

#include <gtest/gtest.h>

#include <cmath>

#include "vxsynth/common/error.h"

namespace vxsynth::check {
namespace {

TEST(Precision, TableMatchesContract) {
  // docs/signature.md §4.
  EXPECT_EQ(tolerance(PrecisionPath::kFp32, CheckKind::kSourceOutput).atol, 1e-5);
  EXPECT_EQ(tolerance(PrecisionPath::kFp32, CheckKind::kCandidate).rtol, 1e-4);
  EXPECT_EQ(tolerance(PrecisionPath::kTf32, CheckKind::kSourceOutput).rtol, 2e-2);
  EXPECT_EQ(tolerance(PrecisionPath::kTf32, CheckKind::kCandidate).rtol, 1.5e-1);
  EXPECT_EQ(tolerance(PrecisionPath::kBf16, CheckKind::kSourceOutput).rtol, 1.6e-2);
  EXPECT_EQ(tolerance(PrecisionPath::kBf16, CheckKind::kCandidate).rtol, 5e-2);
  EXPECT_EQ(precision_path_from_string("bf16"), PrecisionPath::kBf16);
  EXPECT_THROW((void)precision_path_from_string("fp8"), Error);
  // A TF32 reference at FP16 (the Vortex-first translation): the TF32 row's candidate tolerance
  // for both checks, the row the TF32 path maps to under the Vortex TCU's formats.
  EXPECT_EQ(tolerance(PrecisionPath::kTf32Fp16, CheckKind::kSourceOutput).atol,
            tolerance(PrecisionPath::kTf32, CheckKind::kCandidate).atol);
  EXPECT_EQ(tolerance(PrecisionPath::kTf32Fp16, CheckKind::kSourceOutput).rtol, 1.5e-1);
  EXPECT_EQ(precision_path_from_string("tf32-fp16"), PrecisionPath::kTf32Fp16);
  EXPECT_EQ(precision_row(PrecisionPath::kTf32).vortex_tcu, PrecisionPath::kTf32Fp16);
  EXPECT_EQ(precision_row(PrecisionPath::kBf16).vortex_tcu, PrecisionPath::kBf16);
  EXPECT_FALSE(precision_row(PrecisionPath::kTf32Fp16).reference_types);
  for (size_t i = 0; i < kPrecisionTable.size(); ++i) EXPECT_EQ(static_cast<size_t>(kPrecisionTable[i].path), i);
}

TEST(Precision, PathForReferenceTypes) {
  EXPECT_EQ(precision_path_for(core::DType::kFp32, core::EngineClass::kSimt), PrecisionPath::kFp32);
  EXPECT_EQ(precision_path_for(core::DType::kFp32, core::EngineClass::kTensorCore), PrecisionPath::kTf32);
  EXPECT_EQ(precision_path_for(core::DType::kBf16, core::EngineClass::kTensorCore), PrecisionPath::kBf16);
  EXPECT_THROW((void)precision_path_for(core::DType::kInt8, core::EngineClass::kTensorCore), Error);
}

TEST(Precision, Bf16RoundsToNearestEven) {
  EXPECT_EQ(float_to_bf16_bits(1.0f), 0x3F80);
  // 1 + 2^-8 is exactly halfway between bf16 1.0 and 1.0078125: ties to even → 1.0.
  EXPECT_EQ(float_to_bf16_bits(1.00390625f), 0x3F80);
  // 1 + 3·2^-8 is halfway between 1.0078125 (odd) and 1.015625 (even) → up.
  EXPECT_EQ(float_to_bf16_bits(1.01171875f), 0x3F82);
  EXPECT_EQ(bf16_bits_to_float(0xC040), -3.0f);
  EXPECT_TRUE(std::isnan(bf16_bits_to_float(float_to_bf16_bits(NAN))));
}

TEST(Precision, Fp16RoundTripAndEdges) {
  EXPECT_EQ(float_to_fp16_bits(1.0f), 0x3C00);
  EXPECT_EQ(float_to_fp16_bits(-2.0f), 0xC000);
  EXPECT_EQ(float_to_fp16_bits(65504.0f), 0x7BFF);
  EXPECT_EQ(float_to_fp16_bits(65520.0f), 0x7C00);           // rounds to Inf
  EXPECT_EQ(float_to_fp16_bits(5.9604645e-8f), 0x0001);      // smallest subnormal 2^-24
  EXPECT_EQ(float_to_fp16_bits(1.0f + 1.0f / 2048.0f), 0x3C00);  // tie → even
  EXPECT_EQ(fp16_bits_to_float(0x3555), 0.333251953125f);
  EXPECT_EQ(fp16_bits_to_float(0x0001), 5.9604645e-8f);
  for (float f : {0.1f, -3.75f, 1000.5f, 1e-5f}) {
    const float back = fp16_bits_to_float(float_to_fp16_bits(f));
    EXPECT_NEAR(back, f, std::abs(f) * 1e-3 + 1e-7) << f;
  }
}

}  // namespace
}  // namespace vxsynth::check
