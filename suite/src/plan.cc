#include "vxsynth/suite/plan.h"

#include <map>
#include <set>

#include <fmt/format.h>

#include "vxsynth/check/op_spec.h"
#include "vxsynth/check/precision.h"
#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/core/bundle.h"
#include "vxsynth/refine/agent.h"

namespace vxsynth::suite {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The platform a bundle was measured on: the GPU its provenance names, else the architecture
// family of the bundle's `platform` field.
std::string platform_of(const core::ReferenceBundle& b, const json& raw) {
  if (b.provenance.gpu && !b.provenance.gpu->empty()) return *b.provenance.gpu;
  return raw.value("platform", json::object()).value("family", std::string("unknown"));
}

std::string precision_of(const core::ReferenceContext& c) {
  return std::string(check::to_string(check::precision_path_for(c.operand_type, c.engine)));
}

// Multiply-accumulates of one launch of the kernel's op (0 when the context names no shape): the
// executors start the largest kernels first (docs/suite.md "Build, jobs, resume").
int64_t op_macs(const core::ReferenceContext& c) {
  try {
    return check::op_spec_from_context(c).macs();
  } catch (const Error&) {
    return 0;
  }
}

// What the selection makes of a kernel before the top-N cut and the repeat check.
KernelRole base_role(const core::BundleKernel& k) {
  if (k.context.helper_kernel) return KernelRole::kHelper;
  if (k.context.op == core::OpKind::kOther) return KernelRole::kOther;
  if (!k.signature) return KernelRole::kUnprofiled;
  return KernelRole::kOperator;
}

json kernel_row(const core::BundleKernel& k) {
  return json{{"id", k.id},
              {"rank", k.rank},
              {"name", k.name},
              {"op", core::to_string(k.context.op)},
              {"shape", core::shape_string(k.context)},
              {"engine", core::to_string(k.context.engine)},
              {"precision", precision_of(k.context)},
              {"launches", k.launches},
              {"total_us", k.total_us},
              {"share", k.share},
              {"cumulative_share", k.cumulative_share}};
}

struct Selection {
  json benchmarks = json::array();
  std::map<std::string, std::string> built;  // repeat key → benchmark name
};

// Classifies the kernels of one bundle, appending its benchmarks to `sel`; returns the workload entry.
json select_bundle(const core::ReferenceBundle& b, const json& bundle_entry, const PlanOptions& o, Selection& sel) {
  const std::string workload = bundle_entry["workload"].get<std::string>(),
                    platform = bundle_entry["platform"].get<std::string>();
  json kernels = json::array();
  std::size_t operators = 0;
  for (const core::BundleKernel& k : b.kernels) {
    json row = kernel_row(k);
    KernelRole role = base_role(k);
    const std::string key =
        fmt::format("{}|{}|{}|{}|{}", platform, k.name, row["op"].get<std::string>(), row["shape"].get<std::string>(),
                    row["precision"].get<std::string>());
    if (role == KernelRole::kOperator && operators >= o.top) role = KernelRole::kBeyondTop;
    if (role == KernelRole::kOperator) {
      ++operators;
      if (auto it = sel.built.find(key); it != sel.built.end()) {
        role = KernelRole::kDuplicate;
        row["benchmark"] = it->second;
      } else {
        const std::string name = fmt::format("{}-{}", workload, k.id);
        sel.built.emplace(key, name);
        row["benchmark"] = name;
        sel.benchmarks.push_back(json{{"name", name},
                                      {"workload", workload},
                                      {"platform", platform},
                                      {"bundle", bundle_entry["file"]},
                                      {"kernel_id", k.id},
                                      {"macs", op_macs(k.context)}});
      }
    }
    row["role"] = to_string(role);
    kernels.push_back(std::move(row));
  }
  json unprofiled = json::array();
  if (b.unprofiled)
    for (const core::UnprofiledKernel& u : *b.unprofiled)
      unprofiled.push_back(json{{"rank", u.rank}, {"name", u.name}, {"launches", u.launches}, {"share", u.share}});
  return json{{"workload", workload},         {"platform", platform},
              {"gpu_time_total_us", b.gpu_time_total_us}, {"kernel_launches", b.kernel_launches},
              {"kernels", kernels},           {"unprofiled", unprofiled}};
}

// Keeps only the benchmarks that `only` names (WORKLOAD:KERNEL); every entry must name one. The
// kernels of the others (and their duplicates) become not-requested.
void restrict_to(json& benchmarks, json& workloads, const std::vector<std::string>& only) {
  if (only.empty()) return;
  std::set<std::string> wanted;
  for (const std::string& w : only) {
    const size_t colon = w.find(':');
    if (colon == std::string::npos)
      throw make_error("--kernel '{}': expected WORKLOAD:KERNEL, e.g. act:k4", w);
    wanted.insert(w.substr(0, colon) + "-" + w.substr(colon + 1));
  }
  json kept = json::array();
  std::string names;
  for (const json& b : benchmarks) {
    names += (names.empty() ? "" : ", ") + b["workload"].get<std::string>() + ":" + b["kernel_id"].get<std::string>();
    if (wanted.erase(b["name"].get<std::string>())) kept.push_back(b);
  }
  if (!wanted.empty())
    throw make_error("--kernel {}: not a selected operator kernel of these bundles (selected: {})", *wanted.begin(),
                     names);
  std::set<std::string> built;
  for (const json& b : kept) built.insert(b["name"].get<std::string>());
  for (json& w : workloads)
    for (json& k : w["kernels"])
      if (k.contains("benchmark") && !built.count(k["benchmark"].get<std::string>())) {
        k.erase("benchmark");
        k["role"] = to_string(KernelRole::kNotRequested);
      }
  benchmarks = std::move(kept);
}

}  // namespace

