#include "vxsynth/refine/backends.h"

#include <algorithm>
#include <array>
#include <functional>
#include <sstream>

#include <fmt/format.h>

#include "vxsynth/check/equivalence.h"
#include "vxsynth/check/inputs.h"
#include "vxsynth/check/op_spec.h"
#include "vxsynth/check/reference_ops.h"
#include "vxsynth/codegen/design_point.h"
#include "vxsynth/codegen/emit.h"
#include "vxsynth/codegen/generator_version.h"
#include "vxsynth/codegen/seed.h"
#include "vxsynth/codegen/toolchain.h"
#include "vxsynth/codegen/vortex_check.h"
#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/core/bundle.h"
#include "vxsynth/core/ncu_import.h"
#include "vxsynth/refine/process.h"
#include "axis_steps.h"

namespace vxsynth::refine {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using codegen::Axes;

class CodegenSpace : public DesignSpace {
 public:
  explicit CodegenSpace(const core::ReferenceContext& ctx)
      : seed_(codegen::seed_design_point(ctx)), ctx_(ctx) {}

  json seed_design() const override { return codegen::to_json(seed_); }

  std::vector<std::string> refinable_axes() const override { return refinable_axis_keys(); }

  std::optional<json> apply(const json& design, const AxisStep& step,
                            std::string* why_not) const override {
    return step_design(design, step, seed_.fixed, why_not);
  }

