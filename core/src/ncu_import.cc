#include "vxsynth/core/ncu_import.h"

#include <algorithm>
#include <charconv>
#include <set>

#include <fmt/ranges.h>

#include "csv.h"
#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"

namespace vxsynth::core {
namespace {

using detail::CsvRecord;

/// Fixed identification columns of both pages (docs/ncu.md §5.1, §5.2).
constexpr std::string_view kColId = "ID";
constexpr std::string_view kColName = "Kernel Name";
constexpr std::string_view kColBlock = "Block Size";
constexpr std::string_view kColGrid = "Grid Size";
constexpr std::string_view kColCc = "CC";
constexpr std::string_view kColDevice = "Device";
constexpr std::string_view kColProcess = "Process Name";
constexpr std::string_view kColStream = "Stream";
constexpr std::string_view kColMetricName = "Metric Name";
constexpr std::string_view kColMetricUnit = "Metric Unit";
constexpr std::string_view kColMetricValue = "Metric Value";

/// Units ncu prints without `--print-units base` (auto-scaled, docs/ncu.md §4): any of these
/// on a counter we use means the values are scaled and must not be read as base units.
constexpr std::string_view kScaledUnits[] = {
    "Kbyte", "Mbyte", "Gbyte", "Tbyte", "Kbyte/s", "Mbyte/s", "Gbyte/s", "Tbyte/s", "KB", "MB", "GB",
    "usecond", "msecond", "second", "us", "ms", "s", "Kinst", "Minst", "Ginst", "Kcycle", "Mcycle",
    "Gcycle", "Ksector", "Msector", "Gsector"};

struct Header {
  std::vector<std::string> names;
  std::map<std::string, std::size_t, std::less<>> index;
  std::optional<std::size_t> find(std::string_view n) const {
    auto it = index.find(n);
    if (it == index.end()) return std::nullopt;
    return it->second;
  }
};

Header make_header(const CsvRecord& rec) {
  Header h;
  h.names = rec.fields;
  for (std::size_t i = 0; i < rec.fields.size(); ++i) h.index.emplace(rec.fields[i], i);
  return h;
}

std::size_t need_column(const Header& h, std::string_view name, const std::string& path, std::size_t line) {
  auto c = h.find(name);
  if (!c) throw make_error("{}:{}: header has no \"{}\" column (not an ncu --csv export?)", path, line, name);
  return *c;
}

std::string arch_list() {
  std::string s;
  for (const auto& a : arch_table()) {
    if (!s.empty()) s += ", ";
    s += fmt::format("{} {} (CC {})", a.sm, a.name, a.cc);
  }
  return s;
}

std::string describe(Arch a) {
  const auto& i = arch_info(a);
  return fmt::format("{} {} (CC {})", i.sm, i.name, i.cc);
}

/// Finds the header: the first line that starts with `"ID",` (preamble: ==PROF== lines and the
/// application's own stdout, docs/ncu.md §5.1). Returns the byte offset and 1-based line.
std::pair<std::size_t, std::size_t> find_header(std::string_view text, const std::string& path) {
  std::size_t pos = 0, line = 1;
  while (pos < text.size()) {
    if (text.compare(pos, 5, "\"ID\",") == 0) return {pos, line};
    const std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
    ++line;
  }
  throw make_error(
      "{}: no header line starting with \"ID\", found (expected `ncu --csv --page raw|details "
      "--print-units base` output)",
      path);
}

NcuKernel identify(const Header& h, const CsvRecord& rec, const std::string& path) {
  NcuKernel k;
  k.line = rec.line;
  auto field = [&](std::string_view col) -> const std::string& {
    return rec.fields[need_column(h, col, path, rec.line)];
  };
  const std::string& id = field(kColId);
  const auto r = std::from_chars(id.data(), id.data() + id.size(), k.id);
  if (r.ec != std::errc{} || r.ptr != id.data() + id.size())
    throw make_error("{}:{}: column \"ID\": '{}' is not a kernel index", path, rec.line, id);
  k.name = field(kColName);
  k.cc = field(kColCc);
  if (auto c = h.find(kColDevice)) k.device = rec.fields[*c];
  if (auto c = h.find(kColProcess)) k.process = rec.fields[*c];
  if (auto c = h.find(kColStream)) k.stream = rec.fields[*c];
  auto dims = [&](std::string_view col) {
    const std::string& t = field(col);
    auto d = parse_dim3(t);
    if (!d) throw make_error("{}:{}: column \"{}\": '{}' is not \"(x, y, z)\"", path, rec.line, col, t);
    return *d;
  };
  k.block = dims(kColBlock);
  k.grid = dims(kColGrid);
  return k;
}

void check_arity(const Header& h, const CsvRecord& rec, const std::string& path) {
  if (rec.fields.size() != h.names.size())
    throw make_error("{}:{}: row has {} fields but the header has {} (truncated or corrupt file?)", path,
                     rec.line, rec.fields.size(), h.names.size());
}

void parse_raw(const std::vector<CsvRecord>& recs, const std::string& path, NcuReport& rep) {
  const Header h = make_header(recs[0]);
  const std::size_t id_col = need_column(h, kColId, path, recs[0].line);
  if (recs.size() < 2 || !recs[1].fields.at(std::min(id_col, recs[1].fields.size() - 1)).empty())
    throw make_error("{}:{}: expected the units row after the header (an ncu --page raw export has one)",
                     path, recs[0].line + 1);
  const CsvRecord& units = recs[1];
  check_arity(h, units, path);
  if (recs.size() < 3) throw make_error("{}: header and units row but no kernel rows", path);
  for (std::size_t r = 2; r < recs.size(); ++r) {
    const CsvRecord& rec = recs[r];
    check_arity(h, rec, path);
    NcuKernel k = identify(h, rec, path);
    for (std::size_t c = 0; c < h.names.size(); ++c) {
      const std::string& name = h.names[c];
      if (name.find("__") == std::string::npos) continue;  // identification columns
      NcuCell cell{units.fields[c], detail::parse_ncu_number(rec.fields[c]), rec.fields[c], rec.line, units.line, {}};
      k.metrics.emplace(name, std::move(cell));
    }
    rep.kernels.push_back(std::move(k));
  }
}

void parse_details(const std::vector<CsvRecord>& recs, const std::string& path, NcuReport& rep) {
  const Header h = make_header(recs[0]);
  const std::size_t c_name = need_column(h, kColMetricName, path, recs[0].line);
  const std::size_t c_unit = need_column(h, kColMetricUnit, path, recs[0].line);
  const std::size_t c_value = need_column(h, kColMetricValue, path, recs[0].line);
  if (recs.size() < 2) throw make_error("{}: header but no metric rows", path);
  std::map<int64_t, std::size_t> by_id;
  for (std::size_t r = 1; r < recs.size(); ++r) {
    const CsvRecord& rec = recs[r];
    check_arity(h, rec, path);
    NcuKernel k = identify(h, rec, path);
    auto [it, fresh] = by_id.emplace(k.id, rep.kernels.size());
    if (fresh) rep.kernels.push_back(std::move(k));
    NcuKernel& dst = rep.kernels[it->second];
    const std::string& value = rec.fields[c_value];
    const std::string& unit = rec.fields[c_unit];
    // An unknown metric name shows as "n/a" with an empty unit: that is "no column" (§5.2).
    if (value == "n/a" && unit.empty()) continue;
    dst.metrics.insert_or_assign(rec.fields[c_name],
                                 NcuCell{unit, detail::parse_ncu_number(value), value, rec.line, rec.line, {}});
  }
}

/// Every term of every formula on `arch`, plus the required recorded metrics.
struct Need {
  std::string_view name, fallback, unit;
  bool above_100_ok = false;  ///< coalescing: ncu reports it above 100 % for broadcast loads
};
std::vector<Need> needs(Arch arch) {
  std::vector<Need> out;
  for (const auto& m : metric_table()) {
    const NcuFormula& f = m.ncu[static_cast<std::size_t>(arch)];
    for (const auto* part : {&f.numerator, &f.denominator})
      for (const auto& t : *part) out.push_back({t.name, t.fallback, t.unit, m.id == MetricId::kCoalescing});
  }
  for (const auto& r : recorded_ncu_metrics())
    if (r.required) out.push_back({r.name, {}, {}});
  return out;
}

NcuCell* resolve(NcuKernel& k, const Need& n) {
  auto it = k.metrics.find(n.name);
  if (it == k.metrics.end() && !n.fallback.empty()) it = k.metrics.find(n.fallback);
  return it == k.metrics.end() ? nullptr : &it->second;
}

/// A kernel name short enough for a message: C++ template names run to kilobytes.
std::string short_name(const std::string& name) {
  constexpr std::size_t kMax = 80;
  return name.size() <= kMax ? name : name.substr(0, kMax) + "...";
}

/// A value the signature reads must be possible. No counter, rate or percentage is negative: that
/// is an error (the file is corrupt or was edited). A percentage above 100 (coalescing excepted)
/// is what ncu prints when it could not collect the metric accurately (docs/reference-bundle.md,
/// "Ranges"): the cell is kept as text, its value is not used (the metric is NA), and the report
/// says so.
void check_range(NcuReport& rep, const NcuKernel& k, const Need& n, NcuCell& c, std::string_view col) {
  const double v = *c.value;
  const std::string where = fmt::format("{}:{}: kernel {} ({}): column \"{}\" is {}{}", rep.path, c.line, k.id,
                                        short_name(k.name), col, c.text, c.unit.empty() ? "" : " " + c.unit);
  if (v < 0)
    throw make_error("{}: negative, and no ncu counter, rate or percentage is (the file is corrupt or was edited; "
                     "re-export it from the .ncu-rep with `ncu --import R.ncu-rep --csv --page raw --print-units "
                     "base`)",
                     where);
  // Threads per warp instruction cannot exceed the NVIDIA warp width (32 lanes); ncu prints slightly
  // more (32.14 on π0's nvjet 128x272 launch) for the same replay reason as a percentage above 100.
  // Up to 1 % above is taken as that inaccuracy; more is left to the signature's range check (an error).
  constexpr double kWarpLanes = 32.0;
  constexpr double kReplaySlack = 1.01;
  if (col.ends_with("per_inst_executed.ratio") && v > kWarpLanes && v <= kWarpLanes * kReplaySlack) {
    c.not_used = fmt::format("is {}, above the warp's {} lanes: ncu could not collect it accurately (its counters "
                             "came from replay passes that saw different work)",
                             c.text, kWarpLanes);
    c.value.reset();
    rep.warnings.push_back(where + ", above 32 threads per warp instruction: ncu could not collect it accurately; "
                                   "the metric is NA for this launch");
    return;
  }
  if (c.unit != "%" || v <= 100.0 || n.above_100_ok) return;
  c.not_used = fmt::format("is {} %, outside 0-100 %: ncu could not collect it accurately (its counters came from "
                           "replay passes that saw different work, typical of a kernel too small to fill the GPU)",
                           c.text);
  c.value.reset();
  rep.warnings.push_back(where + ", outside 0-100 %: ncu could not collect it accurately; the metric is NA for "
                                 "this launch");
}

void validate(NcuReport& rep) {
  const auto need = needs(rep.arch);
  for (NcuKernel& k : rep.kernels) {
    std::vector<std::string> missing;
    for (const Need& n : need) {
      NcuCell* c = resolve(k, n);
      if (!c) {
        std::string m(n.name);
        if (!n.fallback.empty()) m += fmt::format(" (or {})", n.fallback);
        if (std::find(missing.begin(), missing.end(), m) == missing.end()) missing.push_back(m);
        continue;
      }
      const bool scaled =
          std::find(std::begin(kScaledUnits), std::end(kScaledUnits), c->unit) != std::end(kScaledUnits);
      const std::string_view col = c == k.find(n.name) ? n.name : n.fallback;
      if (scaled || (!n.unit.empty() && c->unit != n.unit))
        throw make_error("{}:{}: {}column \"{}\": unit '{}', expected '{}' (export with `--print-units base`)",
                         rep.path, c->unit_line, rep.page == NcuPage::kRaw ? "units row, " : "", col, c->unit,
                         n.unit.empty() ? std::string_view("a base unit") : n.unit);
      if (c->value) check_range(rep, k, n, *c, col);
    }
    if (!missing.empty()) {
      std::string hint;
      for (const auto& a : arch_table()) {
        if (a.arch == rep.arch) continue;
        const auto other = needs(a.arch);
        if (std::all_of(other.begin(), other.end(), [&](const Need& n) { return resolve(k, n) != nullptr; })) {
          hint = fmt::format("; the columns match the metric set of {}: was the file captured there?",
                             describe(a.arch));
          break;
        }
      }
      throw make_error(
          "{}:{}: no column for {} metric(s) required on {}: {}; first kernel without them: {} ({}). ncu drops "
          "unknown metric names silently: capture with `ncu --metrics \"$(vxsynth metrics --arch {} --ncu-list)\"` "
          "(`vxsynth metrics --arch {}` lists them){}",
          rep.path, k.line, missing.size(), describe(rep.arch), fmt::join(missing, ", "), k.id, short_name(k.name),
          arch_info(rep.arch).sm, arch_info(rep.arch).sm, hint);
    }
  }
}

}  // namespace

const NcuCell* NcuKernel::find(std::string_view metric) const {
  auto it = metrics.find(metric);
  return it == metrics.end() ? nullptr : &it->second;
}

std::optional<std::array<uint32_t, 3>> parse_dim3(std::string_view text) {
  std::array<uint32_t, 3> out{1, 1, 1};
  std::string_view s = text;
  while (!s.empty() && (s.front() == ' ' || s.front() == '(' || s.front() == '[')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == ')' || s.back() == ']')) s.remove_suffix(1);
  if (s.empty()) return std::nullopt;
  std::size_t i = 0;
  while (!s.empty()) {
    if (i == 3) return std::nullopt;
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    uint32_t v = 0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (r.ec != std::errc{}) return std::nullopt;
    out[i++] = v;
    s.remove_prefix(static_cast<std::size_t>(r.ptr - s.data()));
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    if (!s.empty()) {
      if (s.front() != ',') return std::nullopt;
      s.remove_prefix(1);
    }
  }
  return out;
}

