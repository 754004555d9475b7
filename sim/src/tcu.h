#pragma once
// Internal: the tensor-core WMMA semantics body (docs/vortex.md §7.1).
#include "vxsim/isa.h"

namespace vxsim {
/// Executes one WMMA (custom-0 funct7=2 funct3=0) for the whole warp.
void tcu_wmma(ExecCtx& c, const Decoded& d);
}  // namespace vxsim