  std::map<std::string, double> prior_response(const std::string& axis) const override {
    return axis_prior_response(axis, ctx_.op);
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
    // The line naming the version ("Version 2025.3.1.0 (build …)" is ncu's third line), else the first.
    if (r.ok()) {
      std::istringstream lines(r.output);
      for (std::string line; std::getline(lines, line);)
        if (line.find("ersion ") != std::string::npos) return line;
      return first_line(r.output);
    }
  } catch (const Error&) {
  }
  return "unavailable";
}

// The Vortex C++ compiler the SDK's sdk.mk names (VX_CXX := …; a relocated toolchain on a GPU
// machine, scripts/device-pack.sh), else the one on PATH.
std::string sdk_compiler(const fs::path& sdk_dir) {
  try {
    std::istringstream lines(read_file(sdk_dir / "sdk.mk"));
    for (std::string line; std::getline(lines, line);) {
      if (!line.starts_with("VX_CXX ") && !line.starts_with("VX_CXX:")) continue;
      const size_t eq = line.find(":=");
      if (eq == std::string::npos) continue;
      const size_t b = line.find_first_not_of(" \t", eq + 2);
      const size_t e = line.find_last_not_of(" \t\r");
      if (b != std::string::npos && e >= b) return line.substr(b, e - b + 1);
    }
  } catch (const Error&) {
  }
  return "riscv64-unknown-elf-g++";
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

// Shape arguments of codegen's `vxs_launch` and `vxs_workspace_bytes` per op family, at the
// profiled shape (codegen/src/emit_cuda.cc, family_api).
std::string shape_args(const check::OpSpec& op) {
  const auto& g = op.gemm;
  const auto& c = op.conv;
  switch (op.family) {
    case check::OpFamily::kLinear:
      return fmt::format("{}, {}, {}", g.m, g.n, g.k);
    case check::OpFamily::kMatmul:
    case check::OpFamily::kBmm:
      return fmt::format("{}, {}, {}, {}, {}LL, {}LL", g.batch, g.m, g.n, g.k, op.a_stride(), op.b_stride());
    case check::OpFamily::kConv1d:
    case check::OpFamily::kConv2d:
      return fmt::format("{}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}", c.n, c.c, c.h, c.w, c.k, c.r, c.s,
                         c.stride[0], c.stride[1], c.pad[0], c.pad[1], c.dilation[0], c.dilation[1], c.groups);
  }
  return "";
}

// The `vxs_launch` call of the standalone harness.
std::string launch_call(const check::OpSpec& op) {
  const char* bias = op.has_bias ? "(const T*)buf[2]" : "nullptr";
  switch (op.family) {
    case check::OpFamily::kLinear:
    case check::OpFamily::kConv1d:
    case check::OpFamily::kConv2d:
      return fmt::format("vxs_launch((const T*)buf[0], (const T*)buf[1], {}, out, ws, {}, 0)", bias, shape_args(op));
    case check::OpFamily::kMatmul:
    case check::OpFamily::kBmm:
      return fmt::format("vxs_launch((const T*)buf[0], (const T*)buf[1], out, ws, {}, 0)", shape_args(op));
  }
  return "";
}

}  // namespace

std::string standalone_harness(const check::OpSpec& op, check::PrecisionPath path) {
  const bool bf16 = path == check::PrecisionPath::kBf16;
  const auto ops = check::operands(op);
  std::string loads;
  for (size_t i = 0; i < ops.size(); ++i)
    loads += fmt::format("  buf[{}] = upload(dir, \"{}\", {});\n", i, ops[i].name, ops[i].numel());
  return fmt::format(R"(// Standalone launch of a CUDA candidate at the profiled shape (vxsynth refine, ncu backend).
// Generated by refine/src/backends.cc: reads DIR/<operand>.bin, runs vxs_launch once on an
// output poisoned with NaN, writes DIR/cuda_out.bin. Usage: vxs_standalone DIR
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
typedef {T} T;
{declarations}
static void check(cudaError_t e, const char* what) {{
  if (e != cudaSuccess) {{ std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e)); std::exit(2); }}
}}
static void* upload(const std::string& dir, const char* name, size_t numel) {{
  const std::string path = dir + "/" + name + ".bin";
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) {{ std::fprintf(stderr, "%s: cannot open\n", path.c_str()); std::exit(2); }}
  std::vector<unsigned char> host(numel * sizeof(T));
  if (std::fread(host.data(), 1, host.size(), f) != host.size()) {{
    std::fprintf(stderr, "%s: short file\n", path.c_str()); std::exit(2);
  }}
  std::fclose(f);
  void* dev = nullptr;
  check(cudaMalloc(&dev, host.size()), "cudaMalloc");
  check(cudaMemcpy(dev, host.data(), host.size(), cudaMemcpyHostToDevice), "cudaMemcpy");
  return dev;
}}
int main(int argc, char** argv) {{
  if (argc != 2) {{ std::fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }}
  const std::string dir = argv[1];
  void* buf[3] = {{nullptr, nullptr, nullptr}};
{loads}  const size_t out_numel = {out_numel};
  T* out = nullptr;
  check(cudaMalloc(&out, out_numel * sizeof(T)), "cudaMalloc out");
  check(cudaMemset(out, 0xFF, out_numel * sizeof(T)), "poison out");  // all-ones bits = NaN
  float* ws = nullptr;
  const size_t ws_bytes = vxs_workspace_bytes({shape});  // split-K partials / separate epilogue
  if (ws_bytes > 0) check(cudaMalloc(&ws, ws_bytes), "cudaMalloc ws");
  const int err = {call};
  if (err != 0) {{ std::fprintf(stderr, "vxs_launch returned %d\n", err); return 3; }}
  check(cudaDeviceSynchronize(), "kernel");
  std::vector<unsigned char> host(out_numel * sizeof(T));
  check(cudaMemcpy(host.data(), out, host.size(), cudaMemcpyDeviceToHost), "cudaMemcpy out");
  const std::string path = dir + "/cuda_out.bin";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || std::fwrite(host.data(), 1, host.size(), f) != host.size()) {{
    std::fprintf(stderr, "%s: cannot write\n", path.c_str()); return 2;
  }}
  std::fclose(f);
  return 0;
}}
)",
                     fmt::arg("T", bf16 ? "__nv_bfloat16" : "float"),
                     fmt::arg("declarations", codegen::cuda_c_api_declarations(op.family, bf16)),
                     fmt::arg("loads", loads), fmt::arg("out_numel", check::output_numel(op)),
                     fmt::arg("call", launch_call(op)), fmt::arg("shape", shape_args(op)));
}

