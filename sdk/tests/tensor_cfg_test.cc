// tensor_cfg.h on the host as Vortex's sgemm_tcu host code uses it: the format tags' `name`
// members (printed by Vortex's host programs) and the id → name lookup.
#include <gtest/gtest.h>

#include <string>

#include "tensor_cfg.h"

namespace vt = vortex::tensor;

TEST(TensorCfg, FormatTagsHaveVortexNames) {
  EXPECT_EQ(std::string(vt::fp32::name), "fp32");
  EXPECT_EQ(std::string(vt::fp16::name), "fp16");
  EXPECT_EQ(std::string(vt::bf16::name), "bf16");
  EXPECT_EQ(std::string(vt::int32::name), "i32");
  EXPECT_EQ(std::string(vt::int8::name), "i8");
  EXPECT_EQ(std::string(vt::uint8::name), "u8");
  EXPECT_EQ(std::string(vt::int4::name), "i4");
  EXPECT_EQ(std::string(vt::uint4::name), "u4");
  // The pattern of Vortex's host code: the tag types come from the WMMA configuration's users.
  using cfg = vt::wmma_config_t<8, vt::fp16, vt::fp32>;
  EXPECT_EQ(cfg::tileM, 8u);
  EXPECT_EQ(std::string(vt::fmt_string(vt::fp16::id)), "fp16");
  EXPECT_EQ(std::string(vt::fmt_string(vt::bf16::id)), "bf16");
  EXPECT_EQ(std::string(vt::fmt_string(99)), "");
}
