#include "csv.h"

#include <cmath>
#include <cstdlib>

#include "vxsynth/common/error.h"

namespace vxsynth::core::detail {

std::vector<CsvRecord> parse_csv(std::string_view text, std::size_t first_line, const std::string& path) {
  std::vector<CsvRecord> out;
  std::size_t line = first_line;
  std::size_t i = 0;
  const std::size_t n = text.size();
  while (i < n) {
    // Skip blank lines (\n or \r\n).
    if (text[i] == '\n') { ++line; ++i; continue; }
    if (text[i] == '\r' && i + 1 < n && text[i + 1] == '\n') { ++line; i += 2; continue; }
    CsvRecord rec;
    rec.line = line;
    std::string field;
    bool done = false;
    while (!done) {
      field.clear();
      if (i < n && text[i] == '"') {
        const std::size_t quote_line = line;
        ++i;
        bool closed = false;
        while (i < n) {
          const char c = text[i];
          if (c == '"') {
            if (i + 1 < n && text[i + 1] == '"') { field += '"'; i += 2; continue; }
            ++i;
            closed = true;
            break;
          }
          if (c == '\n') ++line;
          field += c;
          ++i;
        }
        if (!closed)
          throw make_error("{}:{}: unterminated quoted field (file truncated?)", path, quote_line);
        // Anything after the closing quote up to the delimiter is kept verbatim (lenient).
        while (i < n && text[i] != ',' && text[i] != '\n' && text[i] != '\r') field += text[i++];
      } else {
        while (i < n && text[i] != ',' && text[i] != '\n' && text[i] != '\r') field += text[i++];
      }
      rec.fields.push_back(field);
      if (i < n && text[i] == ',') { ++i; continue; }
      // End of record.
      if (i < n && text[i] == '\r') ++i;
      if (i < n && text[i] == '\n') { ++i; ++line; }
      done = true;
    }
    out.push_back(std::move(rec));
  }
  return out;
}

std::optional<double> parse_ncu_number(std::string_view cell) {
  std::string s;
  s.reserve(cell.size());
  for (char c : cell)
    if (c != ',' && c != ' ') s += c;
  if (s.empty() || s == "n/a") return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

}  // namespace vxsynth::core::detail
