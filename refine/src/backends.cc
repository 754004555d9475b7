#include "vxsynth/refine/backends.h"

#include <algorithm>
#include <array>
#include <functional>

#include <fmt/format.h>

#include "vxsynth/check/equivalence.h"
#include "vxsynth/check/inputs.h"
#include "vxsynth/check/op_spec.h"
#include "vxsynth/check/reference_ops.h"
#include "vxsynth/codegen/design_point.h"
#include "vxsynth/codegen/emit.h"
#include "vxsynth/codegen/seed.h"
#include "vxsynth/codegen/toolchain.h"
#include "vxsynth/codegen/vortex_check.h"
#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/core/bundle.h"
#include "vxsynth/refine/process.h"

namespace vxsynth::refine {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using codegen::Axes;

// ---------------------------------------------------------------- axis steps (one table)
//
// Each axis: the variants of a forward step, tried in order, first valid wins; reverse uses the
// inverse variants. Block size is fixed (paper §3.4), so a tile change that alters the thread count
// moves the register micro-tile with it.

using Variant = std::function<bool(Axes&)>;  // false = cannot move this way

bool scale(uint32_t& v, bool up, uint32_t lo = 1) {
  if (up) {
    v *= 2;
    return true;
  }
  if (v / 2 < lo) return false;
  v /= 2;
  return true;
}

template <typename E>
bool cycle(E& v, std::initializer_list<E> order, bool up) {
  auto it = std::find(order.begin(), order.end(), v);
  if (it == order.end()) return false;
  if (up) {
    if (it + 1 == order.end()) return false;
    v = *(it + 1);
  } else {
    if (it == order.begin()) return false;
    v = *(it - 1);
  }
  return true;
}

struct AxisStepRow {
  const char* axis;
  std::vector<std::function<bool(Axes&, bool forward)>> variants;
};

const std::vector<AxisStepRow>& step_table() {
  static const std::vector<AxisStepRow> rows = {
      {"tile",
       {[](Axes& a, bool f) { return scale(a.tile.k, f); },  // reduction depth
        [](Axes& a, bool f) {                               // aspect, same area
          return f ? scale(a.tile.m, true) && scale(a.tile.n, false) && scale(a.reg_tile.m, true) &&
                         scale(a.reg_tile.n, false)
                   : scale(a.tile.m, false) && scale(a.tile.n, true) &&
                         scale(a.reg_tile.m, false) && scale(a.reg_tile.n, true);
        }}},
      {"reg_tile",
       {[](Axes& a, bool f) { return scale(a.reg_tile.m, f) && scale(a.tile.m, f); },
        [](Axes& a, bool f) { return scale(a.reg_tile.n, f) && scale(a.tile.n, f); }}},
      {"prefetch", {[](Axes& a, bool f) { return a.prefetch != f ? (a.prefetch = f, true) : false; }}},
      {"smem_stage",
       {[](Axes& a, bool f) { return a.smem_stage != f ? (a.smem_stage = f, true) : false; }}},
      {"read_once",
       {[](Axes& a, bool f) { return a.read_once != f ? (a.read_once = f, true) : false; }}},
      {"lane_map",
       {[](Axes& a, bool f) {
         const auto want = f ? codegen::LaneMap::kContiguous : codegen::LaneMap::kStrided;
         return a.lane_map != want ? (a.lane_map = want, true) : false;
       }}},
      {"tensor_core",
       {[](Axes& a, bool f) {
         using S = codegen::FragShape;
         return a.tensor_core.enabled &&
                cycle(a.tensor_core.shape, {S::kM16N16K8, S::kM16N16K16, S::kM32N8K16, S::kM8N32K16}, f);
       }}},
      {"split_k", {[](Axes& a, bool f) { return scale(a.split_k, f); }}},
      {"block_decomp",
       {[](Axes& a, bool f) {
         if (f) {
           a.warp_rows = a.warp_rows == 0 ? 1 : a.warp_rows * 2;
           return true;
         }
         if (a.warp_rows == 0) return false;
         a.warp_rows = a.warp_rows == 1 ? 0 : a.warp_rows / 2;
         return true;
       }}},
      {"boundary",
       {[](Axes& a, bool f) {
         using B = codegen::Boundary;
         return cycle(a.boundary, {B::kGuard, B::kClamp, B::kExact}, f);
       }}},
  };
  return rows;
}

class CodegenSpace : public DesignSpace {
 public:
  explicit CodegenSpace(const core::ReferenceContext& ctx)
      : seed_(codegen::seed_design_point(ctx)), ctx_(ctx) {}

