// Shared host/device layout of the two-launch split-K test program (splitk.cpp,
// ../signature_launches_test.cc): launch 0 writes partial sums, launch 1 reduces them.
#pragma once
#include <stdint.h>

/// Phase of a launch: the argument buffer selects it, one kernel image serves both (as codegen's
/// two-launch candidates do).
enum splitk_phase_t : uint32_t {
  kSplitkPartials = 0,  ///< ws[s*m + i] = sum of a[i*k + kk] over the s-th K chunk (m*splits threads)
  kSplitkReduce = 1,    ///< out[i] = sum over s of ws[s*m + i] (m threads)
};

typedef struct {
  uint32_t phase;
  uint32_t m;       ///< rows (outputs)
  uint32_t k;       ///< reduction length, a multiple of splits
  uint32_t splits;  ///< K chunks
  uint64_t a;       ///< float[m*k]
  uint64_t ws;      ///< float[splits*m]
  uint64_t out;     ///< float[m]
} splitk_arg_t;
