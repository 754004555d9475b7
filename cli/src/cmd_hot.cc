// vxsynth hot FILE: hot kernels ranked by GPU time (paper §4.1, Fig. 3), from a reference bundle or
// straight from a torch trace (before any ncu run: engine class then from the kernel-name rules).
#include <algorithm>
#include <iostream>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "format.h"
#include "subcommands.h"
#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/core/bundle.h"
#include "vxsynth/core/hot.h"
#include "vxsynth/core/metrics.h"
#include "vxsynth/core/reference.h"
#include "vxsynth/core/torch_trace.h"

namespace vxsynth::cli {
namespace {

struct Options {
  std::string file;
  std::size_t top = 0;
  std::size_t name_width = 100;
};

struct Row {
  std::size_t rank, launches;
  std::string id, name;
  double share, cumulative;
  core::ReferenceContext context;
  std::string sig;
};

void print(const std::vector<Row>& rows, std::size_t name_width) {
  std::size_t shape_w = 5;
  for (const Row& r : rows) shape_w = std::max(shape_w, shape_string(r.context).size());
  std::cout << fmt::format("{:>4}  {:<4}  {:>7}  {:>7}  {:>5}  {:<11}  {:<4}  {:<7}  {:<{}}  {:<6}  {}  {}\n", "rank",
                           "id", "share", "cum.", "calls", "engine", "type", "op", "shape", shape_w, "role", "sig",
                           "kernel");
  for (const Row& r : rows)
    std::cout << fmt::format("{:>4}  {:<4}  {:>6.2f}%  {:>6.2f}%  {:>5}  {:<11}  {:<4}  {:<7}  {:<{}}  {:<6}  {:<3}  {}\n",
                             r.rank, r.id, 100.0 * r.share, 100.0 * r.cumulative, r.launches,
                             core::to_string(r.context.engine), core::to_string(r.context.operand_type),
                             core::to_string(r.context.op), shape_string(r.context), shape_w,
                             r.context.helper_kernel ? "helper" : "main", r.sig, clip(r.name, name_width));
}

/// A torch trace (gzip, or JSON whose first bytes name trace keys) rather than a bundle.
bool is_trace(const std::string& text) {
  if (text.size() >= 2 && static_cast<unsigned char>(text[0]) == 0x1f && static_cast<unsigned char>(text[1]) == 0x8b)
    return true;
  const std::string head = text.substr(0, 4096);
  if (head.find("\"traceEvents\"") != std::string::npos || head.find("\"schemaVersion\"") != std::string::npos)
    return true;
  // The Chrome trace's JSON Array Format: a top-level array of events (a bundle is an object).
  const size_t first = head.find_first_not_of(" \t\r\n");
  return first != std::string::npos && head[first] == '[';
}

int run(const Options& o) {
  const std::string text = read_file(o.file);
  std::vector<Row> rows;
  if (is_trace(text)) {
    const core::TorchTrace tr = text.size() >= 2 && static_cast<unsigned char>(text[0]) == 0x1f
                                    ? core::parse_torch_trace(core::gunzip(text, o.file), o.file)
                                    : core::parse_torch_trace(text, o.file);
    std::cout << fmt::format("{}: torch trace on {} (CC {}.{}), {:.1f} us GPU time in {} kernel launches; "
                             "no ncu counters: engine class from kernel names\n",
                             o.file, tr.gpu_name.empty() ? "unknown GPU" : tr.gpu_name, tr.cc_major, tr.cc_minor,
                             tr.total_kernel_time_us(), tr.kernels.size());
    for (const core::HotKernel& h : core::rank_hot_kernels(tr, o.top)) {
      const core::TraceKernel& k = tr.kernels[h.launches.front()];
      rows.push_back({h.rank, h.launches.size(), fmt::format("k{}", h.rank), k.name, h.share, h.cumulative_share,
                      core::build_context(k, nullptr, core::Arch::kHopper), "-"});
    }
  } else {
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
      throw make_error("{}: not valid JSON: {}", o.file, e.what());
    }
    const core::ReferenceBundle b = core::bundle_from_json(j, o.file);
    std::cout << fmt::format("{}: workload {} on {} ({}), {:.1f} us GPU time in {} kernel launches\n", o.file,
                             b.workload, b.provenance.gpu.value_or("unknown GPU"), core::arch_info(b.arch).sm,
                             b.gpu_time_total_us, b.kernel_launches);
    for (const core::BundleKernel& k : b.kernels) {
      if (o.top > 0 && k.rank > o.top) break;
      rows.push_back({k.rank, k.launches, k.id, k.name, k.share, k.cumulative_share, k.context,
                      k.signature ? "yes" : "no"});
    }
  }
  print(rows, o.name_width);
  return 0;
}

}  // namespace

Runner setup_hot(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.add_option("file", o->file, "reference bundle (vxsynth profile import -o) or torch trace (.json/.json.gz)")
      ->required();
  app.add_option("--top", o->top, "show the first K ranks (0 = all)")->capture_default_str();
  app.add_option("--name-width", o->name_width, "kernel-name column width")->capture_default_str();
  return [o] { return run(*o); };
}

}  // namespace vxsynth::cli
