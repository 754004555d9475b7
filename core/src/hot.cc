#include "vxsynth/core/hot.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "vxsynth/core/kernel_names.h"
#include "vxsynth/core/reference.h"

namespace vxsynth::core {
namespace {

bool is_communication(const TraceKernel& k) {
  const NameHints h = classify_kernel_name(k.name);
  return h.rule && h.rule->role == KernelRole::kCommunication;
}

}  // namespace

std::string hot_group_key(const TraceKernel& k) {
  return fmt::format("{}|{}|{}|{}", k.name, fmt::join(k.grid, ","), fmt::join(k.block, ","), op_signature(k));
}

CommunicationTime communication_time(const TorchTrace& trace) {
  CommunicationTime c;
  for (const TraceKernel& k : trace.kernels) {
    if (!is_communication(k)) continue;
    ++c.launches;
    c.total_us += k.dur_us;
  }
  const double total = trace.total_kernel_time_us();
  c.share = total > 0 ? c.total_us / total : 0;
  return c;
}

std::vector<HotKernel> rank_hot_kernels(const TorchTrace& trace, std::size_t top_k) {
  std::map<std::string, std::size_t> index;
  std::vector<HotKernel> groups;
  for (std::size_t i = 0; i < trace.kernels.size(); ++i) {
    if (is_communication(trace.kernels[i])) continue;
    std::string key = hot_group_key(trace.kernels[i]);
    auto [it, fresh] = index.emplace(key, groups.size());
    if (fresh) {
      groups.emplace_back();
      groups.back().key = std::move(key);
    }
    HotKernel& g = groups[it->second];
    g.launches.push_back(i);
    g.total_us += trace.kernels[i].dur_us;
  }
  std::stable_sort(groups.begin(), groups.end(),
                   [](const HotKernel& a, const HotKernel& b) { return a.total_us > b.total_us; });
  const double total = trace.total_kernel_time_us();
  double cum = 0;
  for (std::size_t r = 0; r < groups.size(); ++r) {
    groups[r].rank = r + 1;
    groups[r].share = total > 0 ? groups[r].total_us / total : 0;
    cum += groups[r].share;
    groups[r].cumulative_share = cum;
  }
  if (top_k > 0 && groups.size() > top_k) groups.resize(top_k);
  return groups;
}

NcuJoin join_ncu(const TorchTrace& trace, const NcuReport& ncu) {
  NcuJoin j;
  j.trace_for_ncu.assign(ncu.kernels.size(), std::nullopt);
  j.ncu_for_trace.assign(trace.kernels.size(), {});
  std::vector<std::string> trace_base(trace.kernels.size());
  for (std::size_t i = 0; i < trace.kernels.size(); ++i) trace_base[i] = kernel_base_name(trace.kernels[i].name);
  std::vector<std::size_t> order(ncu.kernels.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return ncu.kernels[a].id < ncu.kernels[b].id; });
  // Launch geometries (base name, grid, block) that launches of more than one hot group share.
  std::map<std::string, std::string> group_of_geometry;
  std::set<std::string> shared_geometry;
  auto geometry = [](const std::string& base, const auto& grid, const auto& block) {
    return fmt::format("{}|{}|{}", base, fmt::join(grid, ","), fmt::join(block, ","));
  };
  for (std::size_t t = 0; t < trace.kernels.size(); ++t) {
    const std::string g = geometry(trace_base[t], trace.kernels[t].grid, trace.kernels[t].block);
    const std::string key = hot_group_key(trace.kernels[t]);
    const auto [it, fresh] = group_of_geometry.emplace(g, key);
    if (!fresh && it->second != key) shared_geometry.insert(g);
  }
  std::size_t cursor = 0;
  for (std::size_t n : order) {
    const NcuKernel& nk = ncu.kernels[n];
    const std::string base = kernel_base_name(nk.name);
    if (shared_geometry.count(geometry(base, nk.grid, nk.block))) j.ambiguous_ncu.push_back(n);
    auto matches = [&](std::size_t t) {
      const TraceKernel& tk = trace.kernels[t];
      return tk.grid == nk.grid && tk.block == nk.block && trace_base[t] == base;
    };
    std::optional<std::size_t> hit;
    for (std::size_t t = cursor; t < trace.kernels.size() && !hit; ++t)
      if (matches(t)) hit = t;
    for (std::size_t t = 0; t < cursor && !hit; ++t)
      if (matches(t)) hit = t;
    if (!hit) {
      j.unmatched_ncu.push_back(n);
      continue;
    }
    j.trace_for_ncu[n] = hit;
    j.ncu_for_trace[*hit].push_back(n);
    cursor = *hit + 1;
  }
  return j;
}

}  // namespace vxsynth::core
