// Isolation with Debian's bubblewrap (docs/sandbox.md "Isolation"; bwrap(1)).
#include <unistd.h>

#include <fmt/format.h>

#include "vxsynth/refine/isolation.h"

namespace vxsynth::refine {
namespace {

namespace fs = std::filesystem;

class BwrapIsolation : public Isolation {
 public:
  BwrapIsolation(fs::path bwrap, std::string version) : bwrap_(std::move(bwrap)), version_(std::move(version)) {}

  bool isolates() const override { return true; }

  std::string description() const override {
    return fmt::format("{} ({}: read-only root and /tmp, one writable directory, hidden run directory, no network, "
                       "own pid/ipc/uts namespaces, no capabilities, cleared environment, dies with vxsynth)",
                       bwrap_.string(), version_);
  }

  ProcessResult run(const std::vector<std::string>& argv, const IsolatedRun& spec) const override {
    return run_process(command(argv, spec), {spec.timeout_s, spec.work});
  }

  std::vector<std::string> command(const std::vector<std::string>& argv, const IsolatedRun& spec) const {
    // Later mounts cover earlier ones: the read-only root (with /tmp read-only too: a checkout or
    // an SDK build may live there), then an empty tmpfs over each hidden directory, then the
    // writable directories (which may lie inside a hidden one). Temporary files go to the work
    // directory (TMPDIR).
    std::vector<std::string> c = {bwrap_.string(), "--unshare-all", "--die-with-parent", "--new-session",
                                  "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"};
    // The kernel's global settings read-only (root owns them: writable to a child that is root).
    for (const char* p : {"/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus", "/proc/fs"})
      c.insert(c.end(), {"--ro-bind-try", p, p});
    // No capability, also when vxsynth runs as root (bwrap keeps root's otherwise, and with them
    // the child could unmount the tmpfs over a hidden directory); a GPU run keeps the one the
    // driver's profiling check asks for (gpu_profiling_admin_only), which only root has to give.
    c.insert(c.end(), {"--cap-drop", "ALL"});
    if (spec.gpu && ::geteuid() == 0 && gpu_profiling_admin_only()) c.insert(c.end(), {"--cap-add", "CAP_SYS_ADMIN"});
    if (spec.gpu) gpu_nodes(c);
    for (const fs::path& h : spec.hidden)
      if (fs::is_directory(h)) c.insert(c.end(), {"--tmpfs", fs::absolute(h).string()});
    std::vector<fs::path> rw = spec.writable;
    rw.insert(rw.begin(), spec.work);
    for (const fs::path& w : rw) {
      const std::string p = fs::absolute(w).string();
      c.insert(c.end(), {"--bind", p, p});
    }
    const std::string work = fs::absolute(spec.work).string();
    c.insert(c.end(), {"--chdir", work, "--clearenv"});
    for (const auto& [k, v] : isolated_environment(spec)) c.insert(c.end(), {"--setenv", k, v});
    c.push_back("--");
    c.insert(c.end(), argv.begin(), argv.end());
    return c;
  }

 private:
  // The GPU's device nodes (/dev/nvidia*, /dev/nvidia-caps/*) into bwrap's minimal /dev. The
  // profiling counters also need CAP_SYS_ADMIN of the initial user namespace unless the driver
  // allows them to every user (RmProfilingAdminOnly 0), which a user namespace does not give.
  static void gpu_nodes(std::vector<std::string>& c) {
    std::error_code ec;
    for (const fs::path& dir : {fs::path("/dev"), fs::path("/dev/nvidia-caps")}) {
      if (!fs::is_directory(dir, ec)) continue;
      for (const auto& e : fs::directory_iterator(dir, ec))
        if (e.path().filename().string().starts_with("nvidia") && fs::is_character_file(e.path(), ec))
          c.insert(c.end(), {"--dev-bind", e.path().string(), e.path().string()});
    }
  }

  fs::path bwrap_;
  std::string version_;
};

}  // namespace

std::shared_ptr<const Isolation> make_bwrap_isolation(const fs::path& bwrap, std::string* why) {
  if (!fs::exists(bwrap)) {
    if (why) *why = bwrap.string() + " does not exist (Debian package bubblewrap)";
    return nullptr;
  }
  const ProcessResult v = run_process({bwrap.string(), "--version"}, {10});
  const std::string version = v.ok() ? tail_lines(v.output, 1) : std::string("version unknown");
  auto iso = std::make_shared<BwrapIsolation>(bwrap, version.substr(0, version.find('\n')));
  // A kernel or container without the namespaces bwrap needs refuses even a trivial command.
  IsolatedRun probe;
  probe.work = fs::temp_directory_path();
  probe.timeout_s = 20;
  const ProcessResult p = iso->run({"/bin/true"}, probe);
  if (!p.ok()) {
    if (why) *why = fmt::format("{} cannot create a sandbox here ({}): {}", bwrap.string(), p.status_text(),
                                tail_lines(p.output, 2));
    return nullptr;
  }
  return iso;
}

}  // namespace vxsynth::refine
