// Checks every kernel built by vx_add_kernel for the regression programs against binutils:
//  - kernel.vxbin == 16-byte header (min/max over PT_LOAD from `readelf -lW`) + `objcopy -O binary`;
//  - `_start` is the ELF entry, lies at STARTUP_ADDR and is min_vma (the loader's start PC);
//  - every instruction in `objdump -d` is 4 bytes (no RVC: Vortex 2.x cannot execute it).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "vxsynth/common/file_io.h"
#include "vxsynth/sdk/vxbin.h"

namespace vxsynth::sdk {
namespace {

namespace fs = std::filesystem;

std::string run(const std::string& cmd) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
  if (!pipe) {
    ADD_FAILURE() << "cannot run " << cmd;
    return {};
  }
  std::string out;
  char buf[4096];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof(buf), pipe.get())) > 0) {
    out.append(buf, n);
  }
  return out;
}

std::vector<std::string> kernel_dirs() {
  std::vector<std::string> dirs;
  std::stringstream ss(VX_TEST_KERNEL_DIRS);
  std::string d;
  while (std::getline(ss, d, ',')) {
    if (!d.empty()) dirs.push_back(d);
  }
  return dirs;
}

class KernelImage : public ::testing::TestWithParam<std::string> {};

TEST_P(KernelImage, VxbinMatchesReadelfAndObjcopy) {
  const fs::path dir = GetParam();
  const fs::path elf = dir / "kernel.elf";
  const std::string vxbin = read_file(dir / "kernel.vxbin");
  const VxbinImage img = parse_vxbin(vxbin, (dir / "kernel.vxbin").string());

  // min/max over LOAD lines of readelf -lW: Type Offset VirtAddr PhysAddr FileSiz MemSiz ...
  std::istringstream lines(run(std::string(VX_TEST_READELF) + " -lW '" + elf.string() + "'"));
  std::string line;
  uint64_t min_vma = UINT64_MAX, max_vma = 0;
  int loads = 0;
  while (std::getline(lines, line)) {
    std::istringstream ls(line);
    std::string type, off, vaddr, paddr, filesz, memsz;
    if (!(ls >> type) || type != "LOAD") continue;
    ls >> off >> vaddr >> paddr >> filesz >> memsz;
    const uint64_t va = std::stoull(vaddr, nullptr, 16);
    const uint64_t ms = std::stoull(memsz, nullptr, 16);
    if (ms == 0) continue;  // empty segment: occupies no memory
    min_vma = std::min(min_vma, va);
    max_vma = std::max(max_vma, va + ms);
    ++loads;
  }
  ASSERT_GT(loads, 0) << "readelf found no LOAD segment in " << elf;
  EXPECT_EQ(img.min_vma, min_vma);
  EXPECT_EQ(img.max_vma, max_vma);
  EXPECT_EQ(img.min_vma, static_cast<uint64_t>(VX_TEST_STARTUP_ADDR));

  const fs::path raw = fs::path(::testing::TempDir()) / (dir.filename().string() + "_objcopy.bin");
  run(std::string(VX_TEST_OBJCOPY) + " -O binary '" + elf.string() + "' '" + raw.string() + "'");
  EXPECT_EQ(img.bytes, read_file(raw)) << "vxbin image differs from objcopy -O binary";
  fs::remove(raw);
}

TEST_P(KernelImage, StartIsEntryAndLowestAddress) {
  const fs::path elf = fs::path(GetParam()) / "kernel.elf";
  const VxbinImage img = read_elf_image(elf);  // also checks entry == min_vma
  std::istringstream syms(run(std::string(VX_TEST_READELF) + " -sW '" + elf.string() + "'"));
  std::string line;
  bool found = false;
  while (std::getline(syms, line)) {
    std::istringstream ls(line);
    std::string num, value, size, type, bind, vis, ndx, name;
    if (!(ls >> num >> value >> size >> type >> bind >> vis >> ndx >> name)) continue;
    if (name != "_start") continue;
    found = true;
    EXPECT_EQ(std::stoull(value, nullptr, 16), img.min_vma);
    EXPECT_EQ(img.entry, img.min_vma);
  }
  EXPECT_TRUE(found) << "no _start symbol in " << elf;
}

/// Counts the instructions in `objdump -d` output and lists those not encoded in 32 bits.
struct InstrScan {
  int instructions = 0;
  std::vector<std::string> short_ones;
};
InstrScan scan_instructions(const fs::path& file) {
  std::istringstream dump(run(std::string(VX_TEST_OBJDUMP) + " -d '" + file.string() + "'"));
  InstrScan scan;
  std::string line;
  while (std::getline(dump, line)) {
    // "80000000:\t00000513          \tli\ta0,0"
    const auto colon = line.find(":\t");
    if (colon == std::string::npos || line.find_first_not_of(" 0123456789abcdef") != colon) continue;
    std::istringstream ls(line.substr(colon + 2));
    std::string enc;
    ls >> enc;
    ++scan.instructions;
    if (enc.size() != 8) scan.short_ones.push_back(line);
  }
  return scan;
}

TEST_P(KernelImage, NoCompressedInstructions) {
  const fs::path elf = fs::path(GetParam()) / "kernel.elf";
  const InstrScan scan = scan_instructions(elf);
  EXPECT_GT(scan.instructions, 100);
  EXPECT_TRUE(scan.short_ones.empty()) << scan.short_ones.size() << " non-32-bit instructions in "
                                       << elf << ", first: " << scan.short_ones.front();
}

// The check itself must be able to fail: an object built with -march=rv32imac has RVC.
TEST(KernelImageCheck, DetectsCompressedInstructions) {
  const InstrScan scan = scan_instructions(VX_TEST_RVC_PROBE);
  EXPECT_GT(scan.instructions, 0);
  EXPECT_FALSE(scan.short_ones.empty()) << "no 16-bit instruction found in " << VX_TEST_RVC_PROBE;
}

INSTANTIATE_TEST_SUITE_P(Regression, KernelImage, ::testing::ValuesIn(kernel_dirs()),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           return fs::path(p.param).filename().string();
                         });

}  // namespace
}  // namespace vxsynth::sdk
