#include "vxsynth/codegen/toolchain.h"

#include <unistd.h>

#include <cstdlib>

#include <fmt/format.h>

#include "vxsynth/common/error.h"
#include "vxsynth/core/metrics.h"

namespace vxsynth::codegen {

std::optional<std::filesystem::path> find_nvcc() {
  if (const char* e = std::getenv("NVCC"); e && *e && ::access(e, X_OK) == 0) return std::filesystem::path(e);
  const std::filesystem::path def = "/usr/local/cuda/bin/nvcc";
  if (::access(def.c_str(), X_OK) == 0) return def;
  return std::nullopt;
}

NvccResult compile_cuda(const std::filesystem::path& cu, const std::filesystem::path& object,
                        const std::vector<std::string>& extra, const std::string& arch, double timeout_seconds) {
  const auto nvcc = find_nvcc();
  if (!nvcc) throw make_error("nvcc not found (set NVCC or install CUDA at /usr/local/cuda)");
  // nvcc runs in the candidate's directory, so both paths must be absolute (a relative `-o` of
  // `vxsynth reconstruct` would otherwise be resolved twice).
  const auto cu_abs = std::filesystem::absolute(cu);
  const auto object_abs = std::filesystem::absolute(object);
  std::vector<std::string> argv{nvcc->string(), core::nvcc_target_flag(arch), "-std=c++17", "-O2", "-Xcompiler", "-Wall",
                                "-c", cu_abs.string(), "-o", object_abs.string()};
  argv.insert(argv.end(), extra.begin(), extra.end());
  const auto dir = cu_abs.parent_path();
  const ProcessResult pr = run_process(argv, {timeout_seconds, dir});
  NvccResult r;
  r.ok = pr.ok();
  r.diagnostics = pr.output;
  r.command = pr.command;
  r.wall_seconds = pr.wall_s;
  return r;
}

std::string VortexRunResult::summary() const {
  if (!built) {
    return fmt::format("build failed ({}, {:.1f} s)", build.status_text(), build.wall_s);
  }
  if (!ran) return fmt::format("build ok ({:.1f} s), not run", build.wall_s);
  return fmt::format("build ok ({:.1f} s), run {} ({:.1f} s){}", build.wall_s, run.status_text(), run.wall_s,
                     output_written ? "" : ", no out.bin");
}

std::optional<std::filesystem::path> find_sdk_dir(const std::filesystem::path& build_dir) {
  const auto d = build_dir / "sdk";
  if (std::filesystem::exists(d / "sdk.mk")) return d;
  return std::nullopt;
}

VortexRunResult build_and_run_vortex(const std::filesystem::path& candidate_dir, const VortexRunOptions& o) {
  if (!std::filesystem::exists(candidate_dir / "Makefile")) {
    throw make_error("{}: no Makefile (emit the Vortex candidate first)", candidate_dir.string());
  }
  if (!std::filesystem::exists(o.sdk_dir / "sdk.mk")) {
    throw make_error("{}: no sdk.mk (build the vxsynth SDK first; it lives in <build>/sdk)", o.sdk_dir.string());
  }
  VortexRunResult r;
  r.build = run_process({"make", "--no-print-directory", "VXSDK=" + std::filesystem::absolute(o.sdk_dir).string()},
                        {o.build_timeout_seconds, candidate_dir});
  r.built = r.build.ok();
  if (!r.built) return r;
  std::error_code ec;
  const auto data = std::filesystem::absolute(o.data_dir);
  std::filesystem::remove(data / "out.bin", ec);
  r.ran = true;
  std::vector<std::string> argv{"./vxs_candidate", "-d", data.string()};
  argv.insert(argv.end(), o.run_args.begin(), o.run_args.end());
  r.run = run_process(argv, {o.run_timeout_seconds, candidate_dir, o.run_env});
  r.output_written = std::filesystem::exists(data / "out.bin");
  return r;
}

}  // namespace vxsynth::codegen
