// Isolation with util-linux `unshare` and `setpriv`, run as root (docs/sandbox.md "Isolation";
// unshare(1), setpriv(1), mount(8), namespaces(7), capabilities(7)). For a machine without
// bubblewrap where vxsynth runs as root, such as the lent H200: a POSIX shell script, run as PID 1
// of new mount, network, PID, IPC and UTS namespaces, builds the child's view of the file system
// with the mount namespace's own mounts, then drops every capability and runs the command.
#include <unistd.h>

#include <fmt/format.h>

#include "vxsynth/refine/isolation.h"

namespace vxsynth::refine {
namespace {

namespace fs = std::filesystem;

// A POSIX sh word that stands for `s` exactly.
std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

std::string abs(const fs::path& p) { return fs::absolute(p).lexically_normal().string(); }

// The fixed part of /dev: the character devices every program may use (Linux
// Documentation/admin-guide/devices.txt: major 1 memory devices, 5/0 the controlling tty).
constexpr const char* kDevNodes =
    "mknod -m 666 /dev/null c 1 3; mknod -m 666 /dev/zero c 1 5; mknod -m 666 /dev/full c 1 7\n"
    "mknod -m 666 /dev/random c 1 8; mknod -m 666 /dev/urandom c 1 9; mknod -m 666 /dev/tty c 5 0\n"
    "ln -s /proc/self/fd /dev/fd; ln -s /proc/self/fd/0 /dev/stdin; ln -s /proc/self/fd/1 /dev/stdout\n"
    "ln -s /proc/self/fd/2 /dev/stderr\n";

// Every mount but the writable ones, /proc and /dev/shm made read-only, then checked: the topmost
// mount at each mount point (the last line of /proc/self/mountinfo that names it, awk keeps it)
// must be "ro"; a check that cannot run fails the sandbox (set -e).
// Mount points with escaped characters (a space is \040 there) are left out, and so are those a
// tmpfs made unreachable (the host's /dev/pts under the new /dev).
constexpr const char* kReadOnly =
    "while read -r id parent dev root mnt opts rest; do\n"
    "  case \" $keep \" in *\" $mnt \"*) continue;; esac\n"
    "  case \"$mnt\" in *\\\\*) continue;; esac\n"
    "  case \"$opts\" in ro|ro,*) ;; *) mount -o remount,bind,ro \"$mnt\" 2>/dev/null || true;; esac\n"
    "done < /proc/self/mountinfo\n"
    "tops=$(awk '{ opts[$5] = $6 } END { for (m in opts) print m, opts[m] }' /proc/self/mountinfo)\n"
    "echo \"$tops\" | while read -r mnt opts; do\n"
    "  case \" $keep \" in *\" $mnt \"*) continue;; esac\n"
    "  case \"$mnt\" in *\\\\*) continue;; esac\n"
    "  [ -e \"$mnt\" ] || continue\n"
    "  case \"$opts\" in ro|ro,*) ;; *) echo \"vxsynth sandbox: $mnt stays writable ($opts)\" >&2; exit 125;; esac\n"
    "done\n";

class UnshareIsolation : public Isolation {
 public:
  UnshareIsolation(fs::path unshare, fs::path setpriv, std::string version)
      : unshare_(std::move(unshare)), setpriv_(std::move(setpriv)), version_(std::move(version)) {}

  bool isolates() const override { return true; }

  std::string description() const override {
    return fmt::format("{} ({}, as root: own mount/net/pid/ipc/uts namespaces, read-only mounts, one writable "
                       "directory, hidden run directory and /run, minimal /dev, no network, no capabilities "
                       "(CAP_SYS_ADMIN kept for a GPU run whose driver restricts profiling to administrators), "
                       "cleared environment, PID 1 of its namespace)",
                       unshare_.string(), version_);
  }

  ProcessResult run(const std::vector<std::string>& argv, const IsolatedRun& spec) const override {
    std::vector<std::string> c = {unshare_.string(), "--mount", "--net", "--pid", "--ipc", "--uts", "--fork",
                                  "--kill-child", "--mount-proc", "--propagation", "private", "--",
                                  "/bin/sh", "-c", script(spec), "vxsynth-sandbox"};
    c.insert(c.end(), argv.begin(), argv.end());
    return run_process(c, {spec.timeout_s, spec.work});
  }

