// Coverage, revision chains, seed vs final distances and the workflow comparison
// (docs/report.md; paper §4.1, §4.4, §4.5).
#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "vxsynth/common/error.h"
#include "vxsynth/core/metrics.h"
#include "vxsynth/report/analysis.h"

namespace vxsynth::report {
namespace {

using nlohmann::json;

std::optional<double> value_of(const std::map<std::string, std::optional<double>>& m, std::string_view key) {
  const auto it = m.find(std::string(key));
  return it == m.end() ? std::nullopt : it->second;
}

std::string axes_text(const refine::RevisionEntry& e) {
  if (e.axes.empty()) return "seed";
  std::string s;
  for (const refine::AxisStep& a : e.axes) s += (s.empty() ? "" : " + ") + refine::step_text(a);
  return s;
}

// Coverage rows of a suite plan: every kernel of a workload × platform that has a benchmark.
std::vector<CoverageRow> plan_coverage(const json& plan) {
  std::vector<CoverageRow> out;
  for (const json& w : plan["workloads"]) {
    double cum = 0.0;
    for (const json& k : w.value("kernels", json::array())) {
      if (!k.contains("benchmark")) continue;
      CoverageRow r;
      r.workload = w.value("workload", "");
      r.platform = w.value("platform", "");
      r.kernel_id = k.value("id", "");
      r.benchmark = k.value("benchmark", "");
      r.type = benchmark_type(k.value("op", ""));
      r.rank = k.value("rank", 0);
      r.share = k.value("share", 0.0);
      cum += r.share;
      r.cumulative = cum;
      out.push_back(r);
    }
  }
  return out;
}

// A kernel identity across workflows: the bundle it came from and its id there.
std::string kernel_key(const RunInput& r) { return r.bundle_sha256 + "#" + r.kernel_id; }

std::array<std::optional<double>, core::kNumMetrics> distances_of(const refine::RevisionEntry& e) {
  std::array<std::optional<double>, core::kNumMetrics> d{};
  for (const core::MetricDef& def : core::metric_table()) d[static_cast<size_t>(def.id)] = value_of(e.distances, def.key);
  return d;
}

// Coverage rows of suite.json (`workloads[].benchmarks[]`: the built benchmarks in rank order, with
// their cumulative share); empty when suite.json has none.
std::vector<CoverageRow> suite_coverage(const json& suite, const std::vector<RunInput>& runs) {
  std::vector<CoverageRow> out;
  if (!suite.is_object() || !suite.contains("workloads") || !suite["workloads"].is_array()) return out;
  for (const json& w : suite["workloads"])
    for (const json& k : w.value("benchmarks", json::array())) {
      CoverageRow r;
      r.workload = w.value("workload", "");
      r.platform = w.value("platform", "");
      r.kernel_id = k.value("kernel_id", "");
      r.benchmark = k.value("benchmark", "");
      for (const RunInput& run : runs)
        if (run.name == r.benchmark) r.type = run.type;
      r.rank = k.value("rank", 0);
      r.share = k.value("share", 0.0);
      r.cumulative = k.value("cumulative", 0.0);
      out.push_back(r);
    }
  return out;
}

}  // namespace

std::vector<CoverageRow> coverage(const Inputs& in) {
  if (in.suite) {
    std::vector<CoverageRow> s = suite_coverage(in.suite->suite, in.runs);
    return s.empty() ? plan_coverage(in.suite->plan) : s;
  }
  std::vector<const RunInput*> runs;
  std::set<std::string> seen;
  for (const RunInput& r : in.runs)
    if (seen.insert(r.workload + "|" + r.platform + "|" + r.kernel_id).second) runs.push_back(&r);
  std::stable_sort(runs.begin(), runs.end(), [](const RunInput* a, const RunInput* b) {
    return std::tie(a->workload, a->platform, a->rank) < std::tie(b->workload, b->platform, b->rank);
  });
  std::vector<CoverageRow> out;
  double cum = 0.0;
  for (size_t i = 0; i < runs.size(); ++i) {
    const RunInput& r = *runs[i];
    if (i == 0 || r.workload != runs[i - 1]->workload || r.platform != runs[i - 1]->platform) cum = 0.0;
    cum += r.share;
    out.push_back({r.workload, r.platform, r.kernel_id, r.name, r.type, r.rank, r.share, cum});
  }
  return out;
}

std::vector<ChainRow> chain(const RunInput& run) {
  std::vector<ChainRow> out;
  for (const refine::RevisionEntry& e : run.record) {
    ChainRow c;
    c.revision = e.revision;
    c.parent = e.parent;
    c.axes = axes_text(e);
    c.decision = refine::decision_name(e.decision);
    c.d = e.d;
    c.delta_d = e.delta_d;
    c.target_metrics = e.target_metrics;
    c.rejection_reason = e.rejection_reason;
    if (e.parent >= 0) {
      const refine::RevisionEntry& p = run.record.at(static_cast<size_t>(e.parent));
      c.d_parent = p.d;
      for (const core::MetricDef& def : core::metric_table()) {
        const auto a = value_of(e.signature, def.key), b = value_of(p.signature, def.key);
        if (!a || !b) continue;
        const double r = core::signed_response(def.id, *a, *b);
        if (std::abs(r) >= kMovedThreshold) c.moved.emplace_back(def.key, r);
      }
      std::stable_sort(c.moved.begin(), c.moved.end(),
                       [](const auto& x, const auto& y) { return std::abs(x.second) > std::abs(y.second); });
    }
    out.push_back(std::move(c));
  }
  return out;
}

const refine::RevisionEntry& locked(const RunInput& run) {
  const refine::RevisionEntry* e = refine::last_retained(run.record);
  if (!e) throw make_error("{}: record has no seed or retained revision", run.dir.string());
  return *e;
}

const refine::RevisionEntry& best_validated(const RunInput& run) {
  const refine::RevisionEntry* best = nullptr;
  for (const refine::RevisionEntry& e : run.record)
    if (e.decision != refine::Decision::kReject && e.d && (!best || *e.d < *best->d)) best = &e;
  return best ? *best : locked(run);
}

std::vector<SideDistances> side_distances(const RunInput& run) {
  std::vector<SideDistances> out;
  SideDistances rec;
  rec.side = workflow_info(run.workflow).record_is_cuda ? "cuda" : "vortex";
  rec.seed = distances_of(run.record.front());
  rec.final = distances_of(locked(run));
  rec.d_seed = run.record.front().d;
  rec.d_final = locked(run).d;
  out.push_back(rec);
  if (run.vortex_locked && rec.side == "cuda") {
    SideDistances v;
    v.side = "vortex";
    const core::DistanceReport rep = core::distance(*run.vortex_locked, run.reference);
    for (const auto& m : rep.per_metric) v.final[static_cast<size_t>(m.id)] = m.d;
    v.d_final = rep.d_value;
    out.push_back(v);
  }
  return out;
}

OrderComparison order_comparison(const std::vector<RunInput>& runs) {
  OrderComparison oc;
  std::map<Workflow, std::map<std::string, const RunInput*>> by;  // workflow → kernel → run (first given)
  for (const RunInput& r : runs) by[r.workflow].emplace(kernel_key(r), &r);
  std::set<std::string> common;
  bool first = true;
  for (const auto& [w, kernels] : by) {
    std::set<std::string> keys;
    for (const auto& kv : kernels)
      if (first || common.count(kv.first)) keys.insert(kv.first);
    common = std::move(keys);
    first = false;
  }
  oc.same_kernels = !common.empty();
  for (const auto& [w, kernels] : by) {
    OrderSeries s;
    s.workflow = w;
    std::array<double, core::kNumMetrics> sum{};
    for (const auto& [k, r] : kernels) {
      if (oc.same_kernels && !common.count(k)) continue;
      s.kernels.push_back(r->name);
      const auto d = distances_of(best_validated(*r));
      for (size_t i = 0; i < core::kNumMetrics; ++i)
        if (d[i]) sum[i] += *d[i], ++s.count[i];
    }
    for (size_t i = 0; i < core::kNumMetrics; ++i)
      if (s.count[i]) s.mean[i] = sum[i] / s.count[i];
    oc.series.push_back(std::move(s));
  }
  return oc;
}

}  // namespace vxsynth::report
