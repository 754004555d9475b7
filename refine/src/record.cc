#include "vxsynth/refine/record.h"

#include <unistd.h>

#include <cmath>
#include <string_view>

#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"

namespace vxsynth::refine {
namespace {

using nlohmann::json;

// One table: Decision ↔ name.
struct DecisionName {
  Decision decision;
  const char* name;
};
constexpr DecisionName kDecisionNames[] = {
    {Decision::kSeed, "seed"},
    {Decision::kRetain, "retain"},
    {Decision::kRevert, "revert"},
    {Decision::kReject, "reject"},
};

json opt_to_json(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json metric_map_to_json(const std::map<std::string, std::optional<double>>& m) {
  json out = json::object();
  for (const auto& [k, v] : m) out[k] = opt_to_json(v);
  return out;
}

json check_to_json(const CheckOutcome& c) {
  return json{{"ran", c.ran},           {"passed", c.passed},
              {"method", c.method},     {"max_abs_err", c.max_abs_err},
              {"max_rel_err", c.max_rel_err}, {"atol", c.atol},
              {"rtol", c.rtol},         {"detail", c.detail}};
}

// ---- validating accessors: every error names where + field ----

const json& field(const json& j, std::string_view name, const std::string& where) {
  auto it = j.find(name);
  if (it == j.end()) throw make_error("{}: missing field '{}'", where, name);
  return *it;
}

std::string get_string(const json& j, std::string_view name, const std::string& where) {
  const json& v = field(j, name, where);
  if (!v.is_string()) throw make_error("{}: field '{}' must be a string", where, name);
  return v.get<std::string>();
}

bool get_bool(const json& j, std::string_view name, const std::string& where) {
  const json& v = field(j, name, where);
  if (!v.is_boolean()) throw make_error("{}: field '{}' must be true/false", where, name);
  return v.get<bool>();
}

int get_int(const json& j, std::string_view name, const std::string& where) {
  const json& v = field(j, name, where);
  if (!v.is_number_integer()) throw make_error("{}: field '{}' must be an integer", where, name);
  return v.get<int>();
}

double get_number(const json& j, std::string_view name, const std::string& where) {
  const json& v = field(j, name, where);
  if (!v.is_number()) throw make_error("{}: field '{}' must be a number", where, name);
  const double d = v.get<double>();
  if (!std::isfinite(d)) throw make_error("{}: field '{}' must be finite", where, name);
  return d;
}

std::optional<double> get_opt_number(const json& j, std::string_view name,
                                     const std::string& where) {
  const json& v = field(j, name, where);
  if (v.is_null()) return std::nullopt;
  return get_number(j, name, where);
}

std::vector<std::string> get_string_list(const json& j, std::string_view name,
                                         const std::string& where) {
  const json& v = field(j, name, where);
  if (!v.is_array()) throw make_error("{}: field '{}' must be a list of strings", where, name);
  std::vector<std::string> out;
  for (const json& e : v) {
    if (!e.is_string()) throw make_error("{}: field '{}' must be a list of strings", where, name);
    out.push_back(e.get<std::string>());
  }
  return out;
}

std::map<std::string, std::optional<double>> get_metric_map(const json& j, std::string_view name,
                                                            const std::string& where) {
  const json& v = field(j, name, where);
  if (!v.is_object()) throw make_error("{}: field '{}' must be an object", where, name);
  std::map<std::string, std::optional<double>> out;
  for (const auto& [k, x] : v.items()) {
    if (x.is_null()) {
      out[k] = std::nullopt;
    } else if (x.is_number() && std::isfinite(x.get<double>())) {
      out[k] = x.get<double>();
    } else {
      throw make_error("{}: field '{}.{}' must be a finite number or null", where, name, k);
    }
  }
  return out;
}

std::map<std::string, std::string> get_string_map(const json& j, std::string_view name,
                                                  const std::string& where) {
  const json& v = field(j, name, where);
  if (!v.is_object()) throw make_error("{}: field '{}' must be an object", where, name);
  std::map<std::string, std::string> out;
  for (const auto& [k, x] : v.items()) {
    if (!x.is_string()) throw make_error("{}: field '{}.{}' must be a string", where, name, k);
    out[k] = x.get<std::string>();
  }
  return out;
}

CheckOutcome check_from_json(const json& j, std::string_view name, const std::string& where) {
  const json& v = field(j, name, where);
  if (!v.is_object()) throw make_error("{}: field '{}' must be an object", where, name);
  const std::string w = fmt::format("{}: {}", where, name);
  CheckOutcome c;
  c.ran = get_bool(v, "ran", w);
  c.passed = get_bool(v, "passed", w);
  c.method = get_string(v, "method", w);
  c.max_abs_err = get_number(v, "max_abs_err", w);
  c.max_rel_err = get_number(v, "max_rel_err", w);
  c.atol = get_number(v, "atol", w);
  c.rtol = get_number(v, "rtol", w);
  c.detail = get_string(v, "detail", w);
  if (c.passed && !c.ran) throw make_error("{}: 'passed' is true but 'ran' is false", w);
  return c;
}

Decision decision_from(const std::string& s, const std::string& where) {
  for (const auto& row : kDecisionNames)
    if (s == row.name) return row.decision;
  throw make_error("{}: field 'decision' is '{}', expected seed|retain|revert|reject", where, s);
}

json steps_to_json(const StepTimes& t) {
  json j = json::object();
  for (const auto& [step, s] : t.seconds()) j[std::string(step_name(step))] = s;
  return j;
}

StepTimes steps_from_json(const json& j, const std::string& where) {
  if (!j.is_object()) throw make_error("{}: field 'step_wall_s' must be an object of step → seconds", where);
  StepTimes t;
  for (const auto& [name, v] : j.items()) {
    const auto step = step_from_name(name);
    if (!step) throw make_error("{}: step_wall_s: unknown step '{}'", where, name);
    if (!v.is_number() || v.get<double>() < 0.0)
      throw make_error("{}: step_wall_s: '{}' must be a number of seconds ≥ 0", where, name);
    t.add(*step, v.get<double>());
  }
  return t;
}

json place_to_json(const ProfilePlace& p) {
  return json{{"where", p.where},
              {"workload", p.workload},
              {"step", p.step},
              {"routed_per_step", p.routed_per_step},
              {"reference_launches_per_step", p.reference_launches_per_step},
              {"note", p.note}};
}

// Records written before the field existed have no "profiled_in"; when present every key is checked.
ProfilePlace place_from_json(const json& j, const std::string& where) {
  if (!j.is_object()) throw make_error("{}: must be an object", where);
  ProfilePlace p;
  p.where = get_string(j, "where", where);
  if (p.where != "workload" && p.where != "standalone")
    throw make_error("{}: field 'where' is '{}', expected workload|standalone", where, p.where);
  p.workload = get_string(j, "workload", where);
  p.step = get_string(j, "step", where);
  const json& r = field(j, "routed_per_step", where);
  if (!r.is_array()) throw make_error("{}: field 'routed_per_step' must be a list", where);
  for (const json& n : r) {
    if (!n.is_number_integer()) throw make_error("{}: field 'routed_per_step' must hold integers", where);
    p.routed_per_step.push_back(n.get<int64_t>());
  }
  p.reference_launches_per_step = get_int(j, "reference_launches_per_step", where);
  p.note = get_string(j, "note", where);
  return p;
}

}  // namespace

const char* decision_name(Decision d) {
  for (const auto& row : kDecisionNames)
    if (row.decision == d) return row.name;
  return "?";
}

std::string_view step_name(RevisionStep s) { return kRevisionSteps[static_cast<size_t>(s)].name; }

std::optional<RevisionStep> step_from_name(std::string_view name) {
  for (const auto& row : kRevisionSteps)
    if (row.name == name) return row.step;
  return std::nullopt;
}

std::string step_text(const AxisStep& s) {
  return s.axis + " " + s.direction + (s.steps > 1 ? " x" + std::to_string(s.steps) : "");
}

json to_json(const RevisionEntry& e) {
  json axes = json::array();
  for (const auto& a : e.axes) {
    json step{{"axis", a.axis}, {"direction", a.direction}};
    if (a.steps > 1) step["steps"] = a.steps;
    axes.push_back(std::move(step));
  }
  json j{
      {"revision", e.revision},
      {"parent", e.parent},
      {"agent", e.agent},
      {"axes", axes},
      {"target_metrics", e.target_metrics},
      {"same_kernel", e.same_kernel},
      {"rationale", e.rationale},
      {"source_output_check", check_to_json(e.source_output)},
      {"candidate_check", check_to_json(e.candidate)},
      {"signature", metric_map_to_json(e.signature)},
      {"distances", metric_map_to_json(e.distances)},
      {"D", opt_to_json(e.d)},
      {"delta_D", opt_to_json(e.delta_d)},
      {"decision", decision_name(e.decision)},
      {"rejection_reason", e.rejection_reason},
      {"wall_time_s", e.wall_time_s},
      {"tool_versions", e.tool_versions},
      {"source_hashes", e.source_hashes},
      {"profile_backend", e.profile_backend},
      {"design", e.design},
      {"started_utc", e.started_utc},
  };
  if (!e.profiled_in.where.empty()) j["profiled_in"] = place_to_json(e.profiled_in);
  if (!e.step_wall.empty()) j["step_wall_s"] = steps_to_json(e.step_wall);
  return j;
}

RevisionEntry entry_from_json(const json& j, const std::string& where) {
  if (!j.is_object()) throw make_error("{}: a record line must be a JSON object", where);
  RevisionEntry e;
  e.revision = get_int(j, "revision", where);
  if (e.revision < 0) throw make_error("{}: field 'revision' must be ≥ 0", where);
  e.parent = get_int(j, "parent", where);
  e.agent = get_string(j, "agent", where);
  const json& axes = field(j, "axes", where);
  if (!axes.is_array()) throw make_error("{}: field 'axes' must be a list", where);
  for (const json& a : axes) {
    if (!a.is_object()) throw make_error("{}: field 'axes' entries must be objects", where);
    AxisStep s{get_string(a, "axis", where + ": axes"), get_string(a, "direction", where + ": axes")};
    if (s.direction != "forward" && s.direction != "reverse")
      throw make_error("{}: axes: direction '{}' of axis '{}' must be forward|reverse", where,
                       s.direction, s.axis);
    if (a.contains("steps")) {
      s.steps = get_int(a, "steps", where + ": axes");
      if (s.steps < 1) throw make_error("{}: axes: 'steps' of axis '{}' must be ≥ 1, is {}", where, s.axis, s.steps);
    }
    e.axes.push_back(std::move(s));
  }
  e.target_metrics = get_string_list(j, "target_metrics", where);
  e.same_kernel = get_string(j, "same_kernel", where);
  e.rationale = get_string(j, "rationale", where);
  e.source_output = check_from_json(j, "source_output_check", where);
  e.candidate = check_from_json(j, "candidate_check", where);
  e.signature = get_metric_map(j, "signature", where);
  e.distances = get_metric_map(j, "distances", where);
  e.d = get_opt_number(j, "D", where);
  e.delta_d = get_opt_number(j, "delta_D", where);
  e.decision = decision_from(get_string(j, "decision", where), where);
  e.rejection_reason = get_string(j, "rejection_reason", where);
  e.wall_time_s = get_number(j, "wall_time_s", where);
  e.tool_versions = get_string_map(j, "tool_versions", where);
  e.source_hashes = get_string_map(j, "source_hashes", where);
  e.profile_backend = get_string(j, "profile_backend", where);
  e.design = field(j, "design", where);
  e.started_utc = get_string(j, "started_utc", where);
  if (j.contains("profiled_in")) e.profiled_in = place_from_json(j["profiled_in"], where + ": profiled_in");
  if (j.contains("step_wall_s")) e.step_wall = steps_from_json(j["step_wall_s"], where);

  // Cross-field consistency.
  if (e.revision == 0) {
    if (e.decision != Decision::kSeed && e.decision != Decision::kReject)
      throw make_error("{}: revision 0 must be the seed (decision seed or reject)", where);
    if (e.parent != -1) throw make_error("{}: the seed's parent must be -1", where);
  } else {
    if (e.decision == Decision::kSeed)
      throw make_error("{}: only revision 0 may have decision 'seed'", where);
    if (e.parent < 0 || e.parent >= e.revision)
      throw make_error("{}: field 'parent' = {} must name an earlier revision", where, e.parent);
    if (e.axes.empty() || e.axes.size() > 2)
      throw make_error("{}: field 'axes' must hold one or two axes, has {}", where, e.axes.size());
  }
  if ((e.decision == Decision::kReject) != !e.rejection_reason.empty())
    throw make_error("{}: 'rejection_reason' must be set exactly when decision is 'reject'", where);
  if (e.decision != Decision::kReject) {
    if (!e.d) throw make_error("{}: field 'D' must be a number unless rejected", where);
    // The source-output check needs a GPU; where it could not run it is recorded as not run.
    if (!e.candidate.passed || (e.source_output.ran && !e.source_output.passed))
      throw make_error("{}: decision '{}' needs the output checks that ran passed", where,
                       decision_name(e.decision));
  }
  if (e.decision == Decision::kRetain || e.decision == Decision::kRevert) {
    if (!e.delta_d) throw make_error("{}: field 'delta_D' must be a number", where);
  }
  return e;
}

void append_entry(const std::filesystem::path& record, const RevisionEntry& e) {
  append_line_atomic(record, to_json(e).dump());
}

const RevisionEntry* last_retained(const std::vector<RevisionEntry>& entries) {
  for (auto it = entries.rbegin(); it != entries.rend(); ++it)
    if (it->decision == Decision::kSeed || it->decision == Decision::kRetain) return &*it;
  return nullptr;
}

RecordRead read_record(const std::filesystem::path& record, bool repair) {
  RecordRead out;
  std::error_code ec;
  if (!std::filesystem::exists(record, ec)) return out;
  const std::string text = read_file(record);
  const std::string name = record.string();

  // Split into lines, remembering where each starts; the last may lack its '\n'.
  struct Line {
    size_t begin, end;
    bool terminated;
  };
  std::vector<Line> lines;
  for (size_t pos = 0; pos < text.size();) {
    const size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) {
      lines.push_back({pos, text.size(), false});
      break;
    }
    lines.push_back({pos, nl, true});
    pos = nl + 1;
  }

