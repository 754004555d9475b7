#pragma once
// The CUDA candidate under the artefact rules (docs/sandbox.md "Artefact rules", "One strategy,
// two sides"): compiled by the harness in an isolated step with nvcc's intermediate files kept;
// the preprocessed translation units, the PTX, the SASS (where cuobjdump exists) and the object's
// undefined symbols are checked, and a CUDA file that differs from the design's rendering must
// launch the same kernels with the same configurations.

#include <filesystem>
#include <string>

#include "vxsynth/refine/loop.h"

namespace vxsynth::refine {

// Compiles <candidate>/cuda/candidate.cu for `arch` with `nvcc` and applies the rules. Returns the
// rejection reason, empty when it compiled and passed.
[[nodiscard]] std::string check_cuda_candidate(const std::filesystem::path& candidate_dir, const EvalRequest& req,
                                               const std::filesystem::path& nvcc, const std::string& arch);

}  // namespace vxsynth::refine
