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
// Per SM on compute capability 9.0 (CUDA C++ Programming Guide, "Technical Specifications per
// Compute Capability"): 2048 resident threads, 32 resident blocks, 228 KB of shared memory.
constexpr int64_t kThreadsPerSm = 2048;
constexpr int64_t kBlocksPerSm = 32;
constexpr double kSmemPerSm = 228.0 * 1024.0;
// L2 of the H200: 50 MB (NVIDIA H200 datasheet). An operand larger than it is re-read from DRAM
// by every panel of blocks that walks it.
constexpr double kL2Bytes = 50e6;
// Fitted (least squared log error, grid search then coordinate refinement) to the 152 revisions of
// the committed suite data/suite/vx-robotics-h200 (generator 8, H200, 2026-12-03) that stage
// operands through shared memory with contiguous fills, against ncu's gpu__time_duration.sum of
// each revision's longest launch; docs/reconstruct.md "Line-search agent" has the fit.
constexpr double kLaunchNs = 2900.0;             // fixed cost of the launch
constexpr double kStepNs = 230.0;                // one K step of a block: fill + sync + MMA ...
constexpr double kStepNsPerKiB = 72.0;           // ... plus this per KiB of its A and B tiles
constexpr double kNoPrefetchFactor = 2.0;        // a K step without the prefetch stage in flight
constexpr double kSmBytesPerNs = 32.0;           // operand bytes one SM's resident blocks fill per ns
constexpr double kTensorFlopsPerSm = 850e9;      // FLOP/s of one SM, WMMA candidates
constexpr double kSimtFlopsPerSm = 100e9;        // FLOP/s of one SM, SIMT candidates
// DRAM floor: the highest bandwidth a recorded candidate reached is 1.47 TB/s (diffusion_policy k8
// r9); the floor is set there rather than fitted, since almost no revision was bandwidth-bound.
constexpr double kDramBytesPerS = 1.5e12;
// Weight of the traffic term against the time term in timing_distance.
constexpr double kBytesWeight = 0.5;
// A line holds up to this many steps of one axis (split_k 1 → 64, a tile extent ×64 or ÷64).
constexpr int kMaxLineSteps = 6;
// The smallest predicted reduction of timing_distance worth a revision: ln 1.1, a tenth of the
// time, well inside the model's typical error (1.39x rms over the fit's revisions); smaller moves
// are left to the built-in agent's response map.
constexpr double kMinGain = 0.0953;  // ln 1.1

int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

struct Gemm {
  int64_t z = 1, m = 0, n = 0, k = 0;
  bool a_broadcast = false, b_broadcast = false;  // one matrix for the whole batch (batch stride 0)
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
                g.at("k").get<int64_t>(), op.value("a_batch_stride", -1) == 0, op.value("b_batch_stride", -1) == 0};
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
  const double a = eb * static_cast<double>((g.a_broadcast ? 1 : g.z) * g.m * g.k);
  const double b = eb * static_cast<double>((g.b_broadcast ? 1 : g.z) * g.k * g.n);
  const bool m_fast = g.m * g.k < g.k * g.n;
  const double walked = m_fast ? a : b, streamed = m_fast ? b : a;
  const double panels = static_cast<double>(m_fast ? cdiv(g.n, bn) : cdiv(g.m, bm));
  return streamed + (walked > kL2Bytes ? walked * panels : walked);
}

}  // namespace

