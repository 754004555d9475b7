#pragma once
// The harness-owned Vortex runner (docs/sandbox.md "The harness owns what it measures"). The
// candidate's kernel.cpp is built into a kernel image; what is measured — the inputs written to the
// device, the launches, the output read back, the signature — is done by the harness's own host
// program: the design's main.cpp and host driver as codegen renders them, built by the harness,
// never the candidate's main.cpp. The candidate's own host program still runs once, on inputs it
// draws itself and without the run directory, and its self-check must pass.

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "vxsynth/codegen/vortex_check.h"
#include "vxsynth/refine/loop.h"

namespace vxsynth::refine {

struct CandidateData;

// Builds <candidate>/vortex (isolated, the compiler's preprocessed output kept), applies the
// artefact rules, runs the candidate's own self-check (unless its host program is the harness's own
// rendering, when the harness run below is the same program), then the harness's host program with
// the candidate's kernel image on the inputs in `d.dir` (timing mode when `timing`), the signature
// to <candidate>/vortex_signature.json. Returns the rejection reason, empty on success, with the
// output in `out`; the wall time of each step goes to `steps`.
[[nodiscard]] std::string run_vortex_harness(const std::filesystem::path& candidate_dir,
                                             const std::filesystem::path& sdk_dir, const EvalRequest& req,
                                             const CandidateData& d, bool timing, std::vector<double>& out,
                                             StepTimes* steps);

// The sampled-tile check of this revision's functional-mode runs (codegen::check_tile_sample with
// the revision's check-input seed, which the agent cannot know): the candidate's own self-check and
// a functional harness run launch only these tiles' blocks (the host's `-b`). nullopt for a timing
// run (its signature needs the whole shape) or when the whole run fits the check budget.
[[nodiscard]] std::optional<codegen::TileSample> check_sample(const EvalRequest& req, bool timing);

// What every isolated step of a candidate hides: the run directory and the candidate directory
// (its data/ holds the reference output), with the step's own directory bound inside.
[[nodiscard]] std::vector<std::filesystem::path> hidden_dirs(const std::filesystem::path& candidate_dir,
                                                             const EvalRequest& req);

// The design's GEMM launch grid as the harness's host program passes it (codegen's rendering of
// main.cpp: `c.grid[k] = Nu;`); the CUDA launcher's grid is the same (codegen/src/emit_common.cc).
[[nodiscard]] std::array<uint32_t, 3> design_grid(const EvalRequest& req);

// "sandbox: rule: …; rule: …" for a list of violations.
[[nodiscard]] std::string sandbox_failure(const std::vector<Violation>& v);

}  // namespace vxsynth::refine
