#pragma once
/// \file
/// Fresh random inputs for every check, scaled like the workload's tensors
/// (docs/signature.md §4: "freshly drawn random values (not zeros) …, weights
/// ~ N(0, 1/K)"), and the raw little-endian tensor files candidates read and write.

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "vxsynth/check/op_spec.h"
#include "vxsynth/check/precision.h"

namespace vxsynth::check {

/// One generated input tensor: its operand description and its values, already rounded to the
/// path's storage type (so `values` are exactly what the candidates read).
struct InputTensor {
  OperandInfo info;
  std::vector<double> values;
};

/// Draws the inputs of `op` from a seeded generator (std::mt19937_64 + Box–Muller, so the values
/// are the same on every platform for a seed):
/// - activations (x, a): N(0, 1);
/// - weights (weight, b): N(0, 1/fan_in) with fan_in = op.fan_in() (K, or (C/groups)·R·S);
/// - bias: N(0, 1/fan_in) (the scale of torch's default init, U(±1/√fan_in), has this order).
/// Values are rounded to fp32, or to bf16 when stores_bf16(path). Callers pass a new seed per
/// check ("fresh random per check").
[[nodiscard]] std::vector<InputTensor> generate_inputs(const OpSpec& op, PrecisionPath path, uint64_t seed);

/// The values of each tensor, in order (the form reference_forward takes).
[[nodiscard]] std::vector<std::vector<double>> values_of(const std::vector<InputTensor>& inputs);

/// Element encoding of a tensor file.
enum class FileDType : uint8_t { kF32, kBf16 };

/// Writes `values` as raw little-endian fp32 or bf16 (round to nearest even) to `path`,
/// atomically. Throws vxsynth::Error naming the path on I/O failure.
void write_tensor_file(const std::filesystem::path& path, std::span<const double> values, FileDType dtype);

/// Reads a raw tensor file of exactly `numel` elements. Throws vxsynth::Error naming the path and
/// the expected and actual byte counts when the size is wrong or the file is missing.
[[nodiscard]] std::vector<double> read_tensor_file(const std::filesystem::path& path, int64_t numel,
                                                   FileDType dtype);

/// Writes a file of `numel` quiet NaNs (the poisoned output buffer a candidate must overwrite).
void write_poison_file(const std::filesystem::path& path, int64_t numel, FileDType dtype);

/// File element type of the path's tensors: kBf16 for PrecisionPath::kBf16, else kF32.
[[nodiscard]] FileDType file_dtype(PrecisionPath path);

/// Writes every input to `dir/<name>.bin` (creating `dir`).
void write_inputs(const std::filesystem::path& dir, const std::vector<InputTensor>& inputs, PrecisionPath path);

}  // namespace vxsynth::check
