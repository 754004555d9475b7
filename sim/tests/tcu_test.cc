// WMMA: D = A·B + C for every warp width, checked against a plain matrix product. The fragment
// layout is the SDK contract of docs/sdk.md "Tensor cores", re-implemented here from that table.
#include <gtest/gtest.h>

#include <random>

#include "harness.h"
#include "vxsim/error.h"
#include "vxsim/fp.h"

namespace vxsim::test {
namespace {

/// Geometry per warp width, from the worked table of docs/vortex.md §7.1 (NR = 8).
struct Geo {
  uint32_t nt, M, N, xK, tcM, tcN, tcK, nra, nrb, nrc;
};
constexpr Geo kGeos[] = {{2, 4, 4, 4, 2, 1, 1, 8, 8, 8},
                         {4, 8, 4, 4, 2, 2, 2, 8, 4, 8},
                         {8, 8, 8, 8, 4, 2, 2, 8, 8, 8},
                         {16, 16, 8, 8, 4, 4, 4, 8, 4, 8},
                         {32, 16, 16, 16, 8, 4, 4, 8, 8, 8}};

enum Case : uint32_t { kFp16Fp32 = 0, kBf16Fp32 = 1, kFp16Fp16 = 2, kInt8Int32 = 3, kFp32Fp32 = 4 };

struct WmmaRun {
  std::vector<double> D;  // M×N
  std::vector<double> ref;
  uint64_t micro_ops = 0;
};

WmmaRun run_wmma(const Geo& g, Case which, uint32_t seed) {
  Config cfg;
  cfg.threads = g.nt;
  AsmMachine m("wmma", cfg);
  m.proc->memory().write32(m.sym("selector"), which);
  Warp& w = m.proc->core(0).warp(0);
  w.tmask = g.nt == 32 ? 0xFFFFFFFFu : ((1u << g.nt) - 1);
  const bool is_int = which == kInt8Int32;
  const uint32_t epw = is_int ? 4 : 2;
  const uint32_t K = g.xK * epw;
  const uint32_t k_steps = g.xK / g.tcK, n_steps = g.N / g.tcN;
  const uint32_t b_sub = g.nt / (g.tcN * g.tcK);
  const uint32_t rb = g.nrb == 4 ? 28 : 10, rc = g.nrb == 4 ? 10 : 24;
  std::mt19937 gen(seed);
  auto small = [&]() { return static_cast<int>(gen() % 7) - 3; };  // exact in every format
  std::vector<int> A(g.M * K), B(K * g.N), C(g.M * g.N);
  for (auto& v : A) v = small();
  for (auto& v : B) v = small();
  for (auto& v : C) v = small();
  auto enc_in = [&](int v) -> uint32_t {
    if (is_int) return static_cast<uint8_t>(static_cast<int8_t>(v));
    uint32_t f = std::bit_cast<uint32_t>(static_cast<float>(v));
    return which == kBf16Fp32 ? fp::f32_to_bf16(f) : fp::f32_to_f16(f);
  };
  auto F = [&](uint32_t reg, uint32_t lane) -> uint32_t& { return w.f[reg * g.nt + lane]; };
  for (uint32_t r = 0; r < g.nra; ++r) {
    for (uint32_t t = 0; t < g.nt; ++t) {
      uint32_t row = (r / k_steps) * g.tcM + t / g.tcK, kw = (r % k_steps) * g.tcK + t % g.tcK;
      uint32_t word = 0;
      for (uint32_t e = 0; e < epw; ++e) word |= enc_in(A[row * K + kw * epw + e]) << (e * (32 / epw));
      F(r, t) = word;
    }
  }
  for (uint32_t r = 0; r < g.nrb; ++r) {
    for (uint32_t t = 0; t < g.nt; ++t) {
      uint32_t s = t / (g.tcN * g.tcK), u = t % (g.tcN * g.tcK);
      uint32_t col = ((r / k_steps) * b_sub + s) * g.tcN + u / g.tcK, kw = (r % k_steps) * g.tcK + u % g.tcK;
      uint32_t word = 0;
      for (uint32_t e = 0; e < epw; ++e) word |= enc_in(B[(kw * epw + e) * g.N + col]) << (e * (32 / epw));
      F(rb + r, t) = word;
    }
  }
  auto c_index = [&](uint32_t r, uint32_t t) {
    return ((r / n_steps) * g.tcM + t / g.tcN) * g.N + (r % n_steps) * g.tcN + t % g.tcN;
  };
  for (uint32_t r = 0; r < g.nrc; ++r) {
    for (uint32_t t = 0; t < g.nt; ++t) {
      int v = C[c_index(r, t)];
      uint32_t bits = is_int ? static_cast<uint32_t>(v) : std::bit_cast<uint32_t>(static_cast<float>(v));
      if (which == kFp16Fp16) bits = 0xFFFF0000u | fp::f32_to_f16(bits);
      F(rc + r, t) = bits;
    }
  }
  WmmaRun out;
  out.D.assign(g.M * g.N, 0);
  out.ref.assign(g.M * g.N, 0);
  m.run();
  for (uint32_t r = 0; r < g.nrc; ++r) {
    for (uint32_t t = 0; t < g.nt; ++t) {
      uint32_t bits = F(rc + r, t);
      double v = 0;
      if (is_int) {
        v = static_cast<double>(static_cast<int32_t>(bits));
      } else if (which == kFp16Fp16) {
        v = static_cast<double>(std::bit_cast<float>(fp::f16_to_f32(static_cast<uint16_t>(bits))));
        EXPECT_EQ(bits >> 16, 0u) << "16-bit result zero-extended in the register (SimX)";
      } else {
        v = static_cast<double>(std::bit_cast<float>(bits));
      }
      out.D[c_index(r, t)] = v;
    }
  }
  for (uint32_t i = 0; i < g.M; ++i) {
    for (uint32_t j = 0; j < g.N; ++j) {
      double s = C[i * g.N + j];
      for (uint32_t k = 0; k < K; ++k) s += static_cast<double>(A[i * K + k]) * B[k * g.N + j];
      out.ref[i * g.N + j] = s;
    }
  }
  return out;
}

class Wmma : public ::testing::TestWithParam<Geo> {};

TEST_P(Wmma, Fp16ToFp32MatchesMatrixProduct) {
  WmmaRun r = run_wmma(GetParam(), kFp16Fp32, 1);
  EXPECT_EQ(r.D, r.ref);
}
TEST_P(Wmma, Bf16ToFp32MatchesMatrixProduct) {
  WmmaRun r = run_wmma(GetParam(), kBf16Fp32, 2);
  EXPECT_EQ(r.D, r.ref);
}
TEST_P(Wmma, Fp16ToFp16MatchesMatrixProduct) {
  WmmaRun r = run_wmma(GetParam(), kFp16Fp16, 3);
  EXPECT_EQ(r.D, r.ref);
}
TEST_P(Wmma, Int8ToInt32MatchesMatrixProduct) {
  WmmaRun r = run_wmma(GetParam(), kInt8Int32, 4);
  EXPECT_EQ(r.D, r.ref);
}

INSTANTIATE_TEST_SUITE_P(WarpWidths, Wmma, ::testing::ValuesIn(kGeos),
                         [](const ::testing::TestParamInfo<Geo>& p) { return "nt" + std::to_string(p.param.nt); });

TEST(WmmaErrors, UnsupportedFormatAndPartialMask) {
  try {
    run_wmma(kGeos[1], kFp32Fp32, 5);
    FAIL() << "fp32 inputs accepted";
  } catch (const SimError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kTcu);
    EXPECT_NE(std::string(e.what()).find("input format 0 → output format 0 is not supported"), std::string::npos) << e.what();
  }
  Config cfg;
  AsmMachine m("wmma", cfg);  // only thread 0 active
  try {
    m.run();
    FAIL() << "partial mask accepted";
  } catch (const SimError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kTcu);
    EXPECT_NE(std::string(e.what()).find("the whole warp must be active"), std::string::npos) << e.what();
  }
}

