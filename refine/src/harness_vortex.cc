#include "harness_vortex.h"

#include <regex>
#include <set>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "candidate_steps.h"
#include "tool_probe.h"
#include "vxsynth/check/inputs.h"
#include "vxsynth/codegen/design_point.h"
#include "vxsynth/codegen/emit.h"
#include "vxsynth/codegen/vortex_check.h"
#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/refine/agent.h"

namespace vxsynth::refine {

namespace fs = std::filesystem;

namespace {

// Program names in the generated Makefile (PROJECT) and the compiler's kept preprocessed output
// (-save-temps=obj names them <output>-<source>.ii).
constexpr const char* kHostProgram = "vxs_candidate";
constexpr const char* kKernelTu = "kernel.elf-kernel.ii";
constexpr const char* kHostTu = "vxs_candidate-main.ii";

std::string abs(const fs::path& p) { return fs::absolute(p).lexically_normal().string(); }

ProcessResult isolated(const EvalRequest& req, const fs::path& candidate_dir, const std::vector<std::string>& argv,
                       const fs::path& work, std::map<std::string, std::string> env, double timeout) {
  IsolatedRun r;
  r.work = work;
  r.hidden = hidden_dirs(candidate_dir, req);
  r.env = std::move(env);
  r.timeout_s = timeout;
  return req.rules->isolation->run(argv, r);
}

// `make all` of the candidate in its own directory, keeping what the compilers saw.
std::string build_candidate(const fs::path& candidate_dir, const fs::path& sdk_dir, const EvalRequest& req) {
  const fs::path vdir = candidate_dir / "vortex";
  const std::string flags = "-I" + abs(vdir) + " -save-temps=obj";
  const ProcessResult b = isolated(req, candidate_dir,
                                   {"make", "VXSDK=" + abs(sdk_dir), "VX_EXTRA_CFLAGS=" + flags,
                                    "HOST_EXTRA_CFLAGS=" + flags, "all"},
                                   vdir, {}, req.rules->build_timeout_s);
  if (!b.ok()) return fmt::format("build: make {}: {}", b.status_text(), tail_lines(b.output, 4));
  return {};
}

// The harness's host program for the design: codegen's rendering of the Vortex side, built once
// per design under the run directory (or the candidate directory when there is none).
fs::path harness_host(const fs::path& candidate_dir, const fs::path& sdk_dir, const EvalRequest& req,
                      std::string* failure) {
  const codegen::Candidate rendered = codegen::emit_vortex(codegen::design_point_from_json(req.design));
  std::string key_text = read_file(sdk_dir / "sdk.mk");
  for (const auto& f : rendered.files) key_text += f.name + '\0' + f.text + '\0';
  const std::string key = sha256_hex(key_text).substr(0, 16);
  const fs::path root = req.run_dir.empty() ? candidate_dir / "harness-host" : req.run_dir / "work" / "harness-host";
  const fs::path dir = root / key;
  if (fs::exists(dir / kHostProgram)) return dir / kHostProgram;
  std::error_code ec;
  fs::remove_all(dir, ec);
  codegen::write_candidate(dir, rendered);
  IsolatedRun r;
  r.work = dir;
  r.timeout_s = req.rules->build_timeout_s;
  const ProcessResult b = req.rules->isolation->run({"make", "VXSDK=" + abs(sdk_dir), kHostProgram}, r);
  if (!b.ok()) {
    *failure = fmt::format("harness: building the harness's host program: make {}: {}", b.status_text(),
                           tail_lines(b.output, 4));
    return {};
  }
  return dir / kHostProgram;
}

std::vector<Violation> artefact_violations(const fs::path& vdir, const fs::path& host, const fs::path& sdk_dir,
                                          const SandboxRules& rules) {
  std::vector<Violation> v;
  std::map<std::string, std::string> scanned;
  for (const char* f : {"kernel.cpp", "main.cpp", "common.h"}) scanned[abs(vdir / f)] = std::string("vortex/") + f;
  for (const char* tu : {kKernelTu, kHostTu}) {
    if (!fs::exists(vdir / tu)) throw make_error("{}: the build kept no preprocessed output", (vdir / tu).string());
    const auto p = check_preprocessed(read_file(vdir / tu), scanned, rules);
    v.insert(v.end(), p.begin(), p.end());
  }
  const ProcessResult dump = run_process(
      {sdk_tool(sdk_dir, "VX_OBJDUMP", "riscv64-unknown-elf-objdump"), "-d", abs(vdir / "kernel.elf")}, {120});
  if (!dump.ok()) throw make_error("objdump -d {}: {}", (vdir / "kernel.elf").string(), tail_lines(dump.output, 2));
  const auto d = check_riscv_disassembly(dump.output, "vortex/kernel.elf");
  v.insert(v.end(), d.begin(), d.end());
  const ElfFacts harness = read_elf_facts(host);
  const auto e = check_elf(read_elf_facts(vdir / kHostProgram), &harness.needed, "vortex/" + std::string(kHostProgram));
  v.insert(v.end(), e.begin(), e.end());
  return v;
}

// A host program's verdict in the Vortex regression programs' convention (docs/vortex.md §6.5).
bool self_check_passed(const std::string& output) {
  return output.find("FAILED!") == std::string::npos && output.find("PASSED!") != std::string::npos;
}

// Whether the candidate's editable host files (main.cpp, common.h; every other host file is held
// to the rendering by the sandbox) are the design's own rendering: then its host program is the
// harness's, which checks the kernel's output against its CPU reference in the harness run too.
bool host_is_rendering(const fs::path& vdir, const EvalRequest& req) {
  const codegen::Candidate rendered = codegen::emit_vortex(codegen::design_point_from_json(req.design));
  for (const char* f : {"main.cpp", "common.h"})
    if (!fs::exists(vdir / f) || read_file(vdir / f) != rendered.file(f).text) return false;
  return true;
}

// The candidate's own host program on inputs it draws itself (functional mode): its FAILED! counts.
std::string own_self_check(const fs::path& candidate_dir, const EvalRequest& req) {
  const auto env = codegen::vxsim_env(codegen::design_point_from_json(req.design), /*timing=*/false);
  const fs::path vdir = candidate_dir / "vortex";
  std::vector<std::string> argv{"./" + std::string(kHostProgram)};
  if (const auto s = check_sample(req, /*timing=*/false)) argv.insert(argv.end(), {"-b", s->block_list()});
  const ProcessResult r = isolated(req, candidate_dir, argv, vdir, env, req.rules->run_timeout_s);
  write_file_atomic(candidate_dir / "self_check.log", r.output);
  if (r.ok() && self_check_passed(r.output)) return {};
  return sandbox_failure({{"self_check", "vortex/main.cpp", 0,
                           fmt::format("the candidate's own host program failed its self-check ({}): {}",
                                       r.status_text(), tail_lines(r.output, 3))}});
}

// Pair alignment (sandbox.h check_warp_work): the design's GEMM launch — the grid the harness's
// host program passes (codegen's rendering of main.cpp: `c.grid[k] = Nu;`), the block size and the
// machine — against the per-warp arithmetic of launch 0 in the signature file.
std::string pair_alignment(const fs::path& sig_path, const EvalRequest& req) {
  const codegen::DesignPoint p = codegen::design_point_from_json(req.design);
  VortexLaunchShape s;
  s.block_threads = p.fixed.block_size;
  s.cores = p.vortex.cores;
  s.warps = p.vortex.warps;
  s.threads = p.vortex.threads;
  for (uint32_t g : design_grid(req)) s.blocks *= g;
  const nlohmann::json sig = nlohmann::json::parse(read_file(sig_path), nullptr, false);
  const nlohmann::json* counters = nullptr;
  if (sig.is_object() && sig.contains("launches") && sig["launches"].is_array())
    for (const auto& l : sig["launches"])
      if (l.value("index", -1) == 0 && l.contains("counters")) counters = &l["counters"];
  if (counters == nullptr || !counters->contains("warp_flops") || !(*counters)["warp_flops"].is_array())
    return sandbox_failure({{"pair_alignment", "vortex/kernel.cpp", 0,
                             "the signature file has no per-warp counters (warp_flops) for launch 0"}});
  const auto flops = (*counters)["warp_flops"].get<std::vector<std::vector<uint64_t>>>();
  const auto v = check_warp_work(flops, s, "vortex/kernel.cpp");
  return v.empty() ? std::string() : sandbox_failure(v);
}

}  // namespace

std::array<uint32_t, 3> design_grid(const EvalRequest& req) {
  const std::string main_cpp = codegen::emit_vortex(codegen::design_point_from_json(req.design)).file("main.cpp").text;
  static const std::regex grid(R"(c\.grid\[([0-2])\] = ([0-9]+)u;)");
  std::array<uint32_t, 3> g{1, 1, 1};
  for (auto it = std::sregex_iterator(main_cpp.begin(), main_cpp.end(), grid); it != std::sregex_iterator(); ++it)
    g[std::stoul((*it)[1].str())] = static_cast<uint32_t>(std::stoul((*it)[2].str()));
  return g;
}

std::optional<codegen::TileSample> check_sample(const EvalRequest& req, bool timing) {
  if (timing) return std::nullopt;
  return codegen::check_tile_sample(codegen::design_point_from_json(req.design),
                                    check_input_seed(req.seed, req.revision));
}

std::vector<fs::path> hidden_dirs(const fs::path& candidate_dir, const EvalRequest& req) {
  std::vector<fs::path> h;
  if (!req.run_dir.empty()) h.push_back(req.run_dir);
  h.push_back(candidate_dir);
  return h;
}

std::string sandbox_failure(const std::vector<Violation>& v) {
  std::string s;
  std::set<std::string> seen;  // the same finding in two translation units is reported once
  for (const auto& x : v)
    if (seen.insert(x.message()).second) s += (s.empty() ? "" : "; ") + x.message();
  return "sandbox: " + s;
}

std::string run_vortex_harness(const fs::path& candidate_dir, const fs::path& sdk_dir, const EvalRequest& req,
                               const CandidateData& d, bool timing, std::vector<double>& out, StepTimes* steps) {
  const fs::path vdir = candidate_dir / "vortex";
  fs::path host;
  {
    const StepTimer t(steps, RevisionStep::kVortexBuild);
    if (std::string f = build_candidate(candidate_dir, sdk_dir, req); !f.empty()) return f;
    std::string failure;
    host = harness_host(candidate_dir, sdk_dir, req, &failure);
    if (!failure.empty()) return failure;
    if (const auto v = artefact_violations(vdir, host, sdk_dir, *req.rules); !v.empty()) return sandbox_failure(v);
  }
  const bool self_check_in_run = host_is_rendering(vdir, req);
  if (self_check_in_run) {
    write_file_atomic(candidate_dir / "self_check.log",
                      "not run: vortex/main.cpp and vortex/common.h are the design's own rendering, so the "
                      "candidate's host program is the harness's; the harness run (run.log) self-checks the "
                      "kernel's output against the CPU reference\n");
  } else {
    const StepTimer t(steps, RevisionStep::kVortexSelfCheck);
    if (std::string f = own_self_check(candidate_dir, req); !f.empty()) return f;
  }
  const StepTimer t(steps, RevisionStep::kVortexRun);

  // The measured run: the harness's program, the candidate's kernel image made by the harness
  // from the checked kernel.elf, copies of the inputs; nothing else of the candidate's.
  const fs::path run = candidate_dir / "harness-run";
  std::error_code ec;
  fs::remove_all(run, ec);
  fs::create_directories(run / kDataDir);
  fs::copy_file(host, run / kHostProgram);
  const ProcessResult vxbin = run_process({abs(sdk_dir / "vxbin"), abs(vdir / "kernel.elf"), abs(run / "kernel.vxbin")}, {120});
  if (!vxbin.ok()) return fmt::format("build: vxbin {}: {}", vxbin.status_text(), tail_lines(vxbin.output, 2));
  std::map<std::string, std::string> input_hash;
  for (const auto& e : fs::directory_iterator(d.dir)) {
    const std::string name = e.path().filename().string();
    if (name == "ref_output.bin" || name == "out.bin" || !e.is_regular_file()) continue;
    fs::copy_file(e.path(), run / kDataDir / name);
    input_hash[name] = sha256_hex(read_file(e.path()));
  }
  auto env = codegen::vxsim_env(codegen::design_point_from_json(req.design), timing);
  env["VXSIM_SIGNATURE"] = abs(run / kVortexSignatureFile);
  std::vector<std::string> argv{"./" + std::string(kHostProgram), "-d", abs(run / kDataDir)};
  if (const auto s = check_sample(req, timing)) argv.insert(argv.end(), {"-b", s->block_list()});
  const ProcessResult r = isolated(req, candidate_dir, argv, run, env, req.rules->run_timeout_s);
  write_file_atomic(candidate_dir / "run.log", r.output);
  const fs::path out_bin = run / kDataDir / "out.bin";
  if (!r.ok() || !fs::exists(out_bin))
    return fmt::format("run: {}{}: {}", r.status_text(), fs::exists(out_bin) ? "" : ", no out.bin", tail_lines(r.output, 4));
  for (const auto& [name, hash] : input_hash)
    if (!fs::exists(run / kDataDir / name) || sha256_hex(read_file(run / kDataDir / name)) != hash)
      return sandbox_failure({{"input_changed", "data/" + name, 0, "the input file changed during the run"}});
  if (self_check_in_run && !self_check_passed(r.output))
    return sandbox_failure({{"self_check", "vortex/main.cpp", 0,
                             "the harness run of the candidate's host program (its own rendering) failed its "
                             "self-check: " + tail_lines(r.output, 3)}});
  fs::copy_file(out_bin, d.dir / "out.bin", fs::copy_options::overwrite_existing);
  if (fs::exists(run / kVortexSignatureFile))
    fs::copy_file(run / kVortexSignatureFile, candidate_dir / kVortexSignatureFile, fs::copy_options::overwrite_existing);
  if (timing && fs::exists(run / kVortexSignatureFile))
    if (std::string f = pair_alignment(run / kVortexSignatureFile, req); !f.empty()) return f;
  out = check::read_tensor_file(out_bin, check::output_numel(d.op), d.ftype);
  return {};
}

}  // namespace vxsynth::refine
