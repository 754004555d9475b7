// vxsynth hot FILE [--json]: hot kernels ranked by GPU time (paper §4.1, Fig. 3), from a reference
// bundle or straight from a torch trace (before any ncu run: engine class then from the kernel-name
// rules). `--json` on a trace is the ranking the Python package uses (one grouping rule, hot.h).
#include <algorithm>
#include <iostream>
#include <memory>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "format.h"
#include "subcommands.h"
#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/core/bundle.h"
#include "vxsynth/core/hot.h"
#include "vxsynth/core/kernel_names.h"
#include "vxsynth/core/metrics.h"
#include "vxsynth/core/reference.h"
#include "vxsynth/core/torch_trace.h"

namespace vxsynth::cli {
namespace {

struct Options {
  std::string file;
  std::size_t top = 0;
  std::size_t name_width = 100;
  bool json = false;
};

struct Row {
  std::size_t rank, launches;
  std::string id, name;
  double share, cumulative;
  core::ReferenceContext context;
  std::string sig;
};

using nlohmann::json;

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

/// Under the table: why each `other` row's op was not read.
void print_reasons(const std::vector<Row>& rows) {
  for (const Row& r : rows)
    if (r.context.op == core::OpKind::kOther && !r.context.op_reason.empty())
      std::cout << fmt::format("  {} op other: {}\n", r.id, r.context.op_reason);
}

bool is_gzip(const std::string& text) {
  return text.size() >= 2 && static_cast<unsigned char>(text[0]) == 0x1f && static_cast<unsigned char>(text[1]) == 0x8b;
}

/// A torch trace (gzip, or JSON whose first bytes name trace keys) rather than a bundle.
bool is_trace(const std::string& text) {
  if (is_gzip(text)) return true;
  const std::string head = text.substr(0, 4096);
  if (head.find("\"traceEvents\"") != std::string::npos || head.find("\"schemaVersion\"") != std::string::npos)
    return true;
  // The Chrome trace's JSON Array Format: a top-level array of events (a bundle is an object).
  const size_t first = head.find_first_not_of(" \t\r\n");
  return first != std::string::npos && head[first] == '[';
}

constexpr std::string_view kAccepts =
    "vxsynth hot reads a reference bundle (vxsynth profile import -o BUNDLE.json) or a PyTorch profiler trace "
    "(.json or .json.gz)";

/// An ncu CSV export (a "==PROF==" line or a header row starting with "ID"), named in the error.
bool is_ncu_csv(const std::string& text) {
  const std::string head = text.substr(0, 8192);
  return head.rfind("\"ID\",", 0) == 0 || head.find("\n\"ID\",") != std::string::npos ||
         head.find("==PROF==") != std::string::npos;
}

json op_json(const core::OpCall& o) {
  json dims = json::array(), types = json::array(), strides = json::array(), concrete = json::array();
  for (const core::OpArg& a : o.args) {
    dims.push_back(a.dims);
    types.push_back(a.type);
    strides.push_back(a.strides);
    concrete.push_back(a.concrete);
  }
  return {{"name", o.name}, {"input_dims", dims}, {"input_types", types}, {"input_strides", strides},
          {"concrete_inputs", concrete}};
}

json context_json(const core::ReferenceContext& c) {
  return {{"op", core::to_string(c.op)},       {"framework_op", c.framework_op},
          {"shape", shape_string(c)},          {"has_bias", c.has_bias},
          {"operand_type", core::to_string(c.operand_type)},
          {"engine", core::to_string(c.engine)}, {"engine_reason", c.engine_reason},
          {"role", c.helper_kernel ? "helper" : "main"}, {"name_rule", c.name_rule},
          {"op_reason", c.op_reason}};
}

/// The ranking of a trace as JSON: per group its launches, shares, op stack and context, and the
/// first launch's position among the trace's launches of the same function base name (what an ncu
/// `--launch-skip` under a `^base$` filter counts).
json trace_json(const core::TorchTrace& tr, const std::string& file, std::size_t top) {
  const std::vector<core::HotKernel> all = core::rank_hot_kernels(tr, 0);
  std::vector<std::string> base(tr.kernels.size());
  for (std::size_t i = 0; i < tr.kernels.size(); ++i) base[i] = core::kernel_base_name(tr.kernels[i].name);
  const core::CommunicationTime comm = core::communication_time(tr);
  json hot = json::array();
  for (const core::HotKernel& h : all) {
    if (top > 0 && h.rank > top) break;
    const std::size_t first = h.launches.front();
    const core::TraceKernel& k = tr.kernels[first];
    std::size_t index = 0, same = 0;
    for (std::size_t i = 0; i < tr.kernels.size(); ++i) {
      if (base[i] != base[first]) continue;
      if (i < first) ++index;
      ++same;
    }
    json stack = json::array();
    for (const core::OpCall& o : k.op_stack) stack.push_back(op_json(o));
    hot.push_back({{"rank", h.rank}, {"id", fmt::format("k{}", h.rank)}, {"name", k.name}, {"base_name", base[first]},
                   {"grid", k.grid}, {"block", k.block}, {"launches", h.launches.size()}, {"total_us", h.total_us},
                   {"mean_us", h.total_us / static_cast<double>(h.launches.size())}, {"share", h.share},
                   {"cumulative_share", h.cumulative_share}, {"key", h.key},
                   {"registers_per_thread", k.registers_per_thread}, {"shared_memory", k.shared_memory_bytes},
                   {"base_launch_index", index}, {"base_launches", same}, {"op_stack", stack},
                   {"context", context_json(core::build_context(k, nullptr, core::Arch::kHopper))}});
  }
  return {{"schema", "vxsynth.hot/1"},
          {"file", file},
          {"gpu", tr.gpu_name},
          {"total_kernel_us", tr.total_kernel_time_us()},
          {"kernel_launches", tr.kernels.size()},
          {"distinct_kernels", all.size()},
          {"coverage", hot.empty() ? 0.0 : hot.back()["cumulative_share"].get<double>()},
          {"communication", {{"launches", comm.launches}, {"total_us", comm.total_us}, {"share", comm.share}}},
          {"hot", hot}};
}

int run_trace(const Options& o, const std::string& text) {
  const core::TorchTrace tr =
      is_gzip(text) ? core::parse_torch_trace(core::gunzip(text, o.file), o.file) : core::parse_torch_trace(text, o.file);
  if (o.json) {
    std::cout << trace_json(tr, o.file, o.top).dump(1) << "\n";
    return 0;
  }
  std::cout << fmt::format("{}: torch trace on {} (CC {}.{}), {:.1f} us GPU time in {} kernel launches; "
                           "no ncu counters: engine class from kernel names\n",
                           o.file, tr.gpu_name.empty() ? "unknown GPU" : tr.gpu_name, tr.cc_major, tr.cc_minor,
                           tr.total_kernel_time_us(), tr.kernels.size());
  const core::CommunicationTime comm = core::communication_time(tr);
  if (comm.launches > 0)
    std::cout << fmt::format("{} communication kernel launches (NCCL), {:.1f} us = {:.2f} % of GPU time: counted in "
                             "the total, not ranked (no operator)\n",
                             comm.launches, comm.total_us, 100.0 * comm.share);
  std::vector<Row> rows;
  for (const core::HotKernel& h : core::rank_hot_kernels(tr, o.top)) {
    const core::TraceKernel& k = tr.kernels[h.launches.front()];
    rows.push_back({h.rank, h.launches.size(), fmt::format("k{}", h.rank), k.name, h.share, h.cumulative_share,
                    core::build_context(k, nullptr, core::Arch::kHopper), "-"});
  }
  print(rows, o.name_width);
  print_reasons(rows);
  return 0;
}

int run(const Options& o) {
  const std::string text = read_file(o.file);
  if (is_trace(text)) return run_trace(o, text);
  if (is_ncu_csv(text))
    throw make_error("{}: an Nsight Compute CSV, not a bundle or trace: {}. Import the CSV with its torch trace first: "
                     "vxsynth profile import --trace TRACE.json.gz --ncu {} -o BUNDLE.json, then vxsynth hot BUNDLE.json",
                     o.file, kAccepts, o.file);
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    throw make_error("{}: neither a bundle nor a trace: {}; this file is not valid JSON ({})", o.file, kAccepts,
                     e.what());
  }
  if (!j.is_object() || !j.contains("kernels"))
    throw make_error("{}: JSON without a 'kernels' array, neither a bundle nor a trace: {}", o.file, kAccepts);
  const core::ReferenceBundle b = core::bundle_from_json(j, o.file);
  if (o.json) {
    std::cout << core::to_json(b).dump(1) << "\n";
    return 0;
  }
  std::cout << fmt::format("{}: workload {} on {} ({}), {:.1f} us GPU time in {} kernel launches\n", o.file,
                           b.workload, b.provenance.gpu.value_or("unknown GPU"), core::arch_info(b.arch).sm,
                           b.gpu_time_total_us, b.kernel_launches);
  std::vector<Row> rows;
  for (const core::BundleKernel& k : b.kernels) {
    if (o.top > 0 && k.rank > o.top) break;
    rows.push_back({k.rank, k.launches, k.id, k.name, k.share, k.cumulative_share, k.context,
                    k.signature ? "yes" : "no"});
  }
  print(rows, o.name_width);
  print_reasons(rows);
  return 0;
}

}  // namespace

Runner setup_hot(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.add_option("file", o->file, "reference bundle (vxsynth profile import -o) or torch trace (.json/.json.gz)")
      ->required();
  app.add_option("--top", o->top, "show the first K ranks (0 = all)")->capture_default_str();
  app.add_option("--name-width", o->name_width, "kernel-name column width")->capture_default_str();
  app.add_flag("--json", o->json, "print JSON: a trace's ranking with op stacks and contexts, or the bundle");
  return [o] { return run(*o); };
}

}  // namespace vxsynth::cli
