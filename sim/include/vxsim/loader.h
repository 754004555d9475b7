#pragma once
/// \file
/// Kernel image loaders: `.vxbin` (docs/vortex.md §3.2: bytes 0-7 min_vma, 8-15 max_vma, both
/// uint64 little-endian, then the raw `objcopy -O binary` image placed at min_vma) and ELF32
/// RISC-V executables (for debugging; also gives symbols to tests).

#include <cstdint>
#include <filesystem>
#include <map>
#include <span>
#include <string>

#include "vxsim/memory.h"

namespace vxsim {

class Processor;

/// A parsed .vxbin: header fields and a view of the image bytes.
struct VxbinImage {
  uint32_t min_vma = 0;  ///< load address and start PC
  uint32_t max_vma = 0;  ///< end of the image incl. .bss
  std::span<const uint8_t> image;
};

/// What a loader placed in memory.
struct Program {
  uint32_t entry = 0;    ///< start PC (vxbin: min_vma; ELF: e_entry)
  uint32_t min_vma = 0;
  uint32_t max_vma = 0;
  std::map<std::string, uint32_t> symbols;  ///< ELF symbol table (empty for vxbin)
};

/// Validates a .vxbin. Throws SimError(kLoader) naming `name` for: fewer than 16 bytes,
/// addresses beyond 32 bits, max_vma < min_vma, an image longer than max_vma − min_vma, an empty
/// image, a misaligned min_vma.
[[nodiscard]] VxbinImage parse_vxbin(std::span<const uint8_t> bytes, const std::string& name);

/// Copies a parsed .vxbin into memory and zero-fills [min_vma + image size, max_vma).
Program load_vxbin(Memory& mem, std::span<const uint8_t> bytes, const std::string& name);

/// Loads the PT_LOAD segments of an ELF32 little-endian RISC-V executable (libelf). Throws
/// SimError(kLoader) naming the file for anything else.
Program load_elf(Memory& mem, std::span<const uint8_t> bytes, const std::string& name);

/// Reads `path` (ELF if it starts with \x7fELF, .vxbin otherwise), loads it into the processor's
/// memory, records [min_vma, max_vma) as the processor's image range (Processor::set_image_range)
/// and points the startup-address DCR at its entry. Throws SimError(kLoader) naming the path and
/// the OS reason for a missing or unreadable file, and saying "is a directory" for a directory.
Program load_program(Processor& proc, const std::filesystem::path& path);

}  // namespace vxsim
