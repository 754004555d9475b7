#pragma once
// Helpers of the suite tests: run the real vxsynth executable, read files.
#include <filesystem>
#include <map>
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

inline fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

}  // namespace vxsynth::suite::test
