#include "vxsim/timing/config.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "vxsynth/common/error.h"

namespace vxsim::timing {
namespace {

std::string error_of(auto&& fn) {
  try {
    fn();
  } catch (const vxsynth::Error& e) {
    return e.what();
  }
  return "";
}

TEST(TimingConfig, DefaultsAreSimXAndValid) {
  TimingConfig c;
  c.validate();
  EXPECT_EQ(c.warps, 4u);
  EXPECT_EQ(c.threads, 4u);
  EXPECT_EQ(c.dcache.size, 16384u);
  EXPECT_EQ(c.dcache.ways, 4u);
  EXPECT_EQ(c.lat.div, 34u);
  EXPECT_EQ(c.lat.fma, 6u);
  EXPECT_EQ(c.eff_simd_width(), 4u);
  EXPECT_EQ(c.eff_issue_width(), 1u);
  EXPECT_EQ(c.eff_dcache_banks(), 1u);
  EXPECT_EQ(c.eff_lmem_banks(), 4u);
  EXPECT_FALSE(c.l2.enabled);
}

TEST(TimingConfig, DefaultTomlMatchesBuiltInDefaults) {
  TimingConfig from_file;
  // Perturb every field first so that a key missing from the file is caught.
  for (const ParamDef& p : timing_params()) {
    if (p.type == ParamType::kBool) {
      set_param(from_file, p.key, get_param(from_file, p.key) == "true" ? "false" : "true", "test");
    } else {
      set_param(from_file, p.key, "7", "test");
    }
  }
  load_toml(from_file, VXSIM_TIMING_CONFIG_DIR "/default.toml");
  TimingConfig defaults;
  for (const ParamDef& p : timing_params()) {
    EXPECT_EQ(get_param(from_file, p.key), get_param(defaults, p.key)) << p.key;
  }
}

TEST(TimingConfig, EveryShippedConfigLoadsAndValidates) {
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(VXSIM_TIMING_CONFIG_DIR)) {
    if (entry.path().extension() != ".toml") continue;
    TimingConfig c;
    load_toml(c, entry.path());
    c.validate();
    ++n;
  }
  EXPECT_GE(n, 2);
  TimingConfig l2;
  load_toml(l2, VXSIM_TIMING_CONFIG_DIR "/l2-l3.toml");
  EXPECT_TRUE(l2.l2.enabled);
  EXPECT_TRUE(l2.l3.enabled);
  EXPECT_EQ(l2.dcache.size, 16384u);  // untouched keys keep their defaults
}

TEST(TimingConfig, KeysAreUnique) {
  std::set<std::string_view> keys;
  for (const ParamDef& p : timing_params()) EXPECT_TRUE(keys.insert(p.key).second) << p.key;
}

TEST(TimingConfig, OverrideSetsTypedValues) {
  TimingConfig c;
  apply_override(c, "dcache.size=32768");
  apply_override(c, " l2.enabled = true ");
  apply_override(c, "clock_mhz=1000.5");
  EXPECT_EQ(c.dcache.size, 32768u);
  EXPECT_TRUE(c.l2.enabled);
  EXPECT_DOUBLE_EQ(c.clock_mhz, 1000.5);
  c.validate();
}

TEST(TimingConfig, BadOverridesNameTheKey) {
  TimingConfig c;
  EXPECT_NE(error_of([&] { apply_override(c, "dcache.sise=1"); }).find("unknown timing parameter 'dcache.sise'"),
            std::string::npos);
  EXPECT_NE(error_of([&] { apply_override(c, "warps=four"); }).find("'warps' expects an unsigned integer"),
            std::string::npos);
  EXPECT_NE(error_of([&] { apply_override(c, "warps"); }).find("expected key=value"), std::string::npos);
  EXPECT_NE(error_of([&] { apply_override(c, "l2.enabled=yes"); }).find("true or false"), std::string::npos);
}

TEST(TimingConfig, TomlErrorsNameFileAndLine) {
  TimingConfig c;
  std::string e = error_of([&] { load_toml_text(c, "warps = 8\n[dcache]\nsize = \"big\"\n", "x.toml"); });
  EXPECT_NE(e.find("x.toml:3"), std::string::npos) << e;
  EXPECT_NE(e.find("dcache.size"), std::string::npos) << e;
  e = error_of([&] { load_toml_text(c, "[dcache]\nflavour = 3\n", "y.toml"); });
  EXPECT_NE(e.find("y.toml:2: unknown timing parameter 'dcache.flavour'"), std::string::npos) << e;
  e = error_of([&] { load_toml_text(c, "warps = = 3\n", "z.toml"); });
  EXPECT_NE(e.find("z.toml:1"), std::string::npos) << e;
  e = error_of([&] { load_toml_text(c, "warps = -3\n", "n.toml"); });
  EXPECT_NE(e.find("must not be negative"), std::string::npos) << e;
  EXPECT_EQ(c.warps, 4u);  // untouched by the failed loads before the bad key
}

TEST(TimingConfig, ValidateRejectsInconsistentValues) {
  TimingConfig c;
  c.dcache.size = 12345;
  EXPECT_NE(error_of([&] { c.validate(); }).find("dcache.size"), std::string::npos);
  c = TimingConfig{};
  c.l2.enabled = true;
  c.l2.line = 128;
  EXPECT_NE(error_of([&] { c.validate(); }).find("l2.line"), std::string::npos);
  c = TimingConfig{};
  c.lmem.banks = 64;
  EXPECT_NE(error_of([&] { c.validate(); }).find("lmem.banks"), std::string::npos);
  c = TimingConfig{};
  c.warps = 33;
  EXPECT_NE(error_of([&] { c.validate(); }).find("warps"), std::string::npos);
}

TEST(TimingConfig, DumpRoundTrips) {
  TimingConfig c;
  c.warps = 8;
  c.threads = 8;
  c.l2.enabled = true;
  c.dram.row_hit_latency = 33;
  std::string text = dump_toml(c);
  TimingConfig back;
  load_toml_text(back, text, "dump");
  for (const ParamDef& p : timing_params()) EXPECT_EQ(get_param(back, p.key), get_param(c, p.key)) << p.key;
}

}  // namespace
}  // namespace vxsim::timing