  json seed_design() const override { return codegen::to_json(seed_); }

  std::vector<std::string> refinable_axes() const override {
    std::vector<std::string> out;
    for (const auto& row : step_table()) out.emplace_back(row.axis);
    return out;
  }

  std::optional<json> apply(const json& design, const AxisStep& step,
                            std::string* why_not) const override {
    const codegen::DesignPoint base = codegen::design_point_from_json(design);
    const AxisStepRow* row = nullptr;
    for (const auto& r : step_table())
      if (step.axis == r.axis) row = &r;
    if (row == nullptr) {
      *why_not = fmt::format("'{}' is not a refinable axis", step.axis);
      return std::nullopt;
    }
    std::string reasons;
    for (const auto& variant : row->variants) {
      codegen::DesignPoint p = base;
      if (!variant(p.axes, step.direction == "forward")) {
        reasons += "at its bound; ";
        continue;
      }
      std::string err = codegen::validation_errors(p);
      if (err.empty()) err = codegen::fixed_property_violations(p, seed_.fixed);
      if (err.empty()) return codegen::to_json(p);
      reasons += err + "; ";
    }
    *why_not = reasons;
    return std::nullopt;
  }

  SourceTree render(const json& design) const override {
    const codegen::DesignPoint p = codegen::design_point_from_json(design);
    SourceTree t;
    for (const auto& f : codegen::emit_cuda(p).files) t["cuda/" + f.name] = f.text;
    for (const auto& f : codegen::emit_vortex(p).files) t["vortex/" + f.name] = f.text;
    // The operator-swap target (paper §3.4 "Swapped execution"): fixed for the whole chain.
    t["cuda/swap.json"] =
        json{{"framework_op", ctx_.framework_op},
             {"kernel_name", ctx_.kernel_name},
             {"context", core::context_to_json(ctx_)}}
            .dump(2) +
        "\n";
    return t;
  }

 private:
  codegen::DesignPoint seed_;
  core::ReferenceContext ctx_;
};

// ---------------------------------------------------------------- vxsim backend

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

std::string tool_version(const std::vector<std::string>& argv) {
  try {
    const ProcessResult r = run_process(argv, fs::current_path(), 30.0);
    if (r.ok()) return first_line(r.output);
  } catch (const Error&) {
  }
  return "unavailable";
}

CheckOutcome outcome_of(const check::CheckReport& rep, const check::Tolerance& tol,
                        std::string method) {
  CheckOutcome c;
  c.ran = true;
  c.passed = rep.passed;
  c.method = std::move(method);
  c.max_abs_err = rep.max_abs_error;
  c.max_rel_err = rep.max_rel_error;
  c.atol = tol.atol;
  c.rtol = tol.rtol;
  c.detail = rep.reason;
  return c;
}

class VxsimBackend : public ProfileBackend {
 public:
  explicit VxsimBackend(VxsimBackendOptions o) : opts_(std::move(o)) {
    versions_["riscv64-unknown-elf-g++"] = tool_version({"riscv64-unknown-elf-g++", "--version"});
    if (auto nvcc = codegen::find_nvcc()) {
      nvcc_ = *nvcc;
      const std::string v = tool_version({nvcc_.string(), "--version"});
      versions_["nvcc"] = v;
      // The release line is the last one of `nvcc --version`.
      const ProcessResult r = run_process({nvcc_.string(), "--version"}, fs::current_path(), 30.0);
      if (r.ok()) versions_["nvcc"] = tail_lines(r.output, 2);
    }
    versions_["vxsynth"] = "0.1.0";
  }

