#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "vxsynth/common/error.h"
#include "vxsynth/core/metrics.h"
#include "vxsynth/refine/backends.h"

namespace vxsynth::refine {

using nlohmann::json;

namespace {

// "9.0 (sm_90), 8.0 (sm_80), …": the rows of core's architecture table.
std::string known_ccs() {
  std::string out;
  for (const core::ArchInfo& a : core::arch_table())
    out += fmt::format("{}{} ({})", out.empty() ? "" : ", ", a.cc, a.sm);
  return out;
}

}  // namespace

Reference reference_from_bundle(const core::ReferenceBundle& bundle, const std::string& kernel_id,
                                const std::string& bundle_sha256) {
  const core::BundleKernel& k = bundle.kernel(kernel_id);
  if (!k.signature)
    throw make_error("kernel {} has no signature (ncu profiled no launch of it)", k.id);
  Reference ref;
  ref.kernel_id = k.id;
  ref.context = k.context;
  ref.signature = *k.signature;
  ref.bundle_sha256 = bundle_sha256;
  const json bj = core::to_json(bundle);
  for (const auto& kj : bj["kernels"])
    if (kj.value("id", "") == k.id) ref.entry = kj;
  ref.entry["provenance"] = bj["provenance"];
  ref.entry["workload"] = bj.value("workload", json());
  return ref;
}

core::Arch target_arch(const core::ReferenceBundle& bundle, const std::string& where) {
  // The bundle's platform.arch (from the ncu file's CC column) is the architecture the reference ran
  // on; a recorded provenance compute capability must name the same row of core's architecture table.
  const core::ArchInfo& a = core::arch_info(bundle.arch);
  if (const auto& cc = bundle.provenance.cc) {
    const auto from_cc = core::arch_from_cc(*cc);
    if (!from_cc)
      throw make_error("{}: provenance.cc '{}' is not a compute capability of a known architecture ({})", where, *cc,
                       known_ccs());
    if (*from_cc != bundle.arch)
      throw make_error("{}: provenance.cc '{}' ({}) disagrees with platform.arch '{}'", where, *cc,
                       core::arch_info(*from_cc).sm, a.sm);
  }
  return bundle.arch;
}

}  // namespace vxsynth::refine
