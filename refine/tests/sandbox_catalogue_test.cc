// The sandbox's attack catalogue (docs/sandbox.md "Catalogue"): a scripted external agent makes one
// forbidden change per revision (refine/tests/attacks/CATALOGUE: script, expected rejection) on a
// real reference context (ACT's 4th hot kernel, shrunk to a small shape so a revision takes
// seconds), through the real loop: sandbox, isolated SDK build, vxsim, output checks. Every attack
// must be rejected with its rule; the clean edit at the end must be accepted (retained or reverted).
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/core/bundle.h"
#include "vxsynth/core/ncu_import.h"
#include "vxsynth/core/torch_trace.h"
#include "vxsynth/refine/backends.h"
#include "vxsynth/refine/isolation.h"

namespace vxsynth::refine {
namespace {

namespace fs = std::filesystem;

const fs::path kAttacks = fs::path(VXSYNTH_SOURCE_DIR) / "refine/tests/attacks";
const fs::path kActDir = fs::path(VXSYNTH_SOURCE_DIR) / "data/references/h200/act";

struct Attack {
  std::string script;
  std::string expected;  // substring of the rejection reason, or "accept"
};

std::vector<Attack> catalogue() {
  std::vector<Attack> v;
  std::istringstream in(read_file(kAttacks / "CATALOGUE"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream l(line);
    Attack a;
    l >> a.script;
    std::getline(l >> std::ws, a.expected);
    v.push_back(a);
  }
  return v;
}

// A listening abstract unix socket in the test's own network namespace: what a process outside the
// sandbox could serve. The network attacks (network.sh, candidate_network.sh) try to reach it.
int listen_outside(const char* name) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::memcpy(a.sun_path + 1, name, std::strlen(name));
  const auto len = static_cast<socklen_t>(sizeof(sa_family_t) + 1 + std::strlen(name));
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), len) != 0 || ::listen(fd, 16) != 0) return -1;
  return fd;
}

Reference small_act_k4() {
  const core::ReferenceBundle bundle =
      core::import_profile(core::read_torch_trace(kActDir / "trace.json.gz"), core::read_ncu_csv(kActDir / "ncu_raw.csv"));
  Reference ref = reference_from_bundle(bundle, "k4", "catalogue");
  // The same operator and fixed properties at a small shape: M=16 N=64 K=32.
  ref.context.gemm = core::GemmShape{1, 16, 64, 32};
  return ref;
}

TEST(SandboxCatalogue, EveryAttackIsRejectedWithItsRuleAndACleanEditIsAccepted) {
  std::string why;
  const auto isolation = make_bwrap_isolation("/usr/bin/bwrap", &why);
  if (!isolation) GTEST_SKIP() << "bubblewrap unavailable: " << why;
  if (!fs::exists(fs::path(VXSYNTH_SDK_DIR) / "sdk.mk")) GTEST_SKIP() << "no SDK build";
  const std::vector<Attack> attacks = catalogue();
  ASSERT_GE(attacks.size(), 20u);
  const fs::path out = fs::path(::testing::TempDir()) / "vxsynth_sandbox_catalogue";
  fs::remove_all(out);
  const Reference ref = small_act_k4();
  auto space = make_codegen_space(ref.context);
  SandboxRules rules = default_rules();
  rules.isolation = isolation;
  rules.build_timeout_s = 120;
  rules.run_timeout_s = 60;
  ExternalAgent agent("/bin/sh " + (kAttacks / "dispatch.sh").string(), out / "work" / "agent", 60, isolation,
                      {out});
  auto backend = make_vxsim_backend({VXSYNTH_SDK_DIR, core::Arch::kHopper});
  LoopOptions opts;
  opts.out_dir = out;
  opts.budget = static_cast<int>(attacks.size());
  const int listener = listen_outside("vxsynth-catalogue-net");
  ASSERT_GE(listener, 0) << "cannot listen on the abstract socket vxsynth-catalogue-net: " << std::strerror(errno);
  const auto t0 = std::chrono::steady_clock::now();
  (void)run_loop(ref, *space, agent, *backend, rules, opts, nullptr);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ::close(listener);
  std::cout << "catalogue: " << attacks.size() << " revisions in " << wall << " s\n";

  const RecordRead rr = read_record(out / "record.jsonl", false);
  ASSERT_EQ(rr.entries.size(), attacks.size() + 1);
  int rejected = 0;
  for (size_t i = 0; i < attacks.size(); ++i) {
    const RevisionEntry& e = rr.entries[i + 1];
    const Attack& a = attacks[i];
    std::cout << fmt::format("  r{} {}: {} {}\n", e.revision, a.script, decision_name(e.decision), e.rejection_reason);
    if (a.expected == "accept") {
      EXPECT_NE(e.decision, Decision::kReject) << a.script << ": " << e.rejection_reason;
      continue;
    }
    EXPECT_EQ(e.decision, Decision::kReject) << a.script;
    EXPECT_NE(e.rejection_reason.find(a.expected), std::string::npos)
        << a.script << ": expected '" << a.expected << "' in: " << e.rejection_reason;
    if (e.decision == Decision::kReject) ++rejected;
  }
  std::cout << "catalogue: " << rejected << " rejected\n";
  // No agent's process outlived its call: the revision directories hold exactly the recorded bytes.
  std::this_thread::sleep_for(std::chrono::seconds(3));
  for (const RevisionEntry& e : rr.entries) {
    const fs::path dir = out / "work" / "revisions" / fmt::format("r{:04}", e.revision);
    if (!fs::exists(dir)) continue;
    for (const auto& [rel, hash] : e.source_hashes)
      if (fs::exists(dir / rel)) {
        EXPECT_EQ(sha256_hex(read_file(dir / rel)), hash) << dir / rel;
      }
  }
  // Nothing outside the agent's directory was written: the SDK's sdk.mk is the build's.
  EXPECT_EQ(read_file(fs::path(VXSYNTH_SDK_DIR) / "sdk.mk").find("vxsynth-attack"), std::string::npos);
}

}  // namespace
}  // namespace vxsynth::refine