TEST(WmmaStep, ReportsMicroOpsAndMacs) {
  Config cfg;  // 4 threads: 4 m-steps × 2 n-steps × 2 k-steps = 16 micro-ops
  AsmMachine m("wmma", cfg);
  Core& core = m.proc->core(0);
  core.warp(0).tmask = 0xF;
  while (!m.proc->idle()) {
    ExecutedInstr e = core.step(0);
    if (e.unit == UnitClass::kTcu) {
      EXPECT_EQ(e.tcu_micro_ops, 16u);
      EXPECT_EQ(e.tcu_macs, 8u * 4u * 8u);  // M·N·tileK = 8·4·8 (fp16: 2 per word)
    }
  }
}

}  // namespace
}  // namespace vxsim::test

namespace vxsim::test {
namespace {

// SimX accumulates one product at a time onto C: 2^24 + 1 + 1 + … stays 2^24 in binary32 (each
// +1 is a tie to even), whereas summing the dot product first would give 2^24 + 8.
TEST(WmmaOrder, AccumulatesOneProductAtATimeOntoC) {
  Config cfg;  // NT = 4: C in f10-f17, B in f28-f31, 8 products per output (tcK 2 × 2 per word)
  AsmMachine m("wmma", cfg);
  Warp& w = m.proc->core(0).warp(0);
  w.tmask = 0xF;
  for (uint32_t t = 0; t < 4; ++t) {
    for (uint32_t r = 0; r < 8; ++r) w.f[r * 4 + t] = 0x3C003C00;         // A: fp16 1.0, 1.0
    for (uint32_t r = 28; r < 32; ++r) w.f[r * 4 + t] = 0x3C003C00;       // B
    for (uint32_t r = 10; r < 18; ++r) w.f[r * 4 + t] = 0x4B800000;       // C = 2^24
  }
  m.run();
  for (uint32_t t = 0; t < 4; ++t) {
    for (uint32_t r = 10; r < 18; ++r) EXPECT_EQ(w.f[r * 4 + t], 0x4B800000u) << "f" << r << " lane " << t;
  }
}

}  // namespace
}  // namespace vxsim::test
