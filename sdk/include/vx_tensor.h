/// \file vx_tensor.h
/// WMMA (tensor-core) API of Vortex 2.x, namespace vortex::tensor: format tags, wmma_context with
/// fill_fragment / load_matrix_sync / store_matrix_sync / mma_sync. Names follow Vortex master
/// 82e1c2a ([M], docs/vortex.md §7.1); written for GCC.
///
/// The instruction: `.insn r 0x0B, 0, 2, x<Ot::id>, x<It::id>, x0` (custom-0, funct7 = 2). Its
/// operands are implicit FP registers: A in f0-f7; if NRB == 8, B in f10-f17 and C/D in f24-f31;
/// if NRB == 4, B in f28-f31 and C/D in f10-f17. The whole warp must be active.
///
/// Fragment layout (the contract with the simulator; docs/sdk.md "Tensor cores" spells it out):
/// with the geometry of tensor_cfg.h and epw = elements per 32-bit word,
///   A register r, lane t:  row (r / k_steps)*tcM + t / tcK, K word (r % k_steps)*tcK + t % tcK;
///   B register r, lane t:  s = t / (tcN*tcK), u = t % (tcN*tcK),
///                          column ((r / k_steps)*b_sub_blocks + s)*tcN + u / tcK,
///                          K word (r % k_steps)*tcK + u % tcK;
///   C register r, lane t:  row (r / n_steps)*tcM + t / tcN, column (r % n_steps)*tcN + t % tcN;
/// element e of a K word is bits [e*bits, (e+1)*bits) and holds K index word*epw + e.
/// Sub-byte formats (int4/uint4) are declared but not supported by the load/store helpers.
#ifndef VX_TENSOR_H
#define VX_TENSOR_H

#include <stddef.h>
#include <stdint.h>

#include <tensor_cfg.h>
#include <vx_intrinsics.h>

namespace vortex {
namespace tensor {

namespace detail {

inline uint32_t f2u(float f) { uint32_t u; __builtin_memcpy(&u, &f, 4); return u; }
inline float u2f(uint32_t u) { float f; __builtin_memcpy(&f, &u, 4); return f; }

/// binary32 -> bfloat16 bits, round to nearest even (NaN kept quiet). Uniform values only.
inline uint16_t to_bf16(float f) {
  uint32_t u = f2u(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}

/// binary32 -> binary16 bits, round to nearest even. Uniform values only (branches).
inline uint16_t to_fp16(float f) {
  uint32_t u = f2u(f);
  uint32_t sign = (u >> 16) & 0x8000u;
  uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return (uint16_t)(sign | 0x7e00u);                 // NaN
  if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);                // overflow -> inf
  if (a < 0x38800000u) {                                                  // subnormal or zero
    if (a < 0x33000000u) return (uint16_t)sign;
    uint32_t e = a >> 23, m = (a & 0x7fffffu) | 0x800000u;
    uint32_t shift = 126u - e;                                            // 14..24
    uint32_t r = m >> shift, rem = m & ((1u << shift) - 1u), half = 1u << (shift - 1u);
    if (rem > half || (rem == half && (r & 1u))) ++r;
    return (uint16_t)(sign | r);
  }
  uint32_t r = ((a >> 13) - (112u << 10));
  uint32_t rem = a & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (r & 1u))) ++r;
  return (uint16_t)(sign | r);
}

/// The bit pattern of `value` in format T (float, fp16/bf16 bits, integers).
template <typename T> inline uint32_t bits_of(float value);
template <> inline uint32_t bits_of<fp32>(float v) { return f2u(v); }
template <> inline uint32_t bits_of<fp16>(float v) { return to_fp16(v); }
template <> inline uint32_t bits_of<bf16>(float v) { return to_bf16(v); }
template <> inline uint32_t bits_of<int32>(float v) { return (uint32_t)(int32_t)v; }
template <> inline uint32_t bits_of<int8>(float v) { return (uint32_t)(uint8_t)(int8_t)v; }
template <> inline uint32_t bits_of<uint8>(float v) { return (uint32_t)(uint8_t)v; }

/// Raw bits of element `index` of an array of T::dtype.
template <typename T> inline uint32_t load_bits(const void* base, size_t index) {
  typename T::dtype v = static_cast<const typename T::dtype*>(base)[index];
  uint32_t u = 0;
  __builtin_memcpy(&u, &v, sizeof(v));
  return u & (T::bits >= 32 ? 0xffffffffu : ((1u << T::bits) - 1u));
}

/// Packs one 32-bit K word: `epw` elements of format T starting at K index k0.
template <typename T, uint32_t epw, typename F> inline uint32_t pack_word(uint32_t k0, F&& element_bits) {
  uint32_t word = 0;
  for (uint32_t e = 0; e < epw; ++e) word |= element_bits(k0 + e) << (e * T::bits);
  return word;
}

}  // namespace detail

