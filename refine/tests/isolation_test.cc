// bubblewrap isolation on real processes: what an isolated command can and cannot do.
#include "vxsynth/refine/isolation.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "vxsynth/common/file_io.h"

namespace vxsynth::refine {
namespace {

namespace fs = std::filesystem;

struct Dirs {
  fs::path root = fs::temp_directory_path() / ("vxsynth_isolation_" + std::to_string(::getpid()));
  fs::path work = root / "run" / "agent";
  fs::path secret = root / "run" / "ref_output.bin";
  fs::path outside = root / "outside";
  Dirs() {
    fs::remove_all(root);
    fs::create_directories(work);
    fs::create_directories(outside);
    write_file_atomic(secret, "reference");
  }
  ~Dirs() { fs::remove_all(root); }
};

TEST(Isolation, BwrapConfinesFilesNetworkAndChildren) {
  std::string why;
  const auto iso = make_bwrap_isolation("/usr/bin/bwrap", &why);
  if (!iso) GTEST_SKIP() << why;
  EXPECT_TRUE(iso->isolates());
  const Dirs d;
  IsolatedRun r;
  r.work = d.work;
  r.hidden = {d.root / "run"};
  r.env = {{"VXS_VAR", "set"}};
  r.timeout_s = 30;
  // Its own directory is writable, the rest is not; the hidden directory is empty.
  auto p = iso->run({"/bin/sh", "-c",
                     "echo ok > mine && ! echo x > " + (d.outside / "f").string() + " 2>/dev/null && ! test -e " +
                         d.secret.string() + " && test \"$VXS_VAR\" = set && test -z \"$USER$SSH_AUTH_SOCK\""},
                    r);
  EXPECT_TRUE(p.ok()) << p.output;
  EXPECT_EQ(read_file(d.work / "mine"), "ok\n");
  EXPECT_FALSE(fs::exists(d.outside / "f"));
  // No network: the command's network namespace has the loopback device only (/proc is its own).
  p = iso->run({"/bin/sh", "-c", "test $(tail -n +3 /proc/net/dev | wc -l) -eq 1 && grep -q 'lo:' /proc/net/dev"}, r);
  EXPECT_TRUE(p.ok()) << p.output;
  // A detached child dies with the command.
  p = iso->run({"/bin/sh", "-c", "(setsid sh -c 'sleep 2; echo late > late' &) ; exit 0"}, r);
  EXPECT_TRUE(p.ok()) << p.output;
  std::this_thread::sleep_for(std::chrono::seconds(3));
  EXPECT_FALSE(fs::exists(d.work / "late"));
}

TEST(Isolation, NoneIsAPlainChild) {
  const auto iso = make_no_isolation();
  EXPECT_FALSE(iso->isolates());
  const Dirs d;
  IsolatedRun r;
  r.work = d.work;
  r.timeout_s = 30;
  const auto p = iso->run({"/bin/sh", "-c", "test -e " + d.secret.string()}, r);
  EXPECT_TRUE(p.ok()) << p.output;
}

}  // namespace
}  // namespace vxsynth::refine
