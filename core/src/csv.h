#pragma once
// Internal: a small RFC 4180 CSV reader that keeps 1-based line numbers for messages.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vxsynth::core::detail {

struct CsvRecord {
  std::size_t line = 0;  ///< 1-based line where the record starts
  std::vector<std::string> fields;
};

/// Splits `text` into records. `first_line` is the line number of text[0]. Quoted fields may hold
/// commas, doubled quotes and newlines. Throws vxsynth::Error naming `path` and the line of an
/// unterminated quoted field. Empty lines are skipped.
std::vector<CsvRecord> parse_csv(std::string_view text, std::size_t first_line, const std::string& path);

/// A number as ncu prints it: thousands separators removed; nullopt for "n/a", "", non-numeric text
/// and non-finite values ("nan", "inf").
std::optional<double> parse_ncu_number(std::string_view cell);

}  // namespace vxsynth::core::detail