/// Warp-level matrix multiply-accumulate context: D = A * B + C on one tile of
/// tileM x tileN outputs with tileK inputs, for NT threads per warp.
template <uint32_t NT, typename It, typename Ot>
struct wmma_context {
  using cfg = wmma_config_t<NT, It, Ot>;
  using input_t = typename It::dtype;
  using output_t = typename Ot::dtype;
  static_assert(It::bits >= 8, "sub-byte input formats are not supported by this SDK");
  static_assert(Ot::bits == 32 || Ot::bits == 16, "output format must be 16 or 32 bits");

  static constexpr uint32_t tileM = cfg::tileM;
  static constexpr uint32_t tileN = cfg::tileN;
  static constexpr uint32_t tileK = cfg::tileK;

  /// Per-lane register images (bit containers; values are moved, never computed on).
  struct fragment_a { float data[cfg::NRA]; };
  struct fragment_b { float data[cfg::NRB]; };
  struct fragment_acc { float data[cfg::NRC]; };

  /// Sets every element of an A or B fragment to `value` (converted to It).
  template <typename Frag>
  static void fill_fragment(Frag& frag, float value) {
    constexpr uint32_t n = sizeof(frag.data) / sizeof(frag.data[0]);
    uint32_t word = detail::pack_word<It, cfg::elems_per_word>(0, [&](uint32_t) {
      return detail::bits_of<It>(value);
    });
    for (uint32_t r = 0; r < n; ++r) frag.data[r] = detail::u2f(word);
  }
  /// Sets every element of an accumulator fragment to `value` (converted to Ot).
  static void fill_fragment(fragment_acc& frag, float value) {
    uint32_t bits = detail::bits_of<Ot>(value);
    if (Ot::bits == 16) bits |= 0xffff0000u;  // NaN-boxed half in an FP register
    for (uint32_t r = 0; r < cfg::NRC; ++r) frag.data[r] = detail::u2f(bits);
  }

  /// Loads this lane's part of the tileM x tileK matrix A at `src` (leading dimension `ldm`
  /// elements). Every lane of the warp must call it.
  template <mem_layout layout = row_major>
  static void load_matrix_sync(fragment_a& frag, const void* src, size_t ldm) {
    const uint32_t t = (uint32_t)vx_thread_id();
    const uint32_t i = t / cfg::tcK, z = t % cfg::tcK;
    for (uint32_t r = 0; r < cfg::NRA; ++r) {
      const uint32_t row = (r / cfg::k_steps) * cfg::tcM + i;
      const uint32_t kw = (r % cfg::k_steps) * cfg::tcK + z;
      uint32_t word = detail::pack_word<It, cfg::elems_per_word>(kw * cfg::elems_per_word, [&](uint32_t k) {
        return detail::load_bits<It>(src, layout == row_major ? row * ldm + k : k * ldm + row);
      });
      frag.data[r] = detail::u2f(word);
    }
  }

  /// Loads this lane's part of the tileK x tileN matrix B at `src`.
  template <mem_layout layout = row_major>
  static void load_matrix_sync(fragment_b& frag, const void* src, size_t ldm) {
    const uint32_t t = (uint32_t)vx_thread_id();
    const uint32_t s = t / (cfg::tcN * cfg::tcK), u = t % (cfg::tcN * cfg::tcK);
    const uint32_t j = u / cfg::tcK, z = u % cfg::tcK;
    for (uint32_t r = 0; r < cfg::NRB; ++r) {
      const uint32_t col = ((r / cfg::k_steps) * cfg::b_sub_blocks + s) * cfg::tcN + j;
      const uint32_t kw = (r % cfg::k_steps) * cfg::tcK + z;
      uint32_t word = detail::pack_word<It, cfg::elems_per_word>(kw * cfg::elems_per_word, [&](uint32_t k) {
        return detail::load_bits<It>(src, layout == row_major ? k * ldm + col : col * ldm + k);
      });
      frag.data[r] = detail::u2f(word);
    }
  }

  /// Loads this lane's part of the tileM x tileN accumulator C at `src`.
  template <mem_layout layout = row_major>
  static void load_matrix_sync(fragment_acc& frag, const void* src, size_t ldm) {
    const uint32_t t = (uint32_t)vx_thread_id();
    const uint32_t i = t / cfg::tcN, j = t % cfg::tcN;
    for (uint32_t r = 0; r < cfg::NRC; ++r) {
      const uint32_t row = (r / cfg::n_steps) * cfg::tcM + i;
      const uint32_t col = (r % cfg::n_steps) * cfg::tcN + j;
      uint32_t bits = detail::load_bits<Ot>(src, layout == row_major ? row * ldm + col : col * ldm + row);
      if (Ot::bits == 16) bits |= 0xffff0000u;
      frag.data[r] = detail::u2f(bits);
    }
  }

