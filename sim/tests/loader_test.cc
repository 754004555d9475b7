// .vxbin and ELF loading, including malformed files.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "harness.h"
#include "vxsim/error.h"
#include "vxsynth/common/file_io.h"

namespace vxsim::test {
namespace {

std::vector<uint8_t> header(uint64_t lo, uint64_t hi) {
  std::vector<uint8_t> h(16);
  std::memcpy(h.data(), &lo, 8);
  std::memcpy(h.data() + 8, &hi, 8);
  return h;
}

/// rv32im as a .vxbin: header from the ELF's load range + objcopy image.
std::vector<uint8_t> rv32im_vxbin() {
  Processor scratch(Config{});
  Program p = load_program(scratch, asm_path("rv32im"));
  std::string bin = vxsynth::read_file(asm_path("rv32im", ".bin"));
  auto out = header(p.min_vma, std::max<uint64_t>(p.max_vma, p.min_vma + bin.size()));
  out.insert(out.end(), bin.begin(), bin.end());
  return out;
}

std::string loader_error(const std::vector<uint8_t>& bytes) {
  Memory mem;
  try {
    load_vxbin(mem, bytes, "k.vxbin");
  } catch (const SimError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kLoader);
    return e.what();
  }
  return "no error";
}

// An ELF built with the C extension (EF_RISCV_RVC) is refused at load by name, not run into an
// illegal-instruction fault; its raw image as a .vxbin (no flags to read) faults at decode, saying
// that compressed instructions are not supported.
TEST(Loader, CompressedCodeIsNamedAsSuch) {
  Processor proc(Config{});
  std::string msg = "no error";
  try {
    (void)load_program(proc, asm_path("rvc"));
  } catch (const SimError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kLoader);
    msg = e.what();
  }
  EXPECT_NE(msg.find("rvc.elf: compressed instructions are not supported"), std::string::npos) << msg;
  EXPECT_NE(msg.find("EF_RISCV_RVC"), std::string::npos) << msg;
  const std::string bin = vxsynth::read_file(asm_path("rvc", ".bin"));
  auto bytes = header(0x80000000, 0x80000000 + bin.size());
  bytes.insert(bytes.end(), bin.begin(), bin.end());
  const std::string path = ::testing::TempDir() + "/rvc.vxbin";
  vxsynth::write_file_atomic(path, std::string(bytes.begin(), bytes.end()));
  Processor raw(Config{});
  (void)load_program(raw, path);
  raw.reset();
  msg = "no error";
  try {
    (void)raw.run();
  } catch (const SimError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kIllegalInstr);
    msg = e.what();
  }
  EXPECT_NE(msg.find("at PC 0x80000000"), std::string::npos) << msg;
  EXPECT_NE(msg.find("compressed instructions are not supported"), std::string::npos) << msg;
}

TEST(Loader, VxbinRunsLikeTheElf) {
  std::string path = ::testing::TempDir() + "/rv32im.vxbin";
  auto bytes = rv32im_vxbin();
  vxsynth::write_file_atomic(path, std::string(bytes.begin(), bytes.end()));
  Processor proc(Config{});
  Program p = load_program(proc, path);
  EXPECT_EQ(p.entry, 0x80000000u);
  EXPECT_TRUE(p.symbols.empty());
  proc.reset();
  EXPECT_EQ(proc.run().exit_code, 42u);
}

TEST(Loader, VxbinZeroFillsTheTail) {
  Memory mem;
  mem.write32(0x80000010, 0xDEADBEEF);  // stale data where .bss will be
  std::vector<uint8_t> bytes = header(0x80000000, 0x80000020);
  for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<uint8_t>(i + 1));
  Program p = load_vxbin(mem, bytes, "k.vxbin");
  EXPECT_EQ(p.max_vma, 0x80000020u);
  EXPECT_EQ(mem.read32(0x80000000), 0x04030201u);
  EXPECT_EQ(mem.read32(0x80000010), 0u);
}

