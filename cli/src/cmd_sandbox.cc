// vxsynth sandbox run [--isolation NAME] [--gpu] --work DIR [--hide DIR]... [--env K=V]... -- CMD...:
// runs one command the way vxsynth confines a candidate's build or run (refine/ isolation.h,
// docs/sandbox.md "Isolation"), so what a candidate sees can be looked at and checked on a machine.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "subcommands.h"
#include "vxsynth/common/error.h"
#include "vxsynth/refine/isolation.h"

namespace vxsynth::cli {
namespace {

struct Options {
  std::string isolation = "auto", work;
  std::vector<std::string> hide, writable, env, command;
  bool gpu = false;
  double timeout = 600;
};

int run(const Options& o) {
  std::string why;
  const auto iso = refine::make_isolation(refine::isolation_kind(o.isolation), &why);
  if (!iso) throw make_error("--isolation {}: does not work here: {}", o.isolation, why);
  refine::IsolatedRun r;
  r.work = o.work;
  for (const auto& h : o.hide) r.hidden.emplace_back(h);
  for (const auto& w : o.writable) r.writable.emplace_back(w);
  for (const auto& kv : o.env) {
    const size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) throw make_error("--env '{}': expected NAME=VALUE", kv);
    r.env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  r.gpu = o.gpu;
  r.timeout_s = o.timeout;
  std::cerr << "[sandbox] " << iso->description() << (iso->isolates() ? "" : (" (" + why + ")")) << "\n";
  const ProcessResult p = iso->run(o.command, r);
  std::cout << p.output;
  std::cerr << "[sandbox] " << p.status_text() << "\n";
  return p.exit_code >= 0 ? p.exit_code : 128 + p.term_signal;
}

}  // namespace

Runner setup_sandbox_run(CLI::App& app) {
  auto o = std::make_shared<Options>();
  std::string kinds;
  for (const auto& row : refine::isolation_table()) kinds += std::string(kinds.empty() ? "" : "; ") + row.name + ": " + row.summary;
  app.add_option("--isolation", o->isolation, kinds)->capture_default_str();
  app.add_option("--work", o->work, "the only writable directory, and the working directory")->required();
  app.add_option("--hide", o->hide, "a directory covered by an empty tmpfs (repeatable)");
  app.add_option("--writable", o->writable, "a further writable directory (repeatable)");
  app.add_option("--env", o->env, "NAME=VALUE set in the cleared environment (repeatable)");
  app.add_flag("--gpu", o->gpu, "the command uses the GPU (device nodes; the profiling capability where needed)");
  app.add_option("--timeout", o->timeout, "seconds")->capture_default_str();
  // The command: every word after "--" (CLI11 takes them as positionals, options included).
  app.add_option("command", o->command, "the command and its arguments, after --");
  app.footer("Exit status: the command's (128 + signal when it was killed); 2 error.");
  return [o] {
    if (o->command.empty()) throw make_error("sandbox run: no command (vxsynth sandbox run --work DIR -- CMD...)");
    return run(*o);
  };
}

}  // namespace vxsynth::cli
