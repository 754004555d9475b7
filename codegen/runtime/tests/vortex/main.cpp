// Runtime test host: a hand-written candidate on the fixed host driver (vxs_driver.h). Checks the
// element conversions on known values, then runs the guarded linear kernel (kernel.cpp) through
// vxs::run_candidate, which self-checks every element against the CPU reference.
#include <cstdio>
#include <vector>

#include "vxs_driver.h"

static const vxs::Operand kOperands[] = {
    {"x", 5 * 3, false, vxs::VXS_F32, vxs::VXS_F32},
    {"weight", 7 * 3, true, vxs::VXS_F32, vxs::VXS_F32},
    {"bias", 7, true, vxs::VXS_F32, vxs::VXS_F32},
};

static double cpu_reference(const std::vector<std::vector<double>>& in, size_t e) {
  const size_t m = e / 7, n = e % 7;
  double acc = in[2][n];
  for (size_t k = 0; k < 3; ++k) acc += in[0][m * 3 + k] * in[1][n * 3 + k];
  return acc;
}

/// Known conversions: round to nearest even at the halfway point, NaN stays NaN, fp16 subnormals.
static int check_conversions() {
  struct Case { float f; uint16_t bf16, fp16; };
  const Case cases[] = {
      {1.0f, 0x3F80, 0x3C00}, {-2.5f, 0xC020, 0xC100}, {1.00390625f, 0x3F80, 0x3C04},  // 1 + 2^-8: bf16 tie to even
      {65504.0f, 0x4780, 0x7BFF}, {1e6f, 0x4974, 0x7C00}, {5.9604645e-8f, 0x3380, 0x0001},
  };
  int bad = 0;
  for (const Case& c : cases) {
    if (vxs::f2bf(c.f) != c.bf16 || vxs::f2h(c.f) != c.fp16) {
      std::printf("*** conversion of %g: bf16 0x%04x (want 0x%04x), fp16 0x%04x (want 0x%04x)\n", static_cast<double>(c.f),
                  vxs::f2bf(c.f), c.bf16, vxs::f2h(c.f), c.fp16);
      ++bad;
    }
  }
  const uint16_t nan = vxs::f2bf(vxs::bf2f(0x7FC1));
  if ((nan & 0x7F80) != 0x7F80 || (nan & 0x7F) == 0) {
    std::printf("*** bf16 NaN became 0x%04x\n", nan);
    ++bad;
  }
  return bad;
}

int main(int argc, char** argv) {
  if (check_conversions() != 0) {
    std::printf("FAILED!\n");
    return 1;
  }
  vxs::CandidateSpec c;
  c.operands = kOperands;
  c.num_operands = 3;
  c.a = 0;
  c.b = 1;
  c.bias = 2;
  c.out_numel = 5 * 7;
  c.out_type = vxs::VXS_BF16;
  c.fan_in = 3;
  c.atol = 1e-2;  // bf16 output: half an ulp at |out| < 4
  c.rtol = 1e-2;
  c.dims = {1, 5, 7, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  c.grid[0] = 5;  // 5 blocks x 8 threads = 40 threads for 35 outputs
  c.block_size = 8;
  c.num_threads = 4;
  c.cpu_reference = cpu_reference;
  return vxs::run_candidate(c, argc, argv);
}
