// The source-output check against the original PyTorch op for a candidate profiled standalone
// (paper §3.5): the sampled inputs through the framework's own kernel on the GPU (cuBLAS/cuDNN
// under the precision path's TF32 flags, python/vxsynth_torch/op_reference.py), so a TF32 or BF16
// candidate is compared with a result of its own precision rather than with float64 — the DP k2
// TF32 seed measured on the H200 was 7.7e-5 from cuDNN but 1.158e-3 from float64, against the
// TF32 path's limit of 1.175e-3 (docs/reconstruct.md "In the workload").

#include <fmt/format.h>

#include "cuda_profiler.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/common/process.h"

namespace vxsynth::refine {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Time limit of one op_reference run: torch's import and CUDA context dominate (seconds).
constexpr double kOpReferenceTimeoutS = 300.0;

// What op_reference.py reads (its SPEC_KEYS). The TF32 flags follow the path: the reference kernel
// of a TF32 path ran TF32 math, that of an FP32 path did not (docs/signature.md, precision paths).
json op_reference_spec(const CandidateData& d) {
  json ops = json::array();
  for (const auto& o : check::operands(d.op)) ops.push_back({{"name", o.name}, {"shape", o.shape}});
  const bool tf32 = d.path == check::PrecisionPath::kTf32;
  return json{{"schema", "vxsynth.op_reference_spec/1"},
              {"op", op_spec_json(d.op)},
              {"storage", check::stores_bf16(d.path) ? "bf16" : "fp32"},
              {"path", check::to_string(d.path)},
              {"operands", ops},
              {"output_shape", check::output_shape(d.op)},
              {"tf32", {{"matmul.allow_tf32", tf32}, {"cudnn.allow_tf32", tf32}}}};
}

}  // namespace

json op_spec_json(const check::OpSpec& op) {
  json j{{"family", check::to_string(op.family)},
         {"has_bias", op.has_bias},
         {"activation", check::to_string(op.activation)},
         {"a_batch_stride", op.a_batch_stride},
         {"b_batch_stride", op.b_batch_stride},
         {"gemm", {{"batch", op.gemm.batch}, {"m", op.gemm.m}, {"n", op.gemm.n}, {"k", op.gemm.k}}}};
  const auto& c = op.conv;
  if (op.is_conv())
    j["conv"] = {{"n", c.n}, {"c", c.c}, {"h", c.h}, {"w", c.w}, {"k", c.k}, {"r", c.r}, {"s", c.s},
                 {"stride", c.stride}, {"pad", c.pad}, {"dilation", c.dilation}, {"groups", c.groups}};
  return j;
}

std::optional<CheckOutcome> framework_op_check(const FrameworkOpSetup& setup, const fs::path& cuda_dir,
                                               const CandidateData& data, const std::vector<double>& cuda_out,
                                               std::string& why_not) {
  const fs::path spec = cuda_dir / "op_reference_spec.json";
  write_file_atomic(spec, op_reference_spec(data).dump(1) + "\n");
  std::error_code ec;
  fs::remove(data.dir / "torch_out.bin", ec);
  const ProcessResult r = run_process({setup.python, "-m", "vxsynth_torch.op_reference", "--spec", spec.string(),
                                       "--data", fs::absolute(data.dir).string(), "--device", setup.device},
                                      {kOpReferenceTimeoutS, cuda_dir, {{"PYTHONPATH", setup.python_dir.string()}}});
  write_file_atomic(cuda_dir / "op_reference.log", r.output);
  if (!r.ok() || !fs::exists(data.dir / "torch_out.bin")) {
    why_not = fmt::format("{} -m vxsynth_torch.op_reference: {}: {}", setup.python, r.status_text(),
                          tail_lines(r.output, 2));
    return std::nullopt;
  }
  const auto torch_out = check::read_tensor_file(data.dir / "torch_out.bin", check::output_numel(data.op), data.ftype);
  return compare(cuda_out, torch_out, data, check::CheckKind::kSourceOutput, check::ReferenceKind::kFrameworkOp,
                 fmt::format("cuda_vs_torch_op ({}, {} path with TF32 {}; sampled inputs, standalone launch at "
                             "the profiled shape{})",
                             setup.device == "cuda" ? "GPU" : setup.device, check::to_string(data.path),
                             data.path == check::PrecisionPath::kTf32 ? "on" : "off", cuda_precision_note(data)));
}

std::string probe_framework_op_python(const FrameworkOpSetup& s) {
  const ProcessResult r = run_process(
      {s.python, "-c",
       "import sys, torch, vxsynth_torch.op_reference; sys.exit(0 if torch.cuda.is_available() else 3)"},
      {120.0, {}, {{"PYTHONPATH", s.python_dir.string()}}});
  if (r.ok()) return {};
  return fmt::format("{} with torch (CUDA) and vxsynth_torch from {}: {}: {}", s.python, s.python_dir.string(),
                     r.status_text(), tail_lines(r.output, 2));
}

}  // namespace vxsynth::refine
