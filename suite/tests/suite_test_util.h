#pragma once
// Helpers of the suite tests: run the real vxsynth executable, read files.
#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vxsynth/common/file_io.h"
#include "vxsynth/common/process.h"

namespace vxsynth::suite::test {

namespace fs = std::filesystem;

inline const fs::path kSource = VXSYNTH_SOURCE_DIR;
inline const fs::path kRefs = kSource / "data" / "references" / "h200";

/// `vxsynth ARGS…` with the build's SDK, under a time limit.
inline ProcessResult vxsynth(std::vector<std::string> args, double limit_s = 600,
                             std::map<std::string, std::string> env = {}) {
  args.insert(args.begin(), VXSYNTH_EXE);
  return run_process(args, {limit_s, {}, std::move(env)});
}

inline nlohmann::json json_file(const fs::path& p) { return nlohmann::json::parse(read_file(p)); }

/// A new directory of its own under the system's temporary directory (mkdtemp: concurrent runs
/// of the same test never share one), removed with its contents when the object goes, unless
/// VXSYNTH_KEEP_TEST_DIRS is set (then its path is printed to look at).
class TempDir {
 public:
  explicit TempDir(const std::string& prefix) {
    std::string t = (fs::temp_directory_path() / (prefix + ".XXXXXX")).string();
    if (mkdtemp(t.data()) == nullptr) throw std::runtime_error("mkdtemp " + t + " failed");
    path_ = t;
  }
  ~TempDir() {
    if (std::getenv("VXSYNTH_KEEP_TEST_DIRS") != nullptr) {
      std::cerr << "kept " << path_.string() << "\n";
      return;
    }
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  [[nodiscard]] const fs::path& path() const { return path_; }
  [[nodiscard]] fs::path operator/(const std::string& rel) const { return path_ / rel; }

 private:
  fs::path path_;
};

}  // namespace vxsynth::suite::test