TEST(Loader, MalformedVxbinIsRejectedWithAReason) {
  EXPECT_NE(loader_error({1, 2, 3}).find("k.vxbin: truncated .vxbin: 3 bytes"), std::string::npos);
  auto no_image = header(0x80000000, 0x80001000);
  EXPECT_NE(loader_error(no_image).find("no image"), std::string::npos);
  auto inverted = header(0x80001000, 0x80000000);
  inverted.push_back(0);
  EXPECT_NE(loader_error(inverted).find("max_vma 0x80000000 is below min_vma 0x80001000"), std::string::npos);
  auto too_big = header(0x80000000, 0x80000004);
  too_big.resize(16 + 8);
  EXPECT_NE(loader_error(too_big).find("image of 8 bytes does not fit"), std::string::npos);
  auto wide = header(0x180000000ull, 0x180000010ull);
  wide.push_back(0);
  EXPECT_NE(loader_error(wide).find("exceed the 32-bit address space"), std::string::npos);
  auto odd = header(0x80000002, 0x80000010);
  odd.push_back(0);
  EXPECT_NE(loader_error(odd).find("not 4-byte aligned"), std::string::npos);
}

TEST(Loader, ElfOfAnotherMachineIsRejected) {
  std::string host = vxsynth::read_file("/proc/self/exe");
  Memory mem;
  std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(host.data()), host.size());
  try {
    load_elf(mem, bytes, "host.elf");
    FAIL() << "loaded a host executable";
  } catch (const SimError& e) {
    EXPECT_NE(std::string(e.what()).find("host.elf: not an ELF32 little-endian RISC-V file"), std::string::npos) << e.what();
  }
}

TEST(Loader, TruncatedElfIsRejected) {
  std::string elf = vxsynth::read_file(asm_path("rv32im"));
  elf.resize(elf.size() / 3);
  Memory mem;
  std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(elf.data()), elf.size());
  EXPECT_THROW(load_elf(mem, bytes, "cut.elf"), SimError);
}

TEST(Loader, MissingFileNamesThePath) {
  Processor proc(Config{});
  try {
    load_program(proc, "/nonexistent/k.vxbin");
    FAIL();
  } catch (const vxsynth::Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/k.vxbin"), std::string::npos);
  }
}

std::string load_program_error(const std::string& path) {
  Processor proc(Config{});
  try {
    load_program(proc, path);
  } catch (const SimError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kLoader);
    return e.what();
  }
  return "no error";
}

TEST(Loader, DirectoryIsReportedAsADirectory) {
  const std::string dir = ::testing::TempDir();
  const std::string msg = load_program_error(dir);
  EXPECT_NE(msg.find(dir + ": is a directory"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("truncated"), std::string::npos) << msg;
}

TEST(Loader, MissingOrUnreadableFileGivesTheOsReason) {
  std::string msg = load_program_error("/nonexistent/k.vxbin");
  EXPECT_NE(msg.find("/nonexistent/k.vxbin: cannot read the kernel image: No such file or directory"),
            std::string::npos) << msg;
  // A path through a regular file cannot be opened (ENOTDIR) even by root, unlike a chmod 000 file.
  const std::string file = ::testing::TempDir() + "/plain.vxbin";
  vxsynth::write_file_atomic(file, "x");
  msg = load_program_error(file + "/k.vxbin");
  EXPECT_NE(msg.find(file + "/k.vxbin: cannot read the kernel image: Not a directory"), std::string::npos) << msg;
}

TEST(Loader, CliSaysIsADirectory) {
  const std::string log = ::testing::TempDir() + "/vxsim_dir_err.txt";
  const int rc = std::system((std::string(VXSIM_CLI) + " /tmp 2> " + log).c_str());
  ASSERT_TRUE(WIFEXITED(rc));
  EXPECT_EQ(WEXITSTATUS(rc), 2);
  const std::string err = vxsynth::read_file(log);
  EXPECT_NE(err.find("vxsim: error: /tmp: is a directory"), std::string::npos) << err;
}

}  // namespace
}  // namespace vxsim::test
