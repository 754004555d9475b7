#include "vxsynth/common/file_io.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "vxsynth/common/error.h"

namespace fs = std::filesystem;

namespace {

fs::path temp_dir() {
  fs::path dir = fs::temp_directory_path() / ("vxsynth_common_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

TEST(FileIo, AtomicWriteReplacesContent) {
  const fs::path p = temp_dir() / "a.txt";
  vxsynth::write_file_atomic(p, "first");
  vxsynth::write_file_atomic(p, "second");
  EXPECT_EQ(vxsynth::read_file(p), "second");
}

TEST(FileIo, AppendAddsNewlineTerminatedRecords) {
  const fs::path p = temp_dir() / "r.jsonl";
  fs::remove(p);
  vxsynth::append_line_atomic(p, R"({"n":1})");
  vxsynth::append_line_atomic(p, "{\"n\":2}\n");
  EXPECT_EQ(vxsynth::read_file(p), "{\"n\":1}\n{\"n\":2}\n");
}

TEST(FileIo, MissingFileNamesThePath) {
  try {
    (void)vxsynth::read_file("/nonexistent/x.json");
    FAIL() << "expected vxsynth::Error";
  } catch (const vxsynth::Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/x.json"), std::string::npos);
  }
}

}  // namespace
