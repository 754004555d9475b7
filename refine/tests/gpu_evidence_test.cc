// The committed GPU evidence (data/evidence/h200/reconstruct-ncu-*/, CUDA-first
// reconstruction on the H200, docs/reconstruct.md "GPU evidence") re-checked from its raw parts:
// every D in each record is recomputed from the ncu CSV that revision captured and the reference
// profile the run saved; the retain/revert decisions follow the δ rule; the summary agrees with
// the record. A hand-edited number, a CSV from another run or a changed distance/importer that
// no longer reproduces the recorded D makes this fail.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "vxsynth/common/file_io.h"
#include "vxsynth/core/bundle.h"
#include "vxsynth/core/metrics.h"
#include "vxsynth/core/ncu_import.h"
#include "vxsynth/refine/record.h"

namespace vxsynth::refine {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kEvidence = fs::path(VXSYNTH_SOURCE_DIR) / "data/evidence/h200";
/// H100 sessions keep exported suites (`<session>/<call>/<benchmark>/`).
const fs::path kEvidenceH100 = fs::path(VXSYNTH_SOURCE_DIR) / "data/evidence/h100";

std::vector<fs::path> run_dirs() {
  std::vector<fs::path> runs;
  if (fs::exists(kEvidence))
    for (const auto& session : fs::directory_iterator(kEvidence))
      for (const auto& run : fs::directory_iterator(session.path()))
        if (fs::is_regular_file(run.path() / "record.jsonl")) runs.push_back(run.path());
  if (fs::exists(kEvidenceH100))
    for (const auto& e : fs::recursive_directory_iterator(kEvidenceH100))
      if (e.is_directory() && fs::is_regular_file(e.path() / "record.jsonl")) runs.push_back(e.path());
  std::sort(runs.begin(), runs.end());
  return runs;
}

// The candidate's main kernel: the longest launch, as the ncu backend picks it.
const core::NcuKernel& longest(const core::NcuReport& rep) {
  const core::NcuKernel* best = nullptr;
  double t_best = -1.0;
  for (const auto& k : rep.kernels) {
    const core::NcuCell* t = k.find("gpu__time_duration.sum");
    const double v = t && t->value ? *t->value : 0.0;
    if (v > t_best) {
      t_best = v;
      best = &k;
    }
  }
  if (best == nullptr) throw std::runtime_error("no kernel in the CSV");
  return *best;
}

TEST(GpuEvidence, FourOpFamiliesAreCovered) {
  std::set<std::string> families;
  for (const fs::path& run : run_dirs()) {
    const json profile = json::parse(read_file(run / "reference/profile.json"));
    families.insert(profile["entry"]["context"]["op"].get<std::string>());
  }
  // matmul is π0's aten::matmul, lowered to bmm.
  for (const char* f : {"linear", "bmm", "conv1d", "conv2d"}) EXPECT_TRUE(families.count(f)) << f;
}

TEST(GpuEvidence, TheH100SessionsAreAmongTheRuns) {
  const auto runs = run_dirs();
  const auto h100 = std::count_if(runs.begin(), runs.end(), [](const fs::path& r) {
    return r.string().rfind(kEvidenceH100.string(), 0) == 0;
  });
  EXPECT_GE(h100, 10);  // warp-epilogue-seeds-2026-12-07: ten tensor-core seeds
}

TEST(GpuEvidence, EveryRecordedDistanceIsReproducedFromItsNcuCsv) {
  const auto runs = run_dirs();
  ASSERT_GE(runs.size(), 4u) << "no evidence under " << kEvidence;
  for (const fs::path& run : runs) {
    SCOPED_TRACE(run.filename().string());
    const json profile = json::parse(read_file(run / "reference/profile.json"));
    const core::Signature reference = core::signature_from_json(profile["signature"], (run / "reference/profile.json").string());
    const RecordRead rec = read_record(run / "record.jsonl", /*repair=*/false);
    ASSERT_FALSE(rec.repaired);
    ASSERT_FALSE(rec.entries.empty());
    int profiled = 0;
    double retained_d = 0.0;
    for (const RevisionEntry& e : rec.entries) {
      SCOPED_TRACE(fmt::format("r{}", e.revision));
      EXPECT_EQ(e.profile_backend, "ncu");
      if (e.decision == Decision::kReject) {
        EXPECT_FALSE(e.d.has_value());
        continue;
      }
      const fs::path csv = run / fmt::format("work/revisions/r{:04d}/cuda/ncu_raw.csv", e.revision);
      ASSERT_TRUE(fs::exists(csv)) << csv;
      const core::NcuReport rep = core::read_ncu_csv(csv);
      const core::NcuSignature sig = core::signature_from_ncu(longest(rep), rep.arch);
      const core::DistanceReport d = core::distance(sig.signature, reference);
      ASSERT_TRUE(d.d_value && e.d);
      EXPECT_NEAR(*d.d_value, *e.d, 1e-9);
      ++profiled;
      // Both output checks ran and passed for every profiled revision.
      EXPECT_TRUE(e.source_output.ran && e.source_output.passed) << e.source_output.detail;
      EXPECT_TRUE(e.candidate.ran && e.candidate.passed) << e.candidate.detail;
      if (e.decision == Decision::kSeed) {
        retained_d = *e.d;
      } else {
        EXPECT_EQ(e.decision == Decision::kRetain, should_retain(*e.d, retained_d));
        if (e.decision == Decision::kRetain) retained_d = *e.d;
      }
    }
    // A run whose seed was rejected (kept as evidence of why) has nothing profiled, only its reason;
    // every other run profiled its seed at least.
    if (rec.entries.front().decision == Decision::kReject) {
      EXPECT_FALSE(rec.entries.front().rejection_reason.empty());
      EXPECT_EQ(profiled, 0);
      continue;
    }
    EXPECT_GE(profiled, 1);
    // A run stopped before its lock (a wall-clock limit on the device) has no summary; its record
    // lines are complete and were checked above.
    if (!fs::exists(run / "summary.json")) continue;
    const json summary = json::parse(read_file(run / "summary.json"));
    EXPECT_NEAR(summary["seed_D"].get<double>(), *rec.entries.front().d, 1e-12);
    EXPECT_NEAR(summary["final_D"].get<double>(), retained_d, 1e-12);
    EXPECT_LE(summary["final_D"].get<double>(), summary["seed_D"].get<double>());
    EXPECT_EQ(summary["revisions_tried"].get<int>(), static_cast<int>(rec.entries.size()) - 1);
  }
}

}  // namespace
}  // namespace vxsynth::refine
