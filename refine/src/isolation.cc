// The isolation table and the choice among its implementations (docs/sandbox.md "Isolation").
#include <cstdlib>

#include <fmt/format.h>

#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/refine/isolation.h"

namespace vxsynth::refine {

namespace fs = std::filesystem;

const std::vector<IsolationRow>& isolation_table() {
  static const std::vector<IsolationRow> rows = {
      {IsolationKind::kAuto, "auto", "bwrap when it works here, else unshare when vxsynth runs as root, else none"},
      {IsolationKind::kBwrap, "bwrap", "Debian's bubblewrap (unprivileged user namespaces)"},
      {IsolationKind::kUnshare, "unshare", "util-linux unshare + setpriv, run as root (a GPU machine without bwrap)"},
      {IsolationKind::kNone, "none", "a plain child: nothing but the time limit is confined"},
  };
  return rows;
}

IsolationKind isolation_kind(const std::string& name) {
  std::string names;
  for (const IsolationRow& r : isolation_table()) {
    if (name == r.name) return r.kind;
    names += (names.empty() ? "" : ", ") + std::string(r.name);
  }
  throw make_error("isolation '{}' is not one of {}", name, names);
}

namespace {

std::shared_ptr<const Isolation> first_working(const std::vector<const char*>& paths,
                                               std::shared_ptr<const Isolation> (*make)(const fs::path&, std::string*),
                                               std::string* why) {
  for (const char* p : paths) {
    if (auto iso = make(p, why)) return iso;
    if (fs::exists(p)) break;
  }
  return nullptr;
}

}  // namespace

std::shared_ptr<const Isolation> make_isolation(IsolationKind kind, std::string* why_not) {
  std::string bwrap_why, unshare_why;
  if (kind == IsolationKind::kNone) return make_no_isolation();
  if (kind != IsolationKind::kUnshare)
    if (auto iso = first_working({"/usr/bin/bwrap", "/bin/bwrap"}, make_bwrap_isolation, &bwrap_why)) return iso;
  if (kind != IsolationKind::kBwrap)
    if (auto iso = first_working({"/usr/bin/unshare", "/bin/unshare"}, make_unshare_isolation, &unshare_why))
      return iso;
  if (why_not)
    *why_not = kind == IsolationKind::kBwrap     ? bwrap_why
               : kind == IsolationKind::kUnshare ? unshare_why
                                                 : fmt::format("{}; {}", bwrap_why, unshare_why);
  return kind == IsolationKind::kAuto ? make_no_isolation() : nullptr;
}

bool gpu_profiling_admin_only() {
  std::error_code ec;
  const fs::path params = "/proc/driver/nvidia/params";
  if (!fs::exists(params, ec)) return false;
  return read_file(params).find("RmProfilingAdminOnly: 1") != std::string::npos;
}

std::vector<std::pair<std::string, std::string>> isolated_environment(const IsolatedRun& spec) {
  const std::string work = fs::absolute(spec.work).lexically_normal().string();
  const char* path = std::getenv("PATH");
  std::vector<std::pair<std::string, std::string>> env = {
      {"PATH", path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin"}, {"HOME", work}, {"TMPDIR", work}, {"LANG", "C"}};
  if (const char* ld = std::getenv("LD_LIBRARY_PATH"); ld != nullptr && !spec.env.count("LD_LIBRARY_PATH"))
    env.emplace_back("LD_LIBRARY_PATH", ld);
  env.insert(env.end(), spec.env.begin(), spec.env.end());
  return env;
}

std::shared_ptr<const Isolation> default_isolation(std::string* why_not) {
  return make_isolation(IsolationKind::kAuto, why_not);
}

}  // namespace vxsynth::refine
