#include "format.h"

#include <cctype>
#include <cstdlib>

#include <fmt/format.h>

#include "vxsynth/core/metrics.h"

namespace vxsynth::cli {

std::filesystem::path self_executable() {
  std::error_code ec;
  return std::filesystem::read_symlink("/proc/self/exe", ec);
}

std::filesystem::path default_sdk_dir() {
  const std::filesystem::path exe = self_executable();
  return exe.empty() ? exe : exe.parent_path().parent_path() / "sdk";
}

bool has_vxsynth_torch(const std::filesystem::path& dir) {
  std::error_code ec;
  return std::filesystem::is_regular_file(dir / "vxsynth_torch" / "__init__.py", ec);
}

std::filesystem::path default_python_dir(std::string& from) {
  if (const char* env = std::getenv("VXSYNTH_PYTHON_DIR"); env != nullptr && *env != '\0') {
    from = "VXSYNTH_PYTHON_DIR";
    return env;
  }
  const std::filesystem::path exe = self_executable();
  from = fmt::format("above {}", exe.string());
  std::error_code ec;
  for (std::filesystem::path d = exe.parent_path(); !d.empty(); d = d.parent_path()) {
    if (std::filesystem::is_directory(d / "python" / "vxsynth_torch" / "workloads", ec)) return d / "python";
    if (d == d.root_path()) break;
  }
  return {};
}

std::string format_metric(core::MetricId id, const std::optional<double>& v) {
  if (!v) return "NA";
  const core::MetricDef& m = core::metric_def(id);
  switch (m.transform) {
    case core::Transform::kPercent: return fmt::format("{:.2f} %", *v);
    case core::Transform::kDirect: return fmt::format("{:.6g}", *v);
    case core::Transform::kLogRatio: return fmt::format("{:.4g} {}", *v, m.unit);
  }
  return "?";
}

namespace {
bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }
}  // namespace

std::string clip(const std::string& s, std::size_t width) {
  if (s.size() <= width || width < 4) return s;
  // Cut between tokens (never inside an identifier or number) as late as possible, but keep at
  // least half of the room; a name with no boundary there is cut at the width.
  std::size_t cut = width - 3;
  for (std::size_t i = cut; i > (width - 3) / 2; --i) {
    if (!word_char(s[i - 1]) || !word_char(s[i])) {
      cut = i;
      break;
    }
  }
  while (cut > 1 && s[cut - 1] == ' ') --cut;
  return s.substr(0, cut) + "...";
}

}  // namespace vxsynth::cli