namespace {

// The Vortex-side signature in $VXSIM_SIGNATURE (docs/timing.md, "Signature file"): the runtime
// records every launch and puts the main launch's metrics (most cycles: a split-K reduction or a
// separate epilogue is the short one, as the ncu backend takes the longest kernel) at the top.
struct VortexSignatureFile {
  core::Signature signature;             // top-level "metrics": the main launch
  std::optional<double> max_atomics;     // atomics_per_inst, maximum over every launch
  int main_launch = 0;
  int launches = 1;
  uint64_t main_cycles = 0;
  uint64_t total_cycles = 0;
};

// Reads the signature file. `design_launches` is how many launches the design makes: a file
// without the per-launch array (a runtime older than per-launch signatures) holds the last launch
// only and is refused for a multi-launch design. Throws vxsynth::Error on a malformed file.
VortexSignatureFile read_vortex_signature(const fs::path& sig_path, int design_launches) {
  const json sj = json::parse(read_file(sig_path), nullptr, false);
  if (sj.is_discarded() || !sj.is_object() || !sj.contains("metrics"))
    throw make_error("{}: not a Vortex signature (no 'metrics')", sig_path.string());
  VortexSignatureFile f;
  f.signature = core::signature_from_json(sj["metrics"], sig_path.string());
  f.max_atomics = f.signature[core::MetricId::kAtomicsPerInst];
  if (!sj.contains("launches")) {
    if (design_launches > 1)
      throw make_error("{}: no per-launch signatures ('launches') for a design with {} launches: the file holds "
                       "the last launch only (a vxsim runtime older than per-launch signatures?)",
                       sig_path.string(), design_launches);
    return f;
  }
  const json& ls = sj["launches"];
  if (!ls.is_array() || ls.empty() || !sj.contains("main_launch") || !sj["main_launch"].is_number_integer())
    throw make_error("{}: 'launches' must be a non-empty array with an integer 'main_launch'", sig_path.string());
  f.launches = static_cast<int>(ls.size());
  f.main_launch = sj["main_launch"].get<int>();
  bool found = false;
  for (const json& l : ls) {
    if (!l.is_object() || !l.contains("metrics") || !l.contains("cycles") || !l["cycles"].is_number_unsigned())
      throw make_error("{}: a 'launches' entry lacks 'metrics' or 'cycles'", sig_path.string());
    const uint64_t cycles = l["cycles"].get<uint64_t>();
    f.total_cycles += cycles;
    if (l.value("index", -1) == f.main_launch) {
      f.main_cycles = cycles;
      found = true;
    }
    const core::Signature one = core::signature_from_json(l["metrics"], sig_path.string());
    if (const auto& a = one[core::MetricId::kAtomicsPerInst]) f.max_atomics = std::max(f.max_atomics.value_or(0.0), *a);
  }
  if (!found) throw make_error("{}: 'main_launch' {} names no entry of 'launches'", sig_path.string(), f.main_launch);
  return f;
}

// Both backends: fresh seeded inputs and the float64 reference, the Vortex side built with the SDK
// and run on vxsim (candidate check, Vortex-side signature). The ncu backend adds the CUDA side on
// the GPU: a standalone launch at the profiled shape under Nsight Compute.
class CandidateBackend : public ProfileBackend {
 public:
  CandidateBackend(std::string backend_name, fs::path sdk_dir, std::string ncu)
      : name_(std::move(backend_name)), sdk_dir_(std::move(sdk_dir)), ncu_(std::move(ncu)) {
    versions_["riscv64-unknown-elf-g++"] = tool_version({sdk_compiler(sdk_dir_), "--version"});
    if (auto nvcc = codegen::find_nvcc()) {
      nvcc_ = *nvcc;
      const ProcessResult r = run_process({nvcc_.string(), "--version"}, fs::current_path(), 30.0);
      versions_["nvcc"] = r.ok() ? tail_lines(r.output, 2) : "unavailable";
    }
    if (on_gpu()) versions_["ncu"] = tool_version({ncu_, "--version"});
    versions_["vxsynth"] = "0.1.0";
    versions_[codegen::kGeneratorVersionKey] = std::to_string(codegen::kGeneratorVersion);
  }

