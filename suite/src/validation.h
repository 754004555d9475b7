#pragma once
// Validation artifacts of a benchmark (docs/suite.md "Validation artifacts"): validation/<name>/
// tensors.json names the locked revision's input tensors and CPU reference output (data/*.bin of
// the benchmark) with their SHA-256, the seed that draws the inputs again, and a sample of the
// reference output; the tensors themselves may be left out of a committed suite.

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vxsynth/check/inputs.h"
#include "vxsynth/check/op_spec.h"
#include "vxsynth/check/precision.h"
#include "vxsynth/codegen/design_point.h"
#include "vxsynth/core/context.h"

namespace vxsynth::suite {

inline constexpr const char* kTensorsSchema = "vxsynth.suite-tensors";
inline constexpr int kTensorsVersion = 1;
/// Reference-output elements kept in tensors.json (evenly spaced over the output).
inline constexpr int kSampleSize = 64;

/// The op, precision path and file type of a benchmark: those of its locked design point, the op
/// its kernels compute (a later seed rule may read the reference context differently, e.g. a
/// broadcast bmm operand, while a built benchmark keeps the op it was built for).
struct TensorSpec {
  check::OpSpec op;
  check::PrecisionPath path{};
  check::FileDType ftype{};
};
[[nodiscard]] TensorSpec tensor_spec(const codegen::DesignPoint& locked);

/// tensors.json of the benchmark in `bench` whose run input key (run.json `input_key`) and locked
/// revision are given; draws the inputs again to record whether they match the files
/// (`redrawn_match`). The op and precision are the locked revision's design point (tensor_spec).
/// Throws vxsynth::Error when `locked_revision` is not a revision of bench/record.jsonl.
[[nodiscard]] nlohmann::json make_tensors_json(const std::filesystem::path& bench, uint64_t input_key,
                                               int locked_revision);

/// Writes the inputs and ref_output.bin that `tensors` describes into `dir`: copied from
/// `bench_data` when the files there match their SHA-256, else drawn again from the seed (and the
/// reference computed in float64). Returns "" or what did not match (file and both hashes).
[[nodiscard]] std::string materialize_tensors(const nlohmann::json& tensors, const TensorSpec& spec,
                                              const std::filesystem::path& bench_data, const std::filesystem::path& dir);

}  // namespace vxsynth::suite
