// No isolation: a plain child process under the runner's time limit (docs/sandbox.md "Isolation").
#include "vxsynth/refine/isolation.h"

namespace vxsynth::refine {
namespace {

class NoIsolation : public Isolation {
 public:
  bool isolates() const override { return false; }
  std::string description() const override {
    return "none: a plain child process with the caller's file system, network and environment "
           "(time limit and process-group kill only)";
  }
  ProcessResult run(const std::vector<std::string>& argv, const IsolatedRun& spec) const override {
    return run_process(argv, {spec.timeout_s, spec.work, spec.env});
  }
};

}  // namespace

std::shared_ptr<const Isolation> make_no_isolation() { return std::make_shared<NoIsolation>(); }

}  // namespace vxsynth::refine
