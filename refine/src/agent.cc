#include "vxsynth/refine/agent.h"

#include <openssl/evp.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>

#include <fmt/format.h>

#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/core/metrics.h"
#include "vxsynth/refine/process.h"

namespace vxsynth::refine {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Prior response map (forward direction; reverse = negated). Values are the paper's mean signed
// responses where §4.3/§4.4 state a number; where the paper states only a sign, the magnitude is
// the paper's typical magnitude for that axis group (0.06, §4.3 "about 0.06 in each") and says so.
// The map is only a prior: observed responses of the run replace it as revisions accumulate.
const std::vector<AxisPrior> kAxisPriors = {
    {"smem_stage", "*", "l1_hit_rate", -0.55, "§4.3 linear panel: lowers L1 hit rate by 0.55"},
    {"smem_stage", "*", "coalescing", +0.56, "§4.3 linear panel: raises coalescing by 0.56"},
    {"smem_stage", "*", "occupancy", -0.15, "§4.3: reduces occupancy on linear layers by 0.15"},
    {"read_once", "*", "l1_hit_rate", +0.52, "§4.4 r3: read-once raises L1 hit rate by 0.52"},
    {"read_once", "*", "coalescing", -0.06, "§4.3: opposite of shared-memory staging (sign only)"},
    {"lane_map", "*", "coalescing", +0.16, "§4.3: staging/lane-mapping traffic magnitude 0.16; "
                                           "reverse lowers coalescing (§4.4 r8)"},
    {"tile", "linear", "coalescing", +0.06, "§4.3: tile raises coalescing on linear (sign only)"},
    {"tile", "matmul", "coalescing", +0.06, "§4.3: tile raises coalescing on matmul (sign only)"},
    {"tile", "conv2d", "coalescing", +0.06, "§4.3: tile raises coalescing on conv2d (sign only)"},
    {"tile", "conv1d", "coalescing", -0.06, "§4.3: tile lowers coalescing on conv1d (sign only)"},
    {"tile", "*", "arith_intensity", +0.06, "§4.3: tile connects reuse and work per byte (~0.06)"},
    {"tile", "*", "l1_hit_rate", +0.06, "§4.4 r1: stating the 32x32 tile raised L1 hit rate"},
    {"reg_tile", "*", "arith_intensity", +0.06, "§4.3: register tiling raises arith. intensity"},
    {"reg_tile", "*", "occupancy", -0.10, "§4.3: lowers occupancy by 0.07-0.13"},
    {"prefetch", "*", "dram_bandwidth", +0.06, "§4.3: raises DRAM bandwidth in all four panels"},
    {"tensor_core", "*", "coalescing", +0.91, "§4.3: largest mean response coalescing, 0.91"},
    {"block_decomp", "*", "coalescing", +0.06, "§4.3: largest response in coalescing (conv1d)"},
    {"split_k", "*", "dram_bandwidth", +0.06, "§4.3: split-K raises DRAM bandwidth (conv1d)"},
    {"split_k", "*", "peak_compute", +0.06, "§4.3: split-K raises achieved peak compute (conv1d)"},
    {"boundary", "*", "active_lanes", +0.02, "§4.3: active lanes nearly unchanged (small prior)"},
};

uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

uint64_t fnv1a(std::string_view s) {
  uint64_t h = 1469598103934665603ULL;
  for (const char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  return h;
}

std::string steps_key(const std::vector<AxisStep>& steps) {
  std::vector<std::string> parts;
  for (const auto& s : steps) parts.push_back(s.axis + ":" + s.direction);
  std::sort(parts.begin(), parts.end());
  std::string k;
  for (const auto& p : parts) k += p + "+";
  return k;
}

const RevisionEntry* find_revision(const std::vector<RevisionEntry>& h, int revision) {
  if (revision < 0 || static_cast<size_t>(revision) >= h.size()) return nullptr;
  const RevisionEntry& e = h[static_cast<size_t>(revision)];
  return e.revision == revision ? &e : nullptr;
}

json signature_json(const core::Signature& s) {
  json j = json::object();
  for (const auto& def : core::metric_table()) {
    const auto& v = s[def.id];
    j[std::string(def.key)] = v ? json(*v) : json(nullptr);
  }
  return j;
}

std::string get_str(const json& j, const char* key, const std::string& where) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string())
    throw make_error("{}: field '{}' must be a string", where, key);
  return it->get<std::string>();
}

}  // namespace

