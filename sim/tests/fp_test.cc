// binary32 known answers from the IEEE-754/RISC-V F rules, worked out by hand (the comment of each
// vector gives the exact value). Flags: NV DZ OF UF NX.
#include <gtest/gtest.h>

#include <string>

#include "vxsim/fp.h"

namespace vxsim::fp {
namespace {

constexpr uint32_t NX = kNX, UF = kUF, OF = kOF, DZ = kDZ, NV = kNV;
constexpr uint32_t kOne = 0x3F800000, kTwo = 0x40000000, kThree = 0x40400000, kHalf = 0x3F000000;
constexpr uint32_t kPosZero = 0, kNegZero = 0x80000000, kInf = 0x7F800000, kNegInf = 0xFF800000;
constexpr uint32_t kQNaN = 0x7FC12345, kSNaN = 0x7F800001, kMax = 0x7F7FFFFF;

struct Vec {
  const char* what;
  uint32_t (*op)(uint32_t, uint32_t, uint32_t, Rm, uint32_t&);
  uint32_t a, b, c;
  Rm rm;
  uint32_t expect;
  uint32_t flags;
};

uint32_t Add(uint32_t a, uint32_t b, uint32_t, Rm rm, uint32_t& f) { return add(a, b, rm, f); }
uint32_t Sub(uint32_t a, uint32_t b, uint32_t, Rm rm, uint32_t& f) { return sub(a, b, rm, f); }
uint32_t Mul(uint32_t a, uint32_t b, uint32_t, Rm rm, uint32_t& f) { return mul(a, b, rm, f); }
uint32_t Div(uint32_t a, uint32_t b, uint32_t, Rm rm, uint32_t& f) { return div(a, b, rm, f); }
uint32_t Sqrt(uint32_t a, uint32_t, uint32_t, Rm rm, uint32_t& f) { return fp::sqrt(a, rm, f); }
uint32_t Fmadd(uint32_t a, uint32_t b, uint32_t c, Rm rm, uint32_t& f) { return fma(a, b, c, false, false, rm, f); }
uint32_t Fmsub(uint32_t a, uint32_t b, uint32_t c, Rm rm, uint32_t& f) { return fma(a, b, c, false, true, rm, f); }
uint32_t Fnmsub(uint32_t a, uint32_t b, uint32_t c, Rm rm, uint32_t& f) { return fma(a, b, c, true, false, rm, f); }
uint32_t Fnmadd(uint32_t a, uint32_t b, uint32_t c, Rm rm, uint32_t& f) { return fma(a, b, c, true, true, rm, f); }
uint32_t Min(uint32_t a, uint32_t b, uint32_t, Rm, uint32_t& f) { return fp::min(a, b, f); }
uint32_t Max(uint32_t a, uint32_t b, uint32_t, Rm, uint32_t& f) { return fp::max(a, b, f); }
uint32_t Eq(uint32_t a, uint32_t b, uint32_t, Rm, uint32_t& f) { return eq(a, b, f); }
uint32_t Lt(uint32_t a, uint32_t b, uint32_t, Rm, uint32_t& f) { return lt(a, b, f); }
uint32_t Le(uint32_t a, uint32_t b, uint32_t, Rm, uint32_t& f) { return le(a, b, f); }
uint32_t CvtWS(uint32_t a, uint32_t, uint32_t, Rm rm, uint32_t& f) { return cvt_w_s(a, rm, f); }
uint32_t CvtWuS(uint32_t a, uint32_t, uint32_t, Rm rm, uint32_t& f) { return cvt_wu_s(a, rm, f); }
uint32_t CvtSW(uint32_t a, uint32_t, uint32_t, Rm rm, uint32_t& f) { return cvt_s_w(a, rm, f); }
uint32_t CvtSWu(uint32_t a, uint32_t, uint32_t, Rm rm, uint32_t& f) { return cvt_s_wu(a, rm, f); }

const Vec kVectors[] = {
    // 1/3 = 0x3EAAAAAA + 2/3 ulp: up for RNE/RUP/RMM, down for RTZ/RDN
    {"1/3 rne", Div, kOne, kThree, 0, kRne, 0x3EAAAAAB, NX},
    {"1/3 rtz", Div, kOne, kThree, 0, kRtz, 0x3EAAAAAA, NX},
    {"1/3 rdn", Div, kOne, kThree, 0, kRdn, 0x3EAAAAAA, NX},
    {"1/3 rup", Div, kOne, kThree, 0, kRup, 0x3EAAAAAB, NX},
    {"1/3 rmm", Div, kOne, kThree, 0, kRmm, 0x3EAAAAAB, NX},
    {"-1/3 rdn", Div, 0xBF800000, kThree, 0, kRdn, 0xBEAAAAAB, NX},
    {"-1/3 rup", Div, 0xBF800000, kThree, 0, kRup, 0xBEAAAAAA, NX},
    {"6/3 exact", Div, 0x40C00000, kThree, 0, kRne, kTwo, 0},
    // 1 + 2^-24 is a tie between 1 and 1+2^-23: even (down) for RNE, away for RMM
    {"tie rne", Add, kOne, 0x33800000, 0, kRne, kOne, NX},
    {"tie rmm", Add, kOne, 0x33800000, 0, kRmm, 0x3F800001, NX},
    {"tie rtz", Add, kOne, 0x33800000, 0, kRtz, kOne, NX},
    {"tie rup", Add, kOne, 0x33800000, 0, kRup, 0x3F800001, NX},
    {"tie rdn", Add, kOne, 0x33800000, 0, kRdn, kOne, NX},
    // (1+2^-23) + 2^-24: tie whose even neighbour is up
    {"odd tie rne", Add, 0x3F800001, 0x33800000, 0, kRne, 0x3F800002, NX},
    {"odd tie rmm", Add, 0x3F800001, 0x33800000, 0, kRmm, 0x3F800002, NX},
    {"odd tie rtz", Add, 0x3F800001, 0x33800000, 0, kRtz, 0x3F800001, NX},
    {"neg tie rne", Add, 0xBF800000, 0xB3800000, 0, kRne, 0xBF800000, NX},
    {"neg tie rmm", Add, 0xBF800000, 0xB3800000, 0, kRmm, 0xBF800001, NX},
    {"neg tie rdn", Add, 0xBF800000, 0xB3800000, 0, kRdn, 0xBF800001, NX},
    {"neg tie rup", Add, 0xBF800000, 0xB3800000, 0, kRup, 0xBF800000, NX},
    // a far smaller addend only sets the sticky bit
    {"1 + 2^-100 rup", Add, kOne, 0x0D800000, 0, kRup, 0x3F800001, NX},
    {"1 - 2^-100 rtz", Sub, kOne, 0x0D800000, 0, kRtz, 0x3F7FFFFF, NX},
    {"1 - 2^-100 rne", Sub, kOne, 0x0D800000, 0, kRne, kOne, NX},
    // signed zeros
    {"1 + -1 rne", Add, kOne, 0xBF800000, 0, kRne, kPosZero, 0},
    {"1 + -1 rdn", Add, kOne, 0xBF800000, 0, kRdn, kNegZero, 0},
    {"-0 + -0", Add, kNegZero, kNegZero, 0, kRne, kNegZero, 0},
    {"+0 + -0 rne", Add, kPosZero, kNegZero, 0, kRne, kPosZero, 0},
    {"+0 + -0 rdn", Add, kPosZero, kNegZero, 0, kRdn, kNegZero, 0},
    {"-0 * 3", Mul, kNegZero, kThree, 0, kRne, kNegZero, 0},
    // overflow: max*2
    {"ovf rne", Mul, kMax, kTwo, 0, kRne, kInf, OF | NX},
    {"ovf rtz", Mul, kMax, kTwo, 0, kRtz, kMax, OF | NX},
    {"ovf rdn", Mul, kMax, kTwo, 0, kRdn, kMax, OF | NX},
    {"ovf rup", Mul, kMax, kTwo, 0, kRup, kInf, OF | NX},
    {"-ovf rdn", Mul, 0xFF7FFFFF, kTwo, 0, kRdn, kNegInf, OF | NX},
    {"-ovf rup", Mul, 0xFF7FFFFF, kTwo, 0, kRup, 0xFF7FFFFF, OF | NX},
    {"-ovf rmm", Mul, 0xFF7FFFFF, kTwo, 0, kRmm, kNegInf, OF | NX},
    // subnormals and underflow (tininess after rounding)
    {"2^-126 / 2 exact", Mul, 0x00800000, kHalf, 0, kRne, 0x00400000, 0},
    {"sub + sub exact", Add, 0x00000001, 0x00000001, 0, kRne, 0x00000002, 0},
    {"2^-149 * 2^23", Mul, 0x00000001, 0x4B000000, 0, kRne, 0x00800000, 0},
    {"2^-150 rne", Mul, 0x00000001, kHalf, 0, kRne, 0x00000000, UF | NX},
    {"2^-150 rmm", Mul, 0x00000001, kHalf, 0, kRmm, 0x00000001, UF | NX},
    {"2^-150 rup", Mul, 0x00000001, kHalf, 0, kRup, 0x00000001, UF | NX},
    {"-2^-150 rdn", Mul, 0x80000001, kHalf, 0, kRdn, 0x80000001, UF | NX},
    // 2^-126*(1-2^-24): tie in the subnormal grid, rounds up to 2^-126, still tiny (exact with an
    // unbounded exponent)
    {"tiny tie to normal", Mul, 0x3F7FFFFF, 0x00800000, 0, kRne, 0x00800000, UF | NX},
    // 2^-126*(1-2^-26) = (1+2^-13)2^-126 * (1-2^-13): rounds to 2^-126 even with an unbounded
    // exponent → not tiny, no UF in RNE; RTZ gives the largest subnormal and is tiny
    {"not tiny after rounding", Mul, 0x00800400, 0x3F7FF800, 0, kRne, 0x00800000, NX},
    {"tiny rtz", Mul, 0x00800400, 0x3F7FF800, 0, kRtz, 0x007FFFFF, UF | NX},
    // division and sqrt special cases
    {"1/0", Div, kOne, kPosZero, 0, kRne, kInf, DZ},
    {"-1/0", Div, 0xBF800000, kPosZero, 0, kRne, kNegInf, DZ},
    {"0/0", Div, kPosZero, kPosZero, 0, kRne, kCanonicalNaN, NV},
    {"inf/inf", Div, kInf, kInf, 0, kRne, kCanonicalNaN, NV},
    {"sqrt 4", Sqrt, 0x40800000, 0, 0, kRne, kTwo, 0},
    {"sqrt 2 rne", Sqrt, kTwo, 0, 0, kRne, 0x3FB504F3, NX},  // sqrt 2 = 1.01101010000010011110011|0011…: next bit 0, RNE rounds down
    {"sqrt 2 rup", Sqrt, kTwo, 0, 0, kRup, 0x3FB504F4, NX},
    {"sqrt 2 rtz", Sqrt, kTwo, 0, 0, kRtz, 0x3FB504F3, NX},
    {"sqrt -1", Sqrt, 0xBF800000, 0, 0, kRne, kCanonicalNaN, NV},
    {"sqrt -0", Sqrt, kNegZero, 0, 0, kRne, kNegZero, 0},
    {"sqrt -inf", Sqrt, kNegInf, 0, 0, kRne, kCanonicalNaN, NV},
    // NaNs: results are canonical; signaling inputs raise NV
    {"qnan + 1", Add, kQNaN, kOne, 0, kRne, kCanonicalNaN, 0},
    {"snan + 1", Add, kSNaN, kOne, 0, kRne, kCanonicalNaN, NV},
    {"inf - inf", Sub, kInf, kInf, 0, kRne, kCanonicalNaN, NV},
    {"0 * inf", Mul, kPosZero, kNegInf, 0, kRne, kCanonicalNaN, NV},
    // fused multiply-add: one rounding
    {"fma 2*3+1", Fmadd, kTwo, kThree, kOne, kRne, 0x40E00000, 0},
    {"fmsub 2*3-1", Fmsub, kTwo, kThree, kOne, kRne, 0x40A00000, 0},
    {"fnmsub -(2*3)+1", Fnmsub, kTwo, kThree, kOne, kRne, 0xC0A00000, 0},
    {"fnmadd -(2*3)-1", Fnmadd, kTwo, kThree, kOne, kRne, 0xC0E00000, 0},
    // (1+2^-13)(1-2^-13) - 1 = -2^-26 exactly (an unfused mul would give 1.0 and then 0)
    {"fma fused", Fmadd, 0x3F800400, 0x3F7FF800, 0xBF800000, kRne, 0xB2800000, 0},
    // (1+2^-12)^2 + 2^-80 = 1 + 2^-11 + 2^-24 + 2^-80: binary64 drops 2^-80 and lands on a binary32
    // tie, which the exact value is above: rounds up to 1 + 2^-11 + 2^-23 (not to even).
    {"fma tie after binary64 sum", Fmadd, 0x3F800800, 0x3F800800, 0x17800000, kRne, 0x3F801001, NX},
    {"fma tie after binary64 sum, below", Fmadd, 0x3F800800, 0x3F800800, 0x97800000, kRne, 0x3F801000, NX},
    {"fma inf*0+qnan", Fmadd, kInf, kPosZero, kQNaN, kRne, kCanonicalNaN, NV},
    {"fma 0*inf+1", Fmadd, kPosZero, kInf, kOne, kRne, kCanonicalNaN, NV},
    {"fma inf*1-inf", Fmadd, kInf, kOne, kNegInf, kRne, kCanonicalNaN, NV},
    {"fma 1*1-1 rdn", Fmadd, kOne, kOne, 0xBF800000, kRdn, kNegZero, 0},
    {"fma -0*1+0... -0 + -0", Fmadd, kNegZero, kOne, kNegZero, kRne, kNegZero, 0},
    // fmin/fmax
    {"min -0 +0", Min, kPosZero, kNegZero, 0, kRne, kNegZero, 0},
    {"max -0 +0", Max, kNegZero, kPosZero, 0, kRne, kPosZero, 0},
    {"min qnan 1", Min, kQNaN, kOne, 0, kRne, kOne, 0},
    {"max 1 snan", Max, kOne, kSNaN, 0, kRne, kOne, NV},
    {"min nan nan", Min, kQNaN, kSNaN, 0, kRne, kCanonicalNaN, NV},
    {"max 1 2", Max, kOne, kTwo, 0, kRne, kTwo, 0},
    {"min -inf 1", Min, kNegInf, kOne, 0, kRne, kNegInf, 0},
    // compares
    {"feq qnan", Eq, kQNaN, kOne, 0, kRne, 0, 0},
    {"feq snan", Eq, kSNaN, kOne, 0, kRne, 0, NV},
    {"feq -0 +0", Eq, kNegZero, kPosZero, 0, kRne, 1, 0},
    {"flt qnan", Lt, kQNaN, kOne, 0, kRne, 0, NV},
    {"flt -0 +0", Lt, kNegZero, kPosZero, 0, kRne, 0, 0},
    {"fle -0 +0", Le, kNegZero, kPosZero, 0, kRne, 1, 0},
    {"fle 1 qnan", Le, kOne, kQNaN, 0, kRne, 0, NV},
    {"flt -1 1", Lt, 0xBF800000, kOne, 0, kRne, 1, 0},
    // fcvt.w.s: 2.5 and -2.5 in every mode
    {"cvt 2.5 rne", CvtWS, 0x40200000, 0, 0, kRne, 2, NX},
    {"cvt 2.5 rtz", CvtWS, 0x40200000, 0, 0, kRtz, 2, NX},
    {"cvt 2.5 rdn", CvtWS, 0x40200000, 0, 0, kRdn, 2, NX},
    {"cvt 2.5 rup", CvtWS, 0x40200000, 0, 0, kRup, 3, NX},
    {"cvt 2.5 rmm", CvtWS, 0x40200000, 0, 0, kRmm, 3, NX},
    {"cvt -2.5 rne", CvtWS, 0xC0200000, 0, 0, kRne, static_cast<uint32_t>(-2), NX},
    {"cvt -2.5 rdn", CvtWS, 0xC0200000, 0, 0, kRdn, static_cast<uint32_t>(-3), NX},
    {"cvt -2.5 rup", CvtWS, 0xC0200000, 0, 0, kRup, static_cast<uint32_t>(-2), NX},
    {"cvt -2.5 rmm", CvtWS, 0xC0200000, 0, 0, kRmm, static_cast<uint32_t>(-3), NX},
    {"cvt 3.5 rne", CvtWS, 0x40600000, 0, 0, kRne, 4, NX},
    {"cvt 3e9 sat", CvtWS, 0x4F32D05E, 0, 0, kRne, 0x7FFFFFFF, NV},
    {"cvt -3e9 sat", CvtWS, 0xCF32D05E, 0, 0, kRne, 0x80000000, NV},
    {"cvt -2^31 exact", CvtWS, 0xCF000000, 0, 0, kRne, 0x80000000, 0},
    {"cvt 2^31 sat", CvtWS, 0x4F000000, 0, 0, kRne, 0x7FFFFFFF, NV},
    {"cvt nan", CvtWS, kQNaN, 0, 0, kRne, 0x7FFFFFFF, NV},
    {"cvt -inf", CvtWS, kNegInf, 0, 0, kRne, 0x80000000, NV},
    {"cvt +inf", CvtWS, kInf, 0, 0, kRne, 0x7FFFFFFF, NV},
    {"cvt 2^-149", CvtWS, 0x00000001, 0, 0, kRup, 1, NX},
    {"cvtu -0.5 rtz", CvtWuS, 0xBF000000, 0, 0, kRtz, 0, NX},
    {"cvtu -0.5 rne", CvtWuS, 0xBF000000, 0, 0, kRne, 0, NX},
    {"cvtu -0.5 rdn", CvtWuS, 0xBF000000, 0, 0, kRdn, 0, NV},
    {"cvtu -1", CvtWuS, 0xBF800000, 0, 0, kRne, 0, NV},
    {"cvtu 3e9 exact", CvtWuS, 0x4F32D05E, 0, 0, kRne, 3000000000u, 0},
    {"cvtu 5e9 sat", CvtWuS, 0x4F9502F9, 0, 0, kRne, 0xFFFFFFFF, NV},
    {"cvtu nan", CvtWuS, kSNaN, 0, 0, kRne, 0xFFFFFFFF, NV},
    {"cvtu -inf", CvtWuS, kNegInf, 0, 0, kRne, 0, NV},
    // fcvt.s.w / fcvt.s.wu: 2^24+1 is a tie
    {"s.w 2^24+1 rne", CvtSW, 16777217, 0, 0, kRne, 0x4B800000, NX},
    {"s.w 2^24+1 rmm", CvtSW, 16777217, 0, 0, kRmm, 0x4B800001, NX},
    {"s.w 2^24+1 rup", CvtSW, 16777217, 0, 0, kRup, 0x4B800001, NX},
    {"s.w -(2^24+1) rmm", CvtSW, static_cast<uint32_t>(-16777217), 0, 0, kRmm, 0xCB800001, NX},
    {"s.w -(2^24+1) rup", CvtSW, static_cast<uint32_t>(-16777217), 0, 0, kRup, 0xCB800000, NX},
    {"s.w int_min", CvtSW, 0x80000000, 0, 0, kRne, 0xCF000000, 0},
    {"s.w 0", CvtSW, 0, 0, 0, kRdn, kPosZero, 0},
    {"s.wu max rne", CvtSWu, 0xFFFFFFFF, 0, 0, kRne, 0x4F800000, NX},
    {"s.wu max rtz", CvtSWu, 0xFFFFFFFF, 0, 0, kRtz, 0x4F7FFFFF, NX},
};

TEST(Fp, KnownAnswerVectors) {
  for (const Vec& v : kVectors) {
    uint32_t flags = 0;
    uint32_t got = v.op(v.a, v.b, v.c, v.rm, flags);
    EXPECT_EQ(got, v.expect) << v.what << std::hex << ": got 0x" << got << " want 0x" << v.expect;
    EXPECT_EQ(flags, v.flags) << v.what << ": flags";
  }
}

TEST(Fp, Classify) {
  const std::pair<uint32_t, uint32_t> cases[] = {
      {kNegInf, 1u << 0}, {0xBF800000, 1u << 1}, {0x80000001, 1u << 2}, {kNegZero, 1u << 3},
      {kPosZero, 1u << 4}, {0x00000001, 1u << 5}, {kOne, 1u << 6},      {kInf, 1u << 7},
      {kSNaN, 1u << 8},    {kQNaN, 1u << 9}};
  for (auto [v, c] : cases) EXPECT_EQ(classify(v), c) << std::hex << v;
}

TEST(Fp, HalfAndBfloatConversions) {
  EXPECT_EQ(f16_to_f32(0x3C00), kOne);        // 1.0
  EXPECT_EQ(f16_to_f32(0xC000), 0xC0000000);  // -2.0
  EXPECT_EQ(f16_to_f32(0x0001), 0x33800000);  // 2^-24, smallest subnormal half
  EXPECT_EQ(f16_to_f32(0x7C00), kInf);
  EXPECT_EQ(f16_to_f32(0x7E01), kCanonicalNaN);
  EXPECT_EQ(bf16_to_f32(0x3F80), kOne);
  EXPECT_EQ(f32_to_f16(kOne), 0x3C00);
  EXPECT_EQ(f32_to_f16(0x3F801000), 0x3C00);  // 1 + 2^-11: tie to even
  EXPECT_EQ(f32_to_f16(0x3F803000), 0x3C02);  // 1 + 3·2^-11: tie to even (up)
  EXPECT_EQ(f32_to_f16(0x477FF000), 0x7C00);  // 65520 rounds to inf
  EXPECT_EQ(f32_to_bf16(0x3F808000), 0x3F80);  // tie to even
  EXPECT_EQ(f32_to_bf16(0x3F818000), 0x3F82);
}

}  // namespace
}  // namespace vxsim::fp

