#pragma once
/// \file
/// Timing options of the `vxsim` command (sim/tools/vxsim_main.cc calls these two functions):
///   --timing               run the cycle-level timing model (implied by the options below)
///   --config FILE          timing configuration (TOML; defaults: sim/timing/configs/default.toml)
///   --set KEY=VALUE        override one timing parameter (repeatable), e.g. --set dcache.size=32768
///   --perf CLASS           PERF lines to print: 0 none (totals only), 1 core, 2 memory (default 2)
///   --signature FILE       write the ten-metric Vortex signature as JSON (core/'s signature schema;
///                          needs the signature adapter, vxsim/timing/signature_hook.h)
///   --mem-profile FILE     write the per-instruction D-cache/DRAM traffic (mem_profile.h) here as TSV
///   --dump-config          print every timing parameter as TOML and exit
/// After a timing run it prints the PERF lines (SimX's vx_dump_perf format), the TIMING totals and,
/// when the program has the signature adapter installed, the SIGNATURE lines.

#include <iosfwd>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "vxsim/core.h"

namespace vxsim::timing {

struct CliOptions {
  bool timing = false;
  std::string config;
  std::vector<std::string> sets;
  int perf = 2;
  std::string signature;
  std::string mem_profile;
  bool dump_config = false;
  /// True when any option asks for the timing model.
  [[nodiscard]] bool enabled() const {
    return timing || !config.empty() || !sets.empty() || !signature.empty() || !mem_profile.empty();
  }
};

/// Registers the options above on `app`.
void add_cli_options(CLI::App& app, CliOptions& opts);

/// Handles --dump-config: prints the configuration and returns true (the caller exits 0).
bool handle_dump_config(const CliOptions& opts, std::ostream& out);

/// Runs the reset processor in timing mode, prints the report to `out`, writes the signature file
/// if asked. `program` labels the signature. Throws vxsynth::Error / vxsim::SimError.
RunResult run_cli(Processor& proc, const CliOptions& opts, const std::string& program, std::ostream& out);

}  // namespace vxsim::timing
