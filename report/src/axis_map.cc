// The axis-response map (paper §4.3, Fig. 4; docs/report.md "Axis-response map").
#include <algorithm>

#include "vxsynth/codegen/design_point.h"
#include "vxsynth/core/metrics.h"
#include "vxsynth/refine/loop.h"
#include "vxsynth/report/analysis.h"

namespace vxsynth::report {
namespace {

AxisPanel& panel_for(AxisMap& m, Workflow w, const std::string& type) {
  for (AxisPanel& p : m.panels)
    if (p.workflow == w && p.type == type) return p;
  m.panels.push_back(AxisPanel{w, type, 0, {}});
  return m.panels.back();
}

// Adds one single-axis revision's signed responses against its parent to its row.
void add_revision(AxisPanel& p, const refine::RevisionEntry& e, const refine::RevisionEntry& parent) {
  auto& row = p.rows[e.axes.front().axis];
  for (const core::MetricDef& def : core::metric_table()) {
    const auto c = e.signature.find(std::string(def.key));
    const auto r = parent.signature.find(std::string(def.key));
    if (c == e.signature.end() || r == parent.signature.end() || !c->second || !r->second) continue;
    AxisCell& cell = row[static_cast<size_t>(def.id)];
    cell.sum += core::signed_response(def.id, *c->second, *r->second);
    ++cell.count;
    (e.decision == refine::Decision::kRetain ? cell.retained : cell.reverted) += 1;
  }
  ++p.revisions;
}

}  // namespace

std::string_view to_string(Exclusion e) {
  switch (e) {
    case Exclusion::kSeed: return "seed";
    case Exclusion::kTwoAxes: return "two_axes";
    case Exclusion::kRejected: return "rejected";
    case Exclusion::kFixedProperty: return "fixed_property";
    case Exclusion::kRemeasurement: return "remeasurement";
    case Exclusion::kNone: return "none";
  }
  return "?";
}

Exclusion exclusion(const refine::RevisionEntry& e, const refine::RevisionEntry* parent) {
  if (e.decision == refine::Decision::kSeed || e.axes.empty()) return Exclusion::kSeed;
  if (e.decision == refine::Decision::kReject || refine::is_agent_failure(e) || e.signature.empty() || !parent)
    return Exclusion::kRejected;
  if (e.axes.size() > 1) return Exclusion::kTwoAxes;
  // A revision that changes a fixed property (or restores one) is not an axis response.
  const auto fixed = [](const refine::RevisionEntry& x) {
    return x.design.is_object() && x.design.contains("fixed") ? x.design["fixed"] : nlohmann::json();
  };
  if (fixed(e) != fixed(*parent)) return Exclusion::kFixedProperty;
  // The same candidate sources as the parent: the revision measured the parent again.
  if (!e.source_hashes.empty() && e.source_hashes == parent->source_hashes) return Exclusion::kRemeasurement;
  return Exclusion::kNone;
}

AxisMap axis_response_map(const std::vector<RunInput>& runs) {
  AxisMap m;
  for (const codegen::AxisInfo& a : codegen::kAxisTable)
    if (!a.fixed_at_seed) m.axes.emplace_back(a.key);
  for (const RunInput& run : runs) {
    AxisPanel& p = panel_for(m, run.workflow, run.type);
    for (const refine::RevisionEntry& e : run.record) {
      const refine::RevisionEntry* parent =
          e.parent >= 0 && e.parent < static_cast<int>(run.record.size()) ? &run.record[e.parent] : nullptr;
      const Exclusion why = exclusion(e, parent);
      if (why != Exclusion::kNone) {
        if (why != Exclusion::kSeed) ++m.excluded[std::string(to_string(why))];
        continue;
      }
      if (std::find(m.axes.begin(), m.axes.end(), e.axes.front().axis) == m.axes.end())
        m.axes.push_back(e.axes.front().axis);  // an axis fixed at seed that a revision moved anyway
      add_revision(p, e, *parent);
      ++m.used;
    }
  }
  return m;
}

}  // namespace vxsynth::report
