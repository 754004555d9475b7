// The report's data as JSON (what the figure layer reads) and CSV (docs/report.md "Data files").
#include <ctime>

#include <fmt/format.h>

#include "vxsynth/core/metrics.h"
#include "vxsynth/report/analysis.h"

namespace vxsynth::report {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json metric_rows() {
  json a = json::array();
  for (const core::MetricDef& d : core::metric_table())
    a.push_back({{"key", d.key}, {"label", d.label}, {"group", core::to_string(d.group)}, {"unit", d.unit}});
  return a;
}

std::string link_to(const RunInput& r, const fs::path& out) {
  const fs::path target = fs::exists(r.dir / "summary.md") ? r.dir / "summary.md" : r.dir / "record.jsonl";
  return fs::relative(target, fs::absolute(out)).generic_string();
}

json suite_row(const RunInput& r, const fs::path& out) {
  int tried = 0, retained = 0, reverted = 0, rejected = 0;
  for (const refine::RevisionEntry& e : r.record) {
    if (e.decision == refine::Decision::kSeed) continue;
    ++tried;
    retained += e.decision == refine::Decision::kRetain;
    reverted += e.decision == refine::Decision::kRevert;
    rejected += e.decision == refine::Decision::kReject;
  }
  const refine::RevisionEntry& lock = locked(r);
  std::optional<double> vortex_d;
  for (const SideDistances& s : side_distances(r))
    if (s.side == "vortex") vortex_d = s.d_final;
  return {{"benchmark", r.name}, {"label", r.label}, {"link", link_to(r, out)}, {"dir", r.dir.string()}, {"type", r.type},
          {"op", r.op}, {"workload", r.workload}, {"platform", r.platform}, {"kernel_id", r.kernel_id},
          {"kernel_name", r.kernel_name}, {"share", r.share}, {"rank", r.rank}, {"precision", r.precision},
          {"cuda_translation", r.cuda_translation}, {"workflow", workflow_info(r.workflow).key}, {"revisions_tried", tried}, {"retained", retained},
          {"reverted", reverted}, {"rejected", rejected}, {"seed_D", opt(r.record.front().d)},
          {"final_D", opt(lock.d)}, {"locked_revision", lock.revision}, {"vortex_D", opt(vortex_d)},
          {"stop_reason", r.summary.is_object() ? r.summary.value("stop_reason", "") : ""}};
}

json axis_map_json(const AxisMap& m) {
  json panels = json::array();
  for (const AxisPanel& p : m.panels) {
    json cells = json::array();
    for (const std::string& axis : m.axes)
      for (const core::MetricDef& d : core::metric_table()) {
        const auto it = p.rows.find(axis);
        const AxisCell c = it == p.rows.end() ? AxisCell{} : it->second[static_cast<size_t>(d.id)];
        cells.push_back({{"axis", axis}, {"metric", d.key}, {"count", c.count}, {"mean", opt(c.mean())},
                         {"retained", c.retained}, {"reverted", c.reverted}});
      }
    panels.push_back({{"workflow", workflow_info(p.workflow).key}, {"type", p.type}, {"revisions", p.revisions},
                      {"cells", cells}});
  }
  return {{"axes", m.axes}, {"excluded", m.excluded}, {"used", m.used}, {"panels", panels}};
}

json chain_json(const RunInput& r) {
  json rows = json::array();
  for (const ChainRow& c : chain(r)) {
    json moved = json::array();
    for (const auto& [k, v] : c.moved) moved.push_back({{"metric", k}, {"response", v}});
    rows.push_back({{"revision", c.revision}, {"parent", c.parent}, {"axes", c.axes}, {"decision", c.decision},
                    {"D", opt(c.d)}, {"delta_D", opt(c.delta_d)}, {"parent_D", opt(c.d_parent)}, {"moved", moved},
                    {"target_metrics", c.target_metrics}, {"rejection_reason", c.rejection_reason}});
  }
  return {{"benchmark", r.name}, {"workflow", workflow_info(r.workflow).key}, {"rows", rows}};
}

json distances_json(const RunInput& r) {
  json sides = json::array();
  for (const SideDistances& s : side_distances(r)) {
    json per = json::array();
    for (const core::MetricDef& d : core::metric_table())
      per.push_back({{"metric", d.key}, {"seed", opt(s.seed[static_cast<size_t>(d.id)])},
                     {"final", opt(s.final[static_cast<size_t>(d.id)])}});
    sides.push_back({{"side", s.side}, {"D_seed", opt(s.d_seed)}, {"D_final", opt(s.d_final)}, {"metrics", per}});
  }
  return {{"benchmark", r.name}, {"workflow", workflow_info(r.workflow).key}, {"sides", sides}};
}

json order_json(const OrderComparison& oc) {
  json series = json::array();
  for (const OrderSeries& s : oc.series) {
    json mean = json::object(), count = json::object();
    for (const core::MetricDef& d : core::metric_table()) {
      mean[std::string(d.key)] = opt(s.mean[static_cast<size_t>(d.id)]);
      count[std::string(d.key)] = s.count[static_cast<size_t>(d.id)];
    }
    series.push_back({{"workflow", workflow_info(s.workflow).key}, {"label", workflow_info(s.workflow).label},
                      {"kernels", s.kernels}, {"mean", mean}, {"count", count}});
  }
  return {{"same_kernels", oc.same_kernels}, {"series", series}};
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// ---- CSV ----
std::string cell(const json& v) {
  if (v.is_null()) return "";
  if (v.is_number_float()) return fmt::format("{:.6g}", v.get<double>());
  std::string s = v.is_string() ? v.get<std::string>() : v.dump();
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string csv(const std::vector<std::string>& header, const std::vector<std::vector<json>>& rows) {
  std::string out;
  for (size_t i = 0; i < header.size(); ++i) out += (i ? "," : "") + header[i];
  out += "\n";
  for (const auto& r : rows) {
    for (size_t i = 0; i < r.size(); ++i) out += (i ? "," : "") + cell(r[i]);
    out += "\n";
  }
  return out;
}

// Rows of `objs` (an array of objects), the columns `keys` of each.
std::vector<std::vector<json>> columns(const json& objs, const std::vector<std::string>& keys) {
  std::vector<std::vector<json>> rows;
  for (const json& o : objs) {
    std::vector<json> r;
    for (const std::string& k : keys) r.push_back(o.value(k, json()));
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace

json report_data(const Inputs& in, const fs::path& out) {
  json d{{"schema", "vxsynth.report-data"}, {"version", 1}, {"generated_utc", utc_now()}, {"notes", in.notes}};
  json runs = json::array();
  for (const RunInput& r : in.runs) runs.push_back(r.dir.string());
  d["inputs"] = {{"suite", in.suite ? json(in.suite->dir.string()) : json(nullptr)}, {"runs", runs}};
  d["metrics"] = metric_rows();
  json wf = json::array();
  for (const WorkflowInfo& w : workflow_table()) wf.push_back({{"key", w.key}, {"label", w.label}});
  d["workflows"] = wf;
  json cov = json::array();
  for (const CoverageRow& c : coverage(in))
    cov.push_back({{"workload", c.workload}, {"platform", c.platform}, {"rank", c.rank}, {"kernel_id", c.kernel_id},
                   {"benchmark", c.benchmark}, {"type", c.type}, {"share", c.share}, {"cumulative", c.cumulative}});
  d["coverage"] = cov;
  json table = json::array(), chains = json::array(), dist = json::array();
  for (const RunInput& r : in.runs) {
    table.push_back(suite_row(r, out));
    chains.push_back(chain_json(r));
    dist.push_back(distances_json(r));
  }
  d["suite_table"] = table;
  d["axis_map"] = axis_map_json(axis_response_map(in.runs));
  d["chains"] = chains;
  d["distances"] = dist;
  d["order"] = order_json(order_comparison(in.runs));
  return d;
}

std::map<std::string, std::string> report_csv(const json& d) {
  std::map<std::string, std::string> files;
  const std::vector<std::string> cov{"workload", "platform", "rank", "kernel_id", "benchmark", "type", "share",
                                     "cumulative"};
  files["coverage.csv"] = csv(cov, columns(d["coverage"], cov));
  const std::vector<std::string> tab{"type", "label", "benchmark", "workload", "platform", "kernel_id", "share",
                                     "precision", "workflow", "revisions_tried", "retained", "reverted",
                                     "rejected", "seed_D", "final_D", "locked_revision", "vortex_D", "stop_reason",
                                     "kernel_name", "link"};
  files["suite_table.csv"] = csv(tab, columns(d["suite_table"], tab));
  std::vector<std::vector<json>> am;
  for (const json& p : d["axis_map"]["panels"])
    for (const json& c : p["cells"])
      am.push_back({p["workflow"], p["type"], c["axis"], c["metric"], c["count"], c["mean"], c["retained"],
                    c["reverted"]});
  files["axis_map.csv"] =
      csv({"workflow", "type", "axis", "metric", "count", "mean_signed_response", "retained", "reverted"}, am);
  std::vector<std::vector<json>> ch;
  for (const json& c : d["chains"])
    for (const json& r : c["rows"]) {
      std::string moved;
      for (const json& m : r["moved"])
        moved += fmt::format("{}{} {:+.3f}", moved.empty() ? "" : " ", m["metric"].get<std::string>(),
                             m["response"].get<double>());
      ch.push_back({c["benchmark"], c["workflow"], r["revision"], r["parent"], r["axes"], r["decision"], r["D"],
                    r["delta_D"], r["parent_D"], moved, r["rejection_reason"]});
    }
  files["chains.csv"] = csv({"benchmark", "workflow", "revision", "parent", "axes", "decision", "D", "delta_D",
                             "parent_D", "moved", "rejection_reason"},
                            ch);
  std::vector<std::vector<json>> di;
  for (const json& b : d["distances"])
    for (const json& s : b["sides"])
      for (const json& m : s["metrics"]) di.push_back({b["benchmark"], b["workflow"], s["side"], m["metric"], m["seed"], m["final"]});
  files["distances.csv"] = csv({"benchmark", "workflow", "side", "metric", "d_seed", "d_final"}, di);
  std::vector<std::vector<json>> oc;
  for (const json& s : d["order"]["series"])
    for (const json& m : d["metrics"]) {
      const std::string k = m["key"];
      oc.push_back({s["workflow"], k, s["mean"][k], s["count"][k]});
    }
  files["order_comparison.csv"] = csv({"workflow", "metric", "mean_component_distance", "kernels"}, oc);
  return files;
}

}  // namespace vxsynth::report
