#include "vxsynth/refine/loop.h"

#include <chrono>
#include <ctime>
#include <random>

#include <fmt/format.h>

#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/core/metrics.h"
#include "vxsynth/refine/run_dir.h"

namespace vxsynth::refine {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

/// Where finalize puts the locked run's outputs (docs/reconstruct.md, "Output directory").
constexpr const char* kLockedRunDir = "locked-run";

fs::path revision_dir(const fs::path& out, int n) {
  return out / "work" / "revisions" / fmt::format("r{:04}", n);
}

// The key of the run's sampled check inputs (loop.h check_input_seed): drawn by vxsynth, never
// derived from anything an agent is given (the run seed is in input.json); run.json keeps it, under
// the run directory that every agent and candidate has hidden.
uint64_t draw_input_key() {
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ rd();
}

json run_json(const Reference& ref, const Agent& agent, const ProfileBackend& backend,
              const LoopOptions& opts) {
  return json{{"schema", kRunSchema},              {"version", kRunVersion},
              {"run_id", new_run_id()},           {"created_utc", utc_now()},
              {"kernel_id", ref.kernel_id},       {"bundle_sha256", ref.bundle_sha256},
              {"agent", agent.name()},            {"profile_backend", backend.name()},
              {"seed", opts.seed},                {"retain_margin", kRetainMargin},
              {"kernel_name", ref.context.kernel_name},
              {"input_key", draw_input_key()}};
}

// The order a run.json records; runs written before the field existed used the ncu backend
// CUDA-first.
std::string recorded_order(const json& run) {
  if (run.contains("order") && run["order"].is_string()) return run["order"];
  return run.value("profile_backend", json()) == "ncu" ? "cuda-first" : "";
}

// The files of a recorded revision, verified against the record's hashes.
SourceTree load_sources(const fs::path& out, const RevisionEntry& e) {
  SourceTree t;
  const fs::path dir = revision_dir(out, e.revision);
  for (const auto& [rel, hash] : e.source_hashes) {
    const fs::path p = dir / rel;
    if (!fs::exists(p))
      throw make_error("{}: missing (revision {} of the record); cannot resume", p.string(),
                       e.revision);
    std::string text = read_file(p);
    if (sha256_hex(text) != hash)
      throw make_error("{}: content differs from the record's hash (revision {}); cannot resume",
                       p.string(), e.revision);
    t[rel] = std::move(text);
  }
  return t;
}

// "reg_tile forward + lane_map reverse"; "agent failure" for the agent-failure marker.
std::string axes_text(const RevisionEntry& e) {
  std::string axes;
  for (const auto& a : e.axes) {
    axes += axes.empty() ? "" : " + ";
    axes += a.axis == kAgentFailureAxis ? std::string("agent failure") : step_text(a);
  }
  return axes;
}

std::string join_violations(const std::vector<Violation>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : "; ") + x.message();
  return s;
}

void fill_distances(RevisionEntry& e, const core::Signature& sig, const core::Signature& ref) {
  const core::DistanceReport rep = core::distance(sig, ref);
  for (const auto& md : rep.per_metric) {
    const std::string key(core::metric_def(md.id).key);
    e.signature[key] = md.candidate;
    e.distances[key] = md.d;
  }
  e.d = rep.d_value;
}

