// .vxbin writer: ELF32 RISC-V executable -> 16-byte header + flat image (docs/vortex.md §3.2).
#include "vxsynth/sdk/vxbin.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"

namespace vxsynth::sdk {
namespace {

/// ELF machine number of RISC-V (EM_RISCV), spelled out for older elf.h copies.
constexpr unsigned kEmRiscv = 243;

struct ElfCloser {
  void operator()(Elf* e) const { elf_end(e); }
};

uint64_t load_le64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) {
    v = (v << 8) | static_cast<uint8_t>(p[i]);
  }
  return v;
}

void store_le64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) {
    out.push_back(static_cast<char>(static_cast<uint8_t>(v >> (8 * i))));
  }
}

}  // namespace

VxbinImage read_elf_image(const std::filesystem::path& elf_path) {
  const std::string name = elf_path.string();
  const std::string file = read_file(elf_path);
  if (file.size() < 4 || std::memcmp(file.data(), ELFMAG, SELFMAG) != 0) {
    throw make_error("{}: not an ELF file (bad magic)", name);
  }
  if (elf_version(EV_CURRENT) == EV_NONE) {
    throw make_error("{}: libelf initialisation failed: {}", name, elf_errmsg(-1));
  }
  // elf_memory wants a mutable buffer; keep a private copy alive for the handle's lifetime.
  std::vector<char> buffer(file.begin(), file.end());
  std::unique_ptr<Elf, ElfCloser> elf(elf_memory(buffer.data(), buffer.size()));
  if (!elf || elf_kind(elf.get()) != ELF_K_ELF) {
    throw make_error("{}: not an ELF object: {}", name, elf_errmsg(-1));
  }
  if (gelf_getclass(elf.get()) != ELFCLASS32) {
    throw make_error("{}: ELF class is {}, expected ELF32 (RV32 kernel, -march=rv32imaf)", name,
                     gelf_getclass(elf.get()) == ELFCLASS64 ? "ELF64" : "unknown");
  }
  GElf_Ehdr ehdr;
  if (gelf_getehdr(elf.get(), &ehdr) == nullptr) {
    throw make_error("{}: cannot read the ELF header: {}", name, elf_errmsg(-1));
  }
  if (ehdr.e_ident[EI_DATA] != ELFDATA2LSB) {
    throw make_error("{}: ELF data encoding is not little-endian", name);
  }
  if (ehdr.e_machine != kEmRiscv) {
    throw make_error("{}: e_machine is {}, expected {} (RISC-V)", name, ehdr.e_machine, kEmRiscv);
  }
  std::size_t phnum = 0;
  if (elf_getphdrnum(elf.get(), &phnum) != 0) {
    throw make_error("{}: cannot read the program headers: {}", name, elf_errmsg(-1));
  }

  struct Segment {
    uint64_t vaddr, offset, filesz, memsz;
  };
  std::vector<Segment> loads;
  for (std::size_t i = 0; i < phnum; ++i) {
    GElf_Phdr ph;
    if (gelf_getphdr(elf.get(), static_cast<int>(i), &ph) == nullptr) {
      throw make_error("{}: cannot read program header {}: {}", name, i, elf_errmsg(-1));
    }
    if (ph.p_type != PT_LOAD || ph.p_memsz == 0) {
      continue;  // an empty PT_LOAD (e.g. a data segment with no data) occupies no memory
    }
    if (ph.p_offset > file.size() || ph.p_filesz > file.size() - ph.p_offset) {
      throw make_error("{}: PT_LOAD segment {} (offset 0x{:x}, size 0x{:x}) lies outside the file",
                       name, i, ph.p_offset, ph.p_filesz);
    }
    if (ph.p_filesz > ph.p_memsz) {
      throw make_error("{}: PT_LOAD segment {} has p_filesz 0x{:x} > p_memsz 0x{:x}", name, i,
                       ph.p_filesz, ph.p_memsz);
    }
    loads.push_back({ph.p_vaddr, ph.p_offset, ph.p_filesz, ph.p_memsz});
  }
  if (loads.empty()) {
    throw make_error("{}: no PT_LOAD segment", name);
  }

  VxbinImage image;
  image.entry = ehdr.e_entry;
  image.min_vma = std::numeric_limits<uint64_t>::max();
  uint64_t image_end = 0;
  for (const Segment& s : loads) {
    image.min_vma = std::min(image.min_vma, s.vaddr);
    image.max_vma = std::max(image.max_vma, s.vaddr + s.memsz);
    if (s.filesz > 0) {
      image_end = std::max(image_end, s.vaddr + s.filesz);
    }
  }
  if (image.entry != image.min_vma) {
    throw make_error(
        "{}: entry point 0x{:x} is not the lowest loaded address 0x{:x}; the loader starts the "
        "kernel at min_vma, so _start must come first (section .init, link32.ld)",
        name, image.entry, image.min_vma);
  }
  constexpr uint64_t kMaxImage = uint64_t{1} << 30;  // 1 GiB: far above any kernel
  const uint64_t size = image_end > image.min_vma ? image_end - image.min_vma : 0;
  if (size > kMaxImage) {
    throw make_error("{}: image spans 0x{:x} bytes (segments too far apart)", name, size);
  }
  image.bytes.assign(static_cast<std::size_t>(size), '\0');
  for (const Segment& s : loads) {
    if (s.filesz == 0) {
      continue;
    }
    std::memcpy(image.bytes.data() + (s.vaddr - image.min_vma), file.data() + s.offset,
                static_cast<std::size_t>(s.filesz));
  }
  return image;
}

std::string to_vxbin(const VxbinImage& image) {
  std::string out;
  out.reserve(kVxbinHeaderSize + image.bytes.size());
  store_le64(out, image.min_vma);
  store_le64(out, image.max_vma);
  out += image.bytes;
  return out;
}

VxbinImage parse_vxbin(std::string_view data, std::string_view name) {
  if (data.size() < kVxbinHeaderSize) {
    throw make_error("{}: {} bytes is shorter than the 16-byte .vxbin header", name, data.size());
  }
  VxbinImage image;
  image.min_vma = load_le64(data.data());
  image.max_vma = load_le64(data.data() + 8);
  image.entry = image.min_vma;
  if (image.max_vma < image.min_vma) {
    throw make_error("{}: max_vma 0x{:x} is below min_vma 0x{:x}", name, image.max_vma,
                     image.min_vma);
  }
  const uint64_t payload = data.size() - kVxbinHeaderSize;
  if (payload > image.max_vma - image.min_vma) {
    throw make_error("{}: image of 0x{:x} bytes does not fit in [0x{:x}, 0x{:x})", name, payload,
                     image.min_vma, image.max_vma);
  }
  image.bytes.assign(data.substr(kVxbinHeaderSize));
  return image;
}

}  // namespace vxsynth::sdk
