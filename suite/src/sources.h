#pragma once
// A benchmark's sources put together again (docs/suite.md "Materializing the sources"): the files
// the suite keeps, plus the runtime files and generated sources its manifest lists instead.

#include <filesystem>
#include <string>

#include "runtime_copies.h"
#include "vxsynth/refine/sandbox.h"

namespace vxsynth::suite {

/// Every file of built benchmark `name`'s cuda/ and vortex/ as reconstruct wrote them (relative
/// path → text): those in the suite, the runtime files of the manifest's "runtime" object and the
/// generated sources of its "generated" object (each found or rendered again and its SHA-256
/// checked). Throws vxsynth::Error listing every problem (file, benchmark, expected and actual
/// SHA-256) when a listed file cannot be produced.
[[nodiscard]] refine::SourceTree benchmark_sources(const std::filesystem::path& suite_dir, const std::string& name,
                                                   const RuntimeStore& store = RuntimeStore::embedded());

/// Writes benchmark `name`'s Vortex sources (the vortex/ part of benchmark_sources) into `out`, flat.
/// A file is written only when missing or different, so make rebuilds only what changed.
void stage_vortex_sources(const std::filesystem::path& suite_dir, const std::string& name,
                          const std::filesystem::path& out);

}  // namespace vxsynth::suite