  std::string name() const override { return "vxsim"; }

  Evaluation evaluate(const fs::path& dir, const EvalRequest& req) override {
    Evaluation ev;
    ev.tool_versions = versions_;
    ev.observed_is_vortex = true;
    const check::OpSpec op = check::op_spec_from_context(*req.context);
    const check::PrecisionPath path = codegen::fixed_properties(*req.context).path;

    // Fresh inputs for every check (docs/signature-and-tolerances.md §4), reproducible per run
    // seed and revision.
    const fs::path data = dir / kDataDir;
    fs::create_directories(data);
    const auto inputs = check::generate_inputs(op, path, req.seed * 1000003ULL + static_cast<uint64_t>(req.revision));
    check::write_inputs(data, inputs, path);
    const auto values = check::values_of(inputs);
    const std::vector<double> ref = check::reference_forward(op, values);
    check::write_tensor_file(data / "ref_output.bin", ref, check::file_dtype(path));

    // CUDA candidate: compile-only here (no GPU); the source-output check needs a GPU.
    ev.source_output.ran = false;
    if (!nvcc_.empty()) {
      const auto cu = codegen::compile_cuda(dir / "cuda" / codegen::kCudaFileName,
                                            dir / "cuda" / "candidate.o", {}, "sm_90",
                                            req.rules->build_timeout_s);
      if (!cu.ok) {
        ev.failure = "nvcc: " + tail_lines(cu.diagnostics, 4);
        return ev;
      }
      ev.source_output.method = "not run: no GPU (CUDA candidate compiled with nvcc for sm_90)";
    } else {
      ev.source_output.method = "not run: no GPU and no nvcc";
    }

    // Build with the SDK's sdk.mk, then run on fresh inputs, each under the sandbox's time limit
    // (our runner: its children die with the loop, see process.h).
    const fs::path vdir = dir / "vortex";
    const ProcessResult build =
        run_process({"make", "VXSDK=" + fs::absolute(opts_.sdk_dir).string()}, vdir,
                    req.rules->build_timeout_s);
    if (!build.ok()) {
      ev.failure = fmt::format("build: make {}: {}", build.status_text(), tail_lines(build.output, 4));
      return ev;
    }
    // The device the design targets (cores × warps × threads), strict divergence, timing mode.
    std::map<std::string, std::string> env =
        codegen::vxsim_env(codegen::design_point_from_json(req.design), /*timing=*/true);
    const fs::path sig_path = dir / kVortexSignatureFile;
    env["VXSIM_SIGNATURE"] = fs::absolute(sig_path).string();
    std::error_code ec;
    fs::remove(data / "out.bin", ec);
    fs::remove(sig_path, ec);
    const ProcessResult run = run_process({"./vxs_candidate", "-d", fs::absolute(data).string()},
                                          vdir, req.rules->run_timeout_s, env);
    write_file_atomic(dir / "run.log", run.output);
    if (!run.ok() || !fs::exists(data / "out.bin")) {
      ev.failure = fmt::format("run: {}{}: {}", run.status_text(),
                               fs::exists(data / "out.bin") ? "" : ", no out.bin",
                               tail_lines(run.output, 4));
      return ev;
    }
    const std::vector<double> out =
        check::read_tensor_file(data / "out.bin", check::output_numel(op), check::file_dtype(path));
    const check::CheckReport rep = check::compare_outputs(
        out, ref, path, check::CheckKind::kCandidate, check::ReferenceKind::kCpuFloat64);
    ev.candidate = outcome_of(rep, check::tolerance(path, check::CheckKind::kCandidate),
                              "vortex_vs_cpu_f64");

    if (!fs::exists(sig_path)) {
      ev.failure = fmt::format(
          "profile: the vxsim runtime wrote no signature to $VXSIM_SIGNATURE ({})", sig_path.string());
      return ev;
    }
    // The runtime writes the signature of the *last* launch; a candidate with two launches (split-K
    // reduction or a separate epilogue) would be measured by its second, small kernel, while the
    // reference signature is of the main kernel. Refuse rather than record a misleading D.
    const int launches = codegen::launches(codegen::design_point_from_json(req.design));
    if (launches > 1) {
      ev.failure = fmt::format(
          "profile: the candidate has {} launches and the vxsim runtime's $VXSIM_SIGNATURE holds "
          "only the last one (docs/reconstruct.md, Status)",
          launches);
      return ev;
    }
    const json sj = json::parse(read_file(sig_path), nullptr, false);
    if (sj.is_discarded() || !sj.contains("metrics"))
      throw make_error("{}: not a Vortex signature (no 'metrics')", sig_path.string());
    ev.signature = core::signature_from_json(sj["metrics"], sig_path.string());
    if (sj.contains("program")) ev.tool_versions["vxsim"] = sj.value("source", "vxsim");
    // Fixed properties from the run's counters: engine class (TCU busy), atomics.
    const auto& sig = *ev.signature;
    if (const auto& t = sig[core::MetricId::kTensorMfu])
      ev.observed.engine = *t > 0.0 ? core::EngineClass::kTensorCore : core::EngineClass::kSimt;
    ev.observed.atomics_per_inst = sig[core::MetricId::kAtomicsPerInst];
    return ev;
  }

