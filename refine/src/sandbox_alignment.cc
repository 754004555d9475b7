// Pair alignment (docs/sandbox.md "Pair alignment"): the Vortex side must realise the design's
// launch — its grid, blocks, warps and threads — not only its output. The simulator counts the
// arithmetic of every hardware warp; the design's launch fixes how vx_spawn_threads spreads the
// blocks over cores and warps (docs/sdk.md "vx_spawn_threads"), so the shares are known exactly.
#include <algorithm>

#include <fmt/format.h>

#include "vxsynth/refine/sandbox.h"

namespace vxsynth::refine {
namespace {

// A warp may do between half and twice its share: a faithful edit (unrolling, scheduling) keeps
// every thread's arithmetic; fewer warps doing the work double (or more) the share of each.
constexpr double kMinShare = 0.5;
constexpr double kMaxShare = 2.0;

std::string launch_text(const VortexLaunchShape& s) {
  return fmt::format("{} blocks × {} threads on {} core(s) × {} warps × {} threads", s.blocks, s.block_threads,
                     s.cores, s.warps, s.threads);
}

}  // namespace

std::vector<std::vector<uint64_t>> spawn_warp_weights(const VortexLaunchShape& s) {
  if (s.block_threads <= 1 || s.threads == 0 || s.warps == 0 || s.cores == 0) return {};
  const uint64_t nt = s.threads;
  const uint64_t wpg = (s.block_threads + nt - 1) / nt;
  if (wpg > s.warps) return {};
  const uint64_t needed = (s.blocks * wpg + s.warps - 1) / s.warps;
  const uint64_t active = std::min<uint64_t>(needed, s.cores);
  std::vector<std::vector<uint64_t>> w(s.cores, std::vector<uint64_t>(s.warps, 0));
  for (uint64_t c = 0; c < active; ++c) {
    // balanced_range of vx_spawn.c: the lower cores take the remainder.
    const uint64_t count = s.blocks / active + (c < s.blocks % active ? 1 : 0);
    const uint64_t slots = std::min<uint64_t>(count, s.warps / wpg);
    for (uint64_t warp = 0; warp < slots * wpg; ++warp) {
      const uint64_t slot = warp / wpg;
      const uint64_t first_thread = (warp - slot * wpg) * nt;
      const uint64_t lanes = std::min<uint64_t>(nt, s.block_threads - first_thread);
      const uint64_t blocks_run = (count - slot + slots - 1) / slots;
      w[c][warp] = blocks_run * lanes;
    }
  }
  return w;
}

std::vector<Violation> check_warp_work(const std::vector<std::vector<uint64_t>>& warp_flops,
                                       const VortexLaunchShape& s, const std::string& file) {
  const auto weights = spawn_warp_weights(s);
  if (weights.empty()) return {};
  double total_flops = 0, total_weight = 0;
  for (const auto& core : warp_flops)
    for (uint64_t f : core) total_flops += static_cast<double>(f);
  for (const auto& core : weights)
    for (uint64_t x : core) total_weight += static_cast<double>(x);
  if (total_flops == 0)  // every design point computes: a launch without arithmetic copies its output
    return {{"pair_alignment", file, 0,
             fmt::format("the main launch did no arithmetic; the design's launch ({}) computes on every warp it runs",
                         launch_text(s))}};
  const double per_weight = total_flops / total_weight;
  int off = 0;
  std::string first, worst;
  double worst_deviation = 0;  // how far from its share: max(ratio, 1 / ratio), a warp without blocks is infinite
  for (uint32_t c = 0; c < s.cores; ++c)
    for (uint32_t w = 0; w < s.warps; ++w) {
      const double got = c < warp_flops.size() && w < warp_flops[c].size() ? static_cast<double>(warp_flops[c][w]) : 0;
      const double want = static_cast<double>(weights[c][w]) * per_weight;
      if (want == 0 && got == 0) continue;
      const double ratio = want > 0 ? got / want : 0;
      if (want > 0 && ratio >= kMinShare && ratio <= kMaxShare) continue;
      ++off;
      const std::string text =
          want > 0 ? fmt::format("core {} warp {}: {:.0f} flops for a share of {:.0f}", c, w, got, want)
                   : fmt::format("core {} warp {}: {:.0f} flops where the design runs no block", c, w, got);
      const double deviation = want == 0 ? 1e300 : ratio == 0 ? 1e299 : std::max(ratio, 1 / ratio);
      if (first.empty()) first = text;
      if (deviation > worst_deviation) {
        worst_deviation = deviation;
        worst = text;
      }
    }
  if (off == 0) return {};
  return {{"pair_alignment", file, 0,
           fmt::format("the main launch's arithmetic is not spread as the design's launch ({}) spreads it: {} "
                       "warp(s) outside [{}, {}]× their share (first {}; furthest {})",
                       launch_text(s), off, kMinShare, kMaxShare, first, worst)}};
}

}  // namespace vxsynth::refine
