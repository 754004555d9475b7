// vxsynth kernel-name [--json] [--rules] NAME... | -: what the kernel-name rule table
// (core/src/kernel_names.cc) says about kernel names: function base name, family, engine class,
// library, role and the tile the name spells. The Python package reads its kernel-name facts from
// here (`--json`), so the rules exist once.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "subcommands.h"
#include "vxsynth/common/error.h"
#include "vxsynth/core/kernel_names.h"

namespace vxsynth::cli {
namespace {

using nlohmann::json;

struct Options {
  std::vector<std::string> names;
  bool json = false;
  bool rules = false;
};

std::string_view tile_syntax_name(core::TileSyntax t) {
  switch (t) {
    case core::TileSyntax::kNone: return "none";
    case core::TileSyntax::kNvjet: return "nvjet";
    case core::TileSyntax::kXmma: return "xmma";
    case core::TileSyntax::kCutlass2: return "cutlass2";
    case core::TileSyntax::kSgemm: return "sgemm";
  }
  return "?";
}

json rule_json(const core::KernelNameRule& r) {
  return {{"id", r.id},           {"pattern", r.pattern},   {"engine", core::to_string(r.engine)},
          {"library", r.library}, {"role", core::to_string(r.role)}, {"tile_syntax", tile_syntax_name(r.tile)},
          {"warpgroup_mma", r.warpgroup_mma}, {"source", r.source}};
}

json name_json(const std::string& name) {
  const core::NameHints h = core::classify_kernel_name(name);
  json j = {{"name", name}, {"base_name", core::kernel_base_name(name)}};
  j["rule"] = h.rule ? json(h.rule->id) : json(nullptr);
  j["engine"] = h.rule ? json(core::to_string(h.rule->engine)) : json(nullptr);
  j["library"] = h.rule ? json(h.rule->library) : json(nullptr);
  j["role"] = core::to_string(h.rule ? h.rule->role : core::KernelRole::kMain);
  j["tile"] = h.tile ? json{{"m", h.tile->m}, {"n", h.tile->n}, {"k", h.tile->k}, {"stages", h.tile->stages}}
                     : json(nullptr);
  return j;
}

/// The names to classify: the arguments, or stdin one per line when the only argument is "-".
std::vector<std::string> input_names(const Options& o) {
  if (!(o.names.size() == 1 && o.names[0] == "-")) return o.names;
  std::vector<std::string> out;
  for (std::string line; std::getline(std::cin, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

int run(const Options& o) {
  if (o.rules) {
    json rows = json::array();
    for (const core::KernelNameRule& r : core::kernel_name_rules()) rows.push_back(rule_json(r));
    if (o.json) {
      std::cout << json{{"schema", "vxsynth.kernel_name_rules/1"}, {"first_match_wins", true}, {"rules", rows}}.dump(1)
                << "\n";
    } else {
      for (const json& r : rows)
        std::cout << fmt::format("{:<22} {:<11} {:<13} {:<9} {:<13} {:<5} {}\n", r["id"].get<std::string>(),
                                 r["engine"].get<std::string>(), r["role"].get<std::string>(),
                                 r["tile_syntax"].get<std::string>(), r["library"].get<std::string>(),
                                 r["warpgroup_mma"].get<bool>() ? "wgmma" : "-", r["pattern"].get<std::string>());
    }
    return 0;
  }
  const std::vector<std::string> names = input_names(o);
  if (names.empty()) throw make_error("kernel-name: give kernel names (or '-' to read them from stdin, one per line)");
  json out = json::array();
  for (const std::string& n : names) out.push_back(name_json(n));
  if (o.json) {
    std::cout << json{{"schema", "vxsynth.kernel_names/1"}, {"names", out}}.dump(1) << "\n";
    return 0;
  }
  for (const json& r : out)
    std::cout << fmt::format("{}\n  base {}  rule {}  engine {}  role {}\n", r["name"].get<std::string>(),
                             r["base_name"].get<std::string>(), r["rule"].is_null() ? "-" : r["rule"].get<std::string>(),
                             r["engine"].is_null() ? "-" : r["engine"].get<std::string>(),
                             r["role"].get<std::string>());
  return 0;
}

}  // namespace

Runner setup_kernel_name(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.add_option("names", o->names, "kernel names as ncu or the torch trace print them; '-' reads stdin, one per line");
  app.add_flag("--json", o->json, "print JSON (what the Python package reads)");
  app.add_flag("--rules", o->rules, "print the rule table itself instead");
  return [o] { return run(*o); };
}

}  // namespace vxsynth::cli