NcuReport parse_ncu_csv(std::string_view text, const std::string& path, const NcuImportOptions& options) {
  const auto [offset, line] = find_header(text, path);
  const auto recs = detail::parse_csv(text.substr(offset), line, path);
  NcuReport rep;
  rep.path = path;
  const Header h = make_header(recs.at(0));
  rep.page = h.find(kColMetricName) && h.find(kColMetricValue) ? NcuPage::kDetails : NcuPage::kRaw;
  if (rep.page == NcuPage::kRaw)
    parse_raw(recs, path, rep);
  else
    parse_details(recs, path, rep);
  if (rep.kernels.empty()) throw make_error("{}: no kernel rows", path);

  // Architecture: every kernel's CC must be one supported architecture.
  const NcuKernel& first = rep.kernels.front();
  const auto arch = arch_from_cc(first.cc);
  if (!arch)
    throw make_error("{}:{}: kernel {} was profiled on CC {}, which is not a supported architecture ({})",
                     path, first.line, first.id, first.cc, arch_list());
  rep.arch = *arch;
  for (const NcuKernel& k : rep.kernels)
    if (k.cc != first.cc)
      throw make_error("{}:{}: kernel {} has CC {} but kernel {} has CC {}: one architecture per file", path,
                       k.line, k.id, k.cc, first.id, first.cc);
  if (options.expect_arch && *options.expect_arch != rep.arch)
    throw make_error("{}: kernels were profiled on {}, expected {}", path, describe(rep.arch),
                     describe(*options.expect_arch));
  if (const NcuCell* c = first.find(kGpuNameMetric)) rep.gpu_name = c->text;
  validate(rep);
  return rep;
}

