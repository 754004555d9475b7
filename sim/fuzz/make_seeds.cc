// Writes decode_fuzzer's seed corpus and dictionary from the instruction table itself, so both
// follow the table when rows are added: per row, kSeedsPerRow inputs (layout: fuzz_input.h) whose
// programs are that row's encoding with random operand bits, in varied machine states; and one
// dictionary entry per row (its match bits, little-endian).
// Usage: make_seeds <corpus-dir> <dict-file>. Exit status 1 with a message on I/O errors.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "fuzz_input.h"
#include "vxsim/isa.h"

namespace {

constexpr int kSeedsPerRow = 3;
constexpr int kWordsPerSeed = 4;

void put32(std::vector<uint8_t>& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

}  // namespace

int main(int argc, char** argv) {
  using namespace vxsim::fuzz;
  if (argc != 3) {
    std::fprintf(stderr, "usage: make_seeds <corpus-dir> <dict-file>\n");
    return 1;
  }
  const std::filesystem::path dir = argv[1];
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    std::fprintf(stderr, "make_seeds: cannot create %s: %s\n", dir.c_str(), ec.message().c_str());
    return 1;
  }
  std::mt19937 gen(20261130u);  // fixed: the corpus is reproducible
  const auto table = vxsim::instr_table();
  std::ofstream dict(argv[2]);
  for (size_t row = 0; row < table.size(); ++row) {
    const vxsim::InstrDef& def = table[row];
    dict << fmt::format("op_{}=\"", row);
    for (int i = 0; i < 4; ++i) dict << fmt::format("\\x{:02X}", (def.match >> (8 * i)) & 0xFF);
    dict << "\"\n";
    for (int s = 0; s < kSeedsPerRow; ++s) {
      std::vector<uint8_t> in;
      // Seed 0: one warp, lane 0 only. Seed 1: full warp. Seed 2: two full warps, loose divergence.
      uint32_t ctl = 0;
      if (s >= 1) ctl |= 0xFu << kCtlMask0Shift;
      if (s == 2) ctl |= kCtlTwoWarps | kCtlLooseDiverge | (0xFu << kCtlMask1Shift) | (1u << kCtlPc1Shift);
      if ((gen() & 1) != 0) ctl |= kCtlUseRun;
      put32(in, ctl);
      put32(in, static_cast<uint32_t>(gen()) & 0xFFFCu);  // a small aligned free value
      for (size_t i = 0; i < 32; ++i) in.push_back(static_cast<uint8_t>(gen()));
      for (int w = 0; w < kWordsPerSeed; ++w) put32(in, def.match | (static_cast<uint32_t>(gen()) & ~def.mask));
      const auto path = dir / fmt::format("row{:03}_{}_{}", row, def.name, s);
      std::ofstream f(path, std::ios::binary);
      f.write(reinterpret_cast<const char*>(in.data()), static_cast<std::streamsize>(in.size()));
      if (!f) {
        std::fprintf(stderr, "make_seeds: cannot write %s\n", path.c_str());
        return 1;
      }
    }
  }
  dict << "tmc_zero=\"\\x0B\\x00\\x00\\x00\"\n";
  if (!dict) {
    std::fprintf(stderr, "make_seeds: cannot write %s\n", argv[2]);
    return 1;
  }
  std::printf("make_seeds: %zu rows, %zu seeds in %s, dictionary %s\n", table.size(),
              table.size() * kSeedsPerRow, dir.c_str(), argv[2]);
  return 0;
}