// Sandbox → backend (build, run, checks, profile) → fixed properties → D. Fills `e` except the
// retain decision of a non-seed revision.
void evaluate(RevisionEntry& e, const SourceTree& expected_sources, const SourceTree& sources,
              const nlohmann::json& design, const Reference& ref, ProfileBackend& backend,
              const SandboxRules& rules, const fs::path& out, uint64_t input_key) {
  e.profile_backend = backend.name();
  // The hashes are of the bytes the agent left when it exited; the build below uses exactly these
  // bytes, written into a fresh directory (an agent's file can no longer change after this).
  e.source_hashes = tree_hashes(sources);
  e.tool_versions["isolation"] = rules.isolation->description();
  const auto violations = check_sources(expected_sources, sources, rules);
  if (!violations.empty()) {
    e.decision = Decision::kReject;
    e.rejection_reason = "sandbox: " + join_violations(violations);
    return;
  }
  const fs::path dir = revision_dir(out, e.revision);
  std::error_code ec;
  fs::remove_all(dir, ec);  // a partial directory of an interrupted revision
  fs::create_directories(dir);
  write_tree(dir, sources);
  EvalRequest req;
  req.revision = e.revision;
  req.context = &ref.context;
  req.rules = &rules;
  req.seed = input_key;
  req.design = design;
  req.run_dir = out;
  Evaluation ev;
  try {
    ev = backend.evaluate(dir, req);
  } catch (const Error& err) {
    // A candidate that makes the harness fail (an output file of the wrong size, a malformed
    // signature) is rejected with the reason; the loop goes on from the retained design.
    e.decision = Decision::kReject;
    e.rejection_reason = std::string("harness: ") + err.what();
    return;
  }
  e.step_wall = ev.steps;
  for (const auto& [k, v] : ev.tool_versions) e.tool_versions[k] = v;
  // Recorded after the agent submitted: the seed its revision's inputs were drawn with.
  e.tool_versions["check inputs"] =
      fmt::format("seed {} (check_input_seed of the run's input key; not known to the agent)",
                  check_input_seed(input_key, e.revision));
  e.profiled_in = ev.profiled_in;
  e.source_output = ev.source_output;
  e.candidate = ev.candidate;
  if (ev.signature) fill_distances(e, *ev.signature, ref.signature);
  if (!ev.failure.empty()) {
    e.decision = Decision::kReject;
    e.rejection_reason = ev.failure;
    e.d.reset();
    return;
  }
  if (!e.candidate.passed || (e.source_output.ran && !e.source_output.passed)) {
    const CheckOutcome& bad = e.candidate.passed ? e.source_output : e.candidate;
    e.decision = Decision::kReject;
    e.rejection_reason = fmt::format(
        "output check failed ({}): {}", bad.method.empty() ? "not run" : bad.method,
        bad.detail.empty() ? fmt::format("max abs {:.3g}, max rel {:.3g}", bad.max_abs_err,
                                         bad.max_rel_err)
                           : bad.detail);
    e.d.reset();
    return;
  }
  const auto fixed = check_fixed_properties(
      fixed_properties(ref.context, ev.observed_is_vortex), ev.observed);
  if (!fixed.empty()) {
    e.decision = Decision::kReject;
    e.rejection_reason = "sandbox: " + join_violations(fixed);
    e.d.reset();
    return;
  }
  if (!ev.signature || !e.d) {
    e.decision = Decision::kReject;
    e.rejection_reason = "profile: the backend returned no signature shared with the reference";
    e.d.reset();
  }
}

void copy_dir(const fs::path& from, const fs::path& to) {
  if (!fs::exists(from)) return;
  fs::create_directories(to);
  fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
}

// Locks the best retained pair as the benchmark.
// reference/profile.json: the reference's signature and bundle entry, written when the run starts
// so that a run stopped before its lock still says what its D values were measured against.
void write_reference_profile(const fs::path& out, const Reference& ref) {
  fs::create_directories(out / "reference");
  json sig = json::object();
  for (const auto& def : core::metric_table()) {
    const auto& v = ref.signature[def.id];
    sig[std::string(def.key)] = v ? json(*v) : json(nullptr);
  }
  write_file_atomic(out / "reference" / "profile.json",
                    json{{"kernel_id", ref.kernel_id},
                         {"bundle_sha256", ref.bundle_sha256},
                         {"signature", sig},
                         {"entry", ref.entry}}
                        .dump(2));
}

