#pragma once
/// \file
/// Bit counting for the simulator's hot paths.

#include <cstdint>

namespace vxsim {

/// Number of set bits of `x`, the same value as std::popcount. The baseline x86-64 target has no
/// POPCNT instruction, so GCC compiles std::popcount into a call to libgcc's __popcountdi2 (3 % of
/// a timing run's host instructions, docs/vxsim.md "Speed"); this is the branch-free parallel sum
/// (pairs, nibbles, then the bytes added by one multiply), inlined.
[[nodiscard]] constexpr uint32_t popcount32(uint32_t x) {
  x = x - ((x >> 1) & 0x55555555u);                  // 2-bit fields: count of their bits
  x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);  // 4-bit fields
  x = (x + (x >> 4)) & 0x0F0F0F0Fu;                  // bytes
  return (x * 0x01010101u) >> 24;                    // the top byte: the sum of all four bytes
}

}  // namespace vxsim
