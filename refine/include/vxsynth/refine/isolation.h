#pragma once
/// \file
/// How the sandbox runs code it does not trust (docs/sandbox.md "Isolation"): an external agent,
/// the build of a candidate, and the candidate's own host program. An interface with one file per
/// implementation:
///  - isolation_bwrap.cc: Debian's bubblewrap. The child sees the host file system read-only, one
///    writable directory, an empty /tmp, no network (own network namespace with loopback only),
///    its own PID, IPC and UTS namespaces, an empty environment apart from what the caller names,
///    and it dies with vxsynth; when its first process exits, the kernel kills every process left
///    in its PID namespace, so no child survives the call. Directories the caller names as hidden
///    (the run's output directory, which holds the reference outputs) are covered by an empty
///    tmpfs.
///  - isolation_unshare.cc: util-linux `unshare` run as root (a GPU machine without bubblewrap):
///    own mount, network, PID, IPC and UTS namespaces; every mount read-only except the writable
///    directories, the hidden ones and /run covered by an empty tmpfs; the command runs as root
///    with no capabilities (CAP_SYS_ADMIN kept only for a GPU run whose driver restricts the
///    profiling counters to administrators), a cleared environment, and is PID 1 of its
///    namespace, so every process left dies with it.
///  - isolation_none.cc: a plain child process in the same file system (time limit and process
///    group kill only). Used for the harness's own steps when neither works, and for external
///    agents only with the explicit `--unsafe-no-isolation`, which the record names.

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "vxsynth/common/process.h"

namespace vxsynth::refine {

/// One isolated command.
struct IsolatedRun {
  std::filesystem::path work;                     ///< the only writable directory; also the cwd
  std::vector<std::filesystem::path> writable;   ///< further writable directories (rarely needed)
  std::vector<std::filesystem::path> hidden;      ///< covered by an empty tmpfs (e.g. the run directory)
  std::map<std::string, std::string> env;         ///< the environment besides PATH, LD_LIBRARY_PATH (vxsynth's own), HOME=work, LANG=C
  double timeout_s = 300.0;
  /// The command uses the GPU (the ncu-profiled run): the GPU's device nodes are visible and, where
  /// the driver restricts the profiling counters to administrators, the capability it checks is
  /// kept (docs/sandbox.md "Isolation").
  bool gpu = false;
};

class Isolation {
 public:
  virtual ~Isolation() = default;
  /// True when the implementation confines the child (bwrap); false for the plain child.
  [[nodiscard]] virtual bool isolates() const = 0;
  /// One line for the record: "bwrap 0.8.0 (ro root, rw work dir, no network, pid namespace)".
  [[nodiscard]] virtual std::string description() const = 0;
  /// Runs argv under the isolation; never throws for a failing child (like run_process).
  [[nodiscard]] virtual ProcessResult run(const std::vector<std::string>& argv, const IsolatedRun& spec) const = 0;
};

/// bubblewrap at `bwrap` (usually /usr/bin/bwrap), if it works on this machine: it is probed once
/// with a trivial command, since a kernel without unprivileged user namespaces refuses it.
/// Returns null when it is absent or refused; `why` then says why.
[[nodiscard]] std::shared_ptr<const Isolation> make_bwrap_isolation(const std::filesystem::path& bwrap,
                                                                    std::string* why);

/// util-linux `unshare` at `unshare` (usually /usr/bin/unshare) with `setpriv` beside it, when
/// vxsynth runs as root and a trivial command runs under it. Returns null otherwise; `why` says why.
[[nodiscard]] std::shared_ptr<const Isolation> make_unshare_isolation(const std::filesystem::path& unshare,
                                                                      std::string* why);

/// A plain child process (no confinement).
[[nodiscard]] std::shared_ptr<const Isolation> make_no_isolation();

/// The implementations, by name (`--isolation`).
enum class IsolationKind { kAuto, kBwrap, kUnshare, kNone };
struct IsolationRow {
  IsolationKind kind;
  const char* name;
  const char* summary;  ///< one line for --help and the docs
};
/// THE table of isolation implementations.
[[nodiscard]] const std::vector<IsolationRow>& isolation_table();
/// The kind named `name` ("auto", "bwrap", "unshare", "none"); throws vxsynth::Error for another.
[[nodiscard]] IsolationKind isolation_kind(const std::string& name);

/// The isolation of `kind`: kAuto is bubblewrap when it works, else unshare as root when it works,
/// else the plain child; kBwrap/kUnshare return null when they do not work here (`why_not` says
/// why); kNone is the plain child. For kAuto, `why_not` (when the result does not isolate) says
/// why neither confining implementation is used.
[[nodiscard]] std::shared_ptr<const Isolation> make_isolation(IsolationKind kind, std::string* why_not);

/// The NVIDIA driver says "RmProfilingAdminOnly: 1" in /proc/driver/nvidia/params (its default,
/// NVIDIA's ERR_NVGPUCTRPERM page): only a process with CAP_SYS_ADMIN of the initial user namespace
/// may read the performance counters ncu collects. False without the driver.
[[nodiscard]] bool gpu_profiling_admin_only();

/// The whole environment of an isolated command, in order, for every confining implementation:
/// vxsynth's own PATH (default /usr/local/bin:/usr/bin:/bin) and, when set and the caller names
/// none, its LD_LIBRARY_PATH (a packed vxsynth's carried libraries, which a candidate's host program
/// links against: vxsim's runtime); HOME and TMPDIR the work directory; LANG=C; then `spec.env`.
[[nodiscard]] std::vector<std::pair<std::string, std::string>> isolated_environment(const IsolatedRun& spec);

/// make_isolation(kAuto, why_not).
[[nodiscard]] std::shared_ptr<const Isolation> default_isolation(std::string* why_not);

}  // namespace vxsynth::refine
