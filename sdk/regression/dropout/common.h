// dropout: shared host/device layout and the pseudo-random generator (tests/regression layout,
// docs/vortex.md §6.1): host and device draw the same number for each point.
#ifndef DROPOUT_COMMON_H
#define DROPOUT_COMMON_H

#include <stdint.h>

typedef struct {
  uint32_t num_points;  // grid_dim[0] in thread mode
  float drop_p;         // probability that a point is zeroed
  float scale;          // 1 / (1 - drop_p): kept points are scaled up
  uint32_t seed;
  uint64_t src_addr;
  uint64_t dst_addr;
} kernel_arg_t;

// A stateless hash of (seed, index) into 32 uniform bits: the integer finaliser of
// MurmurHash3 (fmix32, constants 0x85ebca6b and 0xc2b2ae35, public domain) on their mix.
static inline uint32_t dropout_hash(uint32_t seed, uint32_t index) {
  uint32_t h = seed ^ (index * 0x9e3779b9u);  // golden-ratio increment spreads neighbours
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

// The hash as a float in [0, 1): its top 24 bits times 2^-24 (exact in single precision).
static inline float dropout_uniform(uint32_t seed, uint32_t index) {
  return static_cast<float>(dropout_hash(seed, index) >> 8) * (1.0f / 16777216.0f);
}

#endif