void finalize(const Reference& ref, const std::vector<RevisionEntry>& record, LoopResult& result,
              const fs::path& out, ProfileBackend& backend, const SandboxRules& rules) {
  const RevisionEntry* locked = last_retained(record);
  {
    EvalRequest req;
    req.revision = locked->revision;
    req.context = &ref.context;
    req.rules = &rules;
    req.design = locked->design;
    req.run_dir = out;
    result.vortex_signature_note = backend.measure_locked_vortex_signature(revision_dir(out, locked->revision), req);
  }
  const SourceTree sources = load_sources(out, *locked);
  for (const char* side : {"vortex", "cuda"}) {
    std::error_code ec;
    fs::remove_all(out / side, ec);
  }
  SourceTree bench;
  for (const auto& [rel, text] : sources)
    if (rel.starts_with("vortex/") || rel.starts_with("cuda/")) bench[rel] = text;
  write_tree(out, bench);
  const fs::path rdir = revision_dir(out, locked->revision);
  std::error_code ec;
  fs::remove_all(out / kDataDir, ec);
  copy_dir(rdir / kDataDir, out / kDataDir);
  // The locked run's outputs go to locked-run/: data/ holds what a re-run reads (inputs,
  // ref_output.bin), so `make run OPTS="-d ../data"` writes a fresh data/out.bin beside them.
  fs::remove_all(out / kLockedRunDir, ec);
  for (const char* f : {"out.bin", "cuda_out.bin"}) {
    if (!fs::exists(out / kDataDir / f)) continue;
    fs::create_directories(out / kLockedRunDir);
    fs::rename(out / kDataDir / f, out / kLockedRunDir / f);
  }
  if (fs::exists(rdir / kVortexSignatureFile))
    fs::copy_file(rdir / kVortexSignatureFile, out / kVortexSignatureFile,
                  fs::copy_options::overwrite_existing);
  result.locked_revision = locked->revision;
  result.final_d = locked->d.value_or(0.0);
  result.benchmark_dir = out;
  const json summary = summarize(ref, record, result);
  write_file_atomic(out / "summary.json", summary.dump(2));
  write_file_atomic(out / "summary.md", summary_markdown(summary));
}

}  // namespace

uint64_t check_input_seed(uint64_t input_key, int revision) {
  // One-way (SHA-256): the seeds of earlier revisions, which the record shows, do not give the next.
  const std::string h = sha256_hex(fmt::format("vxsynth check inputs {} {}", input_key, revision));
  return std::stoull(h.substr(0, 16), nullptr, 16);
}

bool is_agent_failure(const RevisionEntry& e) {
  if (e.revision == 0 || e.decision != Decision::kReject) return false;
  for (const auto& a : e.axes)
    if (a.axis == kAgentFailureAxis) return true;
  return e.rejection_reason.rfind("agent: ", 0) == 0;
}

std::string progress_line(const Progress& p) {
  const std::string retained = p.has_retained
                                   ? fmt::format("retained r{} D {:.4f}", p.retained_revision, p.retained_d)
                                   : std::string("nothing retained");
  if (p.last == nullptr) return fmt::format("[reconstruct] {} ({})", p.note, retained);
  const RevisionEntry& e = *p.last;
  const std::string axes = e.revision == 0 ? std::string("seed") : axes_text(e);
  std::string outcome = decision_name(e.decision);
  if (e.decision == Decision::kReject) outcome += ": " + e.rejection_reason;
  else if (e.delta_d) outcome += fmt::format(" (ΔD {:+.4f})", *e.delta_d);
  return fmt::format("[reconstruct] revision {} of {}: {} → D {} → {} | {} | {:.1f} s", e.revision,
                     p.budget, axes, e.d ? fmt::format("{:.4f}", *e.d) : "-", outcome, retained,
                     e.wall_time_s);
}

