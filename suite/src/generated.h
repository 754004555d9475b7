#pragma once
// The generated sources of a suite's benchmarks (docs/suite.md "Generated sources"): a benchmark's
// cuda/ and vortex/ hold what the generator rendered from its locked revision's design point, and
// the record pins that design, the generator version and the SHA-256 of every file. `suite
// export` leaves out each file that this vxsynth renders again byte-identically from the record
// and lists it in the manifest's "generated" object, per benchmark:
//
//   {"generator_version": 7, "revision": 3, "files": {"vortex/kernel.cpp": "<sha256>", …},
//    "kept": {"cuda/candidate.cu": "<why the file is kept>", …}}
//
// `suite check` renders the listed files again and compares their SHA-256; `suite run`,
// `suite materialize` and through it the suite's Makefile write them before building.

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vxsynth/refine/record.h"
#include "vxsynth/refine/sandbox.h"

namespace vxsynth::suite {

/// Key of the generated-sources object in manifest.json.
inline constexpr const char* kManifestGenerated = "generated";

/// The locked revision of a built benchmark directory (summary.json `locked_revision` in its
/// record.jsonl). Throws vxsynth::Error naming the file when either is unreadable or it is absent.
[[nodiscard]] refine::RevisionEntry locked_entry(const std::filesystem::path& bench);

/// Its generator version (`tool_versions["vxsynth-codegen"]`); empty when not recorded.
[[nodiscard]] std::string generator_of(const refine::RevisionEntry& e);

/// The manifest's generated entry of a built benchmark directory: its locked revision, that
/// revision's generator version, every rendered file other than the runtime copies ("Runtime
/// files") that this build renders byte-identically from the recorded design (→ "files", with its
/// SHA-256), and every other one present (→ "kept", with the reason: another generator version,
/// or a regenerated SHA-256 that differs).
[[nodiscard]] nlohmann::json generated_entry(const std::filesystem::path& bench);

/// The files the manifest lists as generated for benchmark `name`, rendered again from its record;
/// appends one problem per file that cannot be rendered or whose SHA-256 differs (naming the
/// benchmark, the file, the expected and the regenerated SHA-256, and both generator versions) and
/// leaves that file out of the result.
[[nodiscard]] refine::SourceTree regenerate_listed(const std::filesystem::path& suite_dir, const std::string& name,
                                                   const nlohmann::json& manifest, std::vector<std::string>& problems);

/// Problems of the manifest's generated object: a benchmark it names that the suite lacks, a listed
/// file that does not regenerate to its SHA-256, a listed file present in the benchmark as well.
void check_generated(const std::filesystem::path& suite_dir, const nlohmann::json& manifest,
                     std::vector<std::string>& problems);

}  // namespace vxsynth::suite
