// vxsynth hot BUNDLE: the bundle's hot kernels ranked by GPU time (paper §4.1, Fig. 3).
#include <algorithm>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "format.h"
#include "subcommands.h"
#include "vxsynth/core/bundle.h"
#include "vxsynth/core/metrics.h"

namespace vxsynth::cli {
namespace {

struct Options {
  std::string bundle;
  std::size_t name_width = 100;
};

int run(const Options& o) {
  const core::ReferenceBundle b = core::read_bundle(o.bundle);
  std::cout << fmt::format("{}: workload {} on {} ({}), {:.1f} us GPU time in {} kernel launches\n", o.bundle,
                           b.workload, b.provenance.gpu.value_or("unknown GPU"), core::arch_info(b.arch).sm,
                           b.gpu_time_total_us, b.kernel_launches);
  std::size_t shape_w = 5;
  for (const core::BundleKernel& k : b.kernels) shape_w = std::max(shape_w, shape_string(k.context).size());
  std::cout << fmt::format("{:>4}  {:<4}  {:>7}  {:>7}  {:>5}  {:<11}  {:<4}  {:<7}  {:<{}}  {}  {}\n", "rank", "id",
                           "share", "cum.", "calls", "engine", "type", "op", "shape", shape_w, "sig", "kernel");
  for (const core::BundleKernel& k : b.kernels) {
    std::cout << fmt::format("{:>4}  {:<4}  {:>6.2f}%  {:>6.2f}%  {:>5}  {:<11}  {:<4}  {:<7}  {:<{}}  {:<3}  {}\n",
                             k.rank, k.id, 100.0 * k.share, 100.0 * k.cumulative_share, k.launches,
                             core::to_string(k.context.engine), core::to_string(k.context.operand_type),
                             core::to_string(k.context.op), shape_string(k.context), shape_w,
                             k.signature ? "yes" : "no", clip(k.name, o.name_width));
  }
  return 0;
}

}  // namespace

Runner setup_hot(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.add_option("bundle", o->bundle, "reference bundle (vxsynth profile import -o)")->required();
  app.add_option("--name-width", o->name_width, "kernel-name column width")->capture_default_str();
  return [o] { return run(*o); };
}

}  // namespace vxsynth::cli