LoopResult run_loop(const Reference& ref, const DesignSpace& space, Agent& agent,
                    ProfileBackend& backend, const SandboxRules& rules, const LoopOptions& opts,
                    const std::function<void(const Progress&)>& progress) {
  const fs::path out = opts.out_dir;
  const fs::path record_path = out / "record.jsonl";
  const fs::path run_path = out / "run.json";
  // Only a new or empty directory, or one that holds a run of ours, is written to (run_dir.h).
  const RunDir dir = inspect_run_dir(out);
  if (opts.resume && dir.state == RunDirState::kAbsent)
    throw make_error("--resume: {} does not exist; drop --resume to start a new run there", out.string());
  if (opts.resume && dir.state == RunDirState::kEmpty)
    throw make_error("--resume: {} is empty, there is no run to continue; drop --resume to start one", out.string());
  fs::create_directories(out);
  const DirectoryOwnerLock owner(out);  // one process per run directory, until the loop returns
  json run = run_json(ref, agent, backend, opts);
  if (!opts.order.empty()) run["order"] = opts.order;
  // A resumed run keeps its id; a run from before the schema field gets one now.
  if (dir.state == RunDirState::kRun) run["run_id"] = dir.run["run_id"];
  if (dir.state == RunDirState::kRun && dir.run.contains("created_utc")) run["created_utc"] = dir.run["created_utc"];
  // A resumed run keeps its input key (a run from before the field gets one now).
  if (dir.state == RunDirState::kRun && dir.run.contains("input_key") && dir.run["input_key"].is_number_unsigned())
    run["input_key"] = dir.run["input_key"];
  const uint64_t input_key = run["input_key"].get<uint64_t>();

  std::vector<RevisionEntry> record;
  if (opts.resume) {
    for (const char* k : {"kernel_id", "bundle_sha256", "agent", "profile_backend", "seed"})
      if (dir.run.value(k, json()) != run[k])
        throw make_error("{}: field '{}' is {} but this run has {}; --resume continues the same run",
                         run_path.string(), k, dir.run.value(k, json()).dump(), run[k].dump());
    if (recorded_order(dir.run) != recorded_order(run))
      throw make_error("{}: field 'order' is \"{}\" but this run has \"{}\"; --resume continues the same run",
                       run_path.string(), recorded_order(dir.run), recorded_order(run));
    RecordRead rr = read_record(record_path, /*repair=*/true);
    record = std::move(rr.entries);
    if (rr.repaired && progress) {
      Progress p;
      p.note = rr.repair_note;
      progress(p);
    }
  } else if (fs::exists(record_path) && fs::file_size(record_path) > 0) {
    throw make_error("{}: a record already exists; pass --resume to continue it or choose another -o",
                     record_path.string());
  }
  write_file_atomic(run_path, run.dump(2));
  write_reference_profile(out, ref);

  LoopResult result;
  auto notify = [&](const RevisionEntry* last, const std::string& note) {
    if (!progress) return;
    const RevisionEntry* r = last_retained(record);
    Progress p;
    p.revision = last ? last->revision : static_cast<int>(record.size());
    p.budget = opts.budget;
    p.has_retained = r != nullptr && r->decision != Decision::kReject && r->d.has_value();
    p.retained_d = r && r->d ? *r->d : 0.0;
    p.retained_revision = r ? r->revision : 0;
    p.last = last;
    p.note = note;
    progress(p);
  };

  // Revision 0: the seed.
  if (record.empty()) {
    const auto t0 = std::chrono::steady_clock::now();
    RevisionEntry e;
    e.revision = 0;
    e.parent = -1;
    e.agent = agent.name();
    e.started_utc = utc_now();
    e.same_kernel = "seed: built from the reference program context alone with the four fixed "
                    "properties (engine class, data types, block size, shape) of the reference";
    e.rationale = "seed (paper §3.4)";
    e.design = space.seed_design();
    const SourceTree sources = space.render(e.design);
    evaluate(e, {}, sources, e.design, ref, backend, rules, out, input_key);
    e.decision = e.decision == Decision::kReject ? Decision::kReject : Decision::kSeed;
    e.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    append_entry(record_path, e);
    record.push_back(e);
    notify(&record.back(), "");
  } else {
    // The revision the loop continues from must still be a design this space renders (a record
    // edited by hand, or by an agent outside the protocol, is named here rather than leaving every
    // axis "not applicable").
    const RevisionEntry& from = *last_retained(record);
    try {
      (void)space.render(from.design);
    } catch (const std::exception& x) {
      throw make_error("{}: revision {}'s design cannot be rendered, so the run cannot continue from it: {}",
                       record_path.string(), from.revision, x.what());
    }
    notify(nullptr, fmt::format("resuming after revision {}", record.back().revision));
  }
  if (record.front().decision == Decision::kReject)
    throw make_error("the seed was rejected: {} (record: {}){}", record.front().rejection_reason,
                     record_path.string(),
                     opts.resume ? fmt::format("; a run whose seed was rejected cannot be resumed: remove {} "
                                               "and start again once the cause is fixed",
                                               out.string())
                                 : std::string());

  while (static_cast<int>(record.size()) <= opts.budget) {
    const int n = static_cast<int>(record.size());
    const RevisionEntry retained = *last_retained(record);
    const SourceTree retained_sources = load_sources(out, retained);
    const auto t0 = std::chrono::steady_clock::now();

    AgentInput in;
    in.revision = n;
    in.context = &ref.context;
    in.context_json = ref.entry;
    in.reference = &ref.signature;
    in.retained = &retained;
    in.retained_sources = &retained_sources;
    in.history = &record;
    in.rules = &rules;
    in.axes = space.refinable_axes();
    in.seed = opts.seed;
    Proposal p = agent.propose(in);
    if (p.stop) {
      result.stop_reason = p.stop_reason;
      break;
    }
    RevisionEntry e;
    e.revision = n;
    e.parent = retained.revision;
    e.agent = agent.name();
    e.started_utc = utc_now();
    e.axes = p.axes;
    e.target_metrics = p.target_metrics;
    e.same_kernel = p.same_kernel;
    e.rationale = p.rationale;
    // An external agent edits sources, not a design point: record the generator design its
    // sources descend from (the backends take the Vortex machine shape from it).
    e.design = p.design.is_null() ? retained.design : p.design;
    if (!p.failure.empty()) {
      // The agent produced no usable proposal: whatever axes it may have named are not what was
      // recorded as tried; mark the revision explicitly.
      e.axes = {{kAgentFailureAxis, "forward"}};
      e.profile_backend = backend.name();
      e.decision = Decision::kReject;
      e.rejection_reason = p.failure;
      e.source_hashes = tree_hashes(p.sources);
    } else {
      if (e.axes.empty()) e.axes = {{"unknown", "forward"}};  // an agent that named no axis
      // Every file but the editable ones must be the harness's own rendering of the design.
      evaluate(e, space.render(e.design), p.sources, e.design, ref, backend, rules, out, input_key);
      if (e.decision != Decision::kReject) {
        e.delta_d = *e.d - *retained.d;
        e.decision = should_retain(*e.d, *retained.d) ? Decision::kRetain : Decision::kRevert;
      }
    }
    e.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    append_entry(record_path, e);
    record.push_back(e);
    notify(&record.back(), "");
  }
  if (result.stop_reason.empty())
    result.stop_reason = fmt::format("revision budget of {} reached", opts.budget);
  notify(nullptr, "stopped: " + result.stop_reason);

  for (const RevisionEntry& e : record) {
    result.wall_time_s += e.wall_time_s;
    if (e.revision == 0) continue;
    ++result.tried;
    if (e.decision == Decision::kRetain) ++result.retained;
    if (e.decision == Decision::kRevert) ++result.reverted;
    if (e.decision == Decision::kReject) ++result.rejected;
    if (is_agent_failure(e)) ++result.agent_failures;
  }
  result.seed_d = record.front().d.value_or(0.0);
  finalize(ref, record, result, out, backend, rules);
  return result;
}

