#pragma once
/// \file
/// Importer for PyTorch profiler Chrome traces (torch 2.x, CPU + CUDA activities,
/// record_shapes=True; docs/ncu.md §6), plain `.json` or gzip-compressed `.json.gz`.
/// Each GPU kernel is linked to the innermost `cpu_op` through `args["External id"]` (not through
/// the ac2g flows, which also point at non-launch calls), then walked up by time containment on the
/// same (pid, tid) to the top-level op.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <array>

namespace vxsynth::core {

/// One argument of a cpu_op as the trace records it ("Input Dims", "Input type", "Input Strides",
/// "Concrete Inputs" line up with the op's arguments; non-tensors have empty dims).
struct OpArg {
  std::vector<int64_t> dims;
  std::string type;               ///< "float", "c10::BFloat16", "Scalar", …
  std::vector<int64_t> strides;
  std::string concrete;           ///< scalar value as a string ("1", "[1, 1]", "False"); "" for tensors
};

/// One host-side operator event (cat "cpu_op").
struct OpCall {
  std::string name;               ///< "aten::addmm"
  int64_t external_id = -1;
  double ts_us = 0, dur_us = 0;
  std::vector<OpArg> args;
};

/// One GPU kernel event (cat "kernel").
struct TraceKernel {
  std::size_t order = 0;          ///< launch order in the trace (by correlation id), 0-based
  std::string name;               ///< as CUPTI demangles it (differs from ncu's, §5.3)
  double ts_us = 0, dur_us = 0;   ///< start and duration on the GPU, µs
  int64_t device = 0, stream = 0, correlation = 0;
  std::optional<int64_t> external_id;
  std::array<uint32_t, 3> grid{1, 1, 1}, block{1, 1, 1};
  uint32_t registers_per_thread = 0;
  uint32_t shared_memory_bytes = 0;  ///< static + dynamic (no 1 KB driver reserve, §6)
  /// Enclosing cpu_ops, outermost (top-level, e.g. aten::linear) first, innermost (the one whose
  /// External id the kernel carries, e.g. aten::addmm) last; empty when the kernel has no cpu_op.
  std::vector<OpCall> op_stack;
};

/// A parsed trace.
struct TorchTrace {
  std::string path;
  std::string gpu_name;           ///< deviceProperties[device].name
  int cc_major = 0, cc_minor = 0;
  int num_sms = 0;
  std::string cuda_driver_version, cuda_runtime_version;  ///< as written in the trace
  std::vector<TraceKernel> kernels;  ///< in launch order
  [[nodiscard]] double total_kernel_time_us() const;
};

/// Parses trace JSON text, streamed (one event in memory at a time). Both forms of the Chrome Trace
/// Event Format are accepted: the JSON Object Format (`{"traceEvents": [...], ...}`, what torch
/// writes with CUDA activities; GPU name and driver versions come from its metadata) and the JSON
/// Array Format (a top-level array of events, whose closing ']' may be missing). Throws
/// vxsynth::Error naming `path` (and the event index and field) for invalid JSON, a trace with
/// neither form, an empty events array, a ROCm (HIP) trace (not supported: HIP runtime events,
/// gcnArchName), a trace without GPU kernel events, a kernel event with missing/ill-typed launch
/// fields, a trace without cpu_op events, and one recorded without record_shapes (no cpu_op has
/// "Input Dims": op, shape and dtype could not be read).
[[nodiscard]] TorchTrace parse_torch_trace(std::string_view json_text, const std::string& path);

/// Reads `.json` or gzip `.json.gz` (detected from the gzip magic bytes, not the name).
[[nodiscard]] TorchTrace read_torch_trace(const std::filesystem::path& path);

/// Inflates gzip data; throws vxsynth::Error naming `path` when the stream is corrupt or truncated.
[[nodiscard]] std::string gunzip(std::string_view data, const std::string& path);

}  // namespace vxsynth::core
