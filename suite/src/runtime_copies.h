#pragma once
// The fixed runtime files in a suite (docs/suite.md "Runtime files"): a benchmark's vortex/ and
// cuda/ directories hold copies of codegen/runtime/ as reconstruct rendered them; `suite export`
// leaves out every copy whose bytes this build carries — the current codegen/runtime/ or an older
// version kept in codegen/runtime/previous/ — and lists it in the manifest's "runtime" object, per
// benchmark: the generator version of its locked revision and, per file, where it goes, its path
// under codegen/runtime/ and its SHA-256. `suite check` finds every listed file by path and
// SHA-256, and `suite run` and `suite materialize` write it back beside the benchmark's sources.

#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "vxsynth/refine/sandbox.h"

namespace vxsynth::suite {

/// Key of the runtime object in manifest.json.
inline constexpr const char* kManifestRuntime = "runtime";

/// One version of a fixed runtime file: its path under codegen/runtime/ ("vortex/vxs_host.cpp"),
/// its SHA-256 and its text.
struct RuntimeVersion {
  std::string path, sha256, text;
};

/// The runtime files a suite's listing can name: the current ones and the older versions kept in
/// previous/, named `<path>.<first 16 hex digits of the SHA-256>`
/// (previous/vortex/vxs_host.cpp.7ab1ee374c827d47).
class RuntimeStore {
 public:
  /// This build's: codegen/runtime/ and codegen/runtime/previous/, both embedded at build time.
  [[nodiscard]] static const RuntimeStore& embedded();
  /// A directory laid out like codegen/runtime/ (common/, cuda/, vortex/, previous/). Throws
  /// vxsynth::Error naming a file of previous/ whose name does not end in its SHA-256's prefix.
  [[nodiscard]] static RuntimeStore from_directory(const std::filesystem::path& dir);

  /// The current version of `path`, or nullptr.
  [[nodiscard]] const RuntimeVersion* current(std::string_view path) const;
  /// The version of `path` with SHA-256 `sha`, current or previous, or nullptr.
  [[nodiscard]] const RuntimeVersion* find(std::string_view path, std::string_view sha) const;
  /// A version whose file name is `name` (a candidate directory's file) and SHA-256 `sha`, or nullptr.
  [[nodiscard]] const RuntimeVersion* find_copy(std::string_view name, std::string_view sha) const;

 private:
  void add(std::string path, std::string text, bool is_current);
  std::vector<RuntimeVersion> current_, previous_;
};

/// An embedded file of previous/: its path relative to it and its text.
struct EmbeddedFile {
  std::string_view path, text;
};
namespace detail {
[[nodiscard]] std::span<const EmbeddedFile> runtime_history();
}

/// The manifest's runtime entry of a built benchmark directory: {"generator_version": N, "files":
/// {"vortex/vxs_host.cpp": {"runtime": "vortex/vxs_host.cpp", "sha256": …}, …}} with every file of
/// its vortex/ and cuda/ whose bytes the store holds under the same file name.
[[nodiscard]] nlohmann::json runtime_entry(const std::filesystem::path& bench,
                                           const RuntimeStore& store = RuntimeStore::embedded());

/// The runtime files the manifest lists for benchmark `name` (where each goes → its text); appends
/// one problem per file the store does not hold (naming the file, the benchmark, both SHA-256 and
/// the generator versions) and leaves it out of the result.
[[nodiscard]] refine::SourceTree runtime_listed(const std::filesystem::path& suite_dir, const std::string& name,
                                                const nlohmann::json& manifest, std::vector<std::string>& problems,
                                                const RuntimeStore& store = RuntimeStore::embedded());

/// Problems of the manifest's runtime object: a benchmark the suite lacks, a listed file the store
/// does not hold, a listed file present in the benchmark as well. Appended to `problems`.
void check_runtime(const std::filesystem::path& suite_dir, const nlohmann::json& manifest,
                   std::vector<std::string>& problems, const RuntimeStore& store = RuntimeStore::embedded());

}  // namespace vxsynth::suite