json summarize(const Reference& ref, const std::vector<RevisionEntry>& record,
               const LoopResult& result) {
  const RevisionEntry& seed = record.front();
  const RevisionEntry& locked = record[static_cast<size_t>(result.locked_revision)];
  json metrics = json::array();
  for (const auto& def : core::metric_table()) {
    const std::string key(def.key);
    auto get = [&](const std::map<std::string, std::optional<double>>& m) {
      auto it = m.find(key);
      return it == m.end() || !it->second ? json(nullptr) : json(*it->second);
    };
    const auto& r = ref.signature[def.id];
    metrics.push_back(json{{"metric", key},
                           {"unit", def.unit},
                           {"reference", r ? json(*r) : json(nullptr)},
                           {"seed", get(seed.signature)},
                           {"final", get(locked.signature)},
                           {"d_seed", get(seed.distances)},
                           {"d_final", get(locked.distances)}});
  }
  json revisions = json::array();
  for (const RevisionEntry& e : record) {
    revisions.push_back(json{{"revision", e.revision},
                             {"axes", e.revision == 0 ? "seed" : axes_text(e)},
                             {"D", e.d ? json(*e.d) : json(nullptr)},
                             {"delta_D", e.delta_d ? json(*e.delta_d) : json(nullptr)},
                             {"decision", decision_name(e.decision)},
                             {"rejection_reason", e.rejection_reason}});
  }
  return json{{"kernel_id", ref.kernel_id},
              {"kernel_name", ref.context.kernel_name},
              {"agent", seed.agent},
              {"profile_backend", seed.profile_backend},
              {"seed_D", result.seed_d},
              {"final_D", result.final_d},
              {"locked_revision", result.locked_revision},
              {"revisions_tried", result.tried},
              {"revisions_retained", result.retained},
              {"revisions_reverted", result.reverted},
              {"revisions_rejected", result.rejected},
              {"revisions_agent_failed", result.agent_failures},
              {"stop_reason", result.stop_reason},
              {"wall_time_s", result.wall_time_s},
              {"retain_margin", kRetainMargin},
              {"source_output_check", locked.source_output.method},
              {"candidate_check", locked.candidate.method},
              {"tool_versions", locked.tool_versions},
              {"vortex_signature", result.vortex_signature_note.empty()
                                       ? std::string(kVortexSignatureFile)
                                       : "not measured: " + result.vortex_signature_note},
              {"metrics", metrics},
              {"revisions", revisions}};
}

