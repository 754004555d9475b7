// vxsynth: command-line front end. Subcommands come from the table in subcommands.cc.
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "subcommands.h"
#include "vxsynth/common/error.h"
#include "vxsynth/common/version.h"

int main(int argc, char** argv) {
  CLI::App app{"vxsynth: build Vortex GPU benchmarks from profiles of real workloads"};
  app.require_subcommand(1);
  app.set_version_flag("--version", vxsynth::version_line("vxsynth"), "print the version and git commit, then exit");
  std::map<CLI::App*, vxsynth::cli::Runner> runners;
  for (const auto& row : vxsynth::cli::subcommands()) {
    std::istringstream words{std::string(row.path)};
    std::vector<std::string> path;
    for (std::string w; words >> w;) path.push_back(w);
    CLI::App* parent = &app;
    for (std::size_t i = 0; i + 1 < path.size(); ++i) {
      CLI::App* next = nullptr;
      for (CLI::App* sub : parent->get_subcommands([](CLI::App*) { return true; }))
        if (sub->get_name() == path[i]) next = sub;
      if (!next) {
        next = parent->add_subcommand(path[i], path[i] + " commands");
        next->require_subcommand(1);
      }
      parent = next;
    }
    CLI::App* cmd = parent->add_subcommand(path.back(), std::string(row.help));
    runners[cmd] = row.setup(*cmd);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    (void)app.exit(e);
    return 2;
  }
  try {
    for (auto& [cmd, run] : runners)
      if (cmd->parsed()) return run();
  } catch (const vxsynth::Error& e) {
    std::cerr << "vxsynth: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "vxsynth: error: " << e.what() << "\n";
    return 2;
  }
  std::cerr << "vxsynth: no subcommand ran\n";
  return 2;
}
