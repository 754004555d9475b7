// Bad-input tests for the ncu CSV importer. The inputs are small synthetic files built from the
// metric table (the only place synthetic ncu data is used); real captures are tested in
// real_data_test.cc.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "vxsynth/common/error.h"
#include "vxsynth/core/ncu_import.h"

namespace vxsynth::core {
namespace {

struct Col {
  std::string name, unit, value;
};

std::vector<Col> columns_for(Arch arch, const std::string& cc) {
  std::vector<Col> cols = {{"ID", "", "0"},           {"Process ID", "", "1"},
                           {"Process Name", "", "python3"}, {"Host Name", "", "h"},
                           {"Kernel Name", "", "k"},  {"Context", "", "1"},
                           {"Stream", "", "7"},       {"Block Size", "", "(128, 1, 1)"},
                           {"Grid Size", "", "(2, 3, 1)"}, {"Device", "", "0"},
                           {"CC", "", cc}};
  for (const MetricDef& m : metric_table())
    for (const auto* part : {&m.ncu[static_cast<std::size_t>(arch)].numerator,
                             &m.ncu[static_cast<std::size_t>(arch)].denominator})
      for (const NcuTerm& t : *part)  // a percentage in 0-100, a count with a thousands separator
        cols.push_back({std::string(t.name), std::string(t.unit), t.unit == "%" ? "50" : "\"1,024\""});
  for (const auto& r : recorded_ncu_metrics())
    if (r.required) cols.push_back({std::string(r.name), "", "1"});
  return cols;
}

std::string render(const std::vector<Col>& cols, int rows = 1) {
  std::string h, u, out;
  for (std::size_t i = 0; i < cols.size(); ++i) {
    h += (i ? "," : "") + ("\"" + cols[i].name + "\"");
    u += (i ? "," : "") + ("\"" + cols[i].unit + "\"");
  }
  out = h + "\n" + u + "\n";
  for (int r = 0; r < rows; ++r) {
    for (std::size_t i = 0; i < cols.size(); ++i) {
      std::string v = cols[i].name == "ID" ? std::to_string(r) : cols[i].value;
      if (v.empty() || v.front() != '"') v = "\"" + v + "\"";
      out += (i ? "," : "") + v;
    }
    out += "\n";
  }
  return out;
}

std::string unit_of(const std::string& name) {
  for (const MetricDef& m : metric_table())
    for (const auto& f : m.ncu)
      for (const auto* part : {&f.numerator, &f.denominator})
        for (const NcuTerm& t : *part)
          if (t.name == name) return std::string(t.unit);
  return "";
}

std::string error_of(const std::string& text, const NcuImportOptions& o = {}) {
  try {
    (void)parse_ncu_csv(text, "x.csv", o);
  } catch (const vxsynth::Error& e) {
    return e.what();
  }
  return "";
}

TEST(NcuBadInput, BaseFileIsAccepted) {
  // Precondition for every test below: the unmutated file parses, with preamble lines.
  const auto rep = parse_ncu_csv("==PROF== Disconnected\napp says hi, \"ID\"\n" +
                                     render(columns_for(Arch::kHopper, "9.0"), 2),
                                 "x.csv");
  ASSERT_EQ(rep.kernels.size(), 2u);
  EXPECT_EQ(rep.kernels[1].id, 1);
  EXPECT_EQ(rep.kernels[0].line, 5u);
  EXPECT_EQ(rep.kernels[0].grid, (std::array<uint32_t, 3>{2, 3, 1}));
  EXPECT_EQ(rep.kernels[0].find("dram__bytes_read.sum")->value, 1024.0);
}

TEST(NcuBadInput, Empty) { EXPECT_NE(error_of("").find("no header line"), std::string::npos); }

TEST(NcuBadInput, HeaderOnly) {
  const std::string full = render(columns_for(Arch::kHopper, "9.0"));
  const std::string header = full.substr(0, full.find('\n') + 1);
  EXPECT_NE(error_of(header).find("units row"), std::string::npos) << error_of(header);
  const std::string header_units = full.substr(0, full.find('\n', full.find('\n') + 1) + 1);
  EXPECT_NE(error_of(header_units).find("no kernel rows"), std::string::npos) << error_of(header_units);
}

TEST(NcuBadInput, TruncatedRow) {
  std::string t = render(columns_for(Arch::kHopper, "9.0"));
  t.resize(t.size() - 40);
  const std::string e = error_of(t);
  EXPECT_TRUE(e.find("x.csv:3:") != std::string::npos) << e;
}

TEST(NcuBadInput, TruncatedInsideQuote) {
  std::string t = render(columns_for(Arch::kHopper, "9.0"));
  t.resize(t.size() - 3);  // cuts inside the last quoted value
  EXPECT_NE(error_of(t).find("x.csv:3:"), std::string::npos) << error_of(t);
}

TEST(NcuBadInput, MissingMetricColumnIsNamed) {
  auto cols = columns_for(Arch::kHopper, "9.0");
  std::erase_if(cols, [](const Col& c) { return c.name == "lts__t_sector_hit_rate.pct"; });
  const std::string e = error_of(render(cols));
  EXPECT_NE(e.find("lts__t_sector_hit_rate.pct"), std::string::npos) << e;
  EXPECT_NE(e.find("sm_90"), std::string::npos) << e;
}

TEST(NcuBadInput, MissingMetricListComesBeforeALongKernelName) {
  auto cols = columns_for(Arch::kHopper, "9.0");
  for (auto& c : cols)
    if (c.name == "Kernel Name") c.value = "void cutlass::Kernel2<" + std::string(1500, 'T') + ">(Params)";
  std::erase_if(cols, [](const Col& c) { return c.name == "lts__t_sector_hit_rate.pct"; });
  const std::string e = error_of(render(cols));
  const auto metric = e.find("lts__t_sector_hit_rate.pct");
  ASSERT_NE(metric, std::string::npos) << e;
  EXPECT_LT(metric, e.find("cutlass")) << e;
  EXPECT_LT(e.size(), 700u) << "the 1.5 KB kernel name is shortened: " << e;
  EXPECT_NE(e.find("vxsynth metrics --arch sm_90 --ncu-list"), std::string::npos) << e;
}

TEST(NcuBadInput, FallbackNameIsAccepted) {
  auto cols = columns_for(Arch::kHopper, "9.0");
  for (auto& c : cols)
    if (c.name == "smsp__average_thread_inst_executed_per_inst_executed.ratio")
      c.name = "smsp__thread_inst_executed_per_inst_executed.ratio";
  const auto rep = parse_ncu_csv(render(cols), "x.csv");
  const auto sig = signature_from_ncu(rep.kernels[0], rep.arch);
  EXPECT_DOUBLE_EQ(*sig.signature[MetricId::kActiveLanes], 1024.0 / 32.0);
}

TEST(NcuBadInput, WrongUnits) {
  auto cols = columns_for(Arch::kHopper, "9.0");
  for (auto& c : cols)
    if (c.name == "dram__bytes_read.sum") c.unit = "Mbyte";
  const std::string e = error_of(render(cols));
  EXPECT_NE(e.find("dram__bytes_read.sum"), std::string::npos) << e;
  EXPECT_NE(e.find("Mbyte"), std::string::npos) << e;
  EXPECT_NE(e.find("--print-units base"), std::string::npos) << e;
}

TEST(NcuBadInput, WrongUnitNamesTheUnitsRow) {
  auto cols = columns_for(Arch::kHopper, "9.0");
  for (auto& c : cols)
    if (c.name == "dram__bytes_read.sum") c.unit = "Mbyte";
  const std::string e = error_of("==PROF== preamble\n" + render(cols, 2));
  // Line 1 preamble, 2 header, 3 units row, 4-5 kernels: the unit is stated on line 3.
  EXPECT_NE(e.find("x.csv:3: units row, column \"dram__bytes_read.sum\": unit 'Mbyte'"), std::string::npos) << e;
}

// A negative counter or percentage cannot come from ncu: refused at import, naming file:line, the
// column and the kernel. A percentage above 100 is how ncu prints a metric it could not collect
// accurately (real H200 captures hold L2 hit rates of 104-185 %): kept as text, NA, and reported.
TEST(NcuBadInput, NegativeValuesAreRejected) {
  auto cols = columns_for(Arch::kHopper, "9.0");
  for (auto& c : cols)
    if (c.name == "sm__warps_active.avg.pct_of_peak_sustained_active") c.value = "-5";
  std::string e = error_of(render(cols, 2));
  EXPECT_NE(e.find("x.csv:3: kernel 0 (k): column \"sm__warps_active.avg.pct_of_peak_sustained_active\" is -5 %: "
                   "negative"),
            std::string::npos)
      << e;
  cols = columns_for(Arch::kHopper, "9.0");
  for (auto& c : cols)
    if (c.name == "dram__bytes_read.sum") c.value = "-1,024";
  e = error_of(render(cols));
  EXPECT_NE(e.find("column \"dram__bytes_read.sum\" is -1,024 byte: negative"), std::string::npos) << e;
}

TEST(NcuBadInput, PercentagesAbove100AreNaWithAWarning) {
  auto cols = columns_for(Arch::kHopper, "9.0");
  for (auto& c : cols)
    if (c.name == "lts__t_sector_hit_rate.pct") c.value = "150";
  const auto rep = parse_ncu_csv(render(cols, 2), "x.csv");
  ASSERT_EQ(rep.warnings.size(), 2u);
  EXPECT_NE(rep.warnings[0].find("x.csv:3: kernel 0 (k): column \"lts__t_sector_hit_rate.pct\" is 150 %, outside "
                                 "0-100 %"),
            std::string::npos)
      << rep.warnings[0];
  EXPECT_NE(rep.warnings[1].find("x.csv:4: kernel 1"), std::string::npos) << rep.warnings[1];
  const auto sig = signature_from_ncu(rep.kernels[0], rep.arch);
  EXPECT_FALSE(sig.signature[MetricId::kL2HitRate].has_value());
  EXPECT_TRUE(sig.signature[MetricId::kL1HitRate].has_value());
  ASSERT_EQ(sig.notes.size(), 1u);
  EXPECT_NE(sig.notes[0].find("l2_hit_rate: lts__t_sector_hit_rate.pct is 150 %, outside 0-100 %: ncu could not "
                              "collect it accurately"),
            std::string::npos)
      << sig.notes[0];
  // Coalescing above 100 % is what ncu reports for broadcast loads: used, no warning.
  cols = columns_for(Arch::kHopper, "9.0");
  for (auto& c : cols)
    if (c.name == "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct") c.value = "272";
  const auto ok = parse_ncu_csv(render(cols), "x.csv");
  EXPECT_TRUE(ok.warnings.empty());
  EXPECT_DOUBLE_EQ(*signature_from_ncu(ok.kernels[0], ok.arch).signature[MetricId::kCoalescing], 272.0);
}

TEST(NcuBadInput, DetailsPageRangeErrorNamesTheMetricRow) {
  const std::string head =
      "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\","
      "\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\","
      "\"Metric Value\"\n";
  std::string t = head;
  std::size_t line = 1, bad_line = 0;
  for (const auto& name : required_ncu_metrics(Arch::kHopper)) {
    const bool bad = name == "l1tex__t_sector_hit_rate.pct";
    ++line;
    if (bad) bad_line = line;
    t += "\"0\",\"1\",\"p\",\"h\",\"k\",\"1\",\"7\",\"(128, 1, 1)\",\"(1, 1, 1)\",\"0\",\"9.0\","
         "\"Command line profiler metrics\",\"" +
         name + "\",\"" + unit_of(name) + "\",\"" + (bad ? "-0.5" : "1") + "\"\n";
  }
  ASSERT_GT(bad_line, 1u);
  const std::string e = error_of(t);
  EXPECT_NE(e.find("x.csv:" + std::to_string(bad_line) + ": kernel 0 (k): column \"l1tex__t_sector_hit_rate.pct\" is "
                   "-0.5 %: negative"),
            std::string::npos)
      << e;
}

TEST(NcuBadInput, UnsupportedArchitecture) {
  const std::string e = error_of(render(columns_for(Arch::kHopper, "7.5")));
  EXPECT_NE(e.find("CC 7.5"), std::string::npos) << e;
  EXPECT_NE(e.find("not a supported architecture"), std::string::npos) << e;
}

TEST(NcuBadInput, FileFromAnotherArchitecture) {
  // An Ada metric set (_v2 tensor names, fp8 counters) presented as an A100 file: the required
  // A100 counters are missing and the message says whose set it is.
  auto cols = columns_for(Arch::kAda, "8.0");
  std::erase_if(cols, [](const Col& c) { return c.name.find("fp16_dst") != std::string::npos; });
  auto ada = columns_for(Arch::kAda, "8.0");
  const std::string e = error_of(render(cols));
  EXPECT_NE(e.find("sm__ops_path_tensor_src_fp16_dst_fp32.sum"), std::string::npos) << e;
  // Expected-architecture check.
  const std::string e2 = error_of(render(columns_for(Arch::kAmpere, "8.0")), {Arch::kHopper});
  EXPECT_NE(e2.find("expected sm_90"), std::string::npos) << e2;
  // Orin's set (no dram__) is accepted for CC 8.7 and leaves the DRAM metrics NA.
  const auto orin = parse_ncu_csv(render(columns_for(Arch::kOrin, "8.7")), "o.csv");
  const auto sig = signature_from_ncu(orin.kernels[0], orin.arch);
  EXPECT_FALSE(sig.signature[MetricId::kDramBandwidth].has_value());
  EXPECT_FALSE(sig.signature[MetricId::kArithIntensity].has_value());
  EXPECT_TRUE(sig.signature[MetricId::kOccupancy].has_value());
  // …but an Orin-CC file is not accepted as a Hopper file missing its DRAM counters.
  const std::string e3 = error_of(render(columns_for(Arch::kOrin, "9.0")));
  EXPECT_NE(e3.find("dram__bytes_read.sum"), std::string::npos) << e3;
  EXPECT_NE(e3.find("sm_87"), std::string::npos) << e3;
}

TEST(NcuBadInput, MixedArchitectures) {
  std::string t = render(columns_for(Arch::kHopper, "9.0"), 1);
  std::string second = render(columns_for(Arch::kHopper, "8.0"), 2);
  second.pop_back();
  second = second.substr(second.rfind('\n') + 1) + "\n";  // the row with ID 1
  const std::string e = error_of(t + second);
  EXPECT_NE(e.find("one architecture per file"), std::string::npos) << e;
}

TEST(NcuBadInput, DetailsUnknownMetricIsMissing) {
  const std::string head =
      "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\","
      "\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\","
      "\"Metric Value\"\n";
  std::string t = head;
  for (const auto& name : required_ncu_metrics(Arch::kHopper)) {
    const bool gone = name == "sm__warps_active.avg.pct_of_peak_sustained_active";
    t += "\"0\",\"1\",\"p\",\"h\",\"k\",\"1\",\"7\",\"(128, 1, 1)\",\"(1, 1, 1)\",\"0\",\"9.0\","
         "\"Command line profiler metrics\",\"" +
         name + "\",\"" + (gone ? "" : unit_of(name)) + "\",\"" + (gone ? "n/a" : "1") + "\"\n";
  }
  const std::string e = error_of(t);
  EXPECT_NE(e.find("sm__warps_active.avg.pct_of_peak_sustained_active"), std::string::npos) << e;
}

TEST(NcuBadInput, NotAvailableCellsMakeTheMetricNa) {
  auto cols = columns_for(Arch::kHopper, "9.0");
  for (auto& c : cols) {
    if (c.name == "lts__t_sector_hit_rate.pct") c.value = "n/a";
    if (c.name == "dram__bytes_write.sum") c.value = "nan";
  }
  const auto rep = parse_ncu_csv(render(cols), "x.csv");
  const auto sig = signature_from_ncu(rep.kernels[0], rep.arch);
  EXPECT_FALSE(sig.signature[MetricId::kL2HitRate].has_value());
  EXPECT_FALSE(sig.signature[MetricId::kArithIntensity].has_value());
  EXPECT_TRUE(sig.signature[MetricId::kL1HitRate].has_value());
  ASSERT_EQ(sig.notes.size(), 2u);
  EXPECT_EQ(sig.notes[0], "l2_hit_rate: lts__t_sector_hit_rate.pct is 'n/a'");
  EXPECT_EQ(sig.notes[1], "arith_intensity: dram__bytes_write.sum is 'nan'");
}

TEST(NcuParse, Dim3) {
  EXPECT_EQ(parse_dim3("(384, 1, 1)"), (std::array<uint32_t, 3>{384, 1, 1}));
  EXPECT_EQ(parse_dim3("[2,66,1]"), (std::array<uint32_t, 3>{2, 66, 1}));
  EXPECT_FALSE(parse_dim3("(1, x, 1)").has_value());
  EXPECT_FALSE(parse_dim3("").has_value());
}

}  // namespace
}  // namespace vxsynth::core