std::string summary_markdown(const json& s) {
  auto num = [](const json& v, const char* f) {
    return v.is_null() ? std::string("NA") : fmt::format(fmt::runtime(f), v.get<double>());
  };
  std::string md = fmt::format(
      "# Reconstruction of {}\n\n`{}`\n\n"
      "| | |\n|---|---|\n| agent | {} |\n| profile backend | {} |\n| seed D | {:.4f} |\n"
      "| final D | {:.4f} (revision {}) |\n| revisions tried / retained / reverted / rejected | "
      "{} / {} / {} / {} |\n| stop | {} |\n| wall time | {:.1f} s |\n| checks (locked) | "
      "source-output: {}; candidate: {} |\n| Vortex-side signature | {} |\n\n",
      s["kernel_id"].get<std::string>(), s["kernel_name"].get<std::string>(),
      s["agent"].get<std::string>(), s["profile_backend"].get<std::string>(),
      s["seed_D"].get<double>(), s["final_D"].get<double>(), s["locked_revision"].get<int>(),
      s["revisions_tried"].get<int>(), s["revisions_retained"].get<int>(),
      s["revisions_reverted"].get<int>(), s["revisions_rejected"].get<int>(),
      s["stop_reason"].get<std::string>(), s["wall_time_s"].get<double>(),
      s["source_output_check"].get<std::string>(), s["candidate_check"].get<std::string>(),
      s.contains("vortex_signature") ? s["vortex_signature"].get<std::string>() : std::string("NA"));
  const int agent_failed = s.value("revisions_agent_failed", 0);
  if (agent_failed > 0) {
    md += fmt::format("The agent failed on {} of the {} revisions after the seed{}.\n\n", agent_failed,
                      s["revisions_tried"].get<int>(),
                      agent_failed == s["revisions_tried"].get<int>()
                          ? ": nothing but the seed was evaluated, and the seed is the locked benchmark"
                          : "");
  }
  md += "## Per-metric signature (NA = not measured; NA on either side is left out of D)\n\n"
        "| metric | unit | reference | seed | final | d seed | d final |\n"
        "|---|---|---:|---:|---:|---:|---:|\n";
  for (const json& m : s["metrics"])
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", m["metric"].get<std::string>(),
                      m["unit"].get<std::string>(), num(m["reference"], "{:.4g}"),
                      num(m["seed"], "{:.4g}"), num(m["final"], "{:.4g}"),
                      num(m["d_seed"], "{:.4f}"), num(m["d_final"], "{:.4f}"));
  md += "\n## Revisions\n\n| r | axes | D | ΔD | decision |\n|---:|---|---:|---:|---|\n";
  for (const json& r : s["revisions"]) {
    std::string decision = r["decision"].get<std::string>();
    if (!r["rejection_reason"].get<std::string>().empty())
      decision += ": " + r["rejection_reason"].get<std::string>();
    md += fmt::format("| {} | {} | {} | {} | {} |\n", r["revision"].get<int>(),
                      r["axes"].get<std::string>(), num(r["D"], "{:.4f}"),
                      num(r["delta_D"], "{:+.4f}"), decision);
  }
  return md;
}

}  // namespace vxsynth::refine
