// vxsynth profile import --trace T --ncu C [--ncu-extra RANK:CSV ...] [--provenance P.json] [--top K] [--arch A]
//                        [--workload W] [-o B]
#include <iostream>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "format.h"
#include "subcommands.h"
#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/core/bundle.h"
#include "vxsynth/core/hot.h"

namespace vxsynth::cli {
namespace {

struct Options {
  std::string trace, ncu, provenance, output, workload, arch;
  std::vector<std::string> extra;  ///< RANK:CSV
  std::size_t top = 5;
};

/// --ncu-extra RANK:CSV: a launch-exact capture of hot kernel kRANK.
core::ExtraNcu read_extra(const std::string& arg, const core::NcuImportOptions& nopt) {
  const std::size_t colon = arg.find(':');
  std::size_t rank = 0;
  try {
    std::size_t used = 0;
    rank = colon == std::string::npos ? 0 : std::stoul(arg.substr(0, colon), &used);
    if (used != colon) rank = 0;
  } catch (const std::exception&) {
    rank = 0;
  }
  if (rank == 0)
    throw make_error("--ncu-extra '{}': expected RANK:CSV (the hot kernel's rank from 1, a colon, the ncu CSV)", arg);
  return {rank, "", core::read_ncu_csv(arg.substr(colon + 1), nopt)};
}

// Warns about the trace's kernels that no ncu row matched: a filtered capture leaves some out by
// design, a CSV cut at a row boundary loses the last ones silently otherwise.
void print_unprofiled(std::ostream& info, const core::ReferenceBundle& b, const core::TorchTrace& trace,
                      const std::string& ncu_path) {
  const auto& u = *b.unprofiled;
  if (u.empty()) return;
  std::size_t groups = 0;
  for (const core::HotKernel& h : core::rank_hot_kernels(trace, 0)) groups += h.launches.empty() ? 0 : 1;
  double share = 0;
  for (const auto& k : u) share += k.share;
  info << fmt::format("warning: {} of {} trace kernels ({:.1f} % of GPU time) have no ncu row in {}: ncu did not "
                      "profile them (a filtered capture) or the file is cut short; they have no signature "
                      "(bundle field unprofiled_kernels):\n",
                      u.size(), groups, 100.0 * share, ncu_path);
  constexpr std::size_t kListed = 10;
  for (std::size_t i = 0; i < u.size() && i < kListed; ++i)
    info << fmt::format("  rank {} ({} launches, {:.1f} %): {}\n", u[i].rank, u[i].launches, 100.0 * u[i].share,
                        clip(u[i].name, 100));
  if (u.size() > kListed) info << fmt::format("  … and {} more\n", u.size() - kListed);
}

int run(const Options& o) {
  core::NcuImportOptions nopt;
  if (!o.arch.empty()) {
    nopt.expect_arch = core::arch_from_name(o.arch);
    if (!nopt.expect_arch) throw make_error("--arch: unknown architecture '{}' (sm_90, sm_80, sm_89, sm_87)", o.arch);
  }
  const core::TorchTrace trace = core::read_torch_trace(o.trace);
  const core::NcuReport ncu = core::read_ncu_csv(o.ncu, nopt);
  core::ImportOptions iopt;
  for (const std::string& e : o.extra) iopt.extra.push_back(read_extra(e, nopt));
  iopt.top_k = o.top;
  iopt.workload = o.workload;
  if (!o.provenance.empty()) {
    try {
      iopt.provenance = nlohmann::json::parse(read_file(o.provenance));
    } catch (const nlohmann::json::parse_error& e) {
      throw make_error("{}: not valid JSON: {}", o.provenance, e.what());
    }
    if (!iopt.provenance.is_object()) throw make_error("{}: expected a JSON object", o.provenance);
  }
  const core::ReferenceBundle b = core::import_profile(trace, ncu, iopt);
  const core::NcuJoin join = core::join_ncu(trace, ncu);
  const std::string text = core::to_json(b).dump(2) + "\n";
  std::ostream& info = o.output.empty() ? std::cerr : std::cout;
  if (o.output.empty()) {
    std::cout << text;
  } else {
    write_file_atomic(o.output, text);
  }
  std::size_t with_sig = 0;
  for (const auto& k : b.kernels) with_sig += k.signature ? 1 : 0;
  info << fmt::format("{}: {} hot kernels ({:.1f} % of {:.1f} us GPU time in {} launches), {} with a signature; "
                      "{} of {} ncu rows joined to the trace\n",
                      o.output.empty() ? "bundle" : o.output, b.kernels.size(),
                      b.kernels.empty() ? 0.0 : 100.0 * b.kernels.back().cumulative_share, b.gpu_time_total_us,
                      b.kernel_launches, with_sig,
                      ncu.kernels.size() - join.unmatched_ncu.size(), ncu.kernels.size());
  if (!join.ambiguous_ncu.empty())
    info << fmt::format("warning: {} ncu row(s) joined by launch order although several kernel groups share "
                        "their launch geometry (same kernel, grid and block at other operand shapes): the row may "
                        "belong to another shape; a group left without a row needs a launch-exact capture "
                        "(--ncu-extra RANK:CSV; vxsynth_torch.profile makes them)\n",
                        join.ambiguous_ncu.size());
  for (std::size_t n : join.unmatched_ncu)
    info << fmt::format("  ncu ID {} not in the trace: {}\n", ncu.kernels[n].id, clip(ncu.kernels[n].name, 100));
  constexpr std::size_t kListed = 10;
  for (std::size_t i = 0; i < ncu.warnings.size() && i < kListed; ++i) info << "warning: " << ncu.warnings[i] << "\n";
  if (ncu.warnings.size() > kListed)
    info << fmt::format("warning: … and {} more cells outside their range (the kernels' notes say which)\n",
                        ncu.warnings.size() - kListed);
  print_unprofiled(info, b, trace, o.ncu);
  return 0;
}

}  // namespace

Runner setup_profile_import(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.add_option("--trace", o->trace, "PyTorch profiler Chrome trace (.json or .json.gz)")->required();
  app.add_option("--ncu", o->ncu, "ncu CSV: --csv --page raw (or details) --print-units base")->required();
  app.add_option("--ncu-extra", o->extra, "RANK:CSV, repeatable: a launch-exact ncu capture of hot kernel "
                                         "kRANK (for a kernel whose launch geometry other groups share)");
  app.add_option("--provenance", o->provenance, "JSON object: gpu, driver, cuda, ncu, torch, command, date, "
                                                "clock_control, cache_control (other keys kept as extra)");
  app.add_option("--top", o->top, "hot kernels to keep (0 = all)")->capture_default_str();
  app.add_option("--arch", o->arch, "reject an ncu file from another architecture (sm_90, sm_80, sm_89, sm_87)");
  app.add_option("--workload", o->workload, "workload name (default: the trace file's stem)");
  app.add_option("-o,--output", o->output, "bundle to write (default: print it)");
  return [o] { return run(*o); };
}

}  // namespace vxsynth::cli
