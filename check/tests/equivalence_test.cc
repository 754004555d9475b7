#include "vxsynth/check/equivalence.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace vxsynth::check {
namespace {

const std::vector<double> kRef{0.5, -1.25, 2.0, 0.001};

CheckReport check(const std::vector<double>& cand, PrecisionPath p = PrecisionPath::kFp32) {
  return compare_outputs(cand, kRef, p, CheckKind::kCandidate, ReferenceKind::kCpuFloat64);
}

TEST(Equivalence, PassesWithinToleranceAndReportsErrors) {
  auto c = kRef;
  c[2] += 1e-4;  // allowed: 1e-5 + 1e-4·2 = 2.1e-4
  const auto r = check(c);
  EXPECT_TRUE(r.passed) << r.summary();
  EXPECT_NEAR(r.max_abs_error, 1e-4, 1e-12);
  EXPECT_NEAR(r.max_rel_error, 5e-5, 1e-12);
  EXPECT_EQ(r.elements, 4);
  EXPECT_NE(r.summary().find("candidate check vs cpu-float64 [fp32"), std::string::npos);
}

TEST(Equivalence, FailsOutOfTolerance) {
  auto c = kRef;
  c[1] += 1e-3;
  const auto r = check(c);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.failed, 1);
  EXPECT_EQ(r.worst_index, 1);
  EXPECT_NE(r.reason.find("element 1"), std::string::npos);
  // The same error passes under the wider BF16 candidate tolerance.
  EXPECT_TRUE(check(c, PrecisionPath::kBf16).passed);
}

TEST(Equivalence, NaNAndInfNeverPass) {
  auto c = kRef;
  c[3] = std::numeric_limits<double>::quiet_NaN();  // a poisoned element the kernel never wrote
  auto r = check(c, PrecisionPath::kBf16);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.non_finite, 1);
  EXPECT_NE(r.reason.find("never written"), std::string::npos);
  c[3] = std::numeric_limits<double>::infinity();
  EXPECT_FALSE(check(c, PrecisionPath::kBf16).passed);
}

TEST(Equivalence, AllZeroAndConstantOutputsFail) {
  const std::vector<double> tiny{1e-6, -1e-6, 2e-6};
  const std::vector<double> zeros(3, 0.0);
  // Zeros fit the tolerance of a near-zero reference, yet must fail.
  auto r = compare_outputs(zeros, tiny, PrecisionPath::kBf16, CheckKind::kSourceOutput, ReferenceKind::kCpuFloat64);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.reason.find("all zeros"), std::string::npos);
  const std::vector<double> constant(3, 1e-6);
  r = compare_outputs(constant, tiny, PrecisionPath::kBf16, CheckKind::kSourceOutput, ReferenceKind::kCpuFloat64);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.reason.find("constant"), std::string::npos);
}

TEST(Equivalence, SizeMismatchAndEmptyFail) {
  EXPECT_FALSE(check({1.0}).passed);
  EXPECT_FALSE(compare_outputs({}, {}, PrecisionPath::kFp32, CheckKind::kCandidate, ReferenceKind::kCpuFloat64).passed);
}

}  // namespace
}  // namespace vxsynth::check
