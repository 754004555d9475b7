#include "tool_probe.h"

#include <sstream>

#include <fmt/format.h>

#include "vxsynth/codegen/design_point.h"
#include "vxsynth/codegen/generator_version.h"
#include "vxsynth/codegen/toolchain.h"
#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/common/process.h"
#include "vxsynth/refine/agent.h"
#include "vxsynth/refine/backends.h"

namespace vxsynth::refine {

namespace fs = std::filesystem;

std::string tool_version(const std::vector<std::string>& argv) {
  try {
    const ProcessResult r = run_process(argv, {30.0});
    if (r.ok()) {
      std::istringstream lines(r.output);
      for (std::string line; std::getline(lines, line);)
        if (line.find("ersion ") != std::string::npos) return line;
      return r.output.substr(0, r.output.find('\n'));
    }
  } catch (const Error&) {
  }
  return "unavailable";
}

std::string sdk_tool(const fs::path& sdk_dir, std::string_view variable, std::string_view fallback) {
  try {
    std::istringstream lines(read_file(sdk_dir / "sdk.mk"));
    for (std::string line; std::getline(lines, line);) {
      if (!line.starts_with(variable)) continue;
      const size_t eq = line.find(":=");
      if (eq == std::string::npos || line.find_first_not_of(" \t", variable.size()) != eq) continue;
      const size_t b = line.find_first_not_of(" \t", eq + 2);
      const size_t e = line.find_last_not_of(" \t\r");
      if (b != std::string::npos && e >= b) return line.substr(b, e - b + 1);
    }
  } catch (const Error&) {
  }
  return std::string(fallback);
}

std::string sdk_compiler(const fs::path& sdk_dir) { return sdk_tool(sdk_dir, "VX_CXX", "riscv64-unknown-elf-g++"); }

std::map<std::string, std::string> common_tool_versions(const fs::path& sdk_dir, std::optional<fs::path>& nvcc) {
  std::map<std::string, std::string> v;
  v["riscv64-unknown-elf-g++"] = tool_version({sdk_compiler(sdk_dir), "--version"});
  nvcc = codegen::find_nvcc();
  if (nvcc) {
    const ProcessResult r = run_process({nvcc->string(), "--version"}, {30.0});
    v["nvcc"] = r.ok() ? tail_lines(r.output, 2) : "unavailable";
  }
  v["vxsynth"] = "0.1.0";
  v[codegen::kGeneratorVersionKey] = std::to_string(codegen::kGeneratorVersion);
  v[codegen::kDesignSpaceVersionKey] = std::to_string(codegen::kDesignSpaceVersion);
  v[kBuiltinAgentVersionKey] = std::to_string(kBuiltinAgentVersion);
  return v;
}

bool gpu_present() {
  try {
    const ProcessResult r = run_process({"nvidia-smi", "-L"}, {20.0});
    return r.ok() && r.output.find("GPU") != std::string::npos;
  } catch (const Error&) {
    return false;
  }
}

std::optional<std::string> gpu_name() {
  try {
    const ProcessResult r = run_process({"nvidia-smi", "--query-gpu=name", "--format=csv,noheader"}, {20.0});
    if (!r.ok()) return std::nullopt;
    std::string first = r.output.substr(0, r.output.find('\n'));
    while (!first.empty() && (first.back() == '\r' || first.back() == ' ')) first.pop_back();
    if (first.empty()) return std::nullopt;
    return first;
  } catch (const Error&) {
    return std::nullopt;
  }
}

std::string reference_gpu_mismatch(std::string_view measured, std::string_view reference,
                                   std::string_view measured_from) {
  if (measured.empty() || reference.empty() || measured == reference) return {};
  return fmt::format("the candidate is measured on '{}' ({}) but the reference kernels were profiled on '{}' (the "
                     "bundle's provenance gpu): a distance across two GPU models compares their hardware (DRAM "
                     "bandwidth, clocks, cache sizes), not the kernels; profile the workload on this GPU "
                     "(scripts/device-profile.sh, docs/suite.md \"Another GPU\") and reconstruct "
                     "against that bundle",
                     measured, measured_from, reference);
}

}  // namespace vxsynth::refine
