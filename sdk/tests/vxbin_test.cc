// Tests of the .vxbin writer on hand-built ELF files and on bad input.
#include "vxsynth/sdk/vxbin.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>

#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"

namespace vxsynth::sdk {
namespace {

namespace fs = std::filesystem;

void put16(std::string& s, std::size_t at, uint16_t v) {
  s[at] = static_cast<char>(v & 0xff);
  s[at + 1] = static_cast<char>(v >> 8);
}
void put32(std::string& s, std::size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) s[at + static_cast<std::size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xff);
}

struct Seg {
  uint32_t type, offset, vaddr, filesz, memsz;
};

/// Builds a minimal ELF32 little-endian executable: header, program headers, then `payload`
/// at file offset 0x100.
std::string make_elf32(uint16_t machine, uint32_t entry, const std::vector<Seg>& segs,
                       const std::string& payload) {
  std::string f(0x100, '\0');
  f[0] = 0x7f; f[1] = 'E'; f[2] = 'L'; f[3] = 'F';
  f[4] = 1;  // ELFCLASS32
  f[5] = 1;  // ELFDATA2LSB
  f[6] = 1;  // EV_CURRENT
  put16(f, 16, 2);        // ET_EXEC
  put16(f, 18, machine);  // e_machine
  put32(f, 20, 1);        // e_version
  put32(f, 24, entry);    // e_entry
  put32(f, 28, 52);       // e_phoff
  put32(f, 32, 0);        // e_shoff
  put16(f, 40, 52);       // e_ehsize
  put16(f, 42, 32);       // e_phentsize
  put16(f, 44, static_cast<uint16_t>(segs.size()));
  put16(f, 46, 40);       // e_shentsize
  for (std::size_t i = 0; i < segs.size(); ++i) {
    const std::size_t p = 52 + 32 * i;
    put32(f, p + 0, segs[i].type);
    put32(f, p + 4, segs[i].offset);
    put32(f, p + 8, segs[i].vaddr);
    put32(f, p + 12, segs[i].vaddr);
    put32(f, p + 16, segs[i].filesz);
    put32(f, p + 20, segs[i].memsz);
    put32(f, p + 24, 5);
    put32(f, p + 28, 4);
  }
  return f + payload;
}

class VxbinTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("vxbin_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path write(const std::string& name, const std::string& bytes) {
    const fs::path p = dir_ / name;
    write_file_atomic(p, bytes);
    return p;
  }
  fs::path dir_;
};

constexpr uint16_t kRiscv = 243;
constexpr uint32_t kLoad = 1;
constexpr uint32_t kTls = 7;

TEST_F(VxbinTest, TwoSegmentsWithGapAndBss) {
  // text: 8 bytes at 0x80000000; data: 4 bytes at 0x80000010 with 12 more bytes of bss.
  const std::string payload = std::string("\x13\x00\x00\x00\x6f\x00\x00\x00", 8) + "DATA";
  const auto elf = write("k.elf", make_elf32(kRiscv, 0x80000000,
                                             {{kLoad, 0x100, 0x80000000, 8, 8},
                                              {kLoad, 0x34, 0x0, 0, 0},  // empty: ignored
                                              {kTls, 0x108, 0x80000010, 0, 4},
                                              {kLoad, 0x108, 0x80000010, 4, 16}},
                                             payload));
  const VxbinImage img = read_elf_image(elf);
  EXPECT_EQ(img.min_vma, 0x80000000u);
  EXPECT_EQ(img.max_vma, 0x80000020u);  // data end incl. bss
  ASSERT_EQ(img.bytes.size(), 0x14u);   // up to the last byte with file contents
  EXPECT_EQ(img.bytes.substr(0, 8), payload.substr(0, 8));
  EXPECT_EQ(img.bytes.substr(8, 8), std::string(8, '\0'));  // gap is zero-filled
  EXPECT_EQ(img.bytes.substr(16), "DATA");

  const std::string bin = to_vxbin(img);
  ASSERT_EQ(bin.size(), kVxbinHeaderSize + 0x14u);
  EXPECT_EQ(bin.substr(0, 8), std::string("\x00\x00\x00\x80\x00\x00\x00\x00", 8));
  EXPECT_EQ(bin.substr(8, 8), std::string("\x20\x00\x00\x80\x00\x00\x00\x00", 8));
  const VxbinImage back = parse_vxbin(bin, "k.vxbin");
  EXPECT_EQ(back.min_vma, img.min_vma);
  EXPECT_EQ(back.max_vma, img.max_vma);
  EXPECT_EQ(back.bytes, img.bytes);
}

void expect_error(const std::function<void()>& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "expected an error containing '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST_F(VxbinTest, RejectsNonElf) {
  const auto p = write("notes.txt", "just some text\n");
  expect_error([&] { (void)read_elf_image(p); }, "not an ELF file");
  expect_error([&] { (void)read_elf_image(p); }, "notes.txt");
}

TEST_F(VxbinTest, RejectsMissingFile) {
  expect_error([&] { (void)read_elf_image(dir_ / "missing.elf"); }, "missing.elf");
}

TEST_F(VxbinTest, RejectsElf64) {
  // The test executable itself is an ELF64 host binary.
  expect_error([&] { (void)read_elf_image("/proc/self/exe"); }, "ELF64");
}

TEST_F(VxbinTest, RejectsOtherMachine) {
  const auto p = write("x86.elf", make_elf32(3, 0x1000, {{kLoad, 0x100, 0x1000, 4, 4}}, "abcd"));
  expect_error([&] { (void)read_elf_image(p); }, "expected 243 (RISC-V)");
}

TEST_F(VxbinTest, RejectsEntryNotAtMinVma) {
  const auto p = write("late.elf",
                       make_elf32(kRiscv, 0x80000004, {{kLoad, 0x100, 0x80000000, 8, 8}},
                                  std::string(8, '\x13')));
  expect_error([&] { (void)read_elf_image(p); }, "entry point 0x80000004");
}

TEST_F(VxbinTest, RejectsSegmentOutsideFile) {
  const auto p = write("short.elf",
                       make_elf32(kRiscv, 0x80000000, {{kLoad, 0x100, 0x80000000, 64, 64}}, "x"));
  expect_error([&] { (void)read_elf_image(p); }, "outside the file");
}

TEST_F(VxbinTest, RejectsNoLoadSegment) {
  const auto p = write("none.elf", make_elf32(kRiscv, 0x80000000, {}, ""));
  expect_error([&] { (void)read_elf_image(p); }, "no PT_LOAD");
}

TEST(VxbinParse, RejectsBadHeaders) {
  expect_error([] { (void)parse_vxbin(std::string(10, '\0'), "tiny.vxbin"); }, "shorter than");
  expect_error([] { (void)parse_vxbin(std::string("\x10\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 16), "inv.vxbin"); },
               "below min_vma");
  std::string overflow = std::string("\0\0\0\0\0\0\0\0\x04\0\0\0\0\0\0\0", 16) + "12345";
  expect_error([&] { (void)parse_vxbin(overflow, "big.vxbin"); }, "does not fit");
}

}  // namespace
}  // namespace vxsynth::sdk
