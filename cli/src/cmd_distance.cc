// vxsynth distance A B [--json]: per-metric distance table and D (paper Table 2).
#include <iostream>
#include <memory>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "format.h"
#include "subcommands.h"
#include "vxsynth/common/error.h"
#include "vxsynth/core/bundle.h"
#include "vxsynth/core/metrics.h"

namespace vxsynth::cli {
namespace {

struct Options {
  std::string a, b;
  bool json = false;
};

nlohmann::json opt(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

int run(const Options& o) {
  const core::SignatureRef a = core::load_signature_ref(o.a);
  const core::SignatureRef b = core::load_signature_ref(o.b);
  const core::DistanceReport rep = core::distance(a.signature, b.signature);
  std::vector<std::string> entered, left_out;
  for (auto id : rep.entered()) entered.emplace_back(core::metric_def(id).key);
  for (auto id : rep.left_out()) left_out.emplace_back(core::metric_def(id).key);
  if (o.json) {
    nlohmann::json j;
    j["a"] = a.label;
    j["b"] = b.label;
    j["D"] = opt(rep.d_value);
    j["entered"] = entered;
    j["left_out"] = left_out;
    nlohmann::json per = nlohmann::json::array();
    for (const auto& m : rep.per_metric)
      per.push_back({{"metric", core::metric_def(m.id).key},
                     {"a", opt(m.candidate)},
                     {"b", opt(m.reference)},
                     {"d", opt(m.d)},
                     {"signed", opt(m.signed_response)},
                     {"in_d", m.in_d()}});
    j["metrics"] = per;
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << fmt::format("A (candidate): {}\nB (reference): {}\n", a.label, b.label);
    std::cout << fmt::format("{:<18} {:<16} {:>20} {:>20} {:>8} {:>8}\n", "metric", "group", "A", "B", "d", "signed");
    for (const auto& m : rep.per_metric) {
      const core::MetricDef& def = core::metric_def(m.id);
      std::cout << fmt::format("{:<18} {:<16} {:>20} {:>20} {:>8} {:>8}\n", def.key, core::to_string(def.group),
                               format_metric(m.id, m.candidate), format_metric(m.id, m.reference),
                               m.d ? fmt::format("{:.4f}", *m.d) : "NA",
                               m.signed_response ? fmt::format("{:+.4f}", *m.signed_response) : "NA");
    }
    std::cout << fmt::format("D = {} over {} metrics: {}\n",
                             rep.d_value ? fmt::format("{:.4f}", *rep.d_value) : std::string("NA"), entered.size(),
                             fmt::join(entered, ", "));
    if (!left_out.empty())
      std::cout << fmt::format("left out of D (not measured on both sides): {}\n", fmt::join(left_out, ", "));
  }
  if (!rep.d_value) throw make_error("{} and {} share no measured metric: D is undefined", a.label, b.label);
  return 0;
}

}  // namespace

Runner setup_distance(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.add_option("A", o->a, "candidate: signature JSON, or BUNDLE.json#k1")->required();
  app.add_option("B", o->b, "reference: signature JSON, or BUNDLE.json#k1")->required();
  app.add_flag("--json", o->json, "print JSON instead of a table");
  return [o] { return run(*o); };
}

}  // namespace vxsynth::cli
