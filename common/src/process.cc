#include "vxsynth/common/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "vxsynth/common/error.h"

namespace vxsynth {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// In the forked child: own process group, die with the parent, output to the pipe, stdin from
// /dev/null, then exec. Only async-signal-safe calls, except setenv (the child is single-threaded
// until exec; the strings were built before the fork).
[[noreturn]] void exec_child(char* const* args, const std::filesystem::path& cwd,
                             const std::vector<std::pair<std::string, std::string>>& env, int out_fd) {
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() == 1) ::_exit(127);  // the parent died before prctl
  ::dup2(out_fd, 1);
  ::dup2(out_fd, 2);
  const int devnull = ::open("/dev/null", O_RDONLY);
  if (devnull >= 0) ::dup2(devnull, 0);
  if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) {
    const char msg[] = "run_process: cannot change to the working directory\n";
    (void)!::write(2, msg, sizeof msg - 1);
    ::_exit(127);
  }
  for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
  ::execvp(args[0], args);
  const char* why = std::strerror(errno);
  const char msg[] = "run_process: cannot execute ";
  (void)!::write(2, msg, sizeof msg - 1);
  (void)!::write(2, args[0], std::strlen(args[0]));
  (void)!::write(2, ": ", 2);
  (void)!::write(2, why, std::strlen(why));
  (void)!::write(2, "\n", 1);
  ::_exit(127);
}

// Appends to `buf`, keeping at most about 2 × max bytes between trims.
void keep_tail(std::string& buf, const char* data, size_t n, size_t max, bool& truncated) {
  buf.append(data, n);
  if (buf.size() > 2 * max) {
    buf.erase(0, buf.size() - max);
    truncated = true;
  }
}

// Reads the child's output until EOF (the child and every descendant holding the pipe are gone)
// or the time limit, when the whole group is killed.
void drain(int fd, pid_t pid, Clock::time_point start, const ProcessOptions& o, ProcessResult& r) {
  char chunk[65536];
  int tee = o.tee.empty() ? -1 : ::open(o.tee.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  struct CloseTee {
    int& fd;
    ~CloseTee() {
      if (fd >= 0) ::close(fd);
    }
  } close_tee{tee};
  for (;;) {
    const double left = o.timeout_s - seconds_since(start);
    if (left <= 0) {
      r.timed_out = true;
      ::kill(-pid, SIGKILL);
      return;
    }
    pollfd p{fd, POLLIN, 0};
    const int n = ::poll(&p, 1, static_cast<int>(std::min(left * 1000.0, 200.0)) + 1);
    if (n < 0 && errno != EINTR) return;
    if (n <= 0) continue;
    const ssize_t got = ::read(fd, chunk, sizeof chunk);
    if (got > 0) {
      keep_tail(r.output, chunk, static_cast<size_t>(got), o.max_output, r.output_truncated);
      if (tee >= 0 && ::write(tee, chunk, static_cast<size_t>(got)) != got) {
        ::close(tee);  // a log that cannot be written stops being written; the output is still kept
        tee = -1;
      }
    } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
      return;
    }
  }
}

}  // namespace

std::string ProcessResult::status_text() const {
  if (timed_out) return fmt::format("timed out after {:.0f} s", wall_s);
  if (term_signal != 0) return fmt::format("killed by signal {} ({})", term_signal, ::strsignal(term_signal));
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

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& o) {
  if (argv.empty()) throw make_error("run_process: empty command");
  ProcessResult r;
  for (const auto& a : argv) r.command += (r.command.empty() ? "" : " ") + a;
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const std::vector<std::pair<std::string, std::string>> env(o.env.begin(), o.env.end());

  int pipefd[2];
  if (::pipe2(pipefd, O_CLOEXEC) != 0)
    throw make_error("{}: cannot create a pipe: {}", argv[0], std::strerror(errno));
  const auto start = Clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(pipefd[0]);
    ::close(pipefd[1]);
    throw make_error("{}: fork failed: {}", argv[0], std::strerror(errno));
  }
  if (pid == 0) exec_child(args.data(), o.cwd, env, pipefd[1]);
  ::setpgid(pid, pid);  // also from the parent, so the group exists before any kill
  ::close(pipefd[1]);
  drain(pipefd[0], pid, start, o, r);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  ::close(pipefd[0]);
  if (r.timed_out) ::kill(-pid, SIGKILL);  // stragglers of the group (make's children)
  r.wall_s = seconds_since(start);
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.term_signal = WTERMSIG(status);
  if (r.output.size() > o.max_output) {
    r.output.erase(0, r.output.size() - o.max_output);
    r.output_truncated = true;
  }
  return r;
}

}  // namespace vxsynth
