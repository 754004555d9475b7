#include "vxsynth/common/file_io.h"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>

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

// The message of a failed atomic write must start with the target the caller named (not the
// `.tmp.PID` file, whose name also contains the target as a prefix) and carry the OS reason.
void expect_names_target(const std::function<void()>& op, const fs::path& target,
                         const std::string& reason) {
  try {
    op();
    FAIL() << "expected vxsynth::Error";
  } catch (const vxsynth::Error& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind(target.string() + ": ", 0), 0u) << msg;
    EXPECT_NE(msg.find(reason), std::string::npos) << msg;
  }
}

TEST(FileIo, ReadingADirectoryIsAnErrorNotAnEmptyFile) {
  const fs::path dir = temp_dir();
  expect_names_target([&] { (void)vxsynth::read_file(dir); }, dir, std::strerror(EISDIR));
}

TEST(FileIo, AtomicWriteIntoMissingDirectoryNamesTheTarget) {
  const fs::path target = "/nonexistent/dir/x.json";
  expect_names_target([&] { vxsynth::write_file_atomic(target, "{}"); }, target,
                      std::strerror(ENOENT));
}

TEST(FileIo, AtomicWriteOverDirectoryNamesTheTargetAndLeavesNoTemp) {
  // rename(2) of a regular file over a non-empty directory fails (EISDIR); the temp file is removed.
  const fs::path target = temp_dir() / "is_a_dir";
  fs::create_directories(target / "child");
  expect_names_target([&] { vxsynth::write_file_atomic(target, "{}"); }, target,
                      std::strerror(EISDIR));
  const fs::path tmp = target.string() + ".tmp." + std::to_string(::getpid());
  EXPECT_FALSE(fs::exists(tmp));
}

TEST(FileIo, AppendIntoMissingDirectoryNamesTheTarget) {
  const fs::path target = "/nonexistent/dir/r.jsonl";
  expect_names_target([&] { vxsynth::append_line_atomic(target, "{}"); }, target,
                      std::strerror(ENOENT));
}

TEST(FileIo, ExclusiveFileLockWaitsForTheHolderInAnotherProcess) {
  const fs::path lock = temp_dir() / "gpu.lock";
  const fs::path held = lock.string() + ".held";
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    vxsynth::ExclusiveFileLock l(lock);
    vxsynth::write_file_atomic(held, "1");
    ::usleep(600'000);
    ::_exit(0);
  }
  while (!fs::exists(held)) ::usleep(1'000);
  const auto start = std::chrono::steady_clock::now();
  { vxsynth::ExclusiveFileLock l(lock); }
  const double waited_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_GE(waited_s, 0.4);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  { vxsynth::ExclusiveFileLock again(lock); }  // released by the holder's exit and by our scope
}

TEST(FileIo, ExclusiveFileLockInAMissingDirectoryNamesThePath) {
  const fs::path lock = "/nonexistent/dir/gpu.lock";
  expect_names_target([&] { vxsynth::ExclusiveFileLock l(lock); }, lock, std::strerror(ENOENT));
}

TEST(FileIo, DirectoryOwnerLockRefusesASecondOwnerUntilTheFirstLetsGo) {
  const fs::path dir = temp_dir() / "run";
  fs::create_directories(dir);
  EXPECT_FALSE(vxsynth::directory_owned_elsewhere(dir));
  {
    const vxsynth::DirectoryOwnerLock first(dir);
    EXPECT_TRUE(vxsynth::directory_owned_elsewhere(dir));
    try {
      const vxsynth::DirectoryOwnerLock second(dir);
      ADD_FAILURE() << "a second owner was let in";
    } catch (const vxsynth::Error& e) {
      EXPECT_NE(std::string(e.what()).find(dir.string() + ": another vxsynth process is working in this directory"),
                std::string::npos) << e.what();
    }
    EXPECT_TRUE(fs::is_empty(dir)) << "the lock adds no file to the directory";
  }
  EXPECT_FALSE(vxsynth::directory_owned_elsewhere(dir));
  const vxsynth::DirectoryOwnerLock again(dir);
  EXPECT_THROW(vxsynth::DirectoryOwnerLock(temp_dir() / "missing"), vxsynth::Error);
}

}  // namespace
