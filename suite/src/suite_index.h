#pragma once
// suite.json and SUITE.md from the plan and the collected benchmark entries (docs/suite.md).

#include <string>

#include <nlohmann/json.hpp>

namespace vxsynth::suite {

/// suite.json (schema vxsynth.suite v1): the benchmarks with their Table 6 labels ("Linear-1", …)
/// and cumulative coverage, and per workload × platform the coverage accounting (benchmarks,
/// helpers with their share, kernels left out and why).
[[nodiscard]] nlohmann::json index_suite(const nlohmann::json& plan, nlohmann::json benchmarks);

/// SUITE.md: the benchmarks grouped by type in the columns of paper Table 6, then coverage per
/// workload (paper §4.1).
[[nodiscard]] std::string suite_markdown(const nlohmann::json& suite);

}  // namespace vxsynth::suite
