#include "vxsim/timing/cli.h"

#include <ostream>

#include <fmt/format.h>

#include "vxsim/timing/perf_report.h"
#include "vxsim/timing/signature_hook.h"
#include "vxsim/timing/simulator.h"
#include "vxsynth/common/file_io.h"

namespace vxsim::timing {
namespace {

TimingConfig load_config(const CliOptions& opts) {
  TimingConfig cfg;
  if (!opts.config.empty()) load_toml(cfg, opts.config);
  for (const std::string& s : opts.sets) apply_override(cfg, s);
  return cfg;
}

}  // namespace

void add_cli_options(CLI::App& app, CliOptions& o) {
  app.add_flag("--timing", o.timing, "run the cycle-level timing model (sim/timing)");
  app.add_option("--config", o.config, "timing configuration, TOML (implies --timing)");
  app.add_option("--set", o.sets, "override a timing parameter, KEY=VALUE (repeatable; implies --timing)")
      ->allow_extra_args(false);
  app.add_option("--perf", o.perf, "PERF lines: 0 totals, 1 core class, 2 memory class")
      ->check(CLI::Range(0, 2))
      ->capture_default_str();
  app.add_option("--signature", o.signature, "write the Vortex signature JSON here (implies --timing)");
  app.add_option("--mem-profile", o.mem_profile,
                 "write each memory instruction's D-cache and DRAM traffic here, tab-separated (implies --timing)");
  app.add_flag("--dump-config", o.dump_config, "print every timing parameter as TOML and exit");
}

bool handle_dump_config(const CliOptions& opts, std::ostream& out) {
  if (!opts.dump_config) return false;
  out << dump_toml(load_config(opts));
  return true;
}

RunResult run_cli(Processor& proc, const CliOptions& opts, const std::string& program, std::ostream& out) {
  if (!opts.mem_profile.empty()) vxsynth::check_output_path(opts.mem_profile, "--mem-profile");  // before the run
  TimingSimulator sim(proc, load_config(opts));
  if (!opts.mem_profile.empty()) sim.enable_mem_profile();
  const uint64_t cycles = sim.run();
  if (const MemProfile* prof = sim.mem_profile(); prof != nullptr)
    vxsynth::write_file_atomic(opts.mem_profile, std::string(MemProfile::header()) + prof->table(0));
  const DeviceCounters c = sim.counters();
  const CoreCounters t = c.total();
  out << format_perf_report(sim.model(), static_cast<MpmClass>(opts.perf));
  out << fmt::format("TIMING: cycles={} warp_instrs={} thread_instrs={} IPC={:.4f} (thread instrs per cycle)\n", cycles,
                     t.warp_instrs, t.thread_instrs,
                     cycles == 0 ? 0.0 : static_cast<double>(t.thread_instrs) / static_cast<double>(cycles));
  out << fmt::format("TIMING: dram bytes read={} written={}, lmem reads={} writes={} bank stalls={}\n",
                     c.dram.bytes_read, c.dram.bytes_written, t.lmem_reads, t.lmem_writes, t.lmem_bank_stalls);
  // The ten metrics come from the installed signature adapter (signature_hook.h); a program linked
  // without one prints the counters only, and --signature says what is missing.
  if (const SignatureAdapter* adapter = signature_adapter(); adapter != nullptr) out << adapter->report_lines(c, sim.config());
  if (!opts.signature.empty())
    vxsynth::write_file_atomic(opts.signature,
                               require_signature_adapter("--signature").run_file(c, sim.config(), program));
  RunResult r;
  r.warp_instrs = t.warp_instrs;
  r.thread_instrs = t.thread_instrs;
  r.exit_code = proc.exit_code();
  return r;
}

}  // namespace vxsim::timing
