#pragma once
// The `vxsynth` subcommand table. Adding a subcommand = one row in subcommands.cc plus one
// setup function (declared here, defined in its own cmd_<name>.cc) that registers the options on
// the CLI11 app it is given and returns the function that runs the command.

#include <functional>
#include <span>
#include <string_view>

#include <CLI/CLI.hpp>

namespace vxsynth::cli {

/// Runs a parsed subcommand; returns the process exit status (0 = success). Throws vxsynth::Error
/// for bad input: main() prints it and exits 2.
using Runner = std::function<int()>;

/// Registers a subcommand's options and positionals on `app`; the returned Runner reads them.
using Setup = Runner (*)(CLI::App& app);

/// One row of the subcommand table.
struct Subcommand {
  std::string_view path;  ///< words from the top, e.g. "profile import" (parents are created)
  std::string_view help;  ///< one line for --help
  Setup setup;
};

/// THE table.
std::span<const Subcommand> subcommands();

// ---- setup functions, one per row ------------------------------------------------------------
Runner setup_profile_import(CLI::App& app);  // cmd_profile.cc
Runner setup_hot(CLI::App& app);             // cmd_hot.cc
Runner setup_distance(CLI::App& app);        // cmd_distance.cc
Runner setup_metrics(CLI::App& app);         // cmd_metrics.cc
Runner setup_kernel_name(CLI::App& app);     // cmd_kernel_name.cc
Runner setup_signature(CLI::App& app);       // cmd_signature.cc
Runner setup_reconstruct(CLI::App& app);     // cmd_reconstruct.cc (refine/)
Runner setup_sandbox_run(CLI::App& app);     // cmd_sandbox.cc (refine/)
Runner setup_suite_build(CLI::App& app);     // cmd_suite.cc (suite/)
Runner setup_suite_job(CLI::App& app);       // cmd_suite.cc
Runner setup_suite_collect(CLI::App& app);   // cmd_suite.cc
Runner setup_suite_check(CLI::App& app);     // cmd_suite.cc
Runner setup_suite_export(CLI::App& app);    // cmd_suite.cc
Runner setup_suite_materialize(CLI::App& app);  // cmd_suite.cc
Runner setup_suite_run(CLI::App& app);       // cmd_suite.cc
Runner setup_sweep(CLI::App& app);           // cmd_sweep.cc (sweep/)
Runner setup_sweep_job(CLI::App& app);       // cmd_sweep.cc
Runner setup_sweep_collect(CLI::App& app);   // cmd_sweep.cc
Runner setup_report(CLI::App& app);          // cmd_report.cc (report/)

}  // namespace vxsynth::cli
