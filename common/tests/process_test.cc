#include "vxsynth/common/process.h"

#include <signal.h>
#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"

namespace vxsynth {
namespace {

namespace fs = std::filesystem;

ProcessResult sh(const std::string& script, ProcessOptions o = {}) {
  return run_process({"/bin/sh", "-c", script}, o);
}

TEST(RunProcess, ExitStatusIsTheExitCodeAndNoSignal) {
  const ProcessResult r = sh("exit 3");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.term_signal, 0);
  EXPECT_FALSE(r.timed_out);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.status_text(), "exit 3");
  EXPECT_EQ(r.command, "/bin/sh -c exit 3");
  EXPECT_TRUE(sh("true").ok());
}

TEST(RunProcess, KilledBySignalIsTheSignalAndNoExitCode) {
  const ProcessResult r = sh("kill -9 $$");
  EXPECT_EQ(r.term_signal, SIGKILL);
  EXPECT_EQ(r.exit_code, -1);
  EXPECT_FALSE(r.timed_out);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.status_text().rfind("killed by signal 9", 0), 0u) << r.status_text();
}

TEST(RunProcess, TimeLimitKillsTheWholeGroup) {
  ProcessOptions o;
  o.timeout_s = 0.5;
  // The shell's background child holds the pipe too: the group kill must end it.
  const ProcessResult r = sh("sleep 30 & sleep 30", o);
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.term_signal, SIGKILL);
  EXPECT_FALSE(r.ok());
  EXPECT_LT(r.wall_s, 10.0);
  EXPECT_EQ(r.status_text().rfind("timed out after", 0), 0u) << r.status_text();
}

TEST(RunProcess, CapturesStdoutAndStderrInterleaved) {
  const ProcessResult r = sh("echo out; echo err >&2; echo again");
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.output, "out\nerr\nagain\n");
  EXPECT_FALSE(r.output_truncated);
}

TEST(RunProcess, LargeOutputKeepsTheLastBytes) {
  ProcessOptions o;
  o.max_output = 1000;
  // About 6.9 MB of numbered lines; the last line is 200000.
  const ProcessResult r = sh("seq 1 200000; echo last", o);
  EXPECT_TRUE(r.ok());
  EXPECT_TRUE(r.output_truncated);
  EXPECT_EQ(r.output.size(), 1000u);
  EXPECT_EQ(tail_lines(r.output, 2), "200000\nlast\n");
}

TEST(RunProcess, WorkingDirectoryAndEnvironment) {
  ProcessOptions o;
  o.cwd = fs::temp_directory_path();
  o.env["VXSYNTH_PROCESS_TEST"] = "value with spaces";
  const ProcessResult r = sh("pwd; echo \"$VXSYNTH_PROCESS_TEST\"; echo \"${HOME:+inherited}\"", o);
  ASSERT_TRUE(r.ok()) << r.output;
  EXPECT_EQ(r.output, fs::canonical(o.cwd).string() + "\nvalue with spaces\ninherited\n");
}

TEST(RunProcess, MissingProgramExits127WithTheReason) {
  const ProcessResult r = run_process({"/nonexistent/vxsynth-no-such-tool"}, {});
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_NE(r.output.find("cannot execute /nonexistent/vxsynth-no-such-tool"), std::string::npos) << r.output;
}

TEST(RunProcess, MissingWorkingDirectoryExits127) {
  ProcessOptions o;
  o.cwd = "/nonexistent/vxsynth-no-such-dir";
  const ProcessResult r = sh("true", o);
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_NE(r.output.find("working directory"), std::string::npos) << r.output;
}

TEST(RunProcess, EmptyCommandThrows) { EXPECT_THROW((void)run_process({}, {}), Error); }

TEST(TailLines, LastLines) {
  EXPECT_EQ(tail_lines("a\nb\nc\n", 2), "b\nc\n");
  EXPECT_EQ(tail_lines("a\nb\nc", 1), "c");
  EXPECT_EQ(tail_lines("a\nb", 5), "a\nb");
  EXPECT_EQ(tail_lines("", 2), "");
}

}  // namespace
TEST(RunProcess, TeeAppendsTheOutputAsItArrives) {
  const fs::path log = fs::temp_directory_path() / ("vxsynth_tee_" + std::to_string(::getpid()) + ".log");
  vxsynth::write_file_atomic(log, "$ header\n");
  vxsynth::ProcessOptions o{30.0};
  o.tee = log;
  const vxsynth::ProcessResult r = vxsynth::run_process({"/bin/sh", "-c", "echo first; echo second >&2"}, o);
  ASSERT_TRUE(r.ok()) << r.output;
  EXPECT_EQ(vxsynth::read_file(log), "$ header\n" + r.output);
  fs::remove(log);
}

}  // namespace vxsynth
