// The sweep grid: --grid text and TOML files, names and values from vxsim's parameter table, and
// every error a user can make (docs/sweep.md "Grid").
#include <filesystem>
#include <functional>

#include <gtest/gtest.h>

#include "vxsim/timing/config.h"
#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/sweep/grid.h"

namespace vxsynth::sweep {
namespace {

namespace fs = std::filesystem;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

fs::path toml_file(const std::string& name, const std::string& text) {
  const fs::path p = fs::temp_directory_path() / ("vxsynth_sweep_grid_" + name + ".toml");
  write_file_atomic(p, text);
  return p;
}

TEST(SweepGrid, CartesianProductLastParameterFastest) {
  const Grid g = parse_grid("cores=1,2,4 warps=8,16 dcache.size=16384,65536 l2.enabled=false,true");
  ASSERT_EQ(g.params.size(), 4u);
  ASSERT_EQ(g.points.size(), 24u);
  EXPECT_EQ(g.points[0].label(), "cores=1 warps=8 dcache.size=16384 l2.enabled=false");
  EXPECT_EQ(g.points[1].label(), "cores=1 warps=8 dcache.size=16384 l2.enabled=true");
  EXPECT_EQ(g.points[2].label(), "cores=1 warps=8 dcache.size=65536 l2.enabled=false");
  EXPECT_EQ(g.points[23].label(), "cores=4 warps=16 dcache.size=65536 l2.enabled=true");
  for (int i = 0; i < 24; ++i) EXPECT_EQ(g.points[static_cast<size_t>(i)].index, i);
  // The device shape goes through the runtime's variables, the rest through VXSIM_SET.
  EXPECT_EQ(g.params[0].env, "VXSIM_CORES");
  EXPECT_EQ(g.params[1].env, "VXSIM_WARPS");
  EXPECT_EQ(g.params[2].env, "");
  EXPECT_EQ(g.params[3].env, "");
}

TEST(SweepGrid, ValuesAreCanonicalAndRoundTripThroughJson) {
  const Grid g = parse_grid("l2.enabled=1,0 clock_mhz=400.0");
  EXPECT_EQ(g.params[0].values, (std::vector<std::string>{"true", "false"}));
  EXPECT_EQ(g.params[1].values, (std::vector<std::string>{"400"}));
  const Grid back = grid_from_json(to_json(g));
  ASSERT_EQ(back.points.size(), g.points.size());
  for (size_t i = 0; i < g.points.size(); ++i) EXPECT_EQ(back.points[i].label(), g.points[i].label());
  EXPECT_EQ(back.params[0].env, g.params[0].env);
}

TEST(SweepGrid, EveryTableParameterIsAccepted) {
  for (const vxsim::timing::ParamDef& p : vxsim::timing::timing_params()) {
    const std::string value = vxsim::timing::get_param(vxsim::timing::TimingConfig{}, p.key);
    EXPECT_EQ(error_of([&] { (void)parse_grid(std::string(p.key) + "=" + value); }), "(no error)") << p.key;
  }
  // The functional device's local memory goes through the runtime's variable, like the shape.
  EXPECT_EQ(parse_grid("lmem.size=8192,32768").params.at(0).env, "VXSIM_LMEM_SIZE");
  EXPECT_NE(error_of([] { (void)parse_grid("lmem.size=1000"); }).find("lmem.size = 1000 must be a power of two"),
            std::string::npos);
}

TEST(SweepGrid, UnknownNameListsTheValidNames) {
  const std::string e = error_of([] { (void)parse_grid("cores=1 dcache.sz=1024"); });
  EXPECT_NE(e.find("--grid 'dcache.sz=1024': unknown vxsim parameter 'dcache.sz'"), std::string::npos) << e;
  for (const vxsim::timing::ParamDef& p : vxsim::timing::timing_params())
    EXPECT_NE(e.find(std::string(p.key)), std::string::npos) << p.key;
}

TEST(SweepGrid, BadValuesAreNamed) {
  EXPECT_NE(error_of([] { (void)parse_grid("cores=two"); }).find("parameter 'cores' expects an unsigned integer, got 'two'"),
            std::string::npos);
  EXPECT_NE(error_of([] { (void)parse_grid("l2.enabled=maybe"); }).find("expects true or false (or 1, 0), got 'maybe'"),
            std::string::npos);
  EXPECT_NE(error_of([] { (void)parse_grid("cores=1,,2"); }).find("an empty value"), std::string::npos);
  EXPECT_NE(error_of([] { (void)parse_grid("cores=1,1"); }).find("lists the value 1 twice"), std::string::npos);
  EXPECT_NE(error_of([] { (void)parse_grid("cores=1 cores=2"); }).find("'cores' is given twice"), std::string::npos);
  EXPECT_NE(error_of([] { (void)parse_grid("cores"); }).find("expected key=value"), std::string::npos);
  // A value of the right type that the timing model's validation rejects names the point.
  const std::string e = error_of([] { (void)parse_grid("warps=8,33"); });
  EXPECT_NE(e.find("point 1 (warps=33)"), std::string::npos) << e;
  EXPECT_NE(error_of([] { (void)parse_grid("dcache.size=1000"); }).find("dcache.size = 1000 must be line"),
            std::string::npos);
}

TEST(SweepGrid, EmptyGridIsAnError) {
  EXPECT_NE(error_of([] { (void)parse_grid(""); }).find("the grid is empty"), std::string::npos);
  EXPECT_NE(error_of([] { (void)parse_grid("  \t "); }).find("the grid is empty"), std::string::npos);
  EXPECT_NE(error_of([] { (void)load_grid_file(toml_file("empty", "# nothing\n")); }).find("the grid is empty"),
            std::string::npos);
}

TEST(SweepGrid, TomlGridTableIsACartesianProduct) {
  const Grid g = load_grid_file(toml_file("table", "[grid]\ncores = [1, 2]\n\"l2.enabled\" = [false, true]\n"
                                                   "[grid.dcache]\nsize = [16384, 65536]\n"));
  ASSERT_EQ(g.points.size(), 8u);
  EXPECT_EQ(g.points[0].label(), "cores=1 l2.enabled=false dcache.size=16384");
  EXPECT_EQ(g.points[7].label(), "cores=2 l2.enabled=true dcache.size=65536");
}

TEST(SweepGrid, TomlPointList) {
  const Grid g = load_grid_file(toml_file("points", "[[point]]\ncores = 1\ndcache.size = 16384\n"
                                                    "[[point]]\ncores = 4\ndcache.size = 65536\n"
                                                    "[[point]]\ndcache.size = 16384\ncores = 4\n"));
  ASSERT_EQ(g.points.size(), 3u);
  EXPECT_EQ(g.points[2].label(), "cores=4 dcache.size=16384");
  EXPECT_EQ(g.params[0].values, (std::vector<std::string>{"1", "4"}));
}

TEST(SweepGrid, TomlErrorsNameFileAndLine) {
  const fs::path bad = toml_file("badkey", "[grid]\ncores = [1]\nwarp = [8]\n");
  std::string e = error_of([&] { (void)load_grid_file(bad); });
  EXPECT_NE(e.find(bad.string() + ":3: unknown vxsim parameter 'warp'"), std::string::npos) << e;
  e = error_of([] { (void)load_grid_file(toml_file("badval", "[grid]\ncores = [1, \"x\"]\n")); });
  EXPECT_NE(e.find(":2: parameter 'cores' expects an unsigned integer, got 'x'"), std::string::npos) << e;
  e = error_of([] { (void)load_grid_file(toml_file("mismatch", "[[point]]\ncores = 1\n[[point]]\nwarps = 8\n")); });
  EXPECT_NE(e.find("every point must set the same parameters"), std::string::npos) << e;
  e = error_of([] { (void)load_grid_file(toml_file("both", "[grid]\ncores = [1]\n[[point]]\ncores = 2\n")); });
  EXPECT_NE(e.find("not both"), std::string::npos) << e;
  e = error_of([] { (void)load_grid_file(toml_file("syntax", "[grid\n")); });
  EXPECT_NE(e.find("TOML syntax error"), std::string::npos) << e;
  e = error_of([] { (void)load_grid_file(toml_file("other", "[sweep]\ncores = [1]\n")); });
  EXPECT_NE(e.find("unknown key 'sweep'"), std::string::npos) << e;
}

}  // namespace
}  // namespace vxsynth::sweep