NcuReport read_ncu_csv(const std::filesystem::path& path, const NcuImportOptions& options) {
  return parse_ncu_csv(read_file(path), path.string(), options);
}

NcuSignature signature_from_ncu(const NcuKernel& kernel, Arch arch) {
  NcuSignature out;
  auto note_input = [&](const std::string& name, const NcuCell& c) {
    for (const auto& in : out.inputs)
      if (in.name == name) return;
    out.inputs.push_back({name, c.unit, c.value});
  };
  for (const MetricDef& m : metric_table()) {
    const NcuFormula& f = m.ncu[static_cast<std::size_t>(arch)];
    if (!f.available()) {
      out.notes.push_back(fmt::format("{}: no ncu counter on {}", m.key, arch_info(arch).sm));
      continue;
    }
    bool na = false;
    auto sum = [&](std::span<const NcuTerm> terms) {
      double s = 0.0;
      for (const NcuTerm& t : terms) {
        std::string used(t.name);
        const NcuCell* c = kernel.find(t.name);
        if (!c && !t.fallback.empty()) {
          c = kernel.find(t.fallback);
          used = t.fallback;
        }
        if (!c)
          throw make_error("kernel {} ({}): metric {} needs ncu column {} which is absent", kernel.id,
                           kernel.name, m.key, t.name);
        note_input(used, *c);
        if (!c->value) {
          if (!na)
            out.notes.push_back(c->not_used.empty() ? fmt::format("{}: {} is '{}'", m.key, used, c->text)
                                                    : fmt::format("{}: {} {}", m.key, used, c->not_used));
          na = true;
          continue;
        }
        s += t.coef * *c->value;
      }
      return s;
    };
    const double num = sum(f.numerator);
    const double den = f.denominator.empty() ? 1.0 : sum(f.denominator);
    if (na) continue;
    if (den == 0.0) {
      out.notes.push_back(fmt::format("{}: denominator is 0", m.key));
      continue;
    }
    out.signature[m.id] = num / den;
  }
  for (const auto& r : recorded_ncu_metrics())
    if (const NcuCell* c = kernel.find(r.name)) note_input(std::string(r.name), *c);
  return out;
}

}  // namespace vxsynth::core
