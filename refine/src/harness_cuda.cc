#include "harness_cuda.h"

#include <fmt/format.h>

#include "harness_vortex.h"
#include "vxsynth/codegen/design_point.h"
#include "vxsynth/codegen/emit.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/core/metrics.h"
#include "vxsynth/refine/agent.h"

namespace vxsynth::refine {

namespace fs = std::filesystem;

namespace {

std::string abs(const fs::path& p) { return fs::absolute(p).lexically_normal().string(); }

// nvcc's kept intermediate files of one compile: the translation units and the PTX.
struct Compiled {
  std::string failure;
  std::vector<std::string> tus;
  std::string ptx;
  fs::path object;
};

Compiled compile(const fs::path& dir, const fs::path& candidate_dir, const EvalRequest& req, const fs::path& nvcc,
                 const std::string& arch) {
  Compiled c;
  const fs::path keep = dir / "nvcc-keep";
  std::error_code ec;
  fs::remove_all(keep, ec);
  fs::create_directories(keep);
  c.object = dir / "candidate.o";
  IsolatedRun r;
  r.work = dir;
  r.hidden = hidden_dirs(candidate_dir, req);
  r.timeout_s = req.rules->build_timeout_s;
  // The flags of codegen::compile_cuda, plus the kept intermediate files.
  const ProcessResult p = req.rules->isolation->run(
      {nvcc.string(), core::nvcc_target_flag(arch), "-std=c++17", "-O2", "-Xcompiler", "-Wall", "-c",
       abs(dir / codegen::kCudaFileName), "-o", abs(c.object), "--keep", "--keep-dir", abs(keep)},
      r);
  if (!p.ok()) {
    c.failure = "nvcc: " + tail_lines(p.output, 4);
    return c;
  }
  for (const auto& e : fs::directory_iterator(keep)) {
    const std::string name = e.path().filename().string();
    if (name.ends_with(".ii")) c.tus.push_back(read_file(e.path()));
    if (name.ends_with(".ptx")) c.ptx += read_file(e.path());
  }
  return c;
}

CudaFacts facts_of(const Compiled& c, const fs::path& cu) {
  CudaFacts f;
  for (const std::string& tu : c.tus) {
    CudaFacts one = cuda_facts(c.ptx, tu, abs(cu));
    if (one.launch_sites.size() > f.launch_sites.size()) f.launch_sites = one.launch_sites;
    f.entries = one.entries;
    f.bounds = one.bounds;
  }
  return f;
}

std::vector<Violation> artefact_rules(const Compiled& c, const fs::path& cu, const SandboxRules& rules) {
  std::vector<Violation> v;
  const std::map<std::string, std::string> scanned = {{abs(cu), "cuda/candidate.cu"}};
  for (const std::string& tu : c.tus) {
    const auto p = check_preprocessed(tu, scanned, rules);
    v.insert(v.end(), p.begin(), p.end());
  }
  const auto ptx = check_ptx(c.ptx, "cuda/candidate.ptx");
  v.insert(v.end(), ptx.begin(), ptx.end());
  const auto elf = check_elf(read_elf_facts(c.object), nullptr, "cuda/candidate.o");
  v.insert(v.end(), elf.begin(), elf.end());
  for (const char* tool : {"/usr/local/cuda/bin/cuobjdump", "cuobjdump"}) {
    if (std::string(tool).front() == '/' && !fs::exists(tool)) continue;
    const ProcessResult s = run_process({tool, "-sass", abs(c.object)}, {120});
    if (s.exit_code == 127) continue;
    if (s.ok()) {
      const auto sass = check_sass(s.output, "cuda/candidate.o");
      v.insert(v.end(), sass.begin(), sass.end());
    }
    break;
  }
  return v;
}

}  // namespace

std::string check_cuda_candidate(const fs::path& candidate_dir, const EvalRequest& req, const fs::path& nvcc,
                                 const std::string& arch) {
  const fs::path dir = candidate_dir / "cuda";
  const Compiled c = compile(dir, candidate_dir, req, nvcc, arch);
  if (!c.failure.empty()) return c.failure;
  std::vector<Violation> v = artefact_rules(c, dir / codegen::kCudaFileName, *req.rules);
  // The design's own CUDA rendering, compiled once per design under the run directory.
  const codegen::Candidate rendered = codegen::emit_cuda(codegen::design_point_from_json(req.design));
  const std::string cu_text = read_file(dir / codegen::kCudaFileName);
  if (cu_text != rendered.file(codegen::kCudaFileName).text) {
    std::string key_text = arch;
    for (const auto& f : rendered.files) key_text += f.name + '\0' + f.text + '\0';
    const fs::path root = req.run_dir.empty() ? candidate_dir / "harness-cuda" : req.run_dir / "work" / "harness-cuda";
    const std::string key = sha256_hex(key_text).substr(0, 16);
    static std::map<std::string, CudaFacts> design_facts;  // per design and architecture, this process
    if (!design_facts.count(key)) {
      const fs::path rdir = root / key;
      std::error_code ec;
      fs::remove_all(rdir, ec);
      codegen::write_candidate(rdir, rendered);
      EvalRequest own = req;
      own.run_dir.clear();
      const Compiled d = compile(rdir, rdir, own, nvcc, arch);
      if (!d.failure.empty()) return "harness: the design's own CUDA rendering does not compile: " + d.failure;
      design_facts[key] = facts_of(d, rdir / codegen::kCudaFileName);
    }
    const auto l = check_cuda_launches(facts_of(c, dir / codegen::kCudaFileName), design_facts[key],
                                       "cuda/candidate.cu");
    v.insert(v.end(), l.begin(), l.end());
  }
  return v.empty() ? std::string() : sandbox_failure(v);
}

}  // namespace vxsynth::refine