  for (size_t i = 0; i < lines.size(); ++i) {
    const Line& ln = lines[i];
    const std::string where = fmt::format("{}:{}", name, i + 1);
    const std::string_view body(text.data() + ln.begin, ln.end - ln.begin);
    const bool last = i + 1 == lines.size();
    json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !ln.terminated) {
      if (!last) throw make_error("{}: not a JSON object (only a torn last line is tolerated)", where);
      // A torn last line: an interrupted append. Drop it.
      out.repaired = true;
      out.repair_note = fmt::format("{}: dropped a torn last line ({} bytes{})", where, body.size(),
                                    ln.terminated ? ", unparseable" : ", no newline");
      if (repair) {
        if (::truncate(record.c_str(), static_cast<off_t>(ln.begin)) != 0)
          throw make_error("{}: cannot truncate the torn last line", name);
      }
      break;
    }
    RevisionEntry e = entry_from_json(j, where);
    if (e.revision != static_cast<int>(out.entries.size()))
      throw make_error("{}: revision {} out of order (expected {}): lost or repeated revision",
                       where, e.revision, out.entries.size());
    if (e.parent >= 0) {
      // Each revision starts from the best retained design (paper §3.6).
      const RevisionEntry* p = last_retained(out.entries);
      if (p == nullptr || p->revision != e.parent)
        throw make_error("{}: parent {} is not the last retained revision ({})", where, e.parent,
                         p ? std::to_string(p->revision) : std::string("none"));
    }
    out.entries.push_back(std::move(e));
  }
  return out;
}

}  // namespace vxsynth::refine
