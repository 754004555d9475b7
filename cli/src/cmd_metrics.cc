// vxsynth metrics [--arch A] [--ncu-list]: the metric table, or the ncu --metrics list for an architecture.
#include <iostream>
#include <memory>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "subcommands.h"
#include "vxsynth/common/error.h"
#include "vxsynth/core/metrics.h"

namespace vxsynth::cli {
namespace {

struct Options {
  std::string arch = "sm_90";
  bool ncu_list = false;
};

int run(const Options& o) {
  const auto arch = core::arch_from_name(o.arch);
  if (!arch) throw make_error("--arch: unknown architecture '{}' (sm_90, sm_80, sm_89, sm_87)", o.arch);
  if (o.ncu_list) {
    std::cout << fmt::format("{}\n", fmt::join(core::required_ncu_metrics(*arch), ","));
    return 0;
  }
  for (const core::MetricDef& m : core::metric_table()) {
    const core::NcuFormula& f = m.ncu[static_cast<std::size_t>(*arch)];
    std::cout << fmt::format("{} ({}, {}, {}):\n  ncu {}: {}\n  vortex: {}\n", m.key, m.label, core::to_string(m.group),
                             m.unit, core::arch_info(*arch).sm, f.available() ? m.ncu_text : "NA on this architecture",
                             m.vortex_text);
  }
  return 0;
}

}  // namespace

Runner setup_metrics(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.add_option("--arch", o->arch, "architecture (sm_90, sm_80, sm_89, sm_87)")->capture_default_str();
  app.add_flag("--ncu-list", o->ncu_list, "print the comma-separated ncu --metrics list to capture");
  return [o] { return run(*o); };
}

}  // namespace vxsynth::cli
