// vxsim CLI: runs a .vxbin or .elf on the functional simulator or, with the timing options, on the
// timing model (docs/vxsim.md). The SIGNATURE lines and --signature come from core/'s signature
// adapter, which this executable links as the object vxsynth_vortex_signature_hook (it installs
// itself before main(); vxsim/timing/signature_hook.h).
#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>

#include "vxsim/core.h"
#include "vxsim/error.h"
#include "vxsim/loader.h"
#include "vxsim/timing/cli.h"
#include "vxsynth/common/version.h"

int main(int argc, char** argv) {
  CLI::App app{"vxsim: functional simulator of the Vortex 2.x GPGPU"};
  vxsim::Config cfg;
  std::string program;
  bool no_strict = false;
  bool trace = false;
  app.add_option("--clusters", cfg.clusters, "number of clusters")->capture_default_str();
  app.add_option("--cores", cfg.cores, "cores per cluster")->capture_default_str();
  app.add_option("--warps", cfg.warps, "warps per core (1..32)")->capture_default_str();
  app.add_option("--threads", cfg.threads, "threads per warp (1..32)")->capture_default_str();
  app.add_option("--budget", cfg.instr_budget,
                 "stop after this many warp instructions, all cores together (0 = unlimited)")
      ->capture_default_str();
  app.add_option("--time-limit", cfg.time_limit_s, "stop after this many seconds of wall-clock time (0 = unlimited)")
      ->capture_default_str();
  app.add_option("--host-threads", cfg.host_threads,
                 "host threads for a device of several cores (0 = VXSIM_HOST_THREADS, else all of the machine's; "
                 "capped at the partitions; results do not depend on it)")
      ->capture_default_str();
  app.add_flag("--no-strict-divergence", no_strict, "let divergent branches follow the highest active lane");
  app.add_flag("--check-races", cfg.check_races,
               "stop with an error when two warps access one local-memory word with no barrier between them "
               "and one of them stores (docs/vxsim.md \"Local-memory race checker\")");
  app.add_flag("--trace", trace, "print a per-warp disassembled instruction trace to stderr");
  vxsim::timing::CliOptions timing;  // --timing, --config, --set, --perf, --signature (sim/timing)
  vxsim::timing::add_cli_options(app, timing);
  app.add_option("program", program, "kernel image (.vxbin or .elf)");
  app.set_version_flag("--version", vxsynth::version_line("vxsim"), "print the version and git commit, then exit");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version exit 0; a bad command line exits 2 like every other bad input
    // (docs/errors.md) rather than with CLI11's per-error codes (101–120).
    return app.exit(e) == 0 ? 0 : 2;
  }
  try {
    if (vxsim::timing::handle_dump_config(timing, std::cout)) return 0;
  } catch (const vxsynth::Error& e) {
    std::cerr << "vxsim: error: " << e.what() << "\n";
    return 2;
  }
  if (program.empty()) {
    std::cerr << "vxsim: error: program is required\n" << app.help();
    return 2;
  }
  cfg.strict_divergence = !no_strict;
  std::unique_ptr<vxsim::Processor> owner;
  try {
    owner = std::make_unique<vxsim::Processor>(cfg);
    vxsim::Processor& proc = *owner;
    if (trace) proc.set_trace(&std::cerr);
    vxsim::load_program(proc, program);
    proc.reset();
    vxsim::RunResult r = timing.enabled() ? vxsim::timing::run_cli(proc, timing, program, std::cout) : proc.run();
    for (uint32_t c = 0; c < proc.num_cores(); ++c) {
      if (!proc.core(c).halt_reason().empty()) std::cerr << "vxsim: note: core stopped by " << proc.core(c).halt_reason() << "\n";
    }
    return static_cast<int>(r.exit_code);
  } catch (const vxsynth::Error& e) {
    if (owner) owner->flush_console();  // what the kernel printed before the fault
    std::cerr << "vxsim: error: " << e.what() << "\n";
    return 2;
  }
}