  std::string name() const override { return name_; }

  Evaluation evaluate(const fs::path& dir, const EvalRequest& req) override {
    Evaluation ev;
    ev.tool_versions = versions_;
    ev.observed_is_vortex = !on_gpu();
    const check::OpSpec op = check::op_spec_from_context(*req.context);
    const check::PrecisionPath path = codegen::fixed_properties(*req.context).path;
    const check::FileDType ftype = check::file_dtype(path);

    // Fresh inputs for every check (docs/signature.md §4), reproducible per run
    // seed and revision.
    const fs::path data = dir / kDataDir;
    fs::create_directories(data);
    const auto inputs = check::generate_inputs(op, path, req.seed * 1000003ULL + static_cast<uint64_t>(req.revision));
    check::write_inputs(data, inputs, path);
    const std::vector<double> ref = check::reference_forward(op, check::values_of(inputs));
    check::write_tensor_file(data / "ref_output.bin", ref, ftype);

    // ---- CUDA side
    std::vector<double> cuda_out;
    std::optional<core::NcuSignature> ncu_sig;
    const fs::path cu = dir / "cuda" / codegen::kCudaFileName;
    ev.source_output.ran = false;
    if (on_gpu()) {
      if (nvcc_.empty()) throw make_error("profile backend 'ncu': no nvcc ($NVCC or /usr/local/cuda/bin/nvcc)");
      write_file_atomic(dir / "cuda" / "vxs_standalone.cu", standalone_harness(op, path));
      const ProcessResult nv = run_process(
          {nvcc_.string(), "-arch=sm_90", "-std=c++17", "-O2", "-o", "vxs_standalone", codegen::kCudaFileName,
           "vxs_standalone.cu"},
          dir / "cuda", req.rules->build_timeout_s);
      if (!nv.ok()) {
        ev.failure = fmt::format("nvcc: {}: {}", nv.status_text(), tail_lines(nv.output, 4));
        return ev;
      }
      // Profile with the reference's collection settings (clock control none, caches flushed).
      std::vector<std::string> metrics = core::required_ncu_metrics(core::Arch::kHopper);
      std::string list;
      for (const auto& m : metrics) list += (list.empty() ? "" : ",") + m;
      const fs::path rep = dir / "cuda" / "candidate.ncu-rep";
      std::error_code ec;
      fs::remove(rep, ec);
      const ProcessResult prof = run_process(
          {ncu_, "--metrics", list, "--clock-control", "none", "--cache-control", "all", "--export",
           rep.string(), "--force-overwrite", (dir / "cuda" / "vxs_standalone").string(),
           fs::absolute(data).string()},
          dir / "cuda", req.rules->run_timeout_s);
      write_file_atomic(dir / "cuda" / "ncu.log", prof.output);
      if (!prof.ok() || !fs::exists(data / "cuda_out.bin")) {
        ev.failure = fmt::format("run (ncu): {}: {}", prof.status_text(), tail_lines(prof.output, 4));
        return ev;
      }
      const ProcessResult csv = run_process(
          {ncu_, "--import", rep.string(), "--csv", "--page", "raw", "--print-units", "base"}, dir / "cuda", 120.0);
      if (!csv.ok()) {
        ev.failure = fmt::format("ncu --import: {}: {}", csv.status_text(), tail_lines(csv.output, 4));
        return ev;
      }
      write_file_atomic(dir / "cuda" / "ncu_raw.csv", csv.output);
      const core::NcuReport report = core::parse_ncu_csv(csv.output, (dir / "cuda" / "ncu_raw.csv").string());
      // The candidate's main kernel: the longest launch (a split-K reduction or epilogue is short).
      const core::NcuKernel* main = nullptr;
      double longest = -1.0;
      for (const auto& k : report.kernels) {
        const core::NcuCell* t = k.find("gpu__time_duration.sum");
        const double v = t && t->value ? *t->value : 0.0;
        if (v > longest) {
          longest = v;
          main = &k;
        }
      }
      if (main == nullptr) throw make_error("{}: ncu profiled no kernel", rep.string());
      ncu_sig = core::signature_from_ncu(*main, report.arch);
      ev.observed.block_size = main->block[0] * main->block[1] * main->block[2];
      cuda_out = check::read_tensor_file(data / "cuda_out.bin", check::output_numel(op), ftype);
      const check::CheckReport so = check::compare_outputs(cuda_out, ref, path, check::CheckKind::kSourceOutput,
                                                           check::ReferenceKind::kCpuFloat64);
      ev.source_output = outcome_of(so, check::tolerance(path, check::CheckKind::kSourceOutput),
                                    "cuda_vs_cpu_f64 (standalone launch at the profiled shape)");
    } else if (!nvcc_.empty()) {
      const auto c = codegen::compile_cuda(cu, dir / "cuda" / "candidate.o", {}, "sm_90", req.rules->build_timeout_s);
      if (!c.ok) {
        ev.failure = "nvcc: " + tail_lines(c.diagnostics, 4);
        return ev;
      }
      ev.source_output.method = "not run: no GPU (CUDA candidate compiled with nvcc for sm_90)";
    } else {
      ev.source_output.method = "not run: no GPU and no nvcc";
    }

    // ---- Vortex side: build with the SDK's sdk.mk, run on vxsim, each under the sandbox's time
    // limit (our runner: its children die with the loop, see process.h).
    const fs::path vdir = dir / "vortex";
    const ProcessResult build =
        run_process({"make", "VXSDK=" + fs::absolute(sdk_dir_).string()}, vdir, req.rules->build_timeout_s);
    if (!build.ok()) {
      ev.failure = fmt::format("build: make {}: {}", build.status_text(), tail_lines(build.output, 4));
      return ev;
    }
    // The device the design targets (cores × warps × threads), strict divergence. Timing mode when
    // the Vortex side gives the signature (vxsim backend); functional mode under ncu, whose D comes
    // from the CUDA candidate: the Vortex run is the candidate check only, 5–10× faster
    // (docs/timing.md), and the locked kernel's timing signature is measured once at lock.
    std::map<std::string, std::string> env =
        codegen::vxsim_env(codegen::design_point_from_json(req.design), /*timing=*/!on_gpu());
    const fs::path sig_path = dir / kVortexSignatureFile;
    env["VXSIM_SIGNATURE"] = fs::absolute(sig_path).string();
    std::error_code ec;
    fs::remove(data / "out.bin", ec);
    fs::remove(sig_path, ec);
    const ProcessResult run =
        run_process({"./vxs_candidate", "-d", fs::absolute(data).string()}, vdir, req.rules->run_timeout_s, env);
    write_file_atomic(dir / "run.log", run.output);
    if (!run.ok() || !fs::exists(data / "out.bin")) {
      ev.failure = fmt::format("run: {}{}: {}", run.status_text(), fs::exists(data / "out.bin") ? "" : ", no out.bin",
                               tail_lines(run.output, 4));
      return ev;
    }
    const std::vector<double> vx_out = check::read_tensor_file(data / "out.bin", check::output_numel(op), ftype);
    if (on_gpu()) {
      const check::CheckReport rep = check::compare_outputs(vx_out, cuda_out, path, check::CheckKind::kCandidate,
                                                            check::ReferenceKind::kCudaCandidate);
      ev.candidate = outcome_of(rep, check::tolerance(path, check::CheckKind::kCandidate), "vortex_vs_cuda");
    } else {
      const check::CheckReport rep = check::compare_outputs(vx_out, ref, path, check::CheckKind::kCandidate,
                                                            check::ReferenceKind::kCpuFloat64);
      ev.candidate = outcome_of(rep, check::tolerance(path, check::CheckKind::kCandidate), "vortex_vs_cpu_f64");
    }

    // ---- Signature: the CUDA candidate's ncu signature (CUDA-first), else the Vortex side's.
    if (ncu_sig) {
      ev.signature = ncu_sig->signature;
    } else {
      if (!fs::exists(sig_path)) {
        ev.failure = fmt::format("profile: the vxsim runtime wrote no signature to $VXSIM_SIGNATURE ({})",
                                 sig_path.string());
        return ev;
      }
      const int design_launches = codegen::launches(codegen::design_point_from_json(req.design));
      const VortexSignatureFile vs = read_vortex_signature(sig_path, design_launches);
      ev.signature = vs.signature;
      // Which launch D is of, in the record (a tool note: the record schema has no field for it).
      ev.tool_versions["vxsim signature"] = fmt::format(
          "main launch index {} of {} (most cycles: {} of {} device cycles){}", vs.main_launch, vs.launches,
          vs.main_cycles, vs.total_cycles,
          vs.launches == design_launches ? "" : fmt::format("; the design point makes {} launches", design_launches));
      // The sandbox forbids atomics in every launch, not only the main one.
      ev.observed.atomics_per_inst = vs.max_atomics;
    }
    // Fixed properties from the run's counters: engine class (any tensor-pipe / TCU activity: a
    // SIMT candidate has none, while a memory-bound tensor-core candidate can sit far below the
    // 5 % used to classify references — the ACT k5 seed measured 0.97 % on the H200), atomics.
    const auto& sig = *ev.signature;
    if (const auto& t = sig[core::MetricId::kTensorMfu])
      ev.observed.engine = *t > 0.0 ? core::EngineClass::kTensorCore : core::EngineClass::kSimt;
    if (ncu_sig) ev.observed.atomics_per_inst = sig[core::MetricId::kAtomicsPerInst];
    return ev;
  }