  /// Stores this lane's part of the accumulator to the tileM x tileN matrix at `dst`.
  template <mem_layout layout = row_major>
  static void store_matrix_sync(void* dst, const fragment_acc& frag, size_t ldm) {
    const uint32_t t = (uint32_t)vx_thread_id();
    const uint32_t i = t / cfg::tcN, j = t % cfg::tcN;
    for (uint32_t r = 0; r < cfg::NRC; ++r) {
      const uint32_t row = (r / cfg::n_steps) * cfg::tcM + i;
      const uint32_t col = (r % cfg::n_steps) * cfg::tcN + j;
      const size_t index = layout == row_major ? row * ldm + col : col * ldm + row;
      const uint32_t bits = detail::f2u(frag.data[r]);
      output_t v;
      __builtin_memcpy(&v, &bits, sizeof(v));  // little-endian: the low bits of the register
      static_cast<output_t*>(dst)[index] = v;
    }
  }

  /// D = A * B + C with one WMMA instruction (D may alias C). Every lane of the warp must be
  /// active. The instruction's registers are implicit (see the file comment): one asm statement
  /// takes them as operands pinned to those registers, so that the assignment cannot be broken by
  /// the compiler; GCC allows 30 operands and an in-out one counts twice, so where all of them do
  /// not fit (NRB == 8) B is loaded inside the statement from its fragment in memory.
  static void mma_sync(fragment_acc& D, const fragment_a& A, const fragment_b& B, const fragment_acc& C) {
    // A is read from f0-f7 at every warp width.
    register float a0 __asm__("f0") = A.data[0], a1 __asm__("f1") = A.data[1];
    register float a2 __asm__("f2") = A.data[2], a3 __asm__("f3") = A.data[3];
    register float a4 __asm__("f4") = A.data[4], a5 __asm__("f5") = A.data[5];
    register float a6 __asm__("f6") = A.data[6], a7 __asm__("f7") = A.data[7];
    if constexpr (cfg::NRB == 8) {
      // NRB == 8 (8 or 32 threads per warp): the instruction reads 24 registers and rewrites 8, 32
      // operands. A (8 inputs) and C/D (8 in-out, 16) are register operands pinned to f0-f7 and
      // f24-f31; B is loaded inside the block from its fragment in memory into f10-f17.
      register float c0 __asm__("f24") = C.data[0], c1 __asm__("f25") = C.data[1];
      register float c2 __asm__("f26") = C.data[2], c3 __asm__("f27") = C.data[3];
      register float c4 __asm__("f28") = C.data[4], c5 __asm__("f29") = C.data[5];
      register float c6 __asm__("f30") = C.data[6], c7 __asm__("f31") = C.data[7];
      __asm__ __volatile__ (
          "flw f10, 0(%[b])\n\t flw f11, 4(%[b])\n\t flw f12, 8(%[b])\n\t flw f13, 12(%[b])\n\t"
          "flw f14, 16(%[b])\n\t flw f15, 20(%[b])\n\t flw f16, 24(%[b])\n\t flw f17, 28(%[b])\n\t"
          ".insn r 0x0B, 0, 2, x%[ot], x%[it], x0"
          : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3), "+f"(c4), "+f"(c5), "+f"(c6), "+f"(c7)
          : "f"(a0), "f"(a1), "f"(a2), "f"(a3), "f"(a4), "f"(a5), "f"(a6), "f"(a7),
            [b] "r"(B.data), "m"(*reinterpret_cast<const float(*)[cfg::NRB]>(B.data)),
            [ot] "i"(Ot::id), [it] "i"(It::id)
          : "f10", "f11", "f12", "f13", "f14", "f15", "f16", "f17");
      D.data[0] = c0; D.data[1] = c1; D.data[2] = c2; D.data[3] = c3;
      D.data[4] = c4; D.data[5] = c5; D.data[6] = c6; D.data[7] = c7;
    } else {
      // NRB == 4 (16 threads per warp): 8 A + 4 B inputs and 8 C/D in-out operands (28 of GCC's
      // 30), pinned to the registers the instruction reads, so fragments stay in registers.
      register float b0 __asm__("f28") = B.data[0], b1 __asm__("f29") = B.data[1];
      register float b2 __asm__("f30") = B.data[2], b3 __asm__("f31") = B.data[3];
      register float c0 __asm__("f10") = C.data[0], c1 __asm__("f11") = C.data[1];
      register float c2 __asm__("f12") = C.data[2], c3 __asm__("f13") = C.data[3];
      register float c4 __asm__("f14") = C.data[4], c5 __asm__("f15") = C.data[5];
      register float c6 __asm__("f16") = C.data[6], c7 __asm__("f17") = C.data[7];
      __asm__ __volatile__ (".insn r 0x0B, 0, 2, x%[ot], x%[it], x0"
          : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3), "+f"(c4), "+f"(c5), "+f"(c6), "+f"(c7)
          : "f"(a0), "f"(a1), "f"(a2), "f"(a3), "f"(a4), "f"(a5), "f"(a6), "f"(a7),
            "f"(b0), "f"(b1), "f"(b2), "f"(b3), [ot] "i"(Ot::id), [it] "i"(It::id));
      D.data[0] = c0; D.data[1] = c1; D.data[2] = c2; D.data[3] = c3;
      D.data[4] = c4; D.data[5] = c5; D.data[6] = c6; D.data[7] = c7;
    }
  }
};

}  // namespace tensor
}  // namespace vortex

#endif /* VX_TENSOR_H */
