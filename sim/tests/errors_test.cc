// Every error class of issue item 4: a faulting program raises SimError with a message naming
// the PC, warp, lane and address involved; the host process survives.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <functional>
#include <fmt/format.h>

#include "harness.h"
#include "vxsim/error.h"
#include "vxsynth/common/file_io.h"

namespace vxsim::test {
namespace {

struct Fault {
  ErrorKind kind;
  std::string message;
};

Fault run_case(uint32_t selector, Config cfg = {}, const std::function<void(AsmMachine&)>& prep = {}) {
  AsmMachine m("errors", cfg);
  m.proc->memory().write32(m.sym("selector"), selector);
  if (prep) prep(m);
  try {
    m.run();
  } catch (const SimError& e) {
    return Fault{e.kind(), e.what()};
  }
  return Fault{ErrorKind::kConfig, "no error"};
}

void expect_has(const std::string& msg, const std::string& part) {
  EXPECT_NE(msg.find(part), std::string::npos) << "message lacks '" << part << "':\n" << msg;
}

TEST(Errors, StrictDivergenceNamesPcWarpLanesAndBothOutcomes) {
  AsmMachine probe("errors");
  Fault f = run_case(0);
  EXPECT_EQ(f.kind, ErrorKind::kDivergence);
  uint32_t pc = probe.sym("fault_pc");
  expect_has(f.message, fmt::format("divergent branch at PC {:#010x}", pc));
  expect_has(f.message, "warp 0");
  expect_has(f.message, fmt::format("lanes {{0}} branch to {:#010x}", pc + 4));
  expect_has(f.message, fmt::format("lanes {{1,2,3}} fall through to {:#010x}", pc + 4));
  expect_has(f.message, "vx_split");
}

TEST(Errors, DivergenceAllowedWhenNotStrict) {
  Config cfg;
  cfg.strict_divergence = false;
  AsmMachine m("errors", cfg);
  RunResult r = m.run();
  EXPECT_EQ(r.exit_code, 0u);
  EXPECT_EQ(m.proc->core(0).divergent_branches(), 1u);
}

TEST(Errors, IllegalInstruction) {
  Fault f = run_case(1);
  EXPECT_EQ(f.kind, ErrorKind::kIllegalInstr);
  expect_has(f.message, "illegal instruction 0xffffffff");
  expect_has(f.message, "at PC 0x8");
  expect_has(f.message, "warp 0");
}

TEST(Errors, IllegalInstructionInsideTheImageDoesNotBlameThePc) {
  Fault f = run_case(1);
  EXPECT_EQ(f.message.find("outside the loaded image"), std::string::npos) << f.message;
}

TEST(Errors, PcOutsideTheLoadedImageIsNamedAsSuch) {
  // Start warp 0 one page past the end of the loaded program: the zero word fetched there is not
  // an instruction, and the message must say the PC left the image (same class as before).
  AsmMachine m("rv32im");
  const uint32_t stray = (m.prog.max_vma + 0x1000u) & ~3u;
  m.proc->dcr_write(0x001, stray);
  m.proc->reset();
  Fault f{ErrorKind::kConfig, "no error"};
  try {
    m.run();
  } catch (const SimError& e) {
    f = Fault{e.kind(), e.what()};
  }
  EXPECT_EQ(f.kind, ErrorKind::kIllegalInstr);
  expect_has(f.message, fmt::format("illegal instruction 0x00000000 (unknown 0x00000000) at PC {:#010x}", stray));
  expect_has(f.message, "warp 0, lanes {0}");
  expect_has(f.message, fmt::format("the PC is outside the loaded image [{:#010x}, {:#010x})", m.prog.min_vma,
                                    m.prog.max_vma));
}

TEST(Errors, MisalignedLoadNamesAddressAndLane) {
  Fault f = run_case(2);
  EXPECT_EQ(f.kind, ErrorKind::kMisaligned);
  expect_has(f.message, "misaligned 4-byte load from 0x00010002");
  expect_has(f.message, "lane 0");
}

TEST(Errors, NullPageAccess) {
  Fault f = run_case(3);
  EXPECT_EQ(f.kind, ErrorKind::kOutOfRange);
  expect_has(f.message, "unmapped address 0x00000004");
}

TEST(Errors, AclViolation) {
  Fault f = run_case(4, {}, [](AsmMachine& m) { m.proc->memory().set_acl(0x20000, 4096, kAclRead); });
  EXPECT_EQ(f.kind, ErrorKind::kAccessViolation);
  expect_has(f.message, "memory access violation: 4-byte store to 0x00020000");
  // Without an ACL entry the same store passes.
  Fault ok = run_case(4);
  EXPECT_EQ(ok.message, "no error");
}

TEST(Errors, IpdomOverflow) {
  Config cfg;
  cfg.threads = 2;
  Fault f = run_case(5, cfg);
  EXPECT_EQ(f.kind, ErrorKind::kIpdomOverflow);
  expect_has(f.message, "IPDOM stack overflow");
  expect_has(f.message, "NUM_THREADS-1 = 1");
  // With 4 threads the stack holds 3 entries and the same program succeeds.
  EXPECT_EQ(run_case(5).message, "no error");
}

TEST(Errors, BarrierDeadlockDescribesTheWaitingWarp) {
  Fault f = run_case(6);
  EXPECT_EQ(f.kind, ErrorKind::kDeadlock);
  expect_has(f.message, "deadlock");
  expect_has(f.message, "warp 0");
  expect_has(f.message, "waits at barrier 0 (1 of 2 warps arrived)");
}

TEST(Errors, RunawayKernelHitsTheBudget) {
  Config cfg;
  cfg.instr_budget = 5000;
  Fault f = run_case(7, cfg);
  EXPECT_EQ(f.kind, ErrorKind::kBudget);
  expect_has(f.message, "instruction budget of 5000 warp instructions exhausted");
}

TEST(Errors, UnsupportedCsr) {
  Fault f = run_case(8);
  EXPECT_EQ(f.kind, ErrorKind::kCsr);
  expect_has(f.message, "unsupported CSR 0x7c0");
}

TEST(Errors, MpmCountersAreReadOnly) {
  Fault f = run_case(15);
  EXPECT_EQ(f.kind, ErrorKind::kCsr);
  expect_has(f.message, "write to read-only CSR 0xb00");
}

TEST(Errors, ConsoleAcceptsOnlyBytes) {
  Fault f = run_case(9);
  EXPECT_EQ(f.kind, ErrorKind::kOutOfRange);
  expect_has(f.message, "console accepts only byte stores");
}

TEST(Errors, ReservedRoundingModeInFrm) {
  Fault f = run_case(10);
  EXPECT_EQ(f.kind, ErrorKind::kIllegalInstr);
  expect_has(f.message, "frm holds a reserved rounding mode");
  expect_has(f.message, "fadd.s fa0, fa0, fa0");
}

TEST(Errors, JoinWithEmptyStack) {
  Fault f = run_case(11);
  EXPECT_EQ(f.kind, ErrorKind::kIpdomUnderflow);
  expect_has(f.message, "empty IPDOM stack");
}

TEST(Errors, MisalignedJump) {
  Fault f = run_case(12);
  EXPECT_EQ(f.kind, ErrorKind::kMisaligned);
  expect_has(f.message, "misaligned target");
}

TEST(Console, LineBufferedPerOffsetAsSimX) {
  AsmMachine m("errors");
  m.proc->memory().write32(m.sym("selector"), 13);
  RunResult r = m.run();
  EXPECT_EQ(r.exit_code, 3u);
  EXPECT_EQ(m.console.str(), "#0: hi\n#1: x\n");  // the partial line of offset 1 is flushed at the end
}

TEST(Halt, EbreakStopsTheCore) {
  AsmMachine m("errors");
  m.proc->memory().write32(m.sym("selector"), 14);
  m.run();
  EXPECT_TRUE(m.proc->idle());
  EXPECT_NE(m.proc->core(0).halt_reason().find("ebreak at PC"), std::string::npos);
}

TEST(Cli, ExitCodeAndErrors) {
  std::string cli = VXSIM_CLI;
  int rc = std::system((cli + " " + asm_path("rv32im") + " > /dev/null").c_str());
  ASSERT_TRUE(WIFEXITED(rc));
  EXPECT_EQ(WEXITSTATUS(rc), 42);
  std::string log = ::testing::TempDir() + "/vxsim_cli_err.txt";
  rc = std::system((cli + " " + asm_path("errors") + " 2> " + log).c_str());
  ASSERT_TRUE(WIFEXITED(rc));
  EXPECT_EQ(WEXITSTATUS(rc), 2);
  std::string err = vxsynth::read_file(log);
  expect_has(err, "vxsim: error: divergent branch");
  rc = std::system((cli + " --no-strict-divergence --trace " + asm_path("errors") + " 2> " + log).c_str());
  EXPECT_EQ(WEXITSTATUS(rc), 0);
  err = vxsynth::read_file(log);
  expect_has(err, "core 0 warp 0 pc 0x80000000 mask 0x00000001: auipc t0");
  expect_has(err, "mask 0x0000000f: beq t1, zero");
  rc = std::system((cli + " --warps 33 " + asm_path("rv32im") + " 2> " + log).c_str());
  EXPECT_EQ(WEXITSTATUS(rc), 2);
  expect_has(vxsynth::read_file(log), "warps must be 1..32");
  // A bad command line exits 2 as well (not CLI11's own codes), --help 0.
  rc = std::system((cli + " --warps four " + asm_path("rv32im") + " 2> " + log).c_str());
  EXPECT_EQ(WEXITSTATUS(rc), 2);
  expect_has(vxsynth::read_file(log), "--warps");
  rc = std::system((cli + " --no-such-flag " + asm_path("rv32im") + " 2> " + log).c_str());
  EXPECT_EQ(WEXITSTATUS(rc), 2);
  rc = std::system((cli + " --help > " + log).c_str());
  EXPECT_EQ(WEXITSTATUS(rc), 0);
  expect_has(vxsynth::read_file(log), "vxsim: functional simulator");
}

}  // namespace
}  // namespace vxsim::test