  std::string measure_locked_vortex_signature(const fs::path& dir, const EvalRequest& req) override {
    const fs::path sig_path = dir / kVortexSignatureFile;
    if (!on_gpu()) return fs::exists(sig_path) ? std::string() : "the vxsim run wrote none";
    // The locked revision's Vortex program was built and checked in evaluate(); run it once more
    // in timing mode on the same inputs for its signature (every launch recorded, the main one at
    // the top level: docs/timing.md, "Signature file").
    std::map<std::string, std::string> env =
        codegen::vxsim_env(codegen::design_point_from_json(req.design), /*timing=*/true);
    env["VXSIM_SIGNATURE"] = fs::absolute(sig_path).string();
    std::error_code ec;
    fs::remove(sig_path, ec);
    const ProcessResult run = run_process({"./vxs_candidate", "-d", fs::absolute(dir / kDataDir).string()},
                                          dir / "vortex", req.rules->run_timeout_s, env);
    write_file_atomic(dir / "run_timing.log", run.output);
    if (!run.ok() || !fs::exists(sig_path))
      return fmt::format("timing run of the locked kernel: {}: {}", run.status_text(), tail_lines(run.output, 2));
    return {};
  }

 private:
  [[nodiscard]] bool on_gpu() const { return name_ == "ncu"; }
  std::string name_;
  fs::path sdk_dir_;
  std::string ncu_;
  fs::path nvcc_;
  std::map<std::string, std::string> versions_;
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
  return std::make_unique<CandidateBackend>("vxsim", opts.sdk_dir, "");
}

std::unique_ptr<ProfileBackend> make_ncu_backend(const NcuBackendOptions& opts) {
  return std::make_unique<CandidateBackend>("ncu", opts.sdk_dir, opts.ncu);
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
