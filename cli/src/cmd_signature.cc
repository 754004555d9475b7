// vxsynth signature BUNDLE#k1 [-o FILE]: a bundle kernel's signature as a standalone signature file
// (docs/reference-bundle.md), e.g. to edit by hand or to compare across platforms.
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "subcommands.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/core/bundle.h"

namespace vxsynth::cli {
namespace {

struct Options {
  std::string spec, output;
};

int run(const Options& o) {
  const core::SignatureRef s = core::load_signature_ref(o.spec);
  if (o.output.empty()) {
    const nlohmann::json j{{"schema", core::kSignatureSchema},
                           {"version", core::kSignatureVersion},
                           {"label", s.label},
                           {"metrics", core::signature_to_json(s.signature)}};
    std::cout << j.dump(2) << "\n";
  } else {
    core::write_signature(o.output, s.signature, s.label);
  }
  return 0;
}

}  // namespace

Runner setup_signature(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.add_option("source", o->spec, "BUNDLE.json#k1 (or a signature file)")->required();
  app.add_option("-o,--output", o->output, "signature file to write (default: print it)");
  return [o] { return run(*o); };
}

}  // namespace vxsynth::cli