 private:
  VxsimBackendOptions opts_;
  fs::path nvcc_;
  std::map<std::string, std::string> versions_;
};

class NcuBackend : public ProfileBackend {
 public:
  explicit NcuBackend(NcuBackendOptions o) : opts_(std::move(o)) {}
  std::string name() const override { return "ncu"; }
  Evaluation evaluate(const fs::path&, const EvalRequest&) override {
    throw make_error(
        "profile backend 'ncu': CUDA-first profiling of candidates is not implemented in this "
        "build yet (docs/reconstruct.md, 'Status'); use --profile vxsim");
  }

 private:
  NcuBackendOptions opts_;
};

}  // namespace

Reference reference_from_bundle(const core::ReferenceBundle& bundle, const std::string& kernel_id,
                                const std::string& bundle_sha256) {
  const core::BundleKernel& k = bundle.kernel(kernel_id);
  if (!k.signature)
    throw make_error("kernel {} has no signature (ncu profiled no launch of it)", k.id);
  Reference ref;
  ref.kernel_id = k.id;
  ref.context = k.context;
  ref.signature = *k.signature;
  ref.bundle_sha256 = bundle_sha256;
  const json bj = core::to_json(bundle);
  for (const auto& kj : bj["kernels"])
    if (kj.value("id", "") == k.id) ref.entry = kj;
  ref.entry["provenance"] = bj["provenance"];
  ref.entry["workload"] = bj.value("workload", json());
  return ref;
}

std::unique_ptr<DesignSpace> make_codegen_space(const core::ReferenceContext& ctx) {
  return std::make_unique<CodegenSpace>(ctx);
}

std::unique_ptr<ProfileBackend> make_vxsim_backend(const VxsimBackendOptions& opts) {
  return std::make_unique<VxsimBackend>(opts);
}

std::unique_ptr<ProfileBackend> make_ncu_backend(const NcuBackendOptions& opts) {
  return std::make_unique<NcuBackend>(opts);
}

bool gpu_present() {
  try {
    const ProcessResult r = run_process({"nvidia-smi", "-L"}, fs::current_path(), 20.0);
    return r.ok() && r.output.find("GPU") != std::string::npos;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace vxsynth::refine
