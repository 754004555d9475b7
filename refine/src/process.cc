#include "vxsynth/refine/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include <fmt/format.h>

#include "vxsynth/common/error.h"

namespace vxsynth::refine {

std::string ProcessResult::status_text() const {
  if (timed_out) return fmt::format("timed out after {:.0f} s", wall_s);
  if (term_signal != 0) return fmt::format("killed by signal {}", term_signal);
  return fmt::format("exit {}", exit_code);
}

std::string tail_lines(const std::string& text, int n) {
  size_t pos = text.size();
  if (pos > 0 && text[pos - 1] == '\n') --pos;
  for (int i = 0; i < n && pos > 0; ++i) {
    const size_t nl = text.rfind('\n', pos - 1);
    if (nl == std::string::npos) return text;
    pos = nl;
  }
  return pos == 0 ? text : text.substr(pos + 1);
}

ProcessResult run_process(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                          double timeout_s, const std::map<std::string, std::string>& env,
                          size_t max_output) {
  if (argv.empty()) throw make_error("run_process: empty command");
  int pipefd[2];
  if (::pipe2(pipefd, O_CLOEXEC) != 0)
    throw make_error("{}: cannot create a pipe: {}", argv[0], std::strerror(errno));

  std::vector<std::string> envs;
  for (const auto& [k, v] : env) envs.push_back(k + "=" + v);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) throw make_error("{}: fork failed: {}", argv[0], std::strerror(errno));
  if (pid == 0) {
    ::setpgid(0, 0);
    // Die with the parent: a killed `vxsynth reconstruct` must not leave a simulator writing into
    // the revision directory that --resume is about to redo.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() == 1) ::_exit(127);
    ::dup2(pipefd[1], 1);
    ::dup2(pipefd[1], 2);
    const int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, 0);
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) {
      const char msg[] = "run_process: cannot chdir\n";
      (void)!::write(2, msg, sizeof msg - 1);
      ::_exit(127);
    }
    for (auto& e : envs) ::putenv(e.data());
    ::execvp(args[0], args.data());
    const std::string msg = fmt::format("run_process: cannot execute {}: {}\n", argv[0],
                                        std::strerror(errno));
    (void)!::write(2, msg.data(), msg.size());
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also from the parent, so the group exists before any kill
  ::close(pipefd[1]);

  ProcessResult r;
  std::string buf;
  bool open = true;
  char chunk[65536];
  while (open) {
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double left = timeout_s - elapsed;
    if (left <= 0) {
      r.timed_out = true;
      ::kill(-pid, SIGKILL);
      break;
    }
    pollfd p{pipefd[0], POLLIN, 0};
    const int wait_ms = static_cast<int>(std::min(left * 1000.0, 200.0)) + 1;
    const int n = ::poll(&p, 1, wait_ms);
    if (n < 0 && errno != EINTR) break;
    if (n > 0) {
      const ssize_t got = ::read(pipefd[0], chunk, sizeof chunk);
      if (got > 0) {
        buf.append(chunk, static_cast<size_t>(got));
        if (buf.size() > 2 * max_output) buf.erase(0, buf.size() - max_output);
      } else if (got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN)) {
        open = false;
      }
    }
  }
  // Reap. After a timeout the SIGKILL above (to the whole group) makes this immediate; otherwise
  // the pipe reached EOF, i.e. the child and every descendant holding it are gone.
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  ::close(pipefd[0]);
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.term_signal = WTERMSIG(status);
  if (buf.size() > max_output) buf.erase(0, buf.size() - max_output);
  r.output = std::move(buf);
  return r;
}

}  // namespace vxsynth::refine
