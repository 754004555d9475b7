#include "suite_files.h"

#include <algorithm>
#include <iterator>

#include "vxsynth/common/file_io.h"
#include "vxsynth/refine/agent.h"
#include "vxsynth/suite/plan.h"
#include "vxsynth/suite/suite.h"

namespace vxsynth::suite {

namespace fs = std::filesystem;

fs::path suite_path(const fs::path& dir) {
  fs::path p = fs::absolute(dir).lexically_normal();
  return p.has_filename() ? p : p.parent_path();
}

std::string sha256_file(const fs::path& p) { return refine::sha256_hex(read_file(p)); }

bool benchmark_complete(const fs::path& bench) {
  return fs::is_regular_file(bench / "summary.json") && fs::is_regular_file(bench / "summary.md");
}

std::vector<std::string> manifest_files(const fs::path& suite_dir) {
  std::vector<std::string> files;
  for (auto it = fs::recursive_directory_iterator(suite_dir); it != fs::recursive_directory_iterator(); ++it) {
    const fs::path rel = it->path().lexically_relative(suite_dir);
    const std::string first = rel.begin()->string();
    const bool skipped_dir = it->is_directory() && (first == kStateDir || first == kRunDir || first == kMakeBuildDir ||
                                                    (std::distance(rel.begin(), rel.end()) == 2 &&
                                                     rel.filename() == "work"));
    if (skipped_dir) {
      it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file() || rel.extension() == ".bin") continue;
    const std::string r = rel.generic_string();
    if (r == kManifestFile || r == kRunCsv) continue;
    files.push_back(r);
  }
  std::sort(files.begin(), files.end());
  return files;
}

BenchmarkReference benchmark_reference(const fs::path& suite_dir, const nlohmann::json& plan_entry) {
  BenchmarkReference r;
  r.bundle = core::read_bundle((suite_dir / plan_entry["bundle"].get<std::string>()).string());
  r.kernel = &r.bundle.kernel(plan_entry["kernel_id"].get<std::string>());
  return r;
}

}  // namespace vxsynth::suite
