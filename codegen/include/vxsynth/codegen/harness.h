#pragma once
/// \file
/// The standalone launcher of a CUDA candidate (the ncu backend's profiled launch, paper §3.5):
/// a host program that reads DIR/<operand>.bin, calls the candidate's `vxs_launch` once at the
/// profiled shape on a NaN-poisoned output and writes DIR/cuda_out.bin. Its calls are generated
/// from the op's shape with the same extern "C" prototypes the CUDA candidate exports
/// (cuda_c_api_declarations), so the two cannot drift apart.

#include <string>

#include "vxsynth/check/op_spec.h"
#include "vxsynth/check/precision.h"

namespace vxsynth::codegen {

/// File name of the standalone launcher next to the candidate (`nvcc … candidate.cu vxs_standalone.cu`).
inline constexpr const char* kStandaloneFileName = "vxs_standalone.cu";

/// Source of the standalone launcher for `op` on precision path `path`. Usage of the built program:
/// `vxs_standalone DIR`; exit 0 after writing DIR/cuda_out.bin, 2 on a file or CUDA error, 3 when
/// vxs_launch returns an error.
[[nodiscard]] std::string standalone_harness(const check::OpSpec& op, check::PrecisionPath path);

}  // namespace vxsynth::codegen
