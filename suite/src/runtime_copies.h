#pragma once
// The fixed runtime files in a suite (docs/suite.md "Runtime files"): a benchmark's vortex/ and
// cuda/ directories hold copies of codegen/runtime/ as reconstruct rendered them; `suite export`
// leaves out the copies that are byte-identical to this build's runtime and lists them in the
// manifest's "runtime" object, per benchmark: the generator version of its locked revision and,
// per file, where it goes, its path under codegen/runtime/ and its SHA-256. `suite check` compares
// those with this build's runtime, and `suite run` puts them back beside the benchmark's own
// sources before building it.

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace vxsynth::suite {

/// Key of the runtime object in manifest.json.
inline constexpr const char* kManifestRuntime = "runtime";

/// The manifest's runtime entry of a built benchmark directory: {"generator_version": N, "files":
/// {"vortex/vxs_host.cpp": {"runtime": "vortex/vxs_host.cpp", "sha256": …}, …}} with every file of
/// its vortex/ and cuda/ that is byte-identical to this build's runtime file of the same name. The
/// files object is empty when the locked revision was rendered by another generator version than
/// this build's (its copies are then kept as they are).
[[nodiscard]] nlohmann::json runtime_entry(const std::filesystem::path& bench);

/// Problems of the manifest's runtime object against this build's runtime (each names the file, the
/// benchmark and both SHA-256), appended to `problems`.
void check_runtime(const std::filesystem::path& suite_dir, const nlohmann::json& manifest,
                   std::vector<std::string>& problems);

/// Writes benchmark `name`'s Vortex sources into `out`: every file of SUITE/name/vortex/ and the
/// runtime files the manifest lists for its vortex/ (from this build's runtime, their SHA-256
/// checked first). A file is written only when missing or different, so make rebuilds only what
/// changed. Throws vxsynth::Error naming the file and benchmark when a runtime file differs.
void stage_vortex_sources(const std::filesystem::path& suite_dir, const std::string& name,
                          const std::filesystem::path& out);

}  // namespace vxsynth::suite