 private:
  // The script: open the writable directories (they may lie inside a hidden one), cover the
  // hidden ones and /run with an empty tmpfs, bind the writable ones back, build /dev, make the
  // rest read-only, then run "$@" without capabilities in a cleared environment.
  std::string script(const IsolatedRun& spec) const {
    std::vector<std::string> rw = {abs(spec.work)};
    for (const fs::path& w : spec.writable) rw.push_back(abs(w));
    if (rw.size() > 7) throw std::invalid_argument("unshare isolation: at most 7 writable directories");
    std::string s = "set -eu\n";
    for (size_t i = 0; i < rw.size(); ++i) s += fmt::format("exec {}<{}\n", i + 3, quote(rw[i]));
    s += "gpu=\n";
    if (spec.gpu)
      s += "for n in /dev/nvidia* /dev/nvidia-caps/*; do if [ -c \"$n\" ]; then gpu=\"$gpu $n:$(stat -c '%t:%T:%a' "
           "\"$n\")\"; fi; done\n";
    std::vector<std::string> hidden;
    for (const fs::path& h : spec.hidden)
      if (fs::is_directory(h)) hidden.push_back(abs(h));
    if (fs::is_directory("/run")) hidden.push_back("/run");
    for (const std::string& h : hidden) s += fmt::format("mkdir -p {0}; mount -t tmpfs -o mode=0755 vxsynth-hidden {0}\n", quote(h));
    s += "mount -t tmpfs -o mode=0755,nosuid vxsynth-dev /dev\n";
    s += kDevNodes;
    s += "mkdir /dev/shm; mount -t tmpfs -o mode=1777,nosuid,nodev vxsynth-shm /dev/shm\n";
    s += "for g in $gpu; do IFS=: read -r n ma mi mode <<EOF\n$g\nEOF\n"
         "mkdir -p \"${n%/*}\"; mknod -m \"$mode\" \"$n\" c $((0x$ma)) $((0x$mi)); done\n";
    std::string keep = "/proc /dev/shm";
    for (size_t i = 0; i < rw.size(); ++i) {
      s += fmt::format("mkdir -p {0}; mount -c --bind /proc/self/fd/{1} {0}; exec {1}<&-\n", quote(rw[i]), i + 3);
      keep += " " + rw[i];
    }
    // The kernel's global settings under /proc read-only, as container runtimes do.
    s += "for p in /proc/sys /proc/sysrq-trigger /proc/irq /proc/bus /proc/fs; do [ -e $p ] || continue; "
         "mount --bind $p $p; mount -o remount,bind,ro $p; done\n";
    s += "keep=" + quote(keep) + "\n";
    s += kReadOnly;
    s += fmt::format("cd {}\n", quote(rw[0]));
    std::string env;
    for (const auto& [k, v] : isolated_environment(spec)) env += (env.empty() ? "" : " ") + quote(k + "=" + v);
    const std::string caps = spec.gpu && gpu_profiling_admin_only() ? "-all,+sys_admin" : "-all";
    s += fmt::format("exec {} --bounding-set {} --inh-caps -all --no-new-privs -- /usr/bin/env -i {} \"$@\"\n",
                     quote(setpriv_.string()), caps, env);
    return s;
  }

  fs::path unshare_;
  fs::path setpriv_;
  std::string version_;
};

}  // namespace

std::shared_ptr<const Isolation> make_unshare_isolation(const fs::path& unshare, std::string* why) {
  const fs::path setpriv = unshare.parent_path() / "setpriv";
  for (const fs::path& tool : {unshare, setpriv})
    if (!fs::exists(tool)) {
      if (why) *why = tool.string() + " does not exist (Debian package util-linux)";
      return nullptr;
    }
  if (::geteuid() != 0) {
    if (why) *why = "unshare isolation needs root (mounts in a mount namespace of the initial user namespace)";
    return nullptr;
  }
  const ProcessResult v = run_process({unshare.string(), "--version"}, {10});
  auto iso = std::make_shared<UnshareIsolation>(unshare, setpriv, v.ok() ? first_line(v.output) : "version unknown");
  IsolatedRun probe;
  probe.work = fs::temp_directory_path();
  probe.timeout_s = 20;
  const ProcessResult p = iso->run({"/bin/true"}, probe);
  if (!p.ok()) {
    if (why) *why = fmt::format("{} cannot create a sandbox here ({}): {}", unshare.string(), p.status_text(),
                                tail_lines(p.output, 2));
    return nullptr;
  }
  return iso;
}

}  // namespace vxsynth::refine
