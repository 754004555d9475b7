// vxsynth reconstruct BUNDLE --kernel ID [--agent builtin|line-search|cmd:"…"] [--profile ncu|vxsim]
//   [--budget N] [--resume] [--seed S] -o DIR: the refinement loop (paper §3.6, Fig. 2;
//   docs/reconstruct.md). The loop itself is refine/.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "format.h"
#include "subcommands.h"
#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/core/bundle.h"
#include "vxsynth/refine/agent_line_search.h"
#include "vxsynth/refine/backends.h"
#include "vxsynth/refine/loop.h"
#include "vxsynth/refine/order.h"
#include "vxsynth/refine/run_dir.h"

namespace vxsynth::cli {
namespace {

namespace fs = std::filesystem;

/// Exit status of a run in which revisions after the seed were attempted but the agent failed every
/// one of them (refine::agent_failed_every_revision): the seed benchmark and summary are written,
/// but no refinement happened. 2 stays the status of errors (main.cc).
constexpr int kExitAgentFailedEveryRevision = 3;

struct Options {
  std::string bundle, kernel, agent = "builtin", profile, out, sdk, ncu = "ncu", order = "cuda-first";
  std::string profile_in = "auto", python = "python3", python_dir, gpu_lock;
  int budget = 12;
  bool resume = false;
  bool unsafe_no_isolation = false;
  std::string isolation = "auto";
  uint64_t seed = 1;
  double build_timeout = 300, run_timeout = 600, agent_timeout = 600;
};

// The folder holding vxsynth_torch (docs/reconstruct.md "In the workload"): --python-dir, else
// VXSYNTH_PYTHON_DIR, else python/ above this executable (format.h default_python_dir). One that is
// named but lacks the package is an error; none found leaves the standalone launch, with the reason.
fs::path checked_python_dir(const fs::path& dir, const std::string& named_by) {
  if (!has_vxsynth_torch(dir))
    throw make_error("{}{}: no vxsynth_torch package there ({} missing); name the folder that holds it (the "
                     "repository's python/)", named_by, dir.string(), (dir / "vxsynth_torch" / "__init__.py").string());
  return dir;
}

fs::path python_dir(const Options& o, std::string& why_none) {
  if (!o.python_dir.empty()) return checked_python_dir(o.python_dir, "--python-dir ");
  std::string from;
  const fs::path dir = default_python_dir(from);
  if (dir.empty())
    why_none = fmt::format("no python/vxsynth_torch/workloads {} (give --python-dir or set VXSYNTH_PYTHON_DIR)", from);
  else if (from == "VXSYNTH_PYTHON_DIR")
    return checked_python_dir(dir, "VXSYNTH_PYTHON_DIR=");
  return dir;
}

// A standalone run's source-output check compares with the PyTorch op on the GPU when python has
// torch with CUDA and vxsynth_torch, else with float64 (the reason goes into every record).
void add_framework_op(refine::NcuBackendOptions& n, const Options& o) {
  std::string why;
  refine::FrameworkOpSetup f{o.python, python_dir(o, why)};
  n.framework_op_reason = f.python_dir.empty() ? why : refine::probe_framework_op_python(f);
  if (n.framework_op_reason.empty()) n.framework_op = std::move(f);
}

// Where the ncu backend profiles (docs/reconstruct.md "In the workload"): inside the workload the
// bundle was captured from when it names one and python3 has torch with a GPU (auto, workload),
// else a standalone launch with the reason recorded (auto, standalone). `--profile-in workload`
// that cannot be honoured is an error before anything is written.
refine::NcuBackendOptions ncu_options(const Options& o, const core::ReferenceBundle& bundle, const std::string& kernel,
                                      const fs::path& sdk) {
  refine::NcuBackendOptions n{sdk, o.ncu, refine::target_arch(bundle, o.bundle), std::nullopt, {}, std::nullopt, {},
                              std::nullopt, bundle.provenance.gpu.value_or("")};
  if (!o.gpu_lock.empty()) n.gpu_lock = o.gpu_lock;
  if (o.profile_in != "auto" && o.profile_in != "workload" && o.profile_in != "standalone")
    throw make_error("--profile-in: '{}' must be auto, workload or standalone", o.profile_in);
  if (o.profile_in == "standalone") {
    n.standalone_reason = "--profile-in standalone";
    add_framework_op(n, o);
    return n;
  }
  std::string why;
  const fs::path pydir = python_dir(o, why);
  std::optional<refine::WorkloadSetup> setup;
  if (!pydir.empty()) setup = refine::workload_setup(bundle, kernel, pydir, why);
  if (setup) {
    setup->python = o.python;
    why = refine::probe_workload_python(*setup);
  }
  if (why.empty()) {
    n.workload = std::move(setup);
    return n;
  }
  if (o.profile_in == "workload") throw make_error("--profile-in workload: {}", why);
  n.standalone_reason = "no workload to profile in: " + why;
  std::cout << "[reconstruct] profiling standalone: " << n.standalone_reason << "\n";
  add_framework_op(n, o);
  return n;
}

// True when an executable named `name` is found on PATH (as execvp would find it).
bool on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return false;
  std::string_view rest(path);
  while (true) {
    const size_t colon = rest.find(':');
    const std::string dir(rest.substr(0, colon));
    const fs::path candidate = fs::path(dir.empty() ? "." : dir) / name;
    if (::access(candidate.c_str(), X_OK) == 0 && fs::is_regular_file(candidate)) return true;
    if (colon == std::string_view::npos) return false;
    rest.remove_prefix(colon + 1);
  }
}

// Σ elements of the operator's inputs and output at the reference shape (a double: extents up to
// 2^31 - 1 overflow 64-bit products).
double tensor_elements(const core::ReferenceContext& c) {
  if (c.gemm) {
    const auto& g = *c.gemm;
    const double b = static_cast<double>(g.batch), m = static_cast<double>(g.m), n = static_cast<double>(g.n),
                 kk = static_cast<double>(g.k);
    return b * (m * kk + kk * n + m * n) + (c.has_bias ? n : 0.0);
  }
  if (!c.conv) return 0;
  const core::ConvShape& v = *c.conv;
  auto d = [](int64_t x) { return static_cast<double>(x); };
  const double p = d(v.out_h()), q = d(v.out_w());
  return d(v.n) * d(v.c) * d(v.h) * d(v.w) + d(v.k) * d(v.c / v.groups) * d(v.r) * d(v.s) + d(v.n) * d(v.k) * p * q +
         (c.has_bias ? d(v.k) : 0.0);
}

// The main (non-helper) kernels of the bundle that run the same operator at the same shape as `k`.
std::string main_kernels_of(const core::ReferenceBundle& b, const core::BundleKernel& k) {
  std::string s;
  for (const core::BundleKernel& m : b.kernels)
    if (!m.context.helper_kernel && m.context.op == k.context.op && shape_string(m.context) == shape_string(k.context))
      s += fmt::format("{}{} ({})", s.empty() ? "" : ", ", m.id, clip(m.name, 64));
  return s;
}

// Refuses a kernel that cannot be reconstructed, before anything is written: no signature, no
// operator the generator builds, a helper of the operator, or tensors beyond Vortex's memory.
void check_kernel(const core::ReferenceBundle& b, const core::BundleKernel& k, const std::string& bundle) {
  const std::string what = fmt::format("{}: kernel {} ({})", bundle, k.id, clip(k.name, 64));
  if (!k.signature)
    throw make_error("{} has no signature: ncu profiled no launch of it, so there is nothing to reconstruct "
                     "against (its notes: {})", what, k.notes.empty() ? std::string("none") : k.notes.front());
  if (k.context.op == core::OpKind::kOther)
    throw make_error("{}: context.op is 'other': the trace did not show which operator launched it, and "
                     "vxsynth reconstructs linear, matmul, bmm, conv1d and conv2d kernels", what);
  if (k.context.helper_kernel) {
    const std::string mains = main_kernels_of(b, k);
    throw make_error(
        "{} is a helper kernel (context.helper_kernel, name rule '{}'): the {} operator launches it around its "
        "main kernel (a layout transpose, split-K reduce or workspace init), and it does not compute the {}, "
        "so a {} benchmark measured against its signature would reproduce neither; {}",
        what, k.context.name_rule, core::to_string(k.context.op), core::to_string(k.context.op),
        core::to_string(k.context.op),
        mains.empty() ? std::string("the operator's main kernel is not among the bundle's hot kernels: import "
                                    "with --top 0 to keep every kernel")
                      : "reconstruct the operator's main kernel instead: " + mains);
  }
  // Vortex's global memory is 4 GiB (XLEN 32; docs/vxsim.md, vx_dev_caps GLOBAL_MEM_SIZE); the
  // benchmark holds every input and the output there as 4-byte values at most.
  constexpr double kVortexGlobalBytes = 4294967296.0;
  const double bytes = 4 * tensor_elements(k.context);
  if (bytes >= kVortexGlobalBytes)
    throw make_error("{}: context {} ({}): its inputs and output take {:.1f} GiB as 4-byte values, more than "
                     "Vortex's 4 GiB global memory (32-bit addresses); vxsynth cannot build a Vortex benchmark "
                     "at this shape",
                     what, k.context.gemm ? "gemm" : "conv", shape_string(k.context), bytes / (1 << 30));
}

int run(const Options& opts) {
  Options o = opts;
  // Every later step (nvcc, make, the simulator) runs in a candidate directory of its own: resolve the
  // output directory once. Nothing is written until the bundle, the kernel and -o are validated.
  o.out = fs::absolute(o.out).lexically_normal().string();
  const std::string text = read_file(o.bundle);
  const core::ReferenceBundle bundle = core::read_bundle(o.bundle);
  const core::BundleKernel* found = nullptr;
  try {
    found = &bundle.kernel(o.kernel);
  } catch (const Error& e) {
    throw make_error("{}: {}", o.bundle, e.what());  // name the bundle, as `signature` and `distance` do
  }
  const core::BundleKernel& k = *found;
  check_kernel(bundle, k, o.bundle);
  const refine::Reference ref = refine::reference_from_bundle(bundle, k.id, refine::sha256_hex(text));
  const refine::RunDir dir = refine::inspect_run_dir(o.out);  // refuses a directory that is not ours
  if (o.resume && (dir.state == refine::RunDirState::kAbsent || dir.state == refine::RunDirState::kEmpty))
    throw make_error("--resume: {} {}; drop --resume to start a new run there", o.out,
                     dir.state == refine::RunDirState::kAbsent ? "does not exist" : "is empty, there is no run to continue");

  const std::string profile = o.profile.empty() ? (refine::gpu_present() ? "ncu" : "vxsim") : o.profile;
  const fs::path sdk = o.sdk.empty() ? default_sdk_dir() : fs::path(o.sdk);
  // Pre-flight: configuration errors are reported before anything is written, not as a rejected seed.
  if (!fs::is_regular_file(sdk / "sdk.mk")) {
    throw make_error("--sdk {}: no sdk.mk there (it is generated in <build>/sdk by the CMake build)", sdk.string());
  }
  if (profile == "ncu" && !(o.ncu.find('/') != std::string::npos ? fs::is_regular_file(o.ncu) : on_path(o.ncu))) {
    throw make_error("--profile ncu: '{}' (Nsight Compute) is not {}; use --profile vxsim on a machine without it",
                     o.ncu, o.ncu.find('/') != std::string::npos ? "a file" : "on PATH");
  }
  if (profile == "ncu")
    if (const std::optional<std::string> here = refine::gpu_name())
      if (const std::string why = refine::reference_gpu_mismatch(*here, bundle.provenance.gpu.value_or(""), "nvidia-smi");
          !why.empty())
        throw make_error("--profile ncu with {}: {}", o.bundle, why);
  if (!o.python_dir.empty()) (void)checked_python_dir(o.python_dir, "--python-dir ");
  const std::optional<refine::Order> order = refine::order_from_key(o.order);
  if (!order) throw make_error("--order: '{}' is not an order (cuda-first, vortex-first)", o.order);
  if (order == refine::Order::kVortexFirst && profile != "ncu")
    throw make_error("--order vortex-first profiles each revision's CUDA translation with ncu on the reference GPU "
                     "and needs --profile ncu; --profile vxsim scores vxsim counters against the reference, which "
                     "is no order of paper §4.5");
  std::unique_ptr<refine::ProfileBackend> backend;
  if (profile == "vxsim") {
    backend = refine::make_vxsim_backend({sdk, refine::target_arch(bundle, o.bundle)});
  } else if (profile == "ncu") {
    backend = refine::make_ncu_backend(ncu_options(o, bundle, k.id, sdk));
  } else {
    throw make_error("--profile: '{}' is not a backend (ncu, vxsim)", profile);
  }

  refine::SandboxRules rules = refine::default_rules();
  rules.build_timeout_s = o.build_timeout;
  rules.run_timeout_s = o.run_timeout;
  // Isolation of builds, runs and external agents (docs/sandbox.md): bubblewrap when it works here.
  std::string why_not;
  const refine::IsolationKind kind =
      o.unsafe_no_isolation ? refine::IsolationKind::kNone : refine::isolation_kind(o.isolation);
  if (kind == refine::IsolationKind::kNone && !o.unsafe_no_isolation)
    throw make_error("--isolation none: pass --unsafe-no-isolation to run without isolation (recorded)");
  rules.isolation = refine::make_isolation(kind, &why_not);
  if (!rules.isolation)
    throw make_error("--isolation {}: does not work here: {}", o.isolation, why_not);
  const bool external = o.agent.rfind("cmd:", 0) == 0;
  if (external && !rules.isolation->isolates() && !o.unsafe_no_isolation)
    throw make_error("--agent {}: an external agent runs only isolated, and neither bubblewrap nor unshare works here "
                     "({}); install the Debian package bubblewrap, or pass --unsafe-no-isolation to run it unconfined "
                     "(recorded)",
                     o.agent, why_not);
  if (!rules.isolation->isolates())
    std::cerr << "[reconstruct] warning: builds and runs are not isolated: "
              << (o.unsafe_no_isolation ? std::string("--unsafe-no-isolation") : why_not) << "\n";
  std::unique_ptr<refine::DesignSpace> space;
  try {
    space = refine::order_info(*order).make_space(ref.context);
    (void)space->render(space->seed_design());
  } catch (const Error& e) {
    throw make_error("{}: kernel {}: the generator cannot build a seed for context {} {}: {}", o.bundle, k.id,
                     core::to_string(k.context.op), shape_string(k.context), e.what());
  }
  std::unique_ptr<refine::Agent> agent;
  if (o.agent == "builtin") {
    agent = std::make_unique<refine::BuiltinAgent>(*space);
  } else if (o.agent == "line-search") {
    agent = std::make_unique<refine::LineSearchAgent>(*space);
  } else if (o.agent.rfind("cmd:", 0) == 0 && o.agent.size() > 4) {
    agent = std::make_unique<refine::ExternalAgent>(o.agent.substr(4), fs::path(o.out) / "work" / "agent",
                                                    o.agent_timeout, rules.isolation,
                                                    std::vector<fs::path>{fs::absolute(o.out)});
  } else {
    throw make_error("--agent: '{}' must be builtin, line-search or cmd:\"COMMAND\"", o.agent);
  }

  refine::LoopOptions lo;
  lo.out_dir = o.out;
  lo.budget = o.budget;
  lo.resume = o.resume;
  lo.seed = o.seed;
  lo.agent_timeout_s = o.agent_timeout;
  if (profile == "ncu") lo.order = std::string(refine::to_string(*order));
  std::cout << fmt::format("[reconstruct] {} {} ({}) from {}: agent {}, profile backend {}, budget {}\n", k.id,
                           core::to_string(k.context.op), clip(k.name, 64), o.bundle, agent->name(), profile,
                           o.budget)
            << std::flush;
  const refine::LoopResult r = refine::run_loop(
      ref, *space, *agent, *backend, rules, lo,
      [](const refine::Progress& p) { std::cout << refine::progress_line(p) << "\n" << std::flush; });
  std::cout << fmt::format(
      "[reconstruct] done: seed D {:.4f} → final D {:.4f} (revision {}); {} tried, {} retained, {} reverted, "
      "{} rejected; {:.1f} s\n[reconstruct] benchmark: {} (vortex/, cuda/, summary.md, record.jsonl)\n",
      r.seed_d, r.final_d, r.locked_revision, r.tried, r.retained, r.reverted, r.rejected, r.wall_time_s,
      fs::absolute(r.benchmark_dir).string());
  if (refine::agent_failed_every_revision(r)) {
    std::cerr << fmt::format(
        "vxsynth: error: the agent failed on all {} revisions after the seed (see the rejection reasons in {} "
        "and the agent logs under {}); the locked benchmark is the unrefined seed. Exit status {}.\n",
        r.tried, (fs::path(o.out) / "record.jsonl").string(), (fs::path(o.out) / "work" / "agent").string(),
        kExitAgentFailedEveryRevision);
    return kExitAgentFailedEveryRevision;
  }
  return 0;
}

}  // namespace

