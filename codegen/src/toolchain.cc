#include "vxsynth/codegen/toolchain.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "vxsynth/common/error.h"

extern char** environ;

namespace vxsynth::codegen {

ProcessResult run_process(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                          const std::map<std::string, std::string>& env, double timeout_seconds) {
  ProcessResult r;
  if (argv.empty()) throw make_error("run_process: empty command");
  for (const auto& a : argv) r.command += (r.command.empty() ? "" : " ") + a;
  int fds[2];
  if (::pipe(fds) != 0) throw make_error("{}: pipe failed: {}", argv[0], std::strerror(errno));
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw make_error("{}: fork failed: {}", argv[0], std::strerror(errno));
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    ::dup2(fds[1], 1);
    ::dup2(fds[1], 2);
    ::close(fds[0]);
    ::close(fds[1]);
    if (::chdir(cwd.c_str()) != 0) {
      const std::string msg = fmt::format("cannot chdir to {}: {}\n", cwd.string(), std::strerror(errno));
      (void)!::write(2, msg.data(), msg.size());
      ::_exit(127);
    }
    for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    const std::string msg = fmt::format("cannot execute {}: {}\n", argv[0], std::strerror(errno));
    (void)!::write(2, msg.data(), msg.size());
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  ::close(fds[1]);
  ::fcntl(fds[0], F_SETFL, O_NONBLOCK);
  char buf[65536];
  bool open = true;
  while (open) {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (elapsed > timeout_seconds) {
      r.timed_out = true;
      ::kill(-pid, SIGKILL);
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int rc = ::poll(&p, 1, 200);
    if (rc < 0 && errno != EINTR) break;
    if (rc > 0) {
      const ssize_t n = ::read(fds[0], buf, sizeof buf);
      if (n > 0) {
        r.output.append(buf, static_cast<size_t>(n));
      } else if (n == 0) {
        open = false;
      } else if (errno != EAGAIN && errno != EINTR) {
        open = false;
      }
    }
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  ::kill(-pid, SIGKILL);  // stragglers of the group (make's children) after a timeout
  if (WIFEXITED(status)) {
    r.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    r.exit_code = 128 + WTERMSIG(status);
  }
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (r.timed_out) r.output += fmt::format("\n[vxsynth: killed after the {:.0f} s time limit]\n", timeout_seconds);
  return r;
}

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
  std::vector<std::string> argv{nvcc->string(), "-arch=" + arch, "-std=c++17", "-O2", "-Xcompiler", "-Wall",
                                "-c", cu_abs.string(), "-o", object_abs.string()};
  argv.insert(argv.end(), extra.begin(), extra.end());
  const auto dir = cu_abs.parent_path();
  const ProcessResult pr = run_process(argv, dir, {}, timeout_seconds);
  NvccResult r;
  r.ok = pr.exit_code == 0 && !pr.timed_out;
  r.diagnostics = pr.output;
  r.command = pr.command;
  r.wall_seconds = pr.wall_seconds;
  return r;
}

std::string VortexRunResult::summary() const {
  if (!built) {
    return fmt::format("build failed (exit {}{}, {:.1f} s)", build.exit_code, build.timed_out ? ", timed out" : "",
                       build.wall_seconds);
  }
  if (!ran) return fmt::format("build ok ({:.1f} s), not run", build.wall_seconds);
  return fmt::format("build ok ({:.1f} s), run exit {}{} ({:.1f} s){}", build.wall_seconds, run.exit_code,
                     run.timed_out ? " timed out" : "", run.wall_seconds, output_written ? "" : ", no out.bin");
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
                        candidate_dir, {}, o.build_timeout_seconds);
  r.built = r.build.exit_code == 0 && !r.build.timed_out;
  if (!r.built) return r;
  std::error_code ec;
  const auto data = std::filesystem::absolute(o.data_dir);
  std::filesystem::remove(data / "out.bin", ec);
  r.ran = true;
  r.run = run_process({"./vxs_candidate", "-d", data.string()}, candidate_dir, o.run_env, o.run_timeout_seconds);
  r.output_written = std::filesystem::exists(data / "out.bin");
  return r;
}

}  // namespace vxsynth::codegen
