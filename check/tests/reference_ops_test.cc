#include "vxsynth/check/reference_ops.h"

#include <gtest/gtest.h>

#include "vxsynth/common/error.h"

namespace vxsynth::check {
namespace {

TEST(ReferenceOps, LinearHandComputed) {
  // x = [[1,2],[3,4]], w = [[1,0],[0,1],[1,1]] (N=3,K=2), bias = [0.5,-1,0]
  const std::vector<double> x{1, 2, 3, 4}, w{1, 0, 0, 1, 1, 1}, b{0.5, -1, 0};
  const auto out = reference_linear(x, w, b, 2, 3, 2, Activation::kNone);
  EXPECT_EQ(out, (std::vector<double>{1.5, 1, 3, 3.5, 3, 7}));
  const std::vector<double> xn{-1, -2, 3, 4};
  const auto relu = reference_linear(xn, w, b, 2, 3, 2, Activation::kRelu);
  EXPECT_EQ(relu, (std::vector<double>{0, 0, 0, 3.5, 3, 7}));
}

TEST(ReferenceOps, BmmStridedAndBroadcast) {
  // batch 2, M=1, K=2, N=2; a batches [1,2] and [3,4]; b shared (stride 0) = [[1,2],[3,4]]
  const std::vector<double> a{1, 2, 3, 4}, b{1, 2, 3, 4};
  const auto out = reference_bmm(a, b, 2, 1, 2, 2, 2, 0);
  EXPECT_EQ(out, (std::vector<double>{7, 10, 15, 22}));
}

TEST(ReferenceOps, Conv2dPaddingStrideDilationGroups) {
  // N=1, C=1, 3x3 input 1..9, K=1, 2x2 kernel of ones, stride 1, pad 0 → [[12,16],[24,28]]
  core::ConvShape s;
  s.n = 1; s.c = 1; s.h = 3; s.w = 3; s.k = 1; s.r = 2; s.s = 2;
  std::vector<double> x{1, 2, 3, 4, 5, 6, 7, 8, 9}, w{1, 1, 1, 1};
  EXPECT_EQ(reference_conv2d(x, w, {}, s, Activation::kNone), (std::vector<double>{12, 16, 24, 28}));
  // pad 1, stride 2 → output 2x2: positions (−1,−1),(−1,1),(1,−1),(1,1)
  s.pad = {1, 1};
  s.stride = {2, 2};
  EXPECT_EQ(reference_conv2d(x, w, {}, s, Activation::kNone), (std::vector<double>{1, 5, 11, 28}));
  // dilation 2, no pad, stride 1, 2x2 kernel → single output 1+3+7+9 = 20, plus bias 0.5
  s.pad = {0, 0};
  s.stride = {1, 1};
  s.dilation = {2, 2};
  const std::vector<double> bias{0.5};
  EXPECT_EQ(reference_conv2d(x, w, bias, s, Activation::kNone), (std::vector<double>{20.5}));
  // groups = 2: C=2, K=2, 1x1 kernel weights 2 and 3 → out channel 0 = 2·x0, channel 1 = 3·x1
  core::ConvShape g;
  g.n = 1; g.c = 2; g.h = 1; g.w = 2; g.k = 2; g.r = 1; g.s = 1; g.groups = 2;
  const std::vector<double> xg{1, 2, 10, 20}, wg{2, 3};
  EXPECT_EQ(reference_conv2d(xg, wg, {}, g, Activation::kNone), (std::vector<double>{2, 4, 30, 60}));
}

TEST(ReferenceOps, Conv1dThroughForward) {
  OpSpec op;
  op.family = OpFamily::kConv1d;
  op.conv.n = 1; op.conv.c = 1; op.conv.w = 4; op.conv.k = 1; op.conv.s = 3;
  op.conv.pad = {0, 1};
  op.has_bias = true;
  // x = 1 2 3 4, w = 1 0 -1, pad 1 → y[q] = x[q-1] - x[q+1]: [-2, -2, -2, 3], +bias 1
  std::vector<std::vector<double>> in{{1, 2, 3, 4}, {1, 0, -1}, {1}};
  EXPECT_EQ(reference_forward(op, in), (std::vector<double>{-1, -1, -1, 4}));
  EXPECT_EQ(output_shape(op), (std::vector<int64_t>{1, 1, 4}));
}

TEST(ReferenceOps, ForwardRejectsWrongInputSize) {
  OpSpec op;
  op.gemm = {1, 2, 2, 2};
  std::vector<std::vector<double>> in{{1, 2, 3}, {1, 2, 3, 4}};
  EXPECT_THROW((void)reference_forward(op, in), Error);
}

TEST(OpSpec, ValidateRejectsBadShapes) {
  OpSpec op;
  op.family = OpFamily::kConv2d;
  op.conv.n = 1; op.conv.c = 3; op.conv.h = 4; op.conv.w = 4; op.conv.k = 4; op.conv.r = 3; op.conv.s = 3;
  op.conv.groups = 2;
  try {
    op.validate();
    FAIL() << "groups=2 with C=3 must be rejected";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("groups"), std::string::npos);
  }
  OpSpec mm;
  mm.family = OpFamily::kMatmul;
  mm.gemm = {1, 4, 4, 4};
  mm.has_bias = true;
  EXPECT_THROW(mm.validate(), Error);
}

}  // namespace
}  // namespace vxsynth::check
