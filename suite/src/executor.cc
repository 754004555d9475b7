#include "vxsynth/suite/executor.h"

#include <array>

#include "vxsynth/common/error.h"

namespace vxsynth::suite {
namespace {

constexpr std::array<ExecutorRow, 2> kExecutors{{
    {"local", "thread pool on this machine (-j jobs at once); ncu runs serialised by the suite's GPU lock",
     &make_local_executor},
    {"slurm", "one Slurm job array task per kernel plus a dependent collect job (sbatch; shared filesystem)",
     &make_slurm_executor},
}};

}  // namespace

std::span<const ExecutorRow> executors() { return kExecutors; }

std::unique_ptr<Executor> make_executor(std::string_view name, const ExecutorOptions& options) {
  std::string names;
  for (const ExecutorRow& r : kExecutors) {
    if (r.name == name) return r.make(options);
    names += (names.empty() ? "" : ", ") + std::string(r.name);
  }
  throw make_error("--executor '{}': not an executor ({})", name, names);
}

}  // namespace vxsynth::suite