Runner setup_reconstruct(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.add_option("bundle", o->bundle, "reference bundle (vxsynth profile import)")->required();
  app.add_option("--kernel", o->kernel, "kernel id (k1, …) or rank")->required();
  app.add_option("--agent", o->agent, "builtin, line-search (docs/reconstruct.md), or cmd:\"COMMAND\" (docs/agent-protocol.md)")->capture_default_str();
  app.add_option("--profile", o->profile,
                 "ncu (each revision's CUDA candidate under Nsight Compute on the GPU, which must be the bundle's provenance gpu) or vxsim (the Vortex "
                 "candidate's vxsim counters scored against the reference signature; not paper §4.5's "
                 "Vortex-first); default: ncu when nvidia-smi shows a GPU, else vxsim");
  app.add_option("--order", o->order,
                 "with --profile ncu: cuda-first (refine the CUDA candidate) or vortex-first (refine under "
                 "Vortex's constraints, profile the CUDA translation; paper §4.5)")
      ->capture_default_str();
  app.add_option("--budget", o->budget, "revisions after the seed")->capture_default_str()->check(CLI::Range(0, 1000000));
  app.add_flag("--resume", o->resume, "continue an interrupted run in -o DIR from its record");
  app.add_option("--seed", o->seed, "seed of the agent's tie-breaks and of the sampled inputs")->capture_default_str();
  app.add_option("-o,--output", o->out, "output directory")->required();
  app.add_option("--sdk", o->sdk, "directory holding the Vortex SDK's sdk.mk (default: <build>/sdk)");
  app.add_option("--ncu", o->ncu,
                 "Nsight Compute CLI for --profile ncu (a name on PATH or a path, e.g. a wrapper that serialises "
                 "concurrent runs)")
      ->capture_default_str();
  app.add_option("--gpu-lock", o->gpu_lock,
                 "lock file held (flock) while a candidate runs on the GPU, so that concurrent reconstructs "
                 "profile one at a time; time limits start once it is held");
  app.add_option("--profile-in", o->profile_in,
                 "--profile ncu: workload (the candidate swapped into the workload the reference was captured "
                 "from), standalone (one launch at the profiled shape), or auto (workload when the bundle names "
                 "one and python3 has torch with a GPU)")
      ->capture_default_str();
  app.add_option("--python", o->python, "interpreter with torch for --profile-in workload")->capture_default_str();
  app.add_option("--python-dir", o->python_dir,
                 "folder holding the vxsynth_torch package (default: $VXSYNTH_PYTHON_DIR, else python/ of the "
                 "nearest directory above this executable that has python/vxsynth_torch/workloads)");
  app.add_option("--build-timeout", o->build_timeout, "seconds per candidate build")->capture_default_str();
  app.add_option("--run-timeout", o->run_timeout, "seconds per candidate run")->capture_default_str();
  app.add_option("--agent-timeout", o->agent_timeout, "seconds per external-agent call")->capture_default_str();
  app.add_option("--isolation", o->isolation,
                 "how builds, candidate runs, the ncu-profiled run and an external agent are confined: auto (bwrap "
                 "when it works, else unshare as root), bwrap, unshare (docs/sandbox.md)")
      ->capture_default_str();
  app.add_flag("--unsafe-no-isolation", o->unsafe_no_isolation,
               "run builds, candidates and an external agent without bubblewrap (recorded in every revision)");
  app.footer(fmt::format(
      "Exit status: 0 the benchmark was written; 2 error (bad input, rejected seed, I/O); {} the agent failed "
      "on every revision after the seed (--budget > 0), so the benchmark and summary written are the "
      "unrefined seed's (docs/reconstruct.md).",
      kExitAgentFailedEveryRevision));
  return [o] { return run(*o); };
}

}  // namespace vxsynth::cli
