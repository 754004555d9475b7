// Tensor-core WMMA (custom-0 funct7=2 funct3=0), docs/vortex.md §7.1. Geometry from the
// formulas of [M] tensor_cfg.h as stated there; register/lane layout per the SDK contract in
// docs/sdk.md "Tensor cores" (micro-ops k, then m, then n; ra = m·k_steps + k;
// rb = (n / b_sub_blocks)·k_steps + k with lane offset (n % b_sub_blocks)·tcN·tcK; rc = m·n_steps + n).
#include "tcu.h"

#include <bit>
#include <cmath>
#include <cstring>

#include "exec.h"
#include "vxsim/fp.h"

namespace vxsim {

namespace {

/// Format ids of the WMMA rd/rs1 fields (vx_tensor.h tags).
enum Fmt : uint32_t { kFp32 = 0, kFp16 = 1, kBf16 = 2, kInt32 = 8, kInt8 = 9, kUint8 = 10, kInt4 = 11, kUint4 = 12 };

uint32_t log2u(uint32_t x) { return 31u - static_cast<uint32_t>(std::countl_zero(x)); }

/// The WMMA geometry for NT threads and a 32-bit register (XB = 4), NR = 8 (§7.1).
struct Geometry {
  uint32_t M, N, xK, tcM, tcN, tcK, m_steps, n_steps, k_steps, b_sub_blocks, nrb;
  explicit Geometry(uint32_t nt) {
    uint32_t cap = nt * 8;
    uint32_t l = log2u(cap);
    M = 1u << ((l + 1) / 2);
    N = 1u << (l / 2);
    xK = cap / M;
    uint32_t ln = log2u(nt);
    tcM = 1u << ((ln + 1) / 2);
    tcN = 1u << (ln / 2);
    tcK = nt / tcM;
    m_steps = M / tcM;
    n_steps = N / tcN;
    k_steps = xK / tcK;
    b_sub_blocks = nt / (tcN * tcK);
    nrb = N * xK / nt;
  }
};

float as_float(uint32_t u) { return std::bit_cast<float>(u); }
uint32_t as_bits(float f) {
  uint32_t u = std::bit_cast<uint32_t>(f);
  return std::isnan(f) ? fp::kCanonicalNaN : u;
}

}  // namespace

void tcu_wmma(ExecCtx& c, const Decoded& d) {
  const uint32_t nt = c.nt;
  const uint32_t out_fmt = d.rd;
  const uint32_t in_fmt = d.rs1;
  if (nt < 2 || (nt & (nt - 1)) != 0) {
    c.illegal(d, "the tensor unit needs a power-of-two warp width of 2..32 threads");
  }
  const uint32_t full = nt >= 32 ? 0xFFFFFFFFu : ((1u << nt) - 1);
  if (c.mask != full) {
    throw sim_error(ErrorKind::kTcu, "WMMA at PC {:#010x} (core {}, warp {}) with thread mask {:#x}: the whole warp must be active",
                    c.pc, c.core.id(), c.wid, c.mask);
  }
  const bool float_pair = (in_fmt == kFp16 || in_fmt == kBf16) && (out_fmt == kFp32 || out_fmt == in_fmt);
  const bool int_pair = (in_fmt == kInt8 || in_fmt == kUint8) && out_fmt == kInt32;
  if (!float_pair && !int_pair) {
    throw sim_error(ErrorKind::kTcu,
                    "WMMA at PC {:#010x} (core {}, warp {}): input format {} → output format {} is not supported "
                    "(vxsim: fp16/bf16 → fp32 or same type, int8/uint8 → int32)",
                    c.pc, c.core.id(), c.wid, in_fmt, out_fmt);
  }
  const Geometry g(nt);
  const uint32_t ra_base = 0;
  const uint32_t rb_base = g.nrb == 4 ? 28 : 10;
  const uint32_t rc_base = g.nrb == 4 ? 10 : 24;
  const uint32_t epw = int_pair ? 4 : 2;  // packed elements per 32-bit word
  auto in_value = [&](uint32_t word, uint32_t e) -> float {
    uint16_t h = static_cast<uint16_t>(word >> (16 * e));
    return as_float(in_fmt == kFp16 ? fp::f16_to_f32(h) : fp::bf16_to_f32(h));
  };
  auto in_int = [&](uint32_t word, uint32_t e) -> int32_t {
    uint32_t b = (word >> (8 * e)) & 0xFF;
    return in_fmt == kInt8 ? static_cast<int32_t>(static_cast<int8_t>(b)) : static_cast<int32_t>(b);
  };
  uint32_t result[kMaxThreads];
  for (uint32_t k = 0; k < g.k_steps; ++k) {
    for (uint32_t m = 0; m < g.m_steps; ++m) {
      for (uint32_t n = 0; n < g.n_steps; ++n) {
        const uint32_t* A = c.F(ra_base + m * g.k_steps + k);
        const uint32_t* B = c.F(rb_base + (n / g.b_sub_blocks) * g.k_steps + k);
        uint32_t* C = c.F(rc_base + m * g.n_steps + n);
        const uint32_t b_off = (n % g.b_sub_blocks) * g.tcN * g.tcK;
        for (uint32_t i = 0; i < g.tcM; ++i) {
          for (uint32_t j = 0; j < g.tcN; ++j) {
            const uint32_t lane = i * g.tcN + j;
            if (int_pair) {
              uint32_t acc = 0;
              for (uint32_t z = 0; z < g.tcK; ++z) {
                for (uint32_t e = 0; e < epw; ++e) {
                  acc += static_cast<uint32_t>(in_int(A[i * g.tcK + z], e) * in_int(B[b_off + j * g.tcK + z], e));
                }
              }
              result[lane] = C[lane] + acc;
            } else {
              // SimX's FEDP order (vortex master sim/simx/tensor_unit.cpp, docs/vortex.md §7.1):
              // the accumulator starts at C and takes one product at a time in (z, e) order.
              // fp32 output: acc = acc + a·b in binary32 RNE (16-bit products are exact).
              // 16-bit output: acc stays in the output format, each step is a binary32 fused
              // multiply-add rounded back to fp16/bf16 (RNE).
              uint32_t acc = C[lane];
              for (uint32_t z = 0; z < g.tcK; ++z) {
                for (uint32_t e = 0; e < epw; ++e) {
                  float p = in_value(A[i * g.tcK + z], e) * in_value(B[b_off + j * g.tcK + z], e);
                  if (out_fmt == kFp32) {
                    acc = as_bits(as_float(acc) + p);
                  } else {
                    float a16 = as_float(out_fmt == kFp16 ? fp::f16_to_f32(static_cast<uint16_t>(acc))
                                                          : fp::bf16_to_f32(static_cast<uint16_t>(acc)));
                    uint32_t sum = as_bits(a16 + p);
                    acc = out_fmt == kFp16 ? fp::f32_to_f16(sum) : fp::f32_to_bf16(sum);
                  }
                }
              }
              result[lane] = acc;  // 16-bit results sit zero-extended in the low half, as in SimX
            }
          }
        }
        std::memcpy(C, result, g.tcM * g.tcN * sizeof(uint32_t));
      }
    }
  }
  const uint32_t micro_ops = g.m_steps * g.n_steps * g.k_steps;
  c.note_tcu(micro_ops, static_cast<uint64_t>(micro_ops) * g.tcM * g.tcN * g.tcK * epw);
}

}  // namespace vxsim
