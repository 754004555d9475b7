// vxsynth metrics [--arch A] [--ncu-list] [--json]: the metric table, or the ncu --metrics list for an
// architecture; --json is what the Python package reads (its ncu metric list and tensor-pipe rule).
#include <iostream>
#include <algorithm>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "subcommands.h"
#include "vxsynth/common/error.h"
#include "vxsynth/core/metrics.h"
#include "vxsynth/core/reference.h"

namespace vxsynth::cli {
namespace {

struct Options {
  std::string arch = "sm_90";
  bool ncu_list = false;
  bool json = false;
};

std::vector<std::string> term_names(std::span<const core::NcuTerm> terms) {
  std::vector<std::string> v;
  for (const core::NcuTerm& t : terms) v.emplace_back(t.name);
  return v;
}

std::vector<std::string> fallbacks(std::span<const core::NcuTerm> terms) {
  std::vector<std::string> v;
  for (const core::NcuTerm& t : terms) v.emplace_back(t.fallback);
  return v;
}

/// The table for one architecture as JSON: every metric's ncu counters, and the `--metrics` list.
nlohmann::json table_json(core::Arch arch) {
  nlohmann::json rows = nlohmann::json::array();
  for (const core::MetricDef& m : core::metric_table()) {
    const core::NcuFormula& f = m.ncu[static_cast<std::size_t>(arch)];
    rows.push_back({{"key", m.key}, {"label", m.label}, {"group", core::to_string(m.group)}, {"unit", m.unit},
                    {"available", f.available()}, {"ncu_numerator", term_names(f.numerator)},
                    {"ncu_denominator", term_names(f.denominator)}, {"ncu", m.ncu_text}, {"vortex", m.vortex_text}});
  }
  // A column is present when its name or its fallback is (the importer's rule, metrics.h NcuTerm).
  nlohmann::json columns = nlohmann::json::array();
  std::vector<std::string> capture = core::required_ncu_metrics(arch);
  auto add = [&](std::string_view n) {
    if (!n.empty() && std::find(capture.begin(), capture.end(), n) == capture.end()) capture.emplace_back(n);
  };
  for (const std::string& name : core::required_ncu_metrics(arch)) {
    std::string fallback;
    for (const core::MetricDef& m : core::metric_table())
      for (const auto* terms : {&m.ncu[static_cast<std::size_t>(arch)].numerator, &m.ncu[static_cast<std::size_t>(arch)].denominator})
        for (const core::NcuTerm& t : *terms)
          if (t.name == name && !t.fallback.empty()) fallback = std::string(t.fallback);
    columns.push_back({{"name", name}, {"fallback", fallback.empty() ? nlohmann::json(nullptr) : nlohmann::json(fallback)}});
    add(fallback);
  }
  for (const core::RecordedNcuMetric& r : core::recorded_ncu_metrics())
    if (r.name.find("__") != std::string_view::npos && r.name.rfind("launch__", 0) != 0) add(r.name);
  const core::NcuFormula& mfu = core::metric_def(core::MetricId::kTensorMfu).ncu[static_cast<std::size_t>(arch)];
  return {{"schema", "vxsynth.metrics/1"},
          {"arch", core::arch_info(arch).sm},
          {"cc", core::arch_info(arch).cc},
          {"ncu_metrics", core::required_ncu_metrics(arch)},
          {"required_columns", columns},
          {"capture_metrics", capture},
          {"tensor_pipe",
           {{"metrics", term_names(mfu.numerator)}, {"fallbacks", fallbacks(mfu.numerator)},
            {"threshold_pct", core::kTensorPipeThresholdPct}}},
          {"metrics", rows}};
}

int run(const Options& o) {
  const auto arch = core::arch_from_name(o.arch);
  if (!arch) throw make_error("--arch: unknown architecture '{}' (sm_90, sm_80, sm_89, sm_87)", o.arch);
  if (o.json) {
    std::cout << table_json(*arch).dump(1) << "\n";
    return 0;
  }
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
  app.add_flag("--json", o->json, "print the table and the --metrics list as JSON (what the Python package reads)");
  return [o] { return run(*o); };
}

}  // namespace vxsynth::cli
