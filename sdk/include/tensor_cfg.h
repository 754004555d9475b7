/// \file tensor_cfg.h
/// Format tags and geometry of the Vortex 2.x tensor-core unit (TCU) WMMA instruction, usable
/// from kernels (vx_tensor.h) and from host code (the simulator, test hosts). Formulas from docs/vortex.md
/// §7.1 (Vortex master 82e1c2a, sim/common/tensor_cfg.h, described there in words):
///   tile_cap = NT * NR; tile M x N splits log2(tile_cap) with M >= N; xtileK = tile_cap / M
///   (K extent in 32-bit words); micro-tile tcM x tcN splits log2(NT) with tcM >= tcN and
///   tcK = NT / tcM (words); tileK = xtileK * (XB / sizeof(input dtype)) elements;
///   register counts NRA = M*xtileK/NT, NRB = N*xtileK/NT, NRC = M*N/NT.
/// Worked values (NR=8): NT=4 -> 8x4 tile, xtileK 4, micro 2x2x2, NRA/NRB/NRC 8/4/8;
/// NT=8 -> 8x8, 8, 4x2x2, 8/8/8; NT=16 -> 16x8, 8, 4x4x4, 8/4/8; NT=32 -> 16x16, 16, 8x4x4, 8/8/8.
#ifndef VX_TENSOR_CFG_H
#define VX_TENSOR_CFG_H

#include <stddef.h>
#include <stdint.h>

namespace vortex {
namespace tensor {

/// Format tags: element container type, format id (the WMMA register-number field), bits, and
/// the short name Vortex's host programs print (`It::name`; names as in Vortex master's
/// sim/common/tensor_cfg.h, docs/sdk.md "Tensor cores").
struct fp32  { using dtype = float;    static constexpr uint32_t id = 0;  static constexpr uint32_t bits = 32; static constexpr const char* name = "fp32"; };
struct fp16  { using dtype = uint16_t; static constexpr uint32_t id = 1;  static constexpr uint32_t bits = 16; static constexpr const char* name = "fp16"; };
struct bf16  { using dtype = uint16_t; static constexpr uint32_t id = 2;  static constexpr uint32_t bits = 16; static constexpr const char* name = "bf16"; };
struct int32 { using dtype = int32_t;  static constexpr uint32_t id = 8;  static constexpr uint32_t bits = 32; static constexpr const char* name = "i32"; };
/// int8: 8 bits (Vortex [M] declares 16, which PR #277 reports as a bug).
struct int8  { using dtype = int8_t;   static constexpr uint32_t id = 9;  static constexpr uint32_t bits = 8;  static constexpr const char* name = "i8"; };
struct uint8 { using dtype = uint8_t;  static constexpr uint32_t id = 10; static constexpr uint32_t bits = 8;  static constexpr const char* name = "u8"; };
struct int4  { using dtype = uint8_t;  static constexpr uint32_t id = 11; static constexpr uint32_t bits = 4;  static constexpr const char* name = "i4"; };
struct uint4 { using dtype = uint8_t;  static constexpr uint32_t id = 12; static constexpr uint32_t bits = 4;  static constexpr const char* name = "u4"; };

/// The name of the format with WMMA id `id` ("" for an id without a tag here).
inline constexpr const char* fmt_string(uint32_t id) {
  return id == fp32::id ? fp32::name : id == fp16::id ? fp16::name : id == bf16::id ? bf16::name
       : id == int32::id ? int32::name : id == int8::id ? int8::name : id == uint8::id ? uint8::name
       : id == int4::id ? int4::name : id == uint4::id ? uint4::name : "";
}

/// Memory layout of a matrix in load_matrix_sync / store_matrix_sync.
enum mem_layout { row_major, col_major };

/// floor(log2(x)) for x >= 1.
constexpr uint32_t log2_floor(uint32_t x) { return x <= 1 ? 0 : 1 + log2_floor(x >> 1); }

/// WMMA geometry for NT threads per warp, input format It, output format Ot (format tags of
/// vx_tensor.h), XB bytes per register (4), NR registers per operand (8). DP is accepted for
/// signature compatibility and unused.
template <uint32_t NT, typename It, typename Ot, uint32_t XB = 4, uint32_t NR = 8, uint32_t DP = 0>
struct wmma_config_t {
  static_assert(NT >= 2 && NT <= 32 && (NT & (NT - 1)) == 0, "NT must be a power of two in [2, 32]");
  static constexpr uint32_t tile_cap = NT * NR;
  static constexpr uint32_t tile_log2 = log2_floor(tile_cap);
  static constexpr uint32_t tileM = 1u << ((tile_log2 + 1) / 2);   ///< rows of A, C
  static constexpr uint32_t tileN = 1u << (tile_log2 / 2);         ///< columns of B, C
  static constexpr uint32_t xtileK = tile_cap / tileM;             ///< K extent in 32-bit words
  static constexpr uint32_t nt_log2 = log2_floor(NT);
  static constexpr uint32_t tcM = 1u << ((nt_log2 + 1) / 2);       ///< micro-tile rows
  static constexpr uint32_t tcN = 1u << (nt_log2 / 2);             ///< micro-tile columns
  static constexpr uint32_t tcK = NT / tcM;                        ///< micro-tile K (words)
  static constexpr uint32_t elems_per_word = XB / sizeof(typename It::dtype);  ///< packed inputs
  static constexpr uint32_t tileK = xtileK * elems_per_word;       ///< K extent in elements
  static constexpr uint32_t m_steps = tileM / tcM;
  static constexpr uint32_t n_steps = tileN / tcN;
  static constexpr uint32_t k_steps = xtileK / tcK;
  static constexpr uint32_t a_sub_blocks = NT / (tcM * tcK);       ///< m-steps sharing an A register
  static constexpr uint32_t b_sub_blocks = NT / (tcN * tcK);       ///< n-steps sharing a B register
  static constexpr uint32_t NRA = tileM * xtileK / NT;
  static constexpr uint32_t NRB = tileN * xtileK / NT;
  static constexpr uint32_t NRC = tileM * tileN / NT;
  static constexpr uint32_t micro_ops = m_steps * n_steps * k_steps;  ///< micro-ops per WMMA
  static_assert(NRA == 8 && (NRB == 8 || NRB == 4) && NRC == 8, "unexpected WMMA register counts");
};

}  // namespace tensor
}  // namespace vortex

#endif /* VX_TENSOR_CFG_H */
