// vxbin: converts an RV32 RISC-V kernel ELF into a Vortex .vxbin image (docs/vortex.md §3.2).
// Usage: vxbin <kernel.elf> <kernel.vxbin>
#include <cstdio>
#include <exception>

#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"
#include "vxsynth/sdk/vxbin.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr,
                 "usage: vxbin <kernel.elf> <kernel.vxbin>\n"
                 "Writes a 16-byte header (min_vma, max_vma as little-endian uint64) followed by\n"
                 "the flat memory image of the ELF's PT_LOAD segments.\n");
    return 2;
  }
  try {
    const vxsynth::sdk::VxbinImage image = vxsynth::sdk::read_elf_image(argv[1]);
    vxsynth::write_file_atomic(argv[2], vxsynth::sdk::to_vxbin(image));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "vxbin: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
