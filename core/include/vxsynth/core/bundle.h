#pragma once
/// \file
/// The reference bundle: per hot kernel of one workload on one platform, its reference context
/// (fixed properties), its ten-metric signature and the raw ncu values behind it, with provenance.
/// Schema "vxsynth.reference-bundle" version 1, documented field by field in
/// docs/reference-bundle.md. Also the standalone signature file ("vxsynth.signature" version 1).

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vxsynth/core/context.h"
#include "vxsynth/core/metrics.h"
#include "vxsynth/core/ncu_import.h"
#include "vxsynth/core/signature.h"
#include "vxsynth/core/torch_trace.h"

namespace vxsynth::core {

inline constexpr std::string_view kBundleSchema = "vxsynth.reference-bundle";
inline constexpr int kBundleVersion = 1;
inline constexpr std::string_view kSignatureSchema = "vxsynth.signature";
inline constexpr int kSignatureVersion = 1;

/// Where the numbers come from (CONTRIBUTING: every GPU figure carries its provenance). Every
/// field is present in the JSON; nullopt (JSON null) = not known.
struct Provenance {
  std::optional<std::string> gpu, cc, driver, cuda, ncu, torch, command, date, clock_control, cache_control;
  std::string trace_file, ncu_file;  ///< file names the bundle was imported from
  nlohmann::json extra = nlohmann::json::object();  ///< any other keys of the --provenance file
};

/// One hot kernel of the bundle.
struct BundleKernel {
  std::string id;                 ///< "k<rank>", the handle `bundle.json#k1` uses
  std::size_t rank = 0;
  std::string name;               ///< kernel name as the torch trace spells it
  std::size_t launches = 0;
  double total_us = 0, share = 0, cumulative_share = 0;
  ReferenceContext context;
  std::optional<Signature> signature;   ///< nullopt when ncu profiled no launch of this kernel
  std::vector<int64_t> ncu_ids;         ///< ncu "ID"s of the profiled launches (signature: the first)
  std::vector<NcuInput> ncu_raw;        ///< raw ncu values behind the signature, with units
  std::vector<std::string> notes;       ///< why a metric is NA, join remarks
};

/// A kernel of the trace (a hot-kernel group of the full ranking) that no ncu row matched: ncu did
/// not profile it (a filtered capture: -k, --launch-count) or the CSV is cut short.
struct UnprofiledKernel {
  std::size_t rank = 0;     ///< rank in the trace's full hot-kernel ranking (k<rank> when kept)
  std::string name;         ///< kernel name as the torch trace spells it
  std::size_t launches = 0;
  double share = 0;         ///< fraction of the trace's kernel time
};

/// A reference bundle.
struct ReferenceBundle {
  std::string workload;           ///< free text, e.g. "act-h200" (defaults to the trace file stem)
  Arch arch = Arch::kHopper;      ///< architecture of the ncu file
  Provenance provenance;
  double gpu_time_total_us = 0;   ///< Σ kernel durations in the trace
  std::size_t kernel_launches = 0;  ///< kernel events in the trace
  std::vector<BundleKernel> kernels;  ///< hot kernels by rank
  /// Trace kernels without an ncu row, by rank; nullopt for a bundle written before the field existed.
  std::optional<std::vector<UnprofiledKernel>> unprofiled;
  /// Kernel by id ("k1") or by rank ("1"); throws vxsynth::Error listing the ids when absent.
  [[nodiscard]] const BundleKernel& kernel(std::string_view id) const;
};

/// Options of import_profile.
/// A launch-exact ncu capture of one hot group (profile: a `^base$` filter, --launch-skip at the
/// group's first launch, --launch-count 1), for a group the main capture cannot be joined to
/// because its launch geometry is shared (NcuJoin::ambiguous_ncu).
struct ExtraNcu {
  std::size_t rank = 0;  ///< the hot group's rank in this trace
  std::string key;       ///< the group's hot_group_key when known ("" = not checked)
  NcuReport report;
};

/// File beside a main ncu CSV that lists its launch-exact captures (written by vxsynth_torch.profile):
/// a JSON array of {"rank": R, "key": hot_group_key, "csv": file name in the same directory}.
inline constexpr const char* kExtraCapturesFile = "ncu_extra.json";

/// The launch-exact captures listed in kExtraCapturesFile beside `ncu_csv` (none when it is absent).
/// Throws vxsynth::Error naming the file and entry on a malformed list or an unreadable CSV.
[[nodiscard]] std::vector<ExtraNcu> read_extra_captures(const std::filesystem::path& ncu_csv,
                                                        const NcuImportOptions& options = {});

struct ImportOptions {
  std::size_t top_k = 5;               ///< paper §4.1: top five per workload and platform; 0 = all
  std::string workload;                ///< "" → trace file stem
  nlohmann::json provenance = nlohmann::json::object();  ///< contents of --provenance (optional)
  std::vector<ExtraNcu> extra;         ///< used for groups that no row of the main capture joins
  bool extra_from_file = true;         ///< also read_extra_captures(ncu.path)
};

/// Ranks the trace's hot kernels, joins them to the ncu rows, and builds context + signature for
/// each; lists the trace's kernels that no ncu row matched in `unprofiled`. Throws vxsynth::Error
/// when the trace's deviceProperties CC differs from the ncu file's, when no ncu row matches any
/// trace kernel (different workloads?), and when a signature metric computed from a row is out of
/// its range (metric_range_problem; names the ncu file, line, kernel and metric).
[[nodiscard]] ReferenceBundle import_profile(const TorchTrace& trace, const NcuReport& ncu,
                                             const ImportOptions& options = {});

/// JSON conversion. The readers validate: unknown schema/version, a missing or ill-typed field, an
/// unknown metric key, a metric out of its range, a duplicate kernel id or rank, a count below 0
/// (launches below 1), a shape extent outside 1..2^31-1 (gemm, conv), an empty convolution output,
/// an op without its shape, a block above 1024 threads, and more than 255 registers raise
/// vxsynth::Error naming `where` and the field path (e.g. "b.json: kernels[2].context.gemm.m: 0 is
/// below 1"; the full list is in docs/reference-bundle.md, "What the reader checks").
[[nodiscard]] nlohmann::json to_json(const ReferenceBundle& b);
[[nodiscard]] ReferenceBundle bundle_from_json(const nlohmann::json& j, const std::string& where);
[[nodiscard]] nlohmann::json signature_to_json(const Signature& s);  ///< {"l1_hit_rate": 12.5, …, null for NA}
[[nodiscard]] Signature signature_from_json(const nlohmann::json& metrics, const std::string& where);
[[nodiscard]] nlohmann::json context_to_json(const ReferenceContext& c);
[[nodiscard]] ReferenceContext context_from_json(const nlohmann::json& j, const std::string& where);
/// The context of a bundle kernel's JSON entry (a bundle's kernels[i], a run's profile.json
/// "entry"), with ReferenceContext::tensor_ops derived from its ncu raw inputs as read_bundle does
/// (the architecture from provenance.cc); an entry without "ncu" or "provenance" leaves it 0.
[[nodiscard]] ReferenceContext entry_context(const nlohmann::json& entry, const std::string& where);

/// Why `x` is not a possible value of metric `def` (empty when it is): every metric is >= 0,
/// fractions are <= 1, percentages are <= 100 except coalescing, which ncu reports above 100 % for
/// broadcast loads (several lanes reading the same bytes count their bytes once per lane).
[[nodiscard]] std::string metric_range_problem(const MetricDef& def, double x);

/// Files. Writers use vxsynth::write_file_atomic.
[[nodiscard]] ReferenceBundle read_bundle(const std::filesystem::path& path);
void write_bundle(const std::filesystem::path& path, const ReferenceBundle& b);
void write_signature(const std::filesystem::path& path, const Signature& s, const std::string& label);

/// A signature operand of `vxsynth distance`: a signature file, or `bundle.json#k1` (a kernel of a
/// bundle). Throws vxsynth::Error naming the file, or the missing kernel id, or a kernel without
/// a signature.
struct SignatureRef {
  Signature signature;
  std::string label;  ///< what to call it in reports
};
[[nodiscard]] SignatureRef load_signature_ref(const std::string& spec);

}  // namespace vxsynth::core
