// bubblewrap isolation on real processes: what an isolated command can and cannot do.
#include "vxsynth/refine/isolation.h"

#include <gtest/gtest.h>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <thread>

#include "vxsynth/common/error.h"
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

// The confining implementations (bwrap; unshare, which needs root), each skipped where it does not
// work on this machine.
class Confining : public testing::TestWithParam<IsolationKind> {
 protected:
  void SetUp() override {
    iso_ = make_isolation(GetParam(), &why_);
    if (!iso_) GTEST_SKIP() << why_;
  }
  std::shared_ptr<const Isolation> iso_;
  std::string why_;
};

TEST_P(Confining, FilesNetworkAndChildren) {
  EXPECT_TRUE(iso_->isolates());
  const Dirs d;
  IsolatedRun r;
  r.work = d.work;
  r.hidden = {d.root / "run", d.root / "run" / "agent"};  // nested, as the run and the candidate directory
  r.env = {{"VXS_VAR", "it's set"}};
  r.timeout_s = 30;
  // Its own directory is writable, the rest is not; the hidden directory is empty.
  auto p = iso_->run({"/bin/sh", "-c",
                      "echo ok > mine && ! echo x > " + (d.outside / "f").string() + " 2>/dev/null && ! test -e " +
                          d.secret.string() + " && test \"$VXS_VAR\" = \"it's set\" && test -z \"$USER$SSH_AUTH_SOCK\""},
                     r);
  EXPECT_TRUE(p.ok()) << p.output;
  EXPECT_EQ(read_file(d.work / "mine"), "ok\n");
  EXPECT_FALSE(fs::exists(d.outside / "f"));
  // No network: the command's network namespace has the loopback device only (/proc is its own).
  p = iso_->run({"/bin/sh", "-c", "test $(tail -n +3 /proc/net/dev | wc -l) -eq 1 && grep -q 'lo:' /proc/net/dev"}, r);
  EXPECT_TRUE(p.ok()) << p.output;
  // A detached child dies with the command.
  p = iso_->run({"/bin/sh", "-c", "(setsid sh -c 'sleep 2; echo late > late' &) ; exit 0"}, r);
  EXPECT_TRUE(p.ok()) << p.output;
  std::this_thread::sleep_for(std::chrono::seconds(3));
  EXPECT_FALSE(fs::exists(d.work / "late"));
}

// What root inside the unshare sandbox cannot do: it holds no capability, so it can neither undo
// the mounts nor write the kernel's settings; /dev has no block device to read a disk through.
TEST_P(Confining, NoCapabilitiesNoDisksNoSettings) {
  const Dirs d;
  IsolatedRun r;
  r.work = d.work;
  r.hidden = {d.root / "run"};
  r.timeout_s = 30;
  const auto p = iso_->run(
      {"/bin/sh", "-c",
       "grep -q '^CapEff:[[:space:]]*0*$' /proc/self/status && test -z \"$(find /dev -type b)\" && "
       "! umount " + (d.root / "run").string() + " 2>/dev/null && ! test -e " + d.secret.string() +
           " && ! test -w /proc/sys/kernel/printk && test -w /dev/null && echo x > /dev/null"},
      r);
  EXPECT_TRUE(p.ok()) << p.output;
}

// Both confining implementations take the child's environment from one list: vxsynth's PATH and
// LD_LIBRARY_PATH (unless the caller names its own), HOME and TMPDIR the work directory, LANG=C,
// then the caller's variables.
TEST(Isolation, OneEnvironmentForEveryImplementation) {
  const char* old = std::getenv("LD_LIBRARY_PATH");
  const std::string saved = old != nullptr ? old : "";
  ::setenv("LD_LIBRARY_PATH", "/opt/vxdev/lib", 1);
  IsolatedRun r;
  r.work = "/tmp/w/../work";
  r.env = {{"VXS_VAR", "1"}};
  using Env = std::vector<std::pair<std::string, std::string>>;
  const Env e = isolated_environment(r);
  ASSERT_EQ(e.size(), 6u);
  EXPECT_EQ(e[0].first, "PATH");
  EXPECT_EQ((Env{e.begin() + 1, e.end()}), (Env{{"HOME", "/tmp/work"}, {"TMPDIR", "/tmp/work"}, {"LANG", "C"},
                                               {"LD_LIBRARY_PATH", "/opt/vxdev/lib"}, {"VXS_VAR", "1"}}));
  r.env = {{"LD_LIBRARY_PATH", "/mine"}};
  const Env mine = isolated_environment(r);
  EXPECT_EQ(mine.back(), (std::pair<std::string, std::string>{"LD_LIBRARY_PATH", "/mine"}));
  EXPECT_EQ(std::count_if(mine.begin(), mine.end(), [](const auto& kv) { return kv.first == "LD_LIBRARY_PATH"; }), 1);
  if (old != nullptr) ::setenv("LD_LIBRARY_PATH", saved.c_str(), 1);
  else ::unsetenv("LD_LIBRARY_PATH");
}

TEST(Isolation, TableNamesEveryKind) {
  for (const IsolationRow& r : isolation_table()) EXPECT_EQ(isolation_kind(r.name), r.kind);
  EXPECT_THROW((void)isolation_kind("chroot"), Error);
}

// A listening abstract unix socket in the test's network namespace (a server outside the sandbox).
int listen_outside(const std::string& name) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::memcpy(a.sun_path + 1, name.data(), name.size());
  const auto len = static_cast<socklen_t>(sizeof(sa_family_t) + 1 + name.size());
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), len) != 0 || ::listen(fd, 4) != 0) return -1;
  return fd;
}

// What a candidate or agent that opens a socket gets: a connection to a server outside the sandbox
// is refused under bwrap and unshare (own network namespace) and made by the plain child, so the check can fail.
TEST_P(Confining, RefusesAConnectionAPlainChildMakes) {
  const std::string name = "vxsynth-isolation-" + std::to_string(::getpid());
  const int fd = listen_outside(name);
  ASSERT_GE(fd, 0) << std::strerror(errno);
  const Dirs d;
  IsolatedRun r;
  r.work = d.work;
  r.timeout_s = 30;
  const std::vector<std::string> connect = {
      "python3", "-c", "import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect('\\0' + sys.argv[1])", name};
  const auto plain = make_no_isolation()->run(connect, r);
  EXPECT_TRUE(plain.ok()) << plain.output;
  const auto confined = iso_->run(connect, r);
  EXPECT_FALSE(confined.ok()) << confined.output;
  EXPECT_NE(confined.output.find("ConnectionRefusedError"), std::string::npos) << confined.output;
  ::close(fd);
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

INSTANTIATE_TEST_SUITE_P(Isolation, Confining, testing::Values(IsolationKind::kBwrap, IsolationKind::kUnshare),
                         [](const testing::TestParamInfo<IsolationKind>& i) {
                           return std::string(i.param == IsolationKind::kBwrap ? "Bwrap" : "Unshare");
                         });

}  // namespace
}  // namespace vxsynth::refine
