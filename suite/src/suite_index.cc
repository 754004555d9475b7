#include "suite_index.h"

#include <array>
#include <map>

#include <fmt/format.h>

#include "vxsynth/refine/step_times.h"
#include "vxsynth/suite/suite.h"

namespace vxsynth::suite {
namespace {

using nlohmann::json;

/// Benchmark types of paper Table 6, in its order: which ops each holds and its label.
struct BenchmarkType {
  std::array<const char*, 2> ops;
  const char* label;  ///< benchmark labels are "<label>-<n>"
  const char* title;
};
constexpr std::array<BenchmarkType, 4> kTypes{{
    {{"linear", nullptr}, "Linear", "Linear layers"},
    {{"matmul", "bmm"}, "Matmul", "Matrix multiplication"},
    {{"conv1d", nullptr}, "Conv1d", "1-D convolution"},
    {{"conv2d", nullptr}, "Conv2d", "2-D convolution"},
}};

const BenchmarkType* type_of(const std::string& op) {
  for (const BenchmarkType& t : kTypes)
    for (const char* o : t.ops)
      if (o != nullptr && op == o) return &t;
  return nullptr;
}

// Coverage of one workload: its kernels in rank order, each counted once.
json coverage(const json& w, const std::map<std::string, bool>& built) {
  auto is_built = [&](const json& k) {
    const auto it = k.contains("benchmark") ? built.find(k["benchmark"].get<std::string>()) : built.end();
    return it != built.end() && it->second;
  };
  json rows = json::array(), helpers = json::array(), left_out = json::array();
  std::map<std::string, std::string> op_shape;  // op|shape of a built operator → its benchmark
  double covered = 0, helper_share = 0, bundle_share = 0;
  for (const json& k : w["kernels"]) {
    bundle_share += k["share"].get<double>();
    const std::string key = k["op"].get<std::string>() + "|" + k["shape"].get<std::string>();
    if (is_built(k)) {
      covered += k["share"].get<double>();
      op_shape.emplace(key, k["benchmark"].get<std::string>());
      rows.push_back(json{{"benchmark", k["benchmark"]}, {"kernel_id", k["id"]}, {"rank", k["rank"]},
                          {"share", k["share"]}, {"cumulative", covered}, {"role", k["role"]}});
    } else if (k["role"] != "helper") {
      left_out.push_back(json{{"kernel_id", k["id"]}, {"role", k["role"]}, {"share", k["share"]}, {"name", k["name"]},
                              {"op", k["op"]}, {"shape", k["shape"]}});
    }
  }
  for (const json& k : w["kernels"]) {
    if (k["role"] != "helper") continue;
    const auto it = op_shape.find(k["op"].get<std::string>() + "|" + k["shape"].get<std::string>());
    if (it != op_shape.end()) helper_share += k["share"].get<double>();
    helpers.push_back(json{{"kernel_id", k["id"]}, {"name", k["name"]}, {"share", k["share"]}, {"op", k["op"]},
                           {"shape", k["shape"]}, {"helper_of", it == op_shape.end() ? json(nullptr) : json(it->second)}});
  }
  return json{{"workload", w["workload"]}, {"platform", w["platform"]}, {"gpu_time_total_us", w["gpu_time_total_us"]},
              {"benchmarks", rows}, {"operator_coverage", covered}, {"helper_share", helper_share},
              {"coverage_with_helpers", covered + helper_share}, {"bundle_share", bundle_share},
              {"helpers", helpers}, {"left_out", left_out}, {"unprofiled", w["unprofiled"]}};
}

// Table 6 labels: per type, in the order the benchmarks were planned (workload, then rank).
void label(json& benchmarks) {
  std::map<const BenchmarkType*, int> n;
  for (const BenchmarkType& t : kTypes)
    for (json& b : benchmarks)
      if (b.contains("op") && type_of(b["op"].get<std::string>()) == &t) b["label"] = fmt::format("{}-{}", t.label, ++n[&t]);
}

}  // namespace

json index_suite(const json& plan, json benchmarks) {
  std::map<std::string, bool> built;
  for (const json& b : benchmarks) built[b["name"].get<std::string>()] = b["status"] == "built";
  json workloads = json::array();
  for (const json& w : plan["workloads"]) workloads.push_back(coverage(w, built));
  for (json& b : benchmarks) {
    b["used_by"] = json::array();
    for (const json& w : workloads)
      for (const json& r : w["benchmarks"])
        if (r["benchmark"] == b["name"]) {
          b["used_by"].push_back(json{{"workload", w["workload"]}, {"kernel_id", r["kernel_id"]}, {"share", r["share"]}});
          if (w["workload"] == b["workload"]) b["cumulative_coverage"] = r["cumulative"];
        }
  }
  label(benchmarks);
  size_t n_built = 0;
  for (const auto& [name, ok] : built) n_built += ok ? 1 : 0;
  return json{{"schema", kSuiteSchema}, {"version", kSuiteVersion}, {"options", plan["options"]},
              {"bundles", plan["bundles"]}, {"benchmarks_planned", benchmarks.size()}, {"benchmarks_built", n_built},
              {"benchmarks", benchmarks}, {"workloads", workloads}};
}

namespace {

std::string num(const json& v, const char* f) {
  return v.is_number() ? fmt::format(fmt::runtime(f), v.get<double>()) : std::string("–");
}

std::string checks_cell(const json& c) {
  auto one = [](const json& k) {
    if (!k.is_object() || !k.value("ran", false)) return std::string("not run");
    return std::string(k.value("passed", false) ? "pass" : "FAIL");
  };
  return fmt::format("{} / {}", one(c["source_output"]), one(c["candidate"]));
}

std::string short_name(const std::string& s) { return s.size() <= 60 ? s : s.substr(0, 57) + "..."; }

std::string type_table(const json& suite, const BenchmarkType& t) {
  std::string md;
  for (const json& b : suite["benchmarks"]) {
    if (b["status"] != "built" || type_of(b["op"].get<std::string>()) != &t) continue;
    md += fmt::format("| {} | {} | {} | `{}` | {} | {:.2f} % | {} | {} / {} | {} | {} | {} | {} |\n",
                      b["label"].get<std::string>(), b["name"].get<std::string>(), b["workload"].get<std::string>(),
                      short_name(b["reference_kernel"]["name"].get<std::string>()), b["shape"].get<std::string>(),
                      100 * b["share"].get<double>(), b["precision"].get<std::string>(),
                      b["revisions"]["tried"].get<int>(), b["revisions"]["retained"].get<int>(),
                      num(b["seed_D"], "{:.4f}"), num(b["final_D"], "{:.4f}"), num(b["vortex"]["D"], "{:.4f}"),
                      checks_cell(b["checks"]));
  }
  if (md.empty()) return {};
  return fmt::format("### {}\n\n| benchmark | directory | workload | reference kernel | shape | GPU-time share | "
                     "precision path | revisions tried / retained | seed D | final D | Vortex D | checks (source / "
                     "candidate) |\n|---|---|---|---|---|---:|---|---:|---:|---:|---:|---|\n{}\n",
                     t.title, md);
}

std::string coverage_table(const json& suite) {
  std::string md = "## Coverage per workload (paper §4.1)\n\n| workload | platform | benchmarks | operator kernels | "
                   "with their helpers | kernels in the bundle |\n|---|---|---:|---:|---:|---:|\n";
  std::string notes;
  for (const json& w : suite["workloads"]) {
    md += fmt::format("| {} | {} | {} | {:.2f} % | {:.2f} % | {:.2f} % |\n", w["workload"].get<std::string>(),
                      w["platform"].get<std::string>(), w["benchmarks"].size(),
                      100 * w["operator_coverage"].get<double>(), 100 * w["coverage_with_helpers"].get<double>(),
                      100 * w["bundle_share"].get<double>());
    for (const json& h : w["helpers"])
      notes += fmt::format("- {} {} ({:.2f} %, helper of {}): `{}`\n", w["workload"].get<std::string>(),
                           h["kernel_id"].get<std::string>(), 100 * h["share"].get<double>(),
                           h["helper_of"].is_null() ? std::string("no benchmark of this suite") : h["helper_of"].get<std::string>(),
                           short_name(h["name"].get<std::string>()));
    for (const json& k : w["left_out"])
      notes += fmt::format("- {} {} ({:.2f} %, {}, not built): `{}`\n", w["workload"].get<std::string>(),
                           k["kernel_id"].get<std::string>(), 100 * k["share"].get<double>(),
                           k["role"].get<std::string>(), short_name(k["name"].get<std::string>()));
  }
  return md + (notes.empty() ? "" : "\nHelpers (counted in coverage, not rebuilt) and kernels left out:\n\n" + notes);
}

// Where each benchmark's revision time went (suite.json step_wall_s, docs/reconstruct.md "Step
// times"); omitted when no benchmark's record has step times.
std::string build_time_table(const json& suite) {
  std::string rows;
  for (const json& b : suite["benchmarks"]) {
    if (b["status"] != "built" || !b.contains("step_wall_s") || b["step_wall_s"].empty()) continue;
    rows += fmt::format("| {} | {} | {:.0f} |", b["name"].get<std::string>(), b["revisions"]["tried"].get<int>() + 1,
                        b["wall_time_s"].get<double>());
    for (const auto& row : refine::kRevisionSteps)
      rows += " " + num(b["step_wall_s"].value(std::string(row.name), json()), "{:.0f}") + " |";
    rows += "\n";
  }
  if (rows.empty()) return {};
  std::string head = "| benchmark | revisions | wall (s) |", rule = "|---|---:|---:|";
  for (const auto& row : refine::kRevisionSteps) head += fmt::format(" {} (s) |", row.name), rule += "---:|";
  return "## Where the build time went\n\nSeconds summed over each benchmark's revisions, the seed included "
         "(the record's `step_wall_s`; docs/reconstruct.md \"Step times\"). The lock step (the locked kernel's "
         "timing-mode Vortex run) is not a revision and is not counted.\n\n" +
         head + "\n" + rule + "\n" + rows + "\n";
}

}  // namespace

std::string suite_markdown(const json& suite) {
  const json& o = suite["options"];
  std::string md = fmt::format(
      "# Benchmark suite\n\n{} benchmarks built of {} planned: top {} operator kernels per workload × platform by "
      "GPU time, profile backend {}, agent {}, budget {} revisions, seed {} (written by `vxsynth suite`; "
      "docs/suite.md). D = signature distance to the reference kernel (CUDA-side for the ncu backend, Vortex-side "
      "for vxsim); Vortex D = the locked Vortex kernel's vxsim signature against the same reference.\n\n",
      suite["benchmarks_built"].get<size_t>(), suite["benchmarks_planned"].get<size_t>(), o["top"].get<size_t>(),
      o["profile"].get<std::string>(), o["agent"].get<std::string>(), o["budget"].get<int>(),
      o["seed"].get<uint64_t>());
  for (const BenchmarkType& t : kTypes) md += type_table(suite, t);
  for (const json& b : suite["benchmarks"])
    if (b["status"] != "built")
      md += fmt::format("- {} ({} {}): **{}** — {}\n", b["name"].get<std::string>(), b["workload"].get<std::string>(),
                        b["kernel_id"].get<std::string>(), b["status"].get<std::string>(),
                        b.value("reason", std::string()));
  return md + "\n" + coverage_table(suite) + "\n" + build_time_table(suite);
}

}  // namespace vxsynth::suite