// The longest-running launch of a design point (the GEMM; the split-K reduce is not modelled):
// the slowest of the K-step latency chain of its waves, the SMs' arithmetic, and DRAM.
std::optional<TimeEstimate> estimate_time(const json& design) {
  try {
    const json& fixed = design.at("fixed");
    const json& axes = design.at("axes");
    const auto g = gemm_of(fixed.at("op"));
    if (!g || !axes.contains("tile") || !axes.contains("split_k")) return std::nullopt;
    const int64_t bm = axes["tile"].at("m").get<int64_t>(), bn = axes["tile"].at("n").get<int64_t>();
    const int64_t bk = axes["tile"].at("k").get<int64_t>(), split = axes["split_k"].get<int64_t>();
    const int64_t block_size = fixed.at("block_size").get<int64_t>();
    if (bm <= 0 || bn <= 0 || bk <= 0 || split <= 0 || block_size <= 0) return std::nullopt;
    const bool prefetch = axes.value("prefetch", false);
    const double eb = element_bytes(fixed.at("path").get<std::string>());
    TimeEstimate e;
    e.blocks = cdiv(g->n, bn) * cdiv(g->m, bm) * g->z * split;
    // Residency: threads, blocks and shared memory (the A and B tiles, twice with the prefetch stage).
    const double step_bytes = eb * static_cast<double>(bm * bk + bk * bn);
    const auto smem_blocks = static_cast<int64_t>(kSmemPerSm / (step_bytes * (prefetch ? 2.0 : 1.0)));
    const int64_t resident = std::max<int64_t>(1, std::min({kThreadsPerSm / block_size, kBlocksPerSm, smem_blocks}));
    const int64_t waves = cdiv(e.blocks, kSms * resident);
    const int64_t sharing = std::min(resident, cdiv(e.blocks, kSms));  // blocks filling through one SM at once
    const double step_ns = std::max((kStepNs + kStepNsPerKiB * step_bytes / 1024.0) * (prefetch ? 1.0 : kNoPrefetchFactor),
                                    static_cast<double>(sharing) * step_bytes / kSmBytesPerNs);
    const int64_t k_per_block = cdiv(g->k, split);
    const double latency_ns = static_cast<double>(waves * cdiv(k_per_block, bk)) * step_ns;
    const double flops = 2.0 * static_cast<double>(bm * bn * k_per_block) * static_cast<double>(e.blocks);
    const double sm_rate = fixed.at("engine").get<std::string>() == "tensor_core" ? kTensorFlopsPerSm : kSimtFlopsPerSm;
    const double compute_ns = 1e9 * flops / (static_cast<double>(kSms) * sm_rate);
    // fp32 results: the output once, or one partial tile per K slice with split-K.
    const double results = 4.0 * static_cast<double>(g->z * g->m * g->n * split);
    e.dram_bytes = operand_bytes(*g, bm, bn, eb) + results;
    e.time_ns = kLaunchNs + std::max({latency_ns, compute_ns, 1e9 * e.dram_bytes / kDramBytesPerS});
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

double timing_distance(const TimeEstimate& e, const ReferenceTiming& ref, double scale) {
  return std::fabs(std::log(scale * e.time_ns / ref.time_ns)) + kBytesWeight * std::fabs(std::log(e.dram_bytes / ref.dram_bytes));
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

// Axis directions already tried from the retained revision as single-axis moves (any outcome,
// any number of steps).
std::set<std::pair<std::string, std::string>> tried_singles(const RevisionEntry& retained,
                                                            const std::vector<RevisionEntry>& history) {
  std::set<std::pair<std::string, std::string>> t;
  for (const RevisionEntry& e : history)
    if (e.parent == retained.revision && e.axes.size() == 1) t.insert({e.axes[0].axis, e.axes[0].direction});
  return t;
}

// The retained revision's measured duration over the model's: its estimated DRAM bytes at the
// DRAM bandwidth ncu measured for it, against the estimate. Scaling every estimate of this run by it
// keeps the model's relative changes and anchors them at the measured point. 1 when the revision
// has no bandwidth (the seed's profile failed, or a backend without it); clamped to [1/5, 5].
double measured_scale(const RevisionEntry& retained, const TimeEstimate& estimate) {
  const auto it = retained.signature.find("dram_bandwidth");
  if (it == retained.signature.end() || !it->second || *it->second <= 0 || estimate.time_ns <= 0) return 1.0;
  const double measured_ns = 1e9 * estimate.dram_bytes / *it->second;
  return std::clamp(measured_ns / estimate.time_ns, 0.2, 5.0);
}

struct Candidate {
  AxisStep step;
  json design;
  TimeEstimate estimate;
  double gain = 0.0;  // predicted reduction of timing_distance
  uint64_t tie = 0;
};

// The best point of one line: `step` applied 1 … kMaxLineSteps times from `from` while the
// generator accepts it, scored by the time model; the fewest steps win a tie. nullopt when no
// point of the line is predicted to come closer to the reference than `current`.
std::optional<Candidate> best_on_line(const DesignSpace& space, const json& from, AxisStep step,
                                      const ReferenceTiming& ref, double current, double scale) {
  std::optional<Candidate> best;
  json at = from;
  for (int n = 1; n <= kMaxLineSteps; ++n) {
    std::string why;
    auto next = space.apply(at, AxisStep{step.axis, step.direction}, &why);
    if (!next) break;
    at = std::move(*next);
    const auto est = estimate_time(at);
    if (!est) break;
    const double gain = current - timing_distance(*est, ref, scale);
    if (gain > kMinGain && (!best || gain > best->gain + 1e-12)) {
      step.steps = n;
      best = Candidate{step, at, *est, gain, 0};
    }
  }
  return best;
}

// Every untried axis direction's best line point, best predicted gain first.
std::vector<Candidate> ranked_lines(const DesignSpace& space, const AgentInput& in, const ReferenceTiming& ref,
                                    double current, double scale,
                                    const std::set<std::pair<std::string, std::string>>& tried) {
  std::vector<Candidate> out;
  for (const std::string& axis : in.axes)
    for (const char* dir : {"forward", "reverse"}) {
      if (tried.count({axis, dir})) continue;
      auto c = best_on_line(space, in.retained->design, AxisStep{axis, dir}, ref, current, scale);
      if (!c) continue;
      c->tie = tie_of(in.seed, c->step);
      out.push_back(std::move(*c));
    }
  std::sort(out.begin(), out.end(), [](const Candidate& a, const Candidate& b) {
    return a.gain != b.gain ? a.gain > b.gain : a.tie < b.tie;
  });
  return out;
}

}  // namespace

Proposal LineSearchAgent::propose(const AgentInput& in) {
  // The model is of the reference GPU: with another backend (vxsim counters) the signatures are
  // the Vortex side's, and the response map is all there is.
  if (in.retained->profile_backend != "ncu") return builtin_.propose(in);
  const auto ref = reference_timing(in.context_json);
  const auto cur = estimate_time(in.retained->design);
  if (!ref || !cur) return builtin_.propose(in);
  const double scale = measured_scale(*in.retained, *cur);
  const double current = timing_distance(*cur, *ref, scale);
  auto lines = ranked_lines(space_, in, *ref, current, scale, tried_singles(*in.retained, *in.history));
  if (lines.empty()) return builtin_.propose(in);
  const Candidate& chosen = lines.front();
  Proposal p;
  p.axes = {chosen.step};
  p.design = chosen.design;
  p.target_metrics = {"dram_bandwidth"};
  p.rationale = fmt::format(
      "{}: time model predicts {:.1f} us, {:.0f} B DRAM, {} blocks (from {:.1f} us, {:.0f} B) vs reference "
      "{:.1f} us, {:.0f} B; best point of {} untried lines (up to {} steps each) predicted to approach the reference; "
      "model times x{:.2f}, the retained revision's measured over modelled duration",
      step_text(chosen.step), scale * chosen.estimate.time_ns / 1e3, chosen.estimate.dram_bytes,
      chosen.estimate.blocks, scale * cur->time_ns / 1e3, cur->dram_bytes, ref->time_ns / 1e3, ref->dram_bytes,
      lines.size(), kMaxLineSteps, scale);
  p.same_kernel =
      "the generator re-renders the same operator at the profiled shape from the retained design "
      "with only the named axis changed; engine class, data types, block size and shape are kept "
      "(validated by the generator and re-checked by the sandbox from the candidate's own run)";
  p.sources = space_.render(p.design);
  return p;
}

}  // namespace vxsynth::refine