OpFamily op_family(core::OpKind op) {
  switch (op) {
    case core::OpKind::kLinear: return OpFamily::kLinear;
    case core::OpKind::kConv1d: return OpFamily::kConv1d;
    case core::OpKind::kConv2d: return OpFamily::kConv2d;
    case core::OpKind::kMatmul:
    case core::OpKind::kBmm:
    case core::OpKind::kOther: return OpFamily::kMatmul;
  }
  return OpFamily::kMatmul;
}

const char* op_family_name(OpFamily f) {
  switch (f) {
    case OpFamily::kLinear: return "linear";
    case OpFamily::kMatmul: return "matmul";
    case OpFamily::kConv1d: return "conv1d";
    case OpFamily::kConv2d: return "conv2d";
  }
  return "?";
}

const std::vector<AxisPrior>& axis_prior_table() { return kAxisPriors; }

std::map<std::string, double> signed_gaps(
    const std::map<std::string, std::optional<double>>& signature, const core::Signature& reference) {
  std::map<std::string, double> gaps;
  for (const auto& [key, value] : signature) {
    const auto id = core::metric_from_key(key);
    if (!id || !value || !reference[*id]) continue;
    gaps[key] = core::signed_response(*id, *value, *reference[*id]);
  }
  return gaps;
}

std::map<std::string, double> expected_response(OpFamily family, const AxisStep& step,
                                                 const std::vector<RevisionEntry>& history) {
  const double sign = step.direction == "reverse" ? -1.0 : 1.0;
  std::map<std::string, double> sum;
  // Prior: one pseudo-observation; a family-specific row overrides the "*" row of the metric.
  std::map<std::string, double> prior;
  for (const auto& row : kAxisPriors) {
    if (step.axis != row.axis) continue;
    const bool exact = std::string_view(row.family) == op_family_name(family);
    if (!exact && std::string_view(row.family) != "*") continue;
    if (exact || !prior.count(row.metric)) prior[row.metric] = sign * row.response;
  }
  sum = prior;
  int n = 1;
  for (const RevisionEntry& e : history) {
    if (e.axes.size() != 1 || e.axes[0].axis != step.axis || e.signature.empty()) continue;
    const RevisionEntry* parent = find_revision(history, e.parent);
    if (parent == nullptr || parent->signature.empty()) continue;
    const double s = e.axes[0].direction == step.direction ? 1.0 : -1.0;
    for (const auto& [key, value] : e.signature) {
      const auto id = core::metric_from_key(key);
      auto pit = parent->signature.find(key);
      if (!id || !value || pit == parent->signature.end() || !pit->second) continue;
      sum[key] += s * core::signed_response(*id, *value, *pit->second);
    }
    ++n;
  }
  for (auto& [key, v] : sum) v /= n;
  return sum;
}

double expected_gain(const std::map<std::string, double>& gaps,
                     const std::map<std::string, double>& response) {
  if (gaps.empty()) return 0.0;
  double gain = 0.0;
  for (const auto& [key, g] : gaps) {
    auto it = response.find(key);
    const double r = it == response.end() ? 0.0 : it->second;
    gain += std::min(1.0, std::fabs(g)) - std::min(1.0, std::fabs(g + r));
  }
  return gain / static_cast<double>(gaps.size());
}

