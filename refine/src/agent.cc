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
#include "vxsynth/common/process.h"

namespace vxsynth::refine {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

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

std::map<std::string, double> expected_response(const std::map<std::string, double>& prior,
                                                 const AxisStep& step,
                                                 const std::vector<RevisionEntry>& history) {
  const double sign = step.direction == "reverse" ? -1.0 : 1.0;
  // Prior: one pseudo-observation.
  std::map<std::string, double> sum;
  for (const auto& [metric, response] : prior) sum[metric] = sign * response;
  int n = 1;
  for (const RevisionEntry& e : history) {
    if (e.axes.size() != 1 || e.axes[0].axis != step.axis || e.signature.empty()) continue;
    const RevisionEntry* parent = find_revision(history, e.parent);
    if (parent == nullptr || parent->signature.empty()) continue;
    // A line-search jump of several steps counts as its per-step share.
    const double s = (e.axes[0].direction == step.direction ? 1.0 : -1.0) / std::max(1, e.axes[0].steps);
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

namespace {

// A candidate move of the built-in agent: steps, resulting design, expected D reduction (or the
// pair ranking), tie-break hash and expected per-metric response.
struct Move {
  std::vector<AxisStep> steps;
  json design;
  double gain = 0.0;
  uint64_t tie = 0;
  std::map<std::string, double> response;
};

bool better(const Move& a, const Move& b) {
  if (a.gain != b.gain) return a.gain > b.gain;
  return a.tie < b.tie;
}

// What was already tried from the retained design (any outcome): never repeated.
struct Tried {
  std::set<std::string> keys;
  std::map<std::string, double> single_delta;  // single moves from here that produced a D
  int pairs = 0;
};

Tried tried_from(const RevisionEntry& retained, const std::vector<RevisionEntry>& history) {
  Tried t;
  for (const RevisionEntry& e : history) {
    if (e.parent != retained.revision || e.axes.empty()) continue;
    t.keys.insert(steps_key(e.axes));
    if (e.axes.size() == 2) ++t.pairs;
    if (e.axes.size() == 1 && e.delta_d) t.single_delta[steps_key(e.axes)] = *e.delta_d;
  }
  return t;
}

// Inputs shared by the move builders of one proposal.
struct Search {
  const DesignSpace& space;
  const AgentInput& in;
  const Tried& tried;
  const std::map<std::string, double>& gaps;
  uint64_t tie_of(const std::string& key) const { return splitmix64(in.seed ^ fnv1a(key)); }
  std::map<std::string, double> response(const AxisStep& s) const {
    return expected_response(space.prior_response(s.axis), s, *in.history);
  }
};

// Every untried applicable single move; counts the inapplicable ones.
std::vector<Move> single_moves(const Search& s, int* not_applicable) {
  std::vector<Move> out;
  for (const std::string& axis : s.in.axes) {
    for (const char* dir : {"forward", "reverse"}) {
      const AxisStep step{axis, dir};
      const std::string key = steps_key({step});
      if (s.tried.keys.count(key)) continue;
      std::string why;
      auto next = s.space.apply(s.in.retained->design, step, &why);
      if (!next) {
        ++*not_applicable;
        continue;
      }
      auto resp = s.response(step);
      out.push_back({{step}, std::move(*next), expected_gain(s.gaps, resp), s.tie_of(key), resp});
    }
  }
  return out;
}

AxisStep parse_step_key(const std::string& key) {  // "axis:direction+"
  const size_t colon = key.find(':');
  return AxisStep{key.substr(0, colon), key.substr(colon + 1, key.size() - colon - 2)};
}

// Untried applicable pairs of two different axes whose single attempts lowered D the most (or
// raised it the least), ranked by the sum of those measured ΔDs (paper §3.6).
std::vector<Move> pair_moves(const Search& s) {
  std::vector<std::pair<std::string, double>> ranked(s.tried.single_delta.begin(), s.tried.single_delta.end());
  std::sort(ranked.begin(), ranked.end(), [&](const auto& a, const auto& b) {
    if (a.second != b.second) return a.second < b.second;
    return s.tie_of(a.first) < s.tie_of(b.first);
  });
  std::vector<Move> out;
  for (size_t i = 0; i < ranked.size(); ++i) {
    for (size_t j = i + 1; j < ranked.size(); ++j) {
      const AxisStep a = parse_step_key(ranked[i].first), b = parse_step_key(ranked[j].first);
      if (a.axis == b.axis) continue;
      const std::string key = steps_key({a, b});
      if (s.tried.keys.count(key)) continue;
      std::string why;
      auto mid = s.space.apply(s.in.retained->design, a, &why);
      if (!mid) continue;
      auto next = s.space.apply(*mid, b, &why);
      if (!next) continue;
      std::map<std::string, double> resp = s.response(a);
      for (const auto& [k, v] : s.response(b)) resp[k] += v;
      out.push_back({{a, b}, std::move(*next), -(ranked[i].second + ranked[j].second), s.tie_of(key), resp});
    }
  }
  return out;
}

// Descending by value, then by key.
void sort_desc(std::vector<std::pair<double, std::string>>& v) {
  std::sort(v.begin(), v.end(),
            [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
}

// Target metrics: up to two the move is expected to bring closest, else the two largest gaps.
std::vector<std::string> target_metrics(const std::map<std::string, double>& gaps, const Move& chosen) {
  std::vector<std::pair<double, std::string>> gains;
  for (const auto& [key, g] : gaps) {
    auto it = chosen.response.find(key);
    const double r = it == chosen.response.end() ? 0.0 : it->second;
    gains.push_back({std::min(1.0, std::fabs(g)) - std::min(1.0, std::fabs(g + r)), key});
  }
  sort_desc(gains);
  std::vector<std::string> out;
  for (const auto& [g, key] : gains)
    if (g > 0 && out.size() < 2) out.push_back(key);
  if (!out.empty()) return out;
  std::vector<std::pair<double, std::string>> by_gap;
  for (const auto& [key, g] : gaps) by_gap.push_back({std::fabs(g), key});
  sort_desc(by_gap);
  for (size_t i = 0; i < by_gap.size() && i < 2; ++i) out.push_back(by_gap[i].second);
  return out;
}

std::string rationale(const Move& chosen, const std::vector<std::string>& targets_in,
                      const std::map<std::string, double>& gaps, OpFamily family, size_t revisions,
                      const std::string& mode) {
  std::string steps_text;
  for (const auto& s : chosen.steps)
    steps_text += (steps_text.empty() ? "" : " + ") + s.axis + " (" + s.direction + ")";
  std::string targets;
  for (const auto& t : targets_in) {
    auto it = gaps.find(t);
    targets += fmt::format("{}{} gap {:+.3f}", targets.empty() ? "" : ", ", t, it == gaps.end() ? 0.0 : it->second);
  }
  return fmt::format("{}: expected ΔD {:+.4f} from the {} response map (prior + {} recorded "
                     "revisions); targets {}",
                     steps_text, -chosen.gain, op_family_name(family), revisions, targets.empty() ? "none" : targets) +
         "; " + mode;
}

}  // namespace

Proposal BuiltinAgent::propose(const AgentInput& in) {
  const RevisionEntry& retained = *in.retained;
  const OpFamily family = op_family(in.context->op);
  const std::map<std::string, double> gaps = signed_gaps(retained.signature, *in.reference);
  const Tried tried = tried_from(retained, *in.history);
  const Search search{space_, in, tried, gaps};

  int not_applicable = 0;
  std::vector<Move> moves = single_moves(search, &not_applicable);
  std::string mode = fmt::format("single axis; {} untried applicable moves from r{}", moves.size(), retained.revision);
  if (moves.empty() && tried.pairs < max_pairs_) {
    // Single axes stopped helping: combine two (paper §3.6).
    moves = pair_moves(search);
    mode = fmt::format("two axes: every single move from r{} was tried without a retain", retained.revision);
  }
  Proposal p;
  if (moves.empty()) {
    p.stop = true;
    p.stop_reason = fmt::format(
        "no applicable axis in either direction lowers D from r{} ({} moves tried from it, {} "
        "pairs, {} not applicable)",
        retained.revision, tried.keys.size(), tried.pairs, not_applicable);
    return p;
  }
  const Move chosen = *std::min_element(moves.begin(), moves.end(), better);
  p.target_metrics = target_metrics(gaps, chosen);
  p.axes = chosen.steps;
  p.design = chosen.design;
  p.rationale = rationale(chosen, p.target_metrics, gaps, family, in.history->size(), mode);
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

  // Isolated (isolation.h): when the command's first process exits, every process it started is
  // gone, so nothing can change sources/ after it is read below.
  IsolatedRun run;
  run.work = dir;
  run.hidden = hidden_;
  run.env = {{"VXSYNTH_AGENT_DIR", fs::absolute(dir).string()}};
  run.timeout_s = timeout_s_;
  const ProcessResult r = isolation_->run({"/bin/sh", "-c", command_ + " \"$VXSYNTH_AGENT_DIR\""}, run);
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
    // A field the protocol does not have (a design, a schedule) would be dropped without effect:
    // the agent is told instead (docs/agent-protocol.md: the design moves only through `axes`).
    for (const auto& [key, value] : out.items()) {
      static constexpr std::string_view kFields[] = {"axes", "target_metrics", "rationale", "same_kernel", "stop"};
      if (std::find(std::begin(kFields), std::end(kFields), key) == std::end(kFields))
        throw make_error("{}: field '{}' is not part of the protocol (fields: axes, target_metrics, rationale, "
                         "same_kernel, stop; the design moves only through axes)", where, key);
    }
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
  // Only regular files are read: a symbolic link (to a file outside, or one the build would follow)
  // or any other kind of file is a failure of the agent.
  for (const auto& e : fs::recursive_directory_iterator(dir / "sources", fs::directory_options::none, ec)) {
    if (e.is_symlink() || (!e.is_regular_file() && !e.is_directory())) {
      p.failure = fmt::format("agent: {} is not a regular file (only regular files are read)",
                              fs::relative(e.path(), dir).string());
      return p;
    }
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