// Differential check against the host's IEEE binary32 unit (x86-64 SSE) in the four rounding
// modes the host supports, on random operands biased towards edge exponents. The host computes
// each op directly in binary32, so any double-rounding or flag error of ours shows up here.
#include <cfenv>
#include <cmath>
#include <cstring>
#include <random>

namespace vxsim::fp {
namespace {

uint32_t host_flags() {
  int e = std::fetestexcept(FE_ALL_EXCEPT);
  uint32_t f = 0;
  if (e & FE_INEXACT) f |= kNX;
  if (e & FE_UNDERFLOW) f |= kUF;
  if (e & FE_OVERFLOW) f |= kOF;
  if (e & FE_DIVBYZERO) f |= kDZ;
  if (e & FE_INVALID) f |= kNV;
  return f;
}

uint32_t random_operand(std::mt19937& gen) {
  auto g = [&gen]() { return static_cast<uint32_t>(gen()); };
  uint32_t sign = (g() & 1) << 31;
  uint32_t kind = g() % 8;
  uint32_t frac = g() & 0x7FFFFF;
  uint32_t exp;
  switch (kind) {
    case 0: exp = 0; break;                      // subnormal/zero
    case 1: exp = 1 + g() % 3; break;            // near the subnormal boundary
    case 2: exp = 252 + g() % 3; break;          // near overflow
    case 3: exp = 127 + g() % 2; frac &= ~0xFFFu; break;  // short significands → exact/tie cases
    default: exp = 100 + g() % 55; break;
  }
  return sign | (exp << 23) | frac;
}

TEST(Fp, MatchesHostFpuInFourRoundingModes) {
  std::mt19937 g(12345u);
  const std::pair<int, Rm> modes[] = {{FE_TONEAREST, kRne}, {FE_TOWARDZERO, kRtz}, {FE_DOWNWARD, kRdn}, {FE_UPWARD, kRup}};
  int mismatches = 0;
  for (auto [host_mode, rm] : modes) {
    for (int i = 0; i < 20000 && mismatches < 10; ++i) {
      uint32_t a = random_operand(g);
      uint32_t b = random_operand(g);
      uint32_t c = random_operand(g);
      float fa, fb, fc;
      std::memcpy(&fa, &a, 4);
      std::memcpy(&fb, &b, 4);
      std::memcpy(&fc, &c, 4);
      for (int op = 0; op < 5; ++op) {
        volatile float va = fa, vb = fb, vc = fc;
        std::fesetround(host_mode);
        std::feclearexcept(FE_ALL_EXCEPT);
        float r;
        switch (op) {
          case 0: r = va + vb; break;
          case 1: r = va * vb; break;
          case 2: r = va / vb; break;
          case 3: r = std::sqrt(std::fabs(static_cast<float>(va))); break;
          default: r = std::fma(static_cast<float>(va), static_cast<float>(vb), static_cast<float>(vc)); break;
        }
        uint32_t hf = host_flags();
        std::fesetround(FE_TONEAREST);
        uint32_t hr;
        std::memcpy(&hr, &r, 4);
        uint32_t flags = 0;
        uint32_t mine = 0;
        switch (op) {
          case 0: mine = add(a, b, rm, flags); break;
          case 1: mine = mul(a, b, rm, flags); break;
          case 2: mine = div(a, b, rm, flags); break;
          case 3: mine = fp::sqrt(a & 0x7FFFFFFF, rm, flags); break;
          default: mine = fma(a, b, c, false, false, rm, flags); break;
        }
        if (std::isnan(r)) hr = kCanonicalNaN;
        if (mine != hr || flags != hf) {
          ++mismatches;
          ADD_FAILURE() << "op " << op << " rm " << int(rm) << std::hex << " a=0x" << a << " b=0x" << b << " c=0x" << c
                        << ": mine 0x" << mine << " flags " << flags << ", host 0x" << hr << " flags " << hf;
        }
      }
    }
  }
}

/// Products of 12-bit significands (exact in 24-25 bits) plus a small addend: the binary64 sum
/// often sits on a binary32 tie the exact value is beside (round to nearest, ties to even).
TEST(Fp, FmaNearBinary32TiesMatchesHostFpu) {
  std::mt19937 g(777u);
  int mismatches = 0;
  for (int i = 0; i < 50000 && mismatches < 10; ++i) {
    const uint32_t a = 0x3F800000u | (static_cast<uint32_t>(g()) & 0x7FF800u);
    const uint32_t b = 0x3F800000u | (static_cast<uint32_t>(g()) & 0x7FF800u);
    const uint32_t c = ((static_cast<uint32_t>(g()) & 1u) << 31) | ((20u + static_cast<uint32_t>(g()) % 90u) << 23) |
                       (static_cast<uint32_t>(g()) & 0x7FFFFFu);
    float fa, fb, fc;
    std::memcpy(&fa, &a, 4);
    std::memcpy(&fb, &b, 4);
    std::memcpy(&fc, &c, 4);
    volatile float va = fa, vb = fb, vc = fc;
    std::feclearexcept(FE_ALL_EXCEPT);
    const float r = std::fma(static_cast<float>(va), static_cast<float>(vb), static_cast<float>(vc));
    const uint32_t hf = host_flags();
    uint32_t hr;
    std::memcpy(&hr, &r, 4);
    uint32_t flags = 0;
    const uint32_t mine = fma(a, b, c, false, false, kRne, flags);
    if (mine != hr || flags != hf) {
      ++mismatches;
      ADD_FAILURE() << std::hex << "a=0x" << a << " b=0x" << b << " c=0x" << c << ": mine 0x" << mine << " flags "
                    << flags << ", host 0x" << hr << " flags " << hf;
    }
  }
}

}  // namespace
}  // namespace vxsim::fp
