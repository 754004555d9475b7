// The instruction table (see isa.h). One row = encoding + operand syntax + unit + semantics.
#include <array>
#include <bit>
#include <climits>
#include <cstring>
#include <type_traits>

#include <fmt/format.h>

#include "exec.h"
#include "tcu.h"
#include "vxsim/fp.h"
#include "vxsim/isa.h"

namespace vxsim {

namespace {

using u32 = uint32_t;
using i32 = int32_t;
using U = UnitClass;
using Ctx = ExecCtx;
using D = Decoded;

// ---- encodings ---------------------------------------------------------------------------
constexpr u32 kMaskR = 0xFE00707F;   // funct7 + funct3 + opcode
constexpr u32 kMaskI = 0x0000707F;   // funct3 + opcode
constexpr u32 kMaskU = 0x0000007F;   // opcode
constexpr u32 kMaskFR = 0xFE00007F;  // funct7 + opcode (funct3 = rm)
constexpr u32 kMaskFR2 = 0xFFF0007F; // funct7 + rs2 + opcode (funct3 = rm)
constexpr u32 kMaskR4 = 0x0600007F;  // fmt + opcode
constexpr u32 kMaskAmo = 0xF800707F; // funct5 + funct3 + opcode (aq/rl ignored)
constexpr u32 enc(u32 opc, u32 f3 = 0, u32 f7 = 0) { return opc | (f3 << 12) | (f7 << 25); }
constexpr u32 rs2f(u32 v) { return v << 20; }
constexpr u32 amo(u32 f5) { return 0x2F | (2u << 12) | (f5 << 27); }
constexpr u32 kOpCustom0 = 0x0B;

// ---- semantics helpers ---------------------------------------------------------------------
template <u32 (*F)(u32, u32)>
void rr(Ctx& c, const D& d) {
  if (d.rd == 0) return;
  u32* r = c.X(d.rd);
  const u32* a = c.X(d.rs1);
  const u32* b = c.X(d.rs2);
  c.for_lanes([&](u32 l) { r[l] = F(a[l], b[l]); });
}
template <u32 (*F)(u32, u32)>
void ri(Ctx& c, const D& d) {
  if (d.rd == 0) return;
  u32* r = c.X(d.rd);
  const u32* a = c.X(d.rs1);
  u32 imm = static_cast<u32>(d.imm);
  c.for_lanes([&](u32 l) { r[l] = F(a[l], imm); });
}
template <bool (*F)(u32, u32)>
void br(Ctx& c, const D& d) {
  const u32* a = c.X(d.rs1);
  const u32* b = c.X(d.rs2);
  u32 taken = 0;
  c.for_lanes([&](u32 l) { taken |= F(a[l], b[l]) ? (1u << l) : 0u; });
  c.branch(taken, c.pc + static_cast<u32>(d.imm));
}
template <typename T>
void ld(Ctx& c, const D& d) {
  u32* r = c.X(d.rd);
  const u32* a = c.X(d.rs1);
  c.for_lanes([&](u32 l) {
    T v = c.load<T>(l, a[l] + static_cast<u32>(d.imm));
    if (d.rd != 0) r[l] = static_cast<u32>(static_cast<std::conditional_t<std::is_signed_v<T>, i32, u32>>(v));
  });
}
template <typename T>
void st(Ctx& c, const D& d) {
  const u32* a = c.X(d.rs1);
  const u32* b = c.X(d.rs2);
  c.for_lanes([&](u32 l) { c.store<T>(l, a[l] + static_cast<u32>(d.imm), static_cast<T>(b[l])); });
}
u32 csr_src(Ctx& c, const D& d, u32 l, bool imm) { return imm ? d.rs1 : c.X(d.rs1)[l]; }
/// kind: 0 = write, 1 = set, 2 = clear.
template <int kKind, bool kImm>
void csr_op(Ctx& c, const D& d) {
  u32 csr = static_cast<u32>(d.imm);
  std::array<u32, kMaxThreads> old{};
  std::array<u32, kMaxThreads> src{};
  bool do_read = kKind != 0 || d.rd != 0;
  bool do_write = kKind == 0 || d.rs1 != 0;
  c.for_lanes([&](u32 l) {
    src[l] = csr_src(c, d, l, kImm);
    if (do_read) old[l] = c.csr_read(l, csr);
  });
  if (do_write) {
    c.for_lanes([&](u32 l) {
      u32 v = kKind == 0 ? src[l] : (kKind == 1 ? (old[l] | src[l]) : (old[l] & ~src[l]));
      c.csr_write(l, csr, v);
    });
  }
  if (d.rd != 0) {
    u32* r = c.X(d.rd);
    c.for_lanes([&](u32 l) { r[l] = old[l]; });
  }
}
void amo_op(Ctx& c, const D& d, ExecCtx::AmoFn op) {
  u32* r = c.X(d.rd);
  const u32* a = c.X(d.rs1);
  const u32* b = c.X(d.rs2);
  c.for_lanes([&](u32 l) {
    u32 old = c.amo(l, a[l], op, b[l]);
    if (d.rd != 0) r[l] = old;
  });
}
#define AMO(...) +[](Ctx& c, const D& d) { amo_op(c, d, [](u32 m, u32 v) -> u32 { return __VA_ARGS__; }); }

// FP helpers.
using FBin = u32 (*)(u32, u32, fp::Rm, u32&);
using FCmp = u32 (*)(u32, u32, u32&);
template <FBin F, u32 kFlops>
void fbin(Ctx& c, const D& d) {
  auto rm = static_cast<fp::Rm>(c.resolve_rm(d.rm, d));
  u32* r = c.F(d.rd);
  const u32* a = c.F(d.rs1);
  const u32* b = c.F(d.rs2);
  u32 fl = 0;
  c.for_lanes([&](u32 l) { r[l] = F(a[l], b[l], rm, fl); });
  c.raise_fflags(fl);
  c.note_fp_flops(kFlops);
}
template <FCmp F, bool kIntDst, u32 kFlops>
void fcmp(Ctx& c, const D& d) {
  u32* r = kIntDst ? c.X(d.rd) : c.F(d.rd);
  const u32* a = c.F(d.rs1);
  const u32* b = c.F(d.rs2);
  u32 fl = 0;
  bool write = !kIntDst || d.rd != 0;
  c.for_lanes([&](u32 l) {
    u32 v = F(a[l], b[l], fl);
    if (write) r[l] = v;
  });
  c.raise_fflags(fl);
  c.note_fp_flops(kFlops);
}
template <bool kNegProd, bool kNegAdd>
void ffma(Ctx& c, const D& d) {
  auto rm = static_cast<fp::Rm>(c.resolve_rm(d.rm, d));
  u32* r = c.F(d.rd);
  const u32* a = c.F(d.rs1);
  const u32* b = c.F(d.rs2);
  const u32* e = c.F(d.rs3);
  u32 fl = 0;
  c.for_lanes([&](u32 l) { r[l] = fp::fma(a[l], b[l], e[l], kNegProd, kNegAdd, rm, fl); });
  c.raise_fflags(fl);
  c.note_fp_flops(2);
}
/// Unary conversions. kSrcF/kDstF select the register files.
template <u32 (*F)(u32, fp::Rm, u32&), bool kSrcF, bool kDstF>
void fcvt(Ctx& c, const D& d) {
  auto rm = static_cast<fp::Rm>(c.resolve_rm(d.rm, d));
  u32* r = kDstF ? c.F(d.rd) : c.X(d.rd);
  const u32* a = kSrcF ? c.F(d.rs1) : c.X(d.rs1);
  u32 fl = 0;
  bool write = kDstF || d.rd != 0;
  c.for_lanes([&](u32 l) {
    u32 v = F(a[l], rm, fl);
    if (write) r[l] = v;
  });
  c.raise_fflags(fl);
}
template <u32 (*F)(u32, u32)>
void fsgn(Ctx& c, const D& d) {
  u32* r = c.F(d.rd);
  const u32* a = c.F(d.rs1);
  const u32* b = c.F(d.rs2);
  c.for_lanes([&](u32 l) { r[l] = F(a[l], b[l]); });
}
u32 f_sqrt_adapter(u32 a, fp::Rm rm, u32& fl) { return fp::sqrt(a, rm, fl); }

// Vortex custom-0 helpers.
u32 lane_pred(Ctx& c, const D& d, bool negate) {
  const u32* a = c.X(d.rs1);
  u32 p = 0;
  c.for_lanes([&](u32 l) { p |= (((a[l] & 1u) != 0) != negate) ? (1u << l) : 0u; });
  return p;
}
void write_all(Ctx& c, const D& d, u32 v) {
  if (d.rd == 0) return;
  u32* r = c.X(d.rd);
  c.for_lanes([&](u32 l) { r[l] = v; });
}
void vote(Ctx& c, const D& d, int kind) {
  u32 p = lane_pred(c, d, false);
  u32 v = 0;
  switch (kind) {
    case 0: v = (p == c.mask) ? 1 : 0; break;
    case 1: v = (p != 0) ? 1 : 0; break;
    case 2: v = (p == 0 || p == c.mask) ? 1 : 0; break;
    default: v = p; break;
  }
  write_all(c, d, v);
}
/// SHFL (docs/vortex.md §1.3): control b = rs2[5:0], c = rs2[11:6], mask = rs2[17:12].
void shfl(Ctx& c, const D& d, int kind) {
  std::array<u32, kMaxThreads> val{};
  const u32* a = c.X(d.rs1);
  const u32* ctl = c.X(d.rs2);
  std::memcpy(val.data(), a, c.nt * sizeof(u32));
  std::array<u32, kMaxThreads> out{};
  c.for_lanes([&](u32 t) {
    u32 b = ctl[t] & 0x3F;
    u32 cc = (ctl[t] >> 6) & 0x3F;
    u32 m = (ctl[t] >> 12) & 0x3F;
    u32 min_lane = t & m;
    u32 max_lane = (t & m) | (cc & ~m);
    int64_t src = t;
    bool valid = false;
    switch (kind) {
      case 0: src = static_cast<int64_t>(t) - b; valid = src >= static_cast<int64_t>(min_lane); break;
      case 1: src = static_cast<int64_t>(t) + b; valid = src <= static_cast<int64_t>(max_lane); break;
      case 2: src = t ^ b; valid = src <= static_cast<int64_t>(max_lane); break;
      default: src = min_lane | (b & ~m); valid = src <= static_cast<int64_t>(max_lane); break;
    }
    if (!valid || src < 0 || src >= static_cast<int64_t>(c.nt)) src = t;
    out[t] = val[static_cast<size_t>(src)];
  });
  if (d.rd == 0) return;
  u32* r = c.X(d.rd);
  c.for_lanes([&](u32 l) { r[l] = out[l]; });
}

// clang-format off
const InstrDef kTable[] = {
  // ---- RV32I -------------------------------------------------------------------------------
  {"lui",   enc(0x37), kMaskU, "d,u", U::kAlu, +[](Ctx& c, const D& d) {
      if (d.rd == 0) { return; }
      u32* r = c.X(d.rd); c.for_lanes([&](u32 l) { r[l] = static_cast<u32>(d.imm); }); }, false},
  {"auipc", enc(0x17), kMaskU, "d,u", U::kAlu, +[](Ctx& c, const D& d) {
      if (d.rd == 0) { return; }
      u32* r = c.X(d.rd); c.for_lanes([&](u32 l) { r[l] = c.pc + static_cast<u32>(d.imm); }); }, false},
  {"jal",   enc(0x6F), kMaskU, "d,a", U::kAlu, +[](Ctx& c, const D& d) {
      if (d.rd != 0) { u32* r = c.X(d.rd); c.for_lanes([&](u32 l) { r[l] = c.pc + 4; }); }
      c.jump(c.pc + static_cast<u32>(d.imm)); }, true},
  {"jalr",  enc(0x67, 0), kMaskI, "d,o(s)", U::kAlu, +[](Ctx& c, const D& d) {
      u32 target = (c.X(d.rs1)[c.last_lane()] + static_cast<u32>(d.imm)) & ~1u;  // thread_last
      if (d.rd != 0) { u32* r = c.X(d.rd); c.for_lanes([&](u32 l) { r[l] = c.pc + 4; }); }
      c.jump(target); }, true},
  {"beq",  enc(0x63, 0), kMaskI, "s,t,p", U::kAlu, br<(+[](u32 a, u32 b) { return a == b; })>, true},
  {"bne",  enc(0x63, 1), kMaskI, "s,t,p", U::kAlu, br<(+[](u32 a, u32 b) { return a != b; })>, true},
  {"blt",  enc(0x63, 4), kMaskI, "s,t,p", U::kAlu, br<(+[](u32 a, u32 b) { return static_cast<i32>(a) < static_cast<i32>(b); })>, true},
  {"bge",  enc(0x63, 5), kMaskI, "s,t,p", U::kAlu, br<(+[](u32 a, u32 b) { return static_cast<i32>(a) >= static_cast<i32>(b); })>, true},
  {"bltu", enc(0x63, 6), kMaskI, "s,t,p", U::kAlu, br<(+[](u32 a, u32 b) { return a < b; })>, true},
  {"bgeu", enc(0x63, 7), kMaskI, "s,t,p", U::kAlu, br<(+[](u32 a, u32 b) { return a >= b; })>, true},
  {"lb",  enc(0x03, 0), kMaskI, "d,o(s)", U::kLsu, ld<int8_t>, false},
  {"lh",  enc(0x03, 1), kMaskI, "d,o(s)", U::kLsu, ld<int16_t>, false},
  {"lw",  enc(0x03, 2), kMaskI, "d,o(s)", U::kLsu, ld<uint32_t>, false},
  {"lbu", enc(0x03, 4), kMaskI, "d,o(s)", U::kLsu, ld<uint8_t>, false},
  {"lhu", enc(0x03, 5), kMaskI, "d,o(s)", U::kLsu, ld<uint16_t>, false},
  {"sb",  enc(0x23, 0), kMaskI, "t,q(s)", U::kLsu, st<uint8_t>, false},
  {"sh",  enc(0x23, 1), kMaskI, "t,q(s)", U::kLsu, st<uint16_t>, false},
  {"sw",  enc(0x23, 2), kMaskI, "t,q(s)", U::kLsu, st<uint32_t>, false},
  {"addi",  enc(0x13, 0), kMaskI, "d,s,j", U::kAlu, ri<(+[](u32 a, u32 b) -> u32 { return a + b; })>, false},
  {"slti",  enc(0x13, 2), kMaskI, "d,s,j", U::kAlu, ri<(+[](u32 a, u32 b) -> u32 { return static_cast<i32>(a) < static_cast<i32>(b) ? 1 : 0; })>, false},
  {"sltiu", enc(0x13, 3), kMaskI, "d,s,j", U::kAlu, ri<(+[](u32 a, u32 b) -> u32 { return a < b ? 1 : 0; })>, false},
  {"xori",  enc(0x13, 4), kMaskI, "d,s,j", U::kAlu, ri<(+[](u32 a, u32 b) -> u32 { return a ^ b; })>, false},
  {"ori",   enc(0x13, 6), kMaskI, "d,s,j", U::kAlu, ri<(+[](u32 a, u32 b) -> u32 { return a | b; })>, false},
  {"andi",  enc(0x13, 7), kMaskI, "d,s,j", U::kAlu, ri<(+[](u32 a, u32 b) -> u32 { return a & b; })>, false},
  {"slli",  enc(0x13, 1, 0x00), kMaskR, "d,s,>", U::kAlu, ri<(+[](u32 a, u32 b) -> u32 { return a << (b & 31); })>, false},
  {"srli",  enc(0x13, 5, 0x00), kMaskR, "d,s,>", U::kAlu, ri<(+[](u32 a, u32 b) -> u32 { return a >> (b & 31); })>, false},
  {"srai",  enc(0x13, 5, 0x20), kMaskR, "d,s,>", U::kAlu, ri<(+[](u32 a, u32 b) -> u32 { return static_cast<u32>(static_cast<i32>(a) >> (b & 31)); })>, false},
  {"add",  enc(0x33, 0, 0x00), kMaskR, "d,s,t", U::kAlu, rr<(+[](u32 a, u32 b) -> u32 { return a + b; })>, false},
  {"sub",  enc(0x33, 0, 0x20), kMaskR, "d,s,t", U::kAlu, rr<(+[](u32 a, u32 b) -> u32 { return a - b; })>, false},
  {"sll",  enc(0x33, 1, 0x00), kMaskR, "d,s,t", U::kAlu, rr<(+[](u32 a, u32 b) -> u32 { return a << (b & 31); })>, false},
  {"slt",  enc(0x33, 2, 0x00), kMaskR, "d,s,t", U::kAlu, rr<(+[](u32 a, u32 b) -> u32 { return static_cast<i32>(a) < static_cast<i32>(b) ? 1 : 0; })>, false},
  {"sltu", enc(0x33, 3, 0x00), kMaskR, "d,s,t", U::kAlu, rr<(+[](u32 a, u32 b) -> u32 { return a < b ? 1 : 0; })>, false},
  {"xor",  enc(0x33, 4, 0x00), kMaskR, "d,s,t", U::kAlu, rr<(+[](u32 a, u32 b) -> u32 { return a ^ b; })>, false},
  {"srl",  enc(0x33, 5, 0x00), kMaskR, "d,s,t", U::kAlu, rr<(+[](u32 a, u32 b) -> u32 { return a >> (b & 31); })>, false},
  {"sra",  enc(0x33, 5, 0x20), kMaskR, "d,s,t", U::kAlu, rr<(+[](u32 a, u32 b) -> u32 { return static_cast<u32>(static_cast<i32>(a) >> (b & 31)); })>, false},
  {"or",   enc(0x33, 6, 0x00), kMaskR, "d,s,t", U::kAlu, rr<(+[](u32 a, u32 b) -> u32 { return a | b; })>, false},
  {"and",  enc(0x33, 7, 0x00), kMaskR, "d,s,t", U::kAlu, rr<(+[](u32 a, u32 b) -> u32 { return a & b; })>, false},
  {"fence",  enc(0x0F, 0), kMaskI, "", U::kLsu, +[](Ctx& c, const D&) { c.fence(); }, false},
  {"ecall",  0x00000073, 0xFFFFFFFF, "", U::kSfuWctl, +[](Ctx& c, const D&) { c.halt("ecall"); }, true},
  {"ebreak", 0x00100073, 0xFFFFFFFF, "", U::kSfuWctl, +[](Ctx& c, const D&) { c.halt("ebreak"); }, true},
  // ---- M -------------------------------------------------------------------------------------
  {"mul",    enc(0x33, 0, 0x01), kMaskR, "d,s,t", U::kMul, rr<(+[](u32 a, u32 b) -> u32 { return a * b; })>, false},
  {"mulh",   enc(0x33, 1, 0x01), kMaskR, "d,s,t", U::kMul, rr<(+[](u32 a, u32 b) -> u32 {
      return static_cast<u32>(static_cast<uint64_t>(static_cast<int64_t>(static_cast<i32>(a)) * static_cast<int64_t>(static_cast<i32>(b))) >> 32); })>, false},
  {"mulhsu", enc(0x33, 2, 0x01), kMaskR, "d,s,t", U::kMul, rr<(+[](u32 a, u32 b) -> u32 {
      return static_cast<u32>(static_cast<uint64_t>(static_cast<int64_t>(static_cast<i32>(a)) * static_cast<int64_t>(b)) >> 32); })>, false},
  {"mulhu",  enc(0x33, 3, 0x01), kMaskR, "d,s,t", U::kMul, rr<(+[](u32 a, u32 b) -> u32 {
      return static_cast<u32>((static_cast<uint64_t>(a) * b) >> 32); })>, false},
  {"div",    enc(0x33, 4, 0x01), kMaskR, "d,s,t", U::kDiv, rr<(+[](u32 a, u32 b) -> u32 {
      if (b == 0) return 0xFFFFFFFFu;
      if (a == 0x80000000u && b == 0xFFFFFFFFu) return a;
      return static_cast<u32>(static_cast<i32>(a) / static_cast<i32>(b)); })>, false},
  {"divu",   enc(0x33, 5, 0x01), kMaskR, "d,s,t", U::kDiv, rr<(+[](u32 a, u32 b) -> u32 { return b == 0 ? 0xFFFFFFFFu : a / b; })>, false},
  {"rem",    enc(0x33, 6, 0x01), kMaskR, "d,s,t", U::kDiv, rr<(+[](u32 a, u32 b) -> u32 {
      if (b == 0) return a;
      if (a == 0x80000000u && b == 0xFFFFFFFFu) return 0;
      return static_cast<u32>(static_cast<i32>(a) % static_cast<i32>(b)); })>, false},
  {"remu",   enc(0x33, 7, 0x01), kMaskR, "d,s,t", U::kDiv, rr<(+[](u32 a, u32 b) -> u32 { return b == 0 ? a : a % b; })>, false},
  // ---- A (decoded and executed as SimX does; counted as atomics) ------------------------------
  {"lr.w",      amo(0x02), 0xF9F0707F, "d,(s)", U::kLsu, +[](Ctx& c, const D& d) {
      u32* r = c.X(d.rd); const u32* a = c.X(d.rs1);
      c.for_lanes([&](u32 l) { u32 v = 0; c.lr(l, a[l], v); if (d.rd != 0) r[l] = v; }); }, false},
  {"sc.w",      amo(0x03), kMaskAmo, "d,t,(s)", U::kLsu, +[](Ctx& c, const D& d) {
      u32* r = c.X(d.rd); const u32* a = c.X(d.rs1); const u32* b = c.X(d.rs2);
      c.for_lanes([&](u32 l) { u32 v = c.sc(l, a[l], b[l]) ? 0u : 1u; if (d.rd != 0) r[l] = v; }); }, false},
  {"amoswap.w", amo(0x01), kMaskAmo, "d,t,(s)", U::kLsu, AMO(static_cast<void>(m), v), false},
  {"amoadd.w",  amo(0x00), kMaskAmo, "d,t,(s)", U::kLsu, AMO(m + v), false},
  {"amoxor.w",  amo(0x04), kMaskAmo, "d,t,(s)", U::kLsu, AMO(m ^ v), false},
  {"amoand.w",  amo(0x0C), kMaskAmo, "d,t,(s)", U::kLsu, AMO(m & v), false},
  {"amoor.w",   amo(0x08), kMaskAmo, "d,t,(s)", U::kLsu, AMO(m | v), false},
  {"amomin.w",  amo(0x10), kMaskAmo, "d,t,(s)", U::kLsu, AMO(static_cast<i32>(m) < static_cast<i32>(v) ? m : v), false},
  {"amomax.w",  amo(0x14), kMaskAmo, "d,t,(s)", U::kLsu, AMO(static_cast<i32>(m) > static_cast<i32>(v) ? m : v), false},
  {"amominu.w", amo(0x18), kMaskAmo, "d,t,(s)", U::kLsu, AMO(m < v ? m : v), false},
  {"amomaxu.w", amo(0x1C), kMaskAmo, "d,t,(s)", U::kLsu, AMO(m > v ? m : v), false},
  // ---- F -------------------------------------------------------------------------------------
  {"flw", enc(0x07, 2), kMaskI, "D,o(s)", U::kLsu, +[](Ctx& c, const D& d) {
      u32* r = c.F(d.rd); const u32* a = c.X(d.rs1);
      c.for_lanes([&](u32 l) { r[l] = c.load<uint32_t>(l, a[l] + static_cast<u32>(d.imm)); }); }, false},
  {"fsw", enc(0x27, 2), kMaskI, "T,q(s)", U::kLsu, +[](Ctx& c, const D& d) {
      const u32* a = c.X(d.rs1); const u32* b = c.F(d.rs2);
      c.for_lanes([&](u32 l) { c.store<uint32_t>(l, a[l] + static_cast<u32>(d.imm), b[l]); }); }, false},
  {"fmadd.s",  enc(0x43), kMaskR4, "D,S,T,R,m", U::kFpuFma, ffma<false, false>, false},
  {"fmsub.s",  enc(0x47), kMaskR4, "D,S,T,R,m", U::kFpuFma, ffma<false, true>, false},
  {"fnmsub.s", enc(0x4B), kMaskR4, "D,S,T,R,m", U::kFpuFma, ffma<true, false>, false},
  {"fnmadd.s", enc(0x4F), kMaskR4, "D,S,T,R,m", U::kFpuFma, ffma<true, true>, false},
  {"fadd.s", enc(0x53, 0, 0x00), kMaskFR, "D,S,T,m", U::kFpuFma, fbin<fp::add, 1>, false},
  {"fsub.s", enc(0x53, 0, 0x04), kMaskFR, "D,S,T,m", U::kFpuFma, fbin<fp::sub, 1>, false},
  {"fmul.s", enc(0x53, 0, 0x08), kMaskFR, "D,S,T,m", U::kFpuFma, fbin<fp::mul, 1>, false},
  {"fdiv.s", enc(0x53, 0, 0x0C), kMaskFR, "D,S,T,m", U::kFpuDivSqrt, fbin<fp::div, 1>, false},
  {"fsqrt.s", enc(0x53, 0, 0x2C), kMaskFR2, "D,S,m", U::kFpuDivSqrt, +[](Ctx& c, const D& d) {
      fcvt<f_sqrt_adapter, true, true>(c, d); c.note_fp_flops(1); }, false},
  {"fsgnj.s",  enc(0x53, 0, 0x10), kMaskR, "D,S,T", U::kFpuMisc, fsgn<(+[](u32 a, u32 b) -> u32 { return (a & 0x7FFFFFFFu) | (b & 0x80000000u); })>, false},
  {"fsgnjn.s", enc(0x53, 1, 0x10), kMaskR, "D,S,T", U::kFpuMisc, fsgn<(+[](u32 a, u32 b) -> u32 { return (a & 0x7FFFFFFFu) | (~b & 0x80000000u); })>, false},
  {"fsgnjx.s", enc(0x53, 2, 0x10), kMaskR, "D,S,T", U::kFpuMisc, fsgn<(+[](u32 a, u32 b) -> u32 { return a ^ (b & 0x80000000u); })>, false},
  {"fmin.s", enc(0x53, 0, 0x14), kMaskR, "D,S,T", U::kFpuMisc, fcmp<fp::min, false, 0>, false},
  {"fmax.s", enc(0x53, 1, 0x14), kMaskR, "D,S,T", U::kFpuMisc, fcmp<fp::max, false, 0>, false},
  {"fcvt.w.s",  enc(0x53, 0, 0x60) | rs2f(0), kMaskFR2, "d,S,m", U::kFpuCvt, fcvt<fp::cvt_w_s, true, false>, false},
  {"fcvt.wu.s", enc(0x53, 0, 0x60) | rs2f(1), kMaskFR2, "d,S,m", U::kFpuCvt, fcvt<fp::cvt_wu_s, true, false>, false},
  {"fmv.x.w", enc(0x53, 0, 0x70), 0xFFF0707F, "d,S", U::kFpuMisc, +[](Ctx& c, const D& d) {
      if (d.rd == 0) { return; }
      u32* r = c.X(d.rd); const u32* a = c.F(d.rs1); c.for_lanes([&](u32 l) { r[l] = a[l]; }); }, false},
  {"fclass.s", enc(0x53, 1, 0x70), 0xFFF0707F, "d,S", U::kFpuMisc, +[](Ctx& c, const D& d) {
      if (d.rd == 0) { return; }
      u32* r = c.X(d.rd); const u32* a = c.F(d.rs1); c.for_lanes([&](u32 l) { r[l] = fp::classify(a[l]); }); }, false},
  {"feq.s", enc(0x53, 2, 0x50), kMaskR, "d,S,T", U::kFpuMisc, fcmp<fp::eq, true, 0>, false},
  {"flt.s", enc(0x53, 1, 0x50), kMaskR, "d,S,T", U::kFpuMisc, fcmp<fp::lt, true, 0>, false},
  {"fle.s", enc(0x53, 0, 0x50), kMaskR, "d,S,T", U::kFpuMisc, fcmp<fp::le, true, 0>, false},
  {"fcvt.s.w",  enc(0x53, 0, 0x68) | rs2f(0), kMaskFR2, "D,s,m", U::kFpuCvt, fcvt<fp::cvt_s_w, false, true>, false},
  {"fcvt.s.wu", enc(0x53, 0, 0x68) | rs2f(1), kMaskFR2, "D,s,m", U::kFpuCvt, fcvt<fp::cvt_s_wu, false, true>, false},
  {"fmv.w.x", enc(0x53, 0, 0x78), 0xFFF0707F, "D,s", U::kFpuMisc, +[](Ctx& c, const D& d) {
      u32* r = c.F(d.rd); const u32* a = c.X(d.rs1); c.for_lanes([&](u32 l) { r[l] = a[l]; }); }, false},
  // ---- Zicsr -----------------------------------------------------------------------------------
  {"csrrw",  enc(0x73, 1), kMaskI, "d,c,s", U::kSfuCsr, csr_op<0, false>, true},
  {"csrrs",  enc(0x73, 2), kMaskI, "d,c,s", U::kSfuCsr, csr_op<1, false>, true},
  {"csrrc",  enc(0x73, 3), kMaskI, "d,c,s", U::kSfuCsr, csr_op<2, false>, true},
  {"csrrwi", enc(0x73, 5), kMaskI, "d,c,Z", U::kSfuCsr, csr_op<0, true>, true},
  {"csrrsi", enc(0x73, 6), kMaskI, "d,c,Z", U::kSfuCsr, csr_op<1, true>, true},
  {"csrrci", enc(0x73, 7), kMaskI, "d,c,Z", U::kSfuCsr, csr_op<2, true>, true},
  // ---- Zicond ----------------------------------------------------------------------------------
  {"czero.eqz", enc(0x33, 5, 0x07), kMaskR, "d,s,t", U::kAlu, rr<(+[](u32 a, u32 b) -> u32 { return b == 0 ? 0 : a; })>, false},
  {"czero.nez", enc(0x33, 7, 0x07), kMaskR, "d,s,t", U::kAlu, rr<(+[](u32 a, u32 b) -> u32 { return b != 0 ? 0 : a; })>, false},
  // ---- Vortex custom-0, funct7=0: warp control (docs/vortex.md §1.2-1.3) ---------------------
  {"vx_tmc", enc(kOpCustom0, 0, 0), kMaskR, "s", U::kSfuWctl, +[](Ctx& c, const D& d) {
      c.tmc(c.X(d.rs1)[c.last_lane()]); }, true},
  {"vx_wspawn", enc(kOpCustom0, 1, 0), kMaskR, "s,t", U::kSfuWctl, +[](Ctx& c, const D& d) {
      u32 l = c.last_lane(); c.wspawn(c.X(d.rs1)[l], c.X(d.rs2)[l]); }, true},
  {"vx_split", enc(kOpCustom0, 2, 0), kMaskR | rs2f(1), "d,s", U::kSfuWctl, +[](Ctx& c, const D& d) {
      write_all(c, d, c.split(lane_pred(c, d, false))); }, true},
  {"vx_split.n", enc(kOpCustom0, 2, 0) | rs2f(1), kMaskR | rs2f(1), "d,s", U::kSfuWctl, +[](Ctx& c, const D& d) {
      write_all(c, d, c.split(lane_pred(c, d, true))); }, true},
  {"vx_join", enc(kOpCustom0, 3, 0), kMaskR, "s", U::kSfuWctl, +[](Ctx& c, const D& d) {
      c.join(c.X(d.rs1)[c.last_lane()]); }, true},
  {"vx_bar", enc(kOpCustom0, 4, 0), kMaskR, "s,t", U::kSfuWctl, +[](Ctx& c, const D& d) {
      u32 l = c.last_lane(); c.barrier(c.X(d.rs1)[l], c.X(d.rs2)[l]); }, true},
  {"vx_pred", enc(kOpCustom0, 5, 0), (kMaskR & ~0x00000F80u) | 0x80u, "s,t", U::kSfuWctl, +[](Ctx& c, const D& d) {
      c.pred(lane_pred(c, d, false), c.X(d.rs2)[c.last_lane()]); }, true},
  {"vx_pred.n", enc(kOpCustom0, 5, 0) | 0x80u, (kMaskR & ~0x00000F80u) | 0x80u, "s,t", U::kSfuWctl, +[](Ctx& c, const D& d) {
      c.pred(lane_pred(c, d, true), c.X(d.rs2)[c.last_lane()]); }, true},
  // ---- Vortex custom-0, funct7=1: VOTE / SHFL (ALU) ----------------------------------------------
  {"vx_vote.all",    enc(kOpCustom0, 0, 1), kMaskR, "d,s", U::kAlu, +[](Ctx& c, const D& d) { vote(c, d, 0); }, false},
  {"vx_vote.any",    enc(kOpCustom0, 1, 1), kMaskR, "d,s", U::kAlu, +[](Ctx& c, const D& d) { vote(c, d, 1); }, false},
  {"vx_vote.uni",    enc(kOpCustom0, 2, 1), kMaskR, "d,s", U::kAlu, +[](Ctx& c, const D& d) { vote(c, d, 2); }, false},
  {"vx_vote.ballot", enc(kOpCustom0, 3, 1), kMaskR, "d,s", U::kAlu, +[](Ctx& c, const D& d) { vote(c, d, 3); }, false},
  {"vx_shfl.up",   enc(kOpCustom0, 4, 1), kMaskR, "d,s,t", U::kAlu, +[](Ctx& c, const D& d) { shfl(c, d, 0); }, false},
  {"vx_shfl.down", enc(kOpCustom0, 5, 1), kMaskR, "d,s,t", U::kAlu, +[](Ctx& c, const D& d) { shfl(c, d, 1); }, false},
  {"vx_shfl.bfly", enc(kOpCustom0, 6, 1), kMaskR, "d,s,t", U::kAlu, +[](Ctx& c, const D& d) { shfl(c, d, 2); }, false},
  {"vx_shfl.idx",  enc(kOpCustom0, 7, 1), kMaskR, "d,s,t", U::kAlu, +[](Ctx& c, const D& d) { shfl(c, d, 3); }, false},
  // ---- Vortex custom-0, funct7=2: TCU WMMA (docs/vortex.md §7.1); rd/rs1 fields = format ids --
  {"vx_wmma", enc(kOpCustom0, 0, 2), kMaskR, "W", U::kTcu, tcu_wmma, false},
};
// clang-format on
#undef AMO

constexpr size_t kTableSize = sizeof(kTable) / sizeof(kTable[0]);

enum class ImmKind : uint8_t { kNone, kI, kS, kB, kJ, kU, kShamt, kCsr };

ImmKind imm_kind(const char* args) {
  for (const char* p = args; *p != '\0'; ++p) {
    switch (*p) {
      case 'j': case 'o': return ImmKind::kI;
      case 'q': return ImmKind::kS;
      case 'p': return ImmKind::kB;
      case 'a': return ImmKind::kJ;
      case 'u': return ImmKind::kU;
      case '>': return ImmKind::kShamt;
      case 'c': return ImmKind::kCsr;
      default: break;
    }
  }
  return ImmKind::kNone;
}

i32 sext(u32 v, int bits) { return static_cast<i32>(v << (32 - bits)) >> (32 - bits); }

i32 extract_imm(ImmKind k, u32 w) {
  switch (k) {
    case ImmKind::kI: return static_cast<i32>(w) >> 20;
    case ImmKind::kS: return sext(((w >> 25) << 5) | ((w >> 7) & 0x1F), 12);
    case ImmKind::kB:
      return sext(((w >> 31) << 12) | (((w >> 7) & 1) << 11) | (((w >> 25) & 0x3F) << 5) |
                      (((w >> 8) & 0xF) << 1), 13);
    case ImmKind::kJ:
      return sext(((w >> 31) << 20) | (((w >> 12) & 0xFF) << 12) | (((w >> 20) & 1) << 11) |
                      (((w >> 21) & 0x3FF) << 1), 21);
    case ImmKind::kU: return static_cast<i32>(w & 0xFFFFF000u);
    case ImmKind::kShamt: return static_cast<i32>((w >> 20) & 0x1F);
    case ImmKind::kCsr: return static_cast<i32>(w >> 20);
    case ImmKind::kNone: break;
  }
  return 0;
}

struct Index {
  std::array<ImmKind, kTableSize> imm{};
  std::array<std::vector<uint16_t>, 128> by_opcode;  ///< rows per 7-bit opcode
  Index() {
    for (size_t i = 0; i < kTableSize; ++i) {
      imm[i] = imm_kind(kTable[i].args);
      by_opcode[kTable[i].match & 0x7F].push_back(static_cast<uint16_t>(i));
    }
  }
};
const Index& index() {
  static const Index idx;
  return idx;
}

const char* const kXNames[32] = {"zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0",
                                 "a1", "a2", "a3", "a4", "a5", "a6", "a7", "s2", "s3", "s4", "s5",
                                 "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6"};
const char* const kFNames[32] = {"ft0", "ft1", "ft2", "ft3", "ft4", "ft5", "ft6", "ft7", "fs0", "fs1", "fa0",
                                 "fa1", "fa2", "fa3", "fa4", "fa5", "fa6", "fa7", "fs2", "fs3", "fs4", "fs5",
                                 "fs6", "fs7", "fs8", "fs9", "fs10", "fs11", "ft8", "ft9", "ft10", "ft11"};
const char* const kRmNames[8] = {"rne", "rtz", "rdn", "rup", "rmm", "rm5", "rm6", "dyn"};

}  // namespace

std::span<const InstrDef> instr_table() { return {kTable, kTableSize}; }

Decoded decode(uint32_t word) {
  Decoded d;
  d.word = word;
  d.rd = static_cast<uint8_t>((word >> 7) & 0x1F);
  d.rs1 = static_cast<uint8_t>((word >> 15) & 0x1F);
  d.rs2 = static_cast<uint8_t>((word >> 20) & 0x1F);
  d.rs3 = static_cast<uint8_t>(word >> 27);
  d.rm = static_cast<uint8_t>((word >> 12) & 7);
  d.op = kIllegalOp;
  const Index& idx = index();
  for (uint16_t i : idx.by_opcode[word & 0x7F]) {
    if ((word & kTable[i].mask) == kTable[i].match) {
      d.op = i;
      d.imm = extract_imm(idx.imm[i], word);
      break;
    }
  }
  return d;
}

std::string disasm(const Decoded& d, uint32_t pc) {
  if (d.op == kIllegalOp) return fmt::format("unknown {:#010x}", d.word);
  const InstrDef& row = kTable[d.op];
  std::string out = row.name;
  if (row.args[0] != '\0') out += ' ';
  for (const char* p = row.args; *p != '\0'; ++p) {
    switch (*p) {
      case 'd': out += kXNames[d.rd]; break;
      case 's': out += kXNames[d.rs1]; break;
      case 't': out += kXNames[d.rs2]; break;
      case 'D': out += kFNames[d.rd]; break;
      case 'S': out += kFNames[d.rs1]; break;
      case 'T': out += kFNames[d.rs2]; break;
      case 'R': out += kFNames[d.rs3]; break;
      case 'j': case 'o': case 'q': case '>': out += fmt::format("{}", d.imm); break;
      case 'p': case 'a': out += fmt::format("{:#x}", pc + static_cast<u32>(d.imm)); break;
      case 'u': out += fmt::format("{:#x}", static_cast<u32>(d.imm) >> 12); break;
      case 'c': out += fmt::format("{:#x}", static_cast<u32>(d.imm)); break;
      case 'Z': out += fmt::format("{}", d.rs1); break;
      case 'W': out += fmt::format("out_fmt={}, in_fmt={}", d.rd, d.rs1); break;
      case 'm':
        if (d.rm == 7) {
          if (!out.empty() && out.back() == ',') out.pop_back();
        } else {
          out += kRmNames[d.rm];
        }
        break;
      default: out += *p; if (*p == ',') out += ' '; break;
    }
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == ',')) out.pop_back();
  return out;
}

void describe_operands(const Decoded& d, ExecutedInstr& out) {
  out.op_id = d.op;
  out.num_src = 0;
  out.has_dst = false;
  if (d.op == kIllegalOp) return;
  const InstrDef& row = kTable[d.op];
  out.unit = row.unit;
  out.is_control = row.control;
  auto add_src = [&](uint8_t r, bool f) {
    if ((!f && r == 0) || out.num_src >= out.src.size()) return;
    out.src[out.num_src++] = RegRef{r, f};
  };
  for (const char* p = row.args; *p != '\0'; ++p) {
    switch (*p) {
      case 'd': if (d.rd != 0) { out.has_dst = true; out.dst = RegRef{d.rd, false}; } break;
      case 'D': out.has_dst = true; out.dst = RegRef{d.rd, true}; break;
      case 's': add_src(d.rs1, false); break;
      case 't': add_src(d.rs2, false); break;
      case 'S': add_src(d.rs1, true); break;
      case 'T': add_src(d.rs2, true); break;
      case 'R': add_src(d.rs3, true); break;
      default: break;
    }
  }
}

}  // namespace vxsim