std::string_view to_string(KernelRole r) {
  switch (r) {
    case KernelRole::kOperator: return "operator";
    case KernelRole::kBeyondTop: return "beyond-top";
    case KernelRole::kDuplicate: return "duplicate";
    case KernelRole::kHelper: return "helper";
    case KernelRole::kOther: return "other";
    case KernelRole::kUnprofiled: return "unprofiled";
    case KernelRole::kNotRequested: return "not-requested";
  }
  return "?";
}

json make_plan(const std::vector<fs::path>& bundle_files, const PlanOptions& o) {
  if (bundle_files.empty()) throw make_error("suite build: no bundle given");
  json bundles = json::array(), workloads = json::array();
  Selection sel;
  std::set<std::string> seen;
  for (const fs::path& f : bundle_files) {
    const std::string text = read_file(f);
    const core::ReferenceBundle b = core::read_bundle(f.string());
    const json raw = json::parse(text);
    const std::string platform = platform_of(b, raw);
    if (!seen.insert(b.workload + "|" + platform).second)
      throw make_error("{}: a second bundle of workload '{}' on {}: a suite holds one bundle per workload and "
                       "platform (import another with --workload NAME)", f.string(), b.workload, platform);
    json entry{{"workload", b.workload},
               {"platform", platform},
               {"arch", raw.value("platform", json::object()).value("arch", std::string())},
               {"source", fs::absolute(f).lexically_normal().string()},
               {"file", fmt::format("references/{}.json", b.workload)},
               {"sha256", refine::sha256_hex(text)}};
    workloads.push_back(select_bundle(b, entry, o, sel));
    bundles.push_back(std::move(entry));
  }
  restrict_to(sel.benchmarks, workloads, o.only);
  json only = o.only;
  return json{{"schema", kPlanSchema},
              {"version", kPlanVersion},
              {"options",
               {{"top", o.top}, {"budget", o.budget}, {"profile", o.profile}, {"agent", o.agent}, {"seed", o.seed},
                {"order", o.order}, {"profile_in", o.profile_in}, {"only", only}}},
              {"bundles", bundles},
              {"workloads", workloads},
              {"benchmarks", sel.benchmarks}};
}

json read_plan(const fs::path& suite_dir) {
  const fs::path p = suite_dir / kPlanFile;
  if (!fs::is_regular_file(p))
    throw make_error("{}: missing: {} is not a suite (vxsynth suite build -o {} writes it)", p.string(),
                     suite_dir.string(), suite_dir.string());
  const json plan = json::parse(read_file(p), nullptr, false);
  if (plan.is_discarded() || !plan.is_object()) throw make_error("{}: not a JSON object", p.string());
  if (plan.value("schema", json()) != kPlanSchema)
    throw make_error("{}: field 'schema' is {}, expected \"{}\"", p.string(), plan.value("schema", json()).dump(),
                     kPlanSchema);
  if (plan.value("version", json()) != kPlanVersion)
    throw make_error("{}: schema version {}, this vxsynth reads version {}", p.string(),
                     plan.value("version", json()).dump(), kPlanVersion);
  for (const char* k : {"options", "bundles", "workloads", "benchmarks"})
    if (!plan.contains(k)) throw make_error("{}: no field '{}'", p.string(), k);
  return plan;
}

const json& plan_benchmark(const json& plan, const std::string& name) {
  std::string names;
  for (const json& b : plan["benchmarks"]) {
    if (b["name"] == name) return b;
    names += (names.empty() ? "" : ", ") + b["name"].get<std::string>();
  }
  throw make_error("plan.json: no benchmark '{}' (it has: {})", name, names);
}

}  // namespace vxsynth::suite
