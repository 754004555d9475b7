// Line-search agent and its time model (docs/reconstruct.md "Line-search agent").
#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "vxsynth/refine/agent_line_search.h"

namespace vxsynth::refine {
namespace {

using nlohmann::json;

// H200 SXM: 132 SMs (NVIDIA H200 datasheet / Hopper whitepaper: GH100 with 132 SMs enabled).
constexpr int64_t kSms = 132;
// Resident threads per SM on compute capability 9.0: 2048 (CUDA C++ Programming Guide, "Technical
// Specifications per Compute Capability"); a wave holds 132 · ⌊2048 / block size⌋ blocks.
constexpr int64_t kThreadsPerSm = 2048;
// Fitted on the 31 committed H200 revisions with an ncu CSV
// (data/evidence/h200/reconstruct-ncu-2026-11-30/*/work/revisions/r*/cuda/ncu_raw.csv) by a grid
// search minimising the squared log error; docs/reconstruct.md "Line-search agent" has the fit.
constexpr double kLaunchNs = 6000.0;           // per launch (the split-K reduce is a second one)
constexpr double kSimtFlopsPerBlock = 59.6e9;    // FLOP/s one resident block sustains, SIMT
constexpr double kTensorFlopsPerBlock = 38.1e9;  // FLOP/s one resident block sustains, WMMA
constexpr double kDramBytesPerS = 0.5e12;      // effective DRAM bandwidth of the candidates
// L2 of the H200: 50 MB (NVIDIA H200 datasheet). An operand larger than it is re-read from DRAM
// by every panel of blocks that walks it.
constexpr double kL2Bytes = 50e6;
// Weight of the traffic term against the time term in timing_distance.
constexpr double kBytesWeight = 0.5;

int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

struct Gemm {
  int64_t z = 1, m = 0, n = 0, k = 0;
};

int64_t conv_out(const json& c, const char* extent, const char* filter, size_t dim) {
  const int64_t in = c.at(extent).get<int64_t>(), f = c.at(filter).get<int64_t>();
  const int64_t pad = c.at("pad").at(dim).get<int64_t>(), dil = c.at("dilation").at(dim).get<int64_t>();
  const int64_t stride = c.at("stride").at(dim).get<int64_t>();
  return (in + 2 * pad - dil * (f - 1) - 1) / stride + 1;
}

// The op as a batched GEMM; conv as implicit GEMM (M = K_out/groups, N = N·P·Q,
// K = (C/groups)·R·S, z = groups), as the generator's GEMM view defines it.
std::optional<Gemm> gemm_of(const json& op) {
  if (op.contains("gemm") && op["gemm"].is_object()) {
    const json& g = op["gemm"];
    return Gemm{g.at("batch").get<int64_t>(), g.at("m").get<int64_t>(), g.at("n").get<int64_t>(),
                g.at("k").get<int64_t>()};
  }
  if (op.contains("conv") && op["conv"].is_object()) {
    const json& c = op["conv"];
    const int64_t groups = c.at("groups").get<int64_t>();
    const int64_t pq = conv_out(c, "h", "r", 0) * conv_out(c, "w", "s", 1);
    return Gemm{groups, c.at("k").get<int64_t>() / groups, c.at("n").get<int64_t>() * pq,
                c.at("c").get<int64_t>() / groups * c.at("r").get<int64_t>() * c.at("s").get<int64_t>()};
  }
  return std::nullopt;
}

double element_bytes(const std::string& path) { return path == "bf16" || path == "fp16" ? 2.0 : 4.0; }

// DRAM bytes of the operands under the generator's block order (codegen m_tiles_fast,
// docs/codegen.md "One kernel body, two dialects"): consecutive blocks share a panel of the larger
// operand, which streams once; the smaller one is walked once per panel and comes from L2 unless it
// does not fit there (then it is re-read from DRAM by each of the other dimension's tiles).
double operand_bytes(const Gemm& g, int64_t bm, int64_t bn, double eb) {
  const double a = eb * static_cast<double>(g.z * g.m * g.k), b = eb * static_cast<double>(g.z * g.k * g.n);
  const bool m_fast = g.m * g.k < g.k * g.n;
  const double walked = m_fast ? a : b, streamed = m_fast ? b : a;
  const double panels = static_cast<double>(m_fast ? cdiv(g.n, bn) : cdiv(g.m, bm));
  return streamed + (walked > kL2Bytes ? walked * panels : walked);
}

}  // namespace

std::optional<TimeEstimate> estimate_time(const json& design) {
  try {
    const json& fixed = design.at("fixed");
    const json& axes = design.at("axes");
    const auto g = gemm_of(fixed.at("op"));
    if (!g || !axes.contains("tile") || !axes.contains("split_k")) return std::nullopt;
    const int64_t bm = axes["tile"].at("m").get<int64_t>(), bn = axes["tile"].at("n").get<int64_t>();
    const int64_t split = axes["split_k"].get<int64_t>();
    if (bm <= 0 || bn <= 0 || split <= 0) return std::nullopt;
    TimeEstimate e;
    e.blocks = cdiv(g->n, bn) * cdiv(g->m, bm) * g->z * split;
    const double block_flops = 2.0 * static_cast<double>(bm * bn * cdiv(g->k, split));
    const int64_t per_sm = std::max<int64_t>(1, kThreadsPerSm / std::max<int64_t>(1, fixed.at("block_size").get<int64_t>()));
    const double waves = static_cast<double>(cdiv(e.blocks, kSms * per_sm));
    const double rate =
        fixed.at("engine").get<std::string>() == "tensor_core" ? kTensorFlopsPerBlock : kSimtFlopsPerBlock;
    const double workspace = split > 1 ? 4.0 * static_cast<double>(g->z * g->m * g->n * split) : 0.0;
    e.dram_bytes = operand_bytes(*g, bm, bn, element_bytes(fixed.at("path").get<std::string>())) + workspace;
    const double launches = split > 1 ? 2.0 : 1.0;
    e.time_ns = launches * kLaunchNs + 1e9 * std::max(e.dram_bytes / kDramBytesPerS, waves * block_flops / rate);
    return e;
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

std::optional<ReferenceTiming> reference_timing(const json& entry) {
  const json::json_pointer raw("/ncu/raw");
  if (!entry.is_object() || !entry.contains(raw)) return std::nullopt;
  const json& r = entry[raw];
  auto value = [&](const char* key) -> std::optional<double> {
    if (!r.contains(key) || !r[key].contains("value") || !r[key]["value"].is_number()) return std::nullopt;
    return r[key]["value"].get<double>();
  };
  const auto t = value("gpu__time_duration.sum"), rd = value("dram__bytes_read.sum");
  const auto wr = value("dram__bytes_write.sum");
  if (!t || !rd || *t <= 0) return std::nullopt;
  const double bytes = *rd + wr.value_or(0.0);
  if (bytes <= 0) return std::nullopt;
  return ReferenceTiming{*t, bytes};
}

double timing_distance(const TimeEstimate& e, const ReferenceTiming& ref) {
  return std::fabs(std::log(e.time_ns / ref.time_ns)) + kBytesWeight * std::fabs(std::log(e.dram_bytes / ref.dram_bytes));
}

namespace {

uint64_t mix(uint64_t x) {  // splitmix64 finaliser: the seed's deterministic tie-break
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

uint64_t tie_of(uint64_t seed, const AxisStep& s) {
  uint64_t h = 1469598103934665603ULL;  // FNV-1a of "axis:direction"
  for (const char c : s.axis + ":" + s.direction) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  return mix(seed ^ h);
}

// Single steps already tried from the retained revision (any outcome).
std::set<std::pair<std::string, std::string>> tried_singles(const RevisionEntry& retained,
                                                            const std::vector<RevisionEntry>& history) {
  std::set<std::pair<std::string, std::string>> t;
  for (const RevisionEntry& e : history)
    if (e.parent == retained.revision && e.axes.size() == 1) t.insert({e.axes[0].axis, e.axes[0].direction});
  return t;
}

struct Candidate {
  AxisStep step;
  json design;
  TimeEstimate estimate;
  double gain = 0.0;  // predicted reduction of timing_distance
  uint64_t tie = 0;
};

// The move the line search takes: the retained revision's own single step again.
std::optional<Candidate> continuation(const DesignSpace& space, const AgentInput& in,
                                      const std::set<std::pair<std::string, std::string>>& tried) {
  const RevisionEntry& r = *in.retained;
  if (r.revision == 0 || r.axes.size() != 1 || tried.count({r.axes[0].axis, r.axes[0].direction})) return std::nullopt;
  std::string why;
  auto next = space.apply(r.design, r.axes[0], &why);
  if (!next) return std::nullopt;
  const auto est = estimate_time(*next);
  return Candidate{r.axes[0], std::move(*next), est.value_or(TimeEstimate{}), 0.0, 0};
}

// Untried applicable single moves the time model predicts to bring time/traffic closer.
std::vector<Candidate> ranked_moves(const DesignSpace& space, const AgentInput& in, const ReferenceTiming& ref,
                                    double current, const std::set<std::pair<std::string, std::string>>& tried) {
  std::vector<Candidate> out;
  for (const std::string& axis : in.axes)
    for (const char* dir : {"forward", "reverse"}) {
      const AxisStep step{axis, dir};
      if (tried.count({axis, dir})) continue;
      std::string why;
      auto next = space.apply(in.retained->design, step, &why);
      if (!next) continue;
      const auto est = estimate_time(*next);
      if (!est) continue;
      const double gain = current - timing_distance(*est, ref);
      if (gain > 1e-9) out.push_back({step, std::move(*next), *est, gain, tie_of(in.seed, step)});
    }
  std::sort(out.begin(), out.end(), [](const Candidate& a, const Candidate& b) {
    return a.gain != b.gain ? a.gain > b.gain : a.tie < b.tie;
  });
  return out;
}

}  // namespace

Proposal LineSearchAgent::propose(const AgentInput& in) {
  const auto ref = reference_timing(in.context_json);
  const auto cur = estimate_time(in.retained->design);
  if (!ref || !cur) return builtin_.propose(in);
  const auto tried = tried_singles(*in.retained, *in.history);
  const double current = timing_distance(*cur, *ref);
  std::optional<Candidate> chosen = continuation(space_, in, tried);
  std::string mode = "line search: continues the retained step of r" + std::to_string(in.retained->revision);
  if (!chosen) {
    auto moves = ranked_moves(space_, in, *ref, current, tried);
    if (moves.empty()) return builtin_.propose(in);
    chosen = std::move(moves.front());
    mode = fmt::format("time model: best of {} untried moves predicted to approach the reference", moves.size());
  }
  Proposal p;
  p.axes = {chosen->step};
  p.design = chosen->design;
  p.target_metrics = {"dram_bandwidth"};
  p.rationale = fmt::format(
      "{} ({}): predicted {:.1f} us, {:.0f} B DRAM, {} blocks (from {:.1f} us, {:.0f} B) vs reference {:.1f} us, "
      "{:.0f} B; {}",
      chosen->step.axis, chosen->step.direction, chosen->estimate.time_ns / 1e3, chosen->estimate.dram_bytes,
      chosen->estimate.blocks, cur->time_ns / 1e3, cur->dram_bytes, ref->time_ns / 1e3, ref->dram_bytes, mode);
  p.same_kernel =
      "the generator re-renders the same operator at the profiled shape from the retained design "
      "with only the named axis changed; engine class, data types, block size and shape are kept "
      "(validated by the generator and re-checked by the sandbox from the candidate's own run)";
  p.sources = space_.render(p.design);
  return p;
}

}  // namespace vxsynth::refine