Proposal BuiltinAgent::propose(const AgentInput& in) {
  const RevisionEntry& retained = *in.retained;
  const std::vector<RevisionEntry>& history = *in.history;
  const OpFamily family = op_family(in.context->op);
  const std::map<std::string, double> gaps = signed_gaps(retained.signature, *in.reference);

  // Moves already tried from this retained design (any outcome): never repeated.
  std::set<std::string> tried;
  std::map<std::string, double> single_delta;  // single moves from here that produced a D
  int pairs_tried = 0;
  for (const RevisionEntry& e : history) {
    if (e.parent != retained.revision || e.axes.empty()) continue;
    tried.insert(steps_key(e.axes));
    if (e.axes.size() == 2) ++pairs_tried;
    if (e.axes.size() == 1 && e.delta_d) single_delta[steps_key(e.axes)] = *e.delta_d;
  }

  struct Move {
    std::vector<AxisStep> steps;
    json design;
    double gain;
    uint64_t tie;
    std::map<std::string, double> response;
  };
  auto tie_of = [&](const std::string& key) { return splitmix64(in.seed ^ fnv1a(key)); };
  auto better = [](const Move& a, const Move& b) {
    if (a.gain != b.gain) return a.gain > b.gain;
    return a.tie < b.tie;
  };

  std::vector<Move> singles;
  int not_applicable = 0;
  for (const std::string& axis : in.axes) {
    for (const char* dir : {"forward", "reverse"}) {
      const AxisStep step{axis, dir};
      const std::string key = steps_key({step});
      if (tried.count(key)) continue;
      std::string why;
      auto next = space_.apply(retained.design, step, &why);
      if (!next) {
        ++not_applicable;
        continue;
      }
      auto resp = expected_response(family, step, history);
      singles.push_back({{step}, std::move(*next), expected_gain(gaps, resp), tie_of(key), resp});
    }
  }

  Move chosen;
  bool have = false;
  std::string mode;
  if (!singles.empty()) {
    chosen = *std::min_element(singles.begin(), singles.end(),
                               [&](const Move& a, const Move& b) { return better(a, b); });
    have = true;
    mode = fmt::format("single axis; {} untried applicable moves from r{}", singles.size(),
                       retained.revision);
  } else if (pairs_tried < max_pairs_) {
    // Single axes stopped helping: combine two whose single attempts lowered D the most (or
    // raised it the least), in different axes (paper §3.6).
    std::vector<std::pair<std::string, double>> ranked(single_delta.begin(), single_delta.end());
    std::sort(ranked.begin(), ranked.end(), [&](const auto& a, const auto& b) {
      if (a.second != b.second) return a.second < b.second;
      return tie_of(a.first) < tie_of(b.first);
    });
    auto parse = [](const std::string& key) {
      const size_t colon = key.find(':');
      return AxisStep{key.substr(0, colon), key.substr(colon + 1, key.size() - colon - 2)};
    };
    std::vector<Move> pairs;
    for (size_t i = 0; i < ranked.size(); ++i) {
      for (size_t j = i + 1; j < ranked.size(); ++j) {
        const AxisStep a = parse(ranked[i].first), b = parse(ranked[j].first);
        if (a.axis == b.axis) continue;
        const std::string key = steps_key({a, b});
        if (tried.count(key)) continue;
        std::string why;
        auto mid = space_.apply(retained.design, a, &why);
        if (!mid) continue;
        auto next = space_.apply(*mid, b, &why);
        if (!next) continue;
        std::map<std::string, double> resp = expected_response(family, a, history);
        for (const auto& [k, v] : expected_response(family, b, history)) resp[k] += v;
        // Rank by the measured single-axis ΔDs (sum), most negative first.
        pairs.push_back({{a, b}, std::move(*next), -(ranked[i].second + ranked[j].second),
                         tie_of(key), resp});
      }
    }
    if (!pairs.empty()) {
      chosen = *std::min_element(pairs.begin(), pairs.end(),
                                 [&](const Move& x, const Move& y) { return better(x, y); });
      have = true;
      mode = fmt::format("two axes: every single move from r{} was tried without a retain",
                         retained.revision);
    }
  }

  Proposal p;
  if (!have) {
    p.stop = true;
    p.stop_reason = fmt::format(
        "no applicable axis in either direction lowers D from r{} ({} moves tried from it, {} "
        "pairs, {} not applicable)",
        retained.revision, tried.size(), pairs_tried, not_applicable);
    return p;
  }

  // Target metrics: those the move is expected to bring closest, else the largest gaps.
  std::vector<std::pair<double, std::string>> gains;
  for (const auto& [key, g] : gaps) {
    auto it = chosen.response.find(key);
    const double r = it == chosen.response.end() ? 0.0 : it->second;
    gains.push_back({std::min(1.0, std::fabs(g)) - std::min(1.0, std::fabs(g + r)), key});
  }
  std::sort(gains.begin(), gains.end(),
            [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  for (const auto& [g, key] : gains)
    if (g > 0 && p.target_metrics.size() < 2) p.target_metrics.push_back(key);
  if (p.target_metrics.empty()) {
    std::vector<std::pair<double, std::string>> by_gap;
    for (const auto& [key, g] : gaps) by_gap.push_back({std::fabs(g), key});
    std::sort(by_gap.begin(), by_gap.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    for (size_t i = 0; i < by_gap.size() && i < 2; ++i) p.target_metrics.push_back(by_gap[i].second);
  }

  std::string steps_text;
  for (const auto& s : chosen.steps)
    steps_text += (steps_text.empty() ? "" : " + ") + s.axis + " (" + s.direction + ")";
  std::string targets;
  for (const auto& t : p.target_metrics) {
    auto it = gaps.find(t);
    targets += fmt::format("{}{} gap {:+.3f}", targets.empty() ? "" : ", ", t,
                           it == gaps.end() ? 0.0 : it->second);
  }
  p.axes = chosen.steps;
  p.design = chosen.design;
  p.rationale = fmt::format("{}: expected ΔD {:+.4f} from the {} response map (prior + {} recorded "
                            "revisions); targets {}",
                            steps_text, -chosen.gain, op_family_name(family), history.size(),
                            targets.empty() ? "none" : targets) +
                "; " + mode;
  p.same_kernel =
      "the generator re-renders the same operator at the profiled shape from the retained design "
      "with only the named axis changed; engine class, data types, block size and shape are kept "
      "(validated by the generator and re-checked by the sandbox from the candidate's own run)";
  p.sources = space_.render(p.design);
  return p;
}

// ---------------------------------------------------------------- external agent

Proposal ExternalAgent::propose(const AgentInput& in) {
  Proposal p;
  const fs::path dir = work_root_ / fmt::format("r{:04}", in.revision);
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir / "sources");
  write_tree(dir / "sources", *in.retained_sources);

  json history = json::array();
  for (const RevisionEntry& e : *in.history) history.push_back(to_json(e));
  json rules_table = json::array();
  for (const SourceRule& r : source_rule_table())
    rules_table.push_back(
        json{{"rule", r.rule}, {"pattern", r.pattern}, {"applies_to", r.applies_to}, {"why", r.why}});
  const json input = {
      {"protocol", kAgentProtocol},
      {"revision", in.revision},
      {"context", in.context_json},
      {"op_family", op_family_name(op_family(in.context->op))},
      {"reference_signature", signature_json(*in.reference)},
      {"retained",
       {{"revision", in.retained->revision},
        {"D", in.retained->d ? json(*in.retained->d) : json(nullptr)},
        {"signature", to_json(*in.retained)["signature"]},
        {"design", in.retained->design}}},
      {"per_metric_distances", to_json(*in.retained)["distances"]},
      {"sandbox",
       {{"editable", in.rules->editable},
        {"swap_target_files", in.rules->swap_target_files},
        {"stored_output_names", in.rules->stored_output_names},
        {"source_rules", rules_table},
        {"fixed_properties", "engine class, data types, block size and shape of the reference"},
        {"build_timeout_s", in.rules->build_timeout_s},
        {"run_timeout_s", in.rules->run_timeout_s},
        {"axes", in.axes},
        {"directions", {"forward", "reverse"}},
        {"retain_margin", kRetainMargin}}},
      {"history", history},
      {"seed", in.seed},
      {"sources_dir", "sources"},
      {"output", "output.json"},
  };
  write_file_atomic(dir / "input.json", input.dump(2));

  const ProcessResult r =
      run_process({"/bin/sh", "-c", command_ + " \"$VXSYNTH_AGENT_DIR\""}, dir, timeout_s_,
                  {{"VXSYNTH_AGENT_DIR", fs::absolute(dir).string()}});
  write_file_atomic(dir / "agent.log", r.output);
  if (!r.ok()) {
    p.failure = fmt::format("agent: command {} ({}); last output: {}", r.status_text(),
                            (dir / "agent.log").string(), tail_lines(r.output, 3));
    return p;
  }
  const fs::path out_path = dir / "output.json";
  const std::string where = out_path.string();
  try {
    const json out = json::parse(read_file(out_path));
    if (!out.is_object()) throw make_error("{}: must be a JSON object", where);
    if (out.contains("stop") && out["stop"].is_boolean() && out["stop"].get<bool>()) {
      p.stop = true;
      p.stop_reason = out.contains("rationale") && out["rationale"].is_string()
                          ? "agent: " + out["rationale"].get<std::string>()
                          : std::string("agent asked to stop");
      return p;
    }
    const auto axes = out.find("axes");
    if (axes == out.end() || !axes->is_array() || axes->empty() || axes->size() > 2)
      throw make_error("{}: field 'axes' must list one or two {{axis, direction}} objects", where);
    std::set<std::string> allowed(in.axes.begin(), in.axes.end());
    for (const json& a : *axes) {
      if (!a.is_object()) throw make_error("{}: field 'axes' entries must be objects", where);
      AxisStep s{get_str(a, "axis", where + ": axes"), get_str(a, "direction", where + ": axes")};
      if (!allowed.count(s.axis))
        throw make_error("{}: axes: '{}' is not a refinable axis", where, s.axis);
      if (s.direction != "forward" && s.direction != "reverse")
        throw make_error("{}: axes: direction '{}' must be forward|reverse", where, s.direction);
      p.axes.push_back(std::move(s));
    }
    p.rationale = get_str(out, "rationale", where);
    p.same_kernel = get_str(out, "same_kernel", where);
    const auto tm = out.find("target_metrics");
    if (tm == out.end() || !tm->is_array())
      throw make_error("{}: field 'target_metrics' must be a list of metric ids", where);
    for (const json& m : *tm) {
      if (!m.is_string() || !core::metric_from_key(m.get<std::string>()))
        throw make_error("{}: field 'target_metrics': '{}' is not a metric id", where, m.dump());
      p.target_metrics.push_back(m.get<std::string>());
    }
  } catch (const json::exception& e) {
    p.failure = fmt::format("agent: {}: not valid JSON: {}", where, e.what());
    return p;
  } catch (const Error& e) {
    p.failure = fmt::format("agent: {}", e.what());
    return p;
  }
  p.sources = read_tree(dir / "sources");
  p.design = nullptr;
  return p;
}

// ---------------------------------------------------------------- source trees

void write_tree(const fs::path& dir, const SourceTree& tree) {
  for (const auto& [rel, content] : tree) {
    const fs::path path = dir / rel;
    fs::create_directories(path.parent_path());
    write_file_atomic(path, content);
  }
}

SourceTree read_tree(const fs::path& dir) {
  SourceTree t;
  if (!fs::exists(dir)) return t;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) t[fs::relative(e.path(), dir).generic_string()] = read_file(e.path());
  return t;
}

std::string sha256_hex(std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(data.data(), data.size(), md, &len, EVP_sha256(), nullptr) != 1)
    throw make_error("sha256: OpenSSL EVP_Digest failed");
  std::string hex;
  for (unsigned int i = 0; i < len; ++i) hex += fmt::format("{:02x}", md[i]);
  return hex;
}

std::map<std::string, std::string> tree_hashes(const SourceTree& tree) {
  std::map<std::string, std::string> h;
  for (const auto& [rel, content] : tree) h[rel] = sha256_hex(content);
  return h;
}

}  // namespace vxsynth::refine
