#include "vortex_signature.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"

namespace vxsynth::refine {
namespace {

using nlohmann::json;

// A launch entry's "index", −1 when absent or not an integer.
int launch_index(const json& launch) {
  const auto it = launch.find("index");
  if (it == launch.end() || !it->is_number_integer()) return -1;
  return static_cast<int>(it->get<int64_t>());
}

}  // namespace

VortexSignatureFile read_vortex_signature(const std::filesystem::path& sig_path, int design_launches) {
  const json sj = json::parse(read_file(sig_path), nullptr, false);
  if (sj.is_discarded() || !sj.is_object() || !sj.contains("metrics"))
    throw make_error("{}: not a Vortex signature (no 'metrics')", sig_path.string());
  VortexSignatureFile f;
  f.signature = core::signature_from_json(sj["metrics"], sig_path.string());
  f.max_atomics = f.signature[core::MetricId::kAtomicsPerInst];
  if (!sj.contains("launches")) {
    if (design_launches > 1)
      throw make_error("{}: no per-launch signatures ('launches') for a design with {} launches: the file holds "
                       "the last launch only (a vxsim runtime older than per-launch signatures?)",
                       sig_path.string(), design_launches);
    return f;
  }
  const json& ls = sj["launches"];
  if (!ls.is_array() || ls.empty() || !sj.contains("main_launch") || !sj["main_launch"].is_number_integer())
    throw make_error("{}: 'launches' must be a non-empty array with an integer 'main_launch'", sig_path.string());
  f.launches = static_cast<int>(ls.size());
  f.main_launch = sj["main_launch"].get<int>();
  bool found = false;
  for (const json& l : ls) {
    if (!l.is_object() || !l.contains("metrics") || !l.contains("cycles") || !l["cycles"].is_number_unsigned())
      throw make_error("{}: a 'launches' entry lacks 'metrics' or 'cycles'", sig_path.string());
    const uint64_t cycles = l["cycles"].get<uint64_t>();
    f.total_cycles += cycles;
    if (launch_index(l) == f.main_launch) {
      f.main_cycles = cycles;
      found = true;
    }
    const core::Signature one = core::signature_from_json(l["metrics"], sig_path.string());
    if (const auto& a = one[core::MetricId::kAtomicsPerInst]) f.max_atomics = std::max(f.max_atomics.value_or(0.0), *a);
  }
  if (!found) throw make_error("{}: 'main_launch' {} names no entry of 'launches'", sig_path.string(), f.main_launch);
  return f;
}

}  // namespace vxsynth::refine
