#pragma once
/// \file
/// The `.vxbin` kernel image format of Vortex 2.x (docs/vortex.md §3.2) and its
/// writer from an RV32 ELF file.
///
/// Layout: bytes 0-7 `min_vma` (uint64, little-endian), bytes 8-15 `max_vma` (uint64 LE), then the
/// memory image from `min_vma` up to the end of the last loaded byte with file contents (what
/// `objcopy -O binary` writes; gaps are zero). `min_vma` is the lowest p_vaddr over PT_LOAD
/// segments and `max_vma` the highest p_vaddr + p_memsz, so [min_vma, max_vma) also covers .bss.
/// PT_LOAD segments with p_memsz 0 occupy no memory and are ignored (GNU ld emits one at address 0
/// when a kernel has no data at all).
/// The loader copies the image to `min_vma` and starts the kernel there, so `_start` must be the
/// lowest loaded address.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace vxsynth::sdk {

/// Size of the `.vxbin` header in bytes (two uint64 little-endian words).
inline constexpr std::size_t kVxbinHeaderSize = 16;

/// A kernel image: load range and the bytes to copy to `min_vma`.
struct VxbinImage {
  uint64_t min_vma = 0;  ///< lowest PT_LOAD p_vaddr = load address = start PC
  uint64_t max_vma = 0;  ///< highest PT_LOAD p_vaddr + p_memsz (exclusive end, includes .bss)
  uint64_t entry = 0;    ///< ELF entry point (e_entry); equals min_vma for a valid kernel
  std::string bytes;     ///< memory image starting at min_vma (file contents, gaps zero-filled)
};

/// Reads an ELF32 little-endian RISC-V executable and builds its image from the PT_LOAD segments.
/// Throws vxsynth::Error naming `elf_path` if the file cannot be read, is not ELF, is not ELF32,
/// is not little-endian, is not RISC-V (e_machine 243), has no PT_LOAD segment, has a segment
/// outside the file, or has an entry point other than min_vma.
[[nodiscard]] VxbinImage read_elf_image(const std::filesystem::path& elf_path);

/// Serialises an image as `.vxbin` bytes (16-byte header + image).
[[nodiscard]] std::string to_vxbin(const VxbinImage& image);

/// Parses `.vxbin` bytes (`name` is used in error messages). Throws vxsynth::Error if the data is
/// shorter than the header, if max_vma < min_vma, or if the image does not fit in
/// [min_vma, max_vma).
[[nodiscard]] VxbinImage parse_vxbin(std::string_view data, std::string_view name);

}  // namespace vxsynth::sdk
