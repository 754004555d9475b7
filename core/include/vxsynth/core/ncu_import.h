#pragma once
/// \file
/// Importer for Nsight Compute CSV exports (docs/ncu.md §5):
///   ncu --import R.ncu-rep --csv --page raw --print-units base      (wide: one row per kernel)
///   ncu --import R.ncu-rep --csv --page details --print-units base  (long: one row per kernel×metric)
/// Both layouts are detected from the header. Columns are found by name, never by position (NVTX
/// columns shift them); preamble lines before the `"ID",` header are skipped; thousands separators
/// inside quotes and `n/a` cells are handled. Every ncu metric the signature needs on the file's
/// architecture must have a column: ncu drops unknown names silently, so a missing column is an
/// error that names the metric (docs/signature.md §1).

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vxsynth/core/metrics.h"
#include "vxsynth/core/signature.h"

namespace vxsynth::core {

/// One metric cell: its unit (from the units row, or the details page's "Metric Unit") and value.
struct NcuCell {
  std::string unit;
  std::optional<double> value;  ///< nullopt for `n/a`, empty or non-numeric text
  std::string text;             ///< the cell as written (thousands separators kept)
  std::size_t line = 0;         ///< 1-based line of the row that holds the value
  std::size_t unit_line = 0;    ///< 1-based line that states the unit (raw page: the units row)
  /// Why `value` is nullopt although the cell holds a number (a percentage ncu could not collect
  /// accurately, above 100 %); empty otherwise.
  std::string not_used;
};

/// The raw-page column with the GPU's name ("NVIDIA H200"), on every kernel row.
inline constexpr std::string_view kGpuNameMetric = "device__attribute_display_name";

/// One profiled kernel launch.
struct NcuKernel {
  int64_t id = 0;                ///< ncu's "ID": 0..N-1 in profiling order
  std::string name;              ///< "Kernel Name" as ncu prints it (demangled, renamed)
  std::string device;            ///< "Device" column (index)
  std::string cc;                ///< "CC", e.g. "9.0"
  std::string process;           ///< "Process Name"
  std::string stream;            ///< "Stream"
  std::array<uint32_t, 3> block{1, 1, 1};  ///< "Block Size" "(x, y, z)"
  std::array<uint32_t, 3> grid{1, 1, 1};   ///< "Grid Size"
  std::map<std::string, NcuCell, std::less<>> metrics;  ///< every metric column, by name
  std::size_t line = 0;          ///< 1-based line of the kernel's (first) row in the file
  /// Cell for an ncu metric name; nullptr when the file has no such column.
  [[nodiscard]] const NcuCell* find(std::string_view metric) const;
};

enum class NcuPage : uint8_t { kRaw, kDetails };

/// A parsed ncu CSV.
struct NcuReport {
  std::string path;               ///< for messages
  NcuPage page = NcuPage::kRaw;
  Arch arch = Arch::kHopper;      ///< from the CC column (all kernels must agree)
  std::string gpu_name;           ///< device__attribute_display_name when present, else ""
  std::vector<NcuKernel> kernels; ///< in file order
  /// "file:line: kernel …: column … is 104.97 %, outside 0-100 % …": cells whose value is not used.
  std::vector<std::string> warnings;
};

struct NcuImportOptions {
  /// When set, a file from any other architecture is rejected.
  std::optional<Arch> expect_arch;
};

/// Parses CSV text. `path` only names the source in messages. Throws vxsynth::Error naming the
/// path, line and column/metric for: no `"ID",` header, a truncated row or unterminated quote, a
/// missing units row, no kernel rows, an unsupported or mixed CC, a metric column required on the
/// file's architecture that is absent, a unit that is not ncu's base unit (the export lacked
/// `--print-units base`; the message names the line that states the unit), and a negative value
/// in a column the signature reads (file:line, column, kernel). A percentage above 100 there
/// (coalescing excepted: ncu reports it above 100 % for broadcast loads) is how ncu prints a metric
/// it could not collect accurately: its value is not used (NcuCell::not_used) and
/// NcuReport::warnings names file:line, column and kernel.
[[nodiscard]] NcuReport parse_ncu_csv(std::string_view text, const std::string& path,
                                      const NcuImportOptions& options = {});

/// Reads and parses a file (see parse_ncu_csv).
[[nodiscard]] NcuReport read_ncu_csv(const std::filesystem::path& path, const NcuImportOptions& options = {});

/// One ncu value that entered a signature metric.
struct NcuInput {
  std::string name;  ///< the column actually used (the fallback name when the primary was absent)
  std::string unit;
  std::optional<double> value;
};

/// A kernel's signature with the raw inputs it was computed from.
struct NcuSignature {
  Signature signature;
  std::vector<NcuInput> inputs;     ///< every counter used, in table order, deduplicated
  std::vector<std::string> notes;   ///< why a metric is NA (n/a cell, zero denominator, no counter)
};

/// Computes the ten metrics of one kernel with the metric table's formulas for `arch`. A metric is
/// NA when the architecture has no counter for it, an input cell is `n/a`, or its denominator is 0
/// (arith_intensity of a kernel that moved no DRAM bytes). Throws vxsynth::Error naming the kernel
/// and metric when a needed column is absent (parse_ncu_csv already guarantees it is not).
[[nodiscard]] NcuSignature signature_from_ncu(const NcuKernel& kernel, Arch arch);

/// Parses "(384, 1, 1)" (also "384"); nullopt when malformed.
[[nodiscard]] std::optional<std::array<uint32_t, 3>> parse_dim3(std::string_view text);

}  // namespace vxsynth::core
