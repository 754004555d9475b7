#include "vxsim/loader.h"

#include <gelf.h>
#include <libelf.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "vxsim/core.h"
#include "vxsim/error.h"
#include "vxsynth/common/file_io.h"

namespace vxsim {

namespace {
uint64_t le64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

/// Reads a kernel image file. A missing path, a directory and an unreadable file are reported as
/// such (SimError kLoader with the OS reason) instead of being parsed as a short .vxbin.
std::string read_image(const std::filesystem::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    throw sim_error(ErrorKind::kLoader, "{}: cannot read the kernel image: {}", path.string(), std::strerror(err));
  }
  if (S_ISDIR(st.st_mode)) {
    throw sim_error(ErrorKind::kLoader, "{}: is a directory, not a kernel image (.vxbin or .elf)", path.string());
  }
  try {
    return vxsynth::read_file(path);
  } catch (const vxsynth::Error& e) {
    throw SimError(ErrorKind::kLoader, e.what());
  }
}
}  // namespace

VxbinImage parse_vxbin(std::span<const uint8_t> bytes, const std::string& name) {
  if (bytes.size() < 16) {
    throw sim_error(ErrorKind::kLoader, "{}: truncated .vxbin: {} bytes, but the header alone is 16 (min_vma, max_vma)",
                    name, bytes.size());
  }
  uint64_t min_vma = le64(bytes.data());
  uint64_t max_vma = le64(bytes.data() + 8);
  uint64_t size = bytes.size() - 16;
  if (min_vma >= (1ull << 32) || max_vma > (1ull << 32)) {
    throw sim_error(ErrorKind::kLoader, "{}: bad .vxbin header: min_vma {:#x} / max_vma {:#x} exceed the 32-bit address space",
                    name, min_vma, max_vma);
  }
  if (max_vma < min_vma) {
    throw sim_error(ErrorKind::kLoader, "{}: bad .vxbin header: max_vma {:#x} is below min_vma {:#x}", name, max_vma, min_vma);
  }
  if (size == 0) throw sim_error(ErrorKind::kLoader, "{}: .vxbin has a header but no image", name);
  if (size > max_vma - min_vma) {
    throw sim_error(ErrorKind::kLoader, "{}: bad .vxbin header: image of {} bytes does not fit in [min_vma {:#x}, max_vma {:#x})",
                    name, size, min_vma, max_vma);
  }
  if ((min_vma & 3) != 0) {
    throw sim_error(ErrorKind::kLoader, "{}: bad .vxbin header: min_vma {:#x} (the start PC) is not 4-byte aligned", name, min_vma);
  }
  VxbinImage img;
  img.min_vma = static_cast<uint32_t>(min_vma);
  img.max_vma = static_cast<uint32_t>(max_vma);
  img.image = bytes.subspan(16);
  return img;
}

Program load_vxbin(Memory& mem, std::span<const uint8_t> bytes, const std::string& name) {
  VxbinImage img = parse_vxbin(bytes, name);
  mem.write(img.min_vma, img.image.data(), img.image.size());
  uint64_t end = static_cast<uint64_t>(img.min_vma) + img.image.size();
  mem.fill(end, 0, img.max_vma - end);
  Program p;
  p.entry = img.min_vma;
  p.min_vma = img.min_vma;
  p.max_vma = img.max_vma;
  return p;
}

Program load_elf(Memory& mem, std::span<const uint8_t> bytes, const std::string& name) {
  if (elf_version(EV_CURRENT) == EV_NONE) throw sim_error(ErrorKind::kLoader, "libelf initialisation failed");
  std::string buf(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  Elf* e = elf_memory(buf.data(), buf.size());
  if (e == nullptr) throw sim_error(ErrorKind::kLoader, "{}: not an ELF file: {}", name, elf_errmsg(-1));
  struct Closer {
    Elf* e;
    ~Closer() { elf_end(e); }
  } closer{e};
  if (elf_kind(e) != ELF_K_ELF) throw sim_error(ErrorKind::kLoader, "{}: not an ELF file", name);
  GElf_Ehdr eh;
  if (gelf_getehdr(e, &eh) == nullptr) throw sim_error(ErrorKind::kLoader, "{}: unreadable ELF header: {}", name, elf_errmsg(-1));
  if (eh.e_ident[EI_CLASS] != ELFCLASS32 || eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_machine != EM_RISCV) {
    throw sim_error(ErrorKind::kLoader, "{}: not an ELF32 little-endian RISC-V file (class {}, machine {})", name,
                    static_cast<int>(eh.e_ident[EI_CLASS]), eh.e_machine);
  }
  // EF_RISCV_RVC (RISC-V ELF psABI, "e_flags"): the file was built with compressed instructions.
  constexpr uint32_t kEfRiscvRvc = 0x1;
  if ((eh.e_flags & kEfRiscvRvc) != 0)
    throw sim_error(ErrorKind::kLoader,
                    "{}: compressed instructions are not supported: the ELF is built with the C extension "
                    "(e_flags EF_RISCV_RVC) and Vortex has no C extension; compile with -march=rv32imaf (no 'c')",
                    name);
  if (eh.e_type != ET_EXEC) throw sim_error(ErrorKind::kLoader, "{}: not an executable (e_type {}); link it first", name, eh.e_type);
  size_t nph = 0;
  if (elf_getphdrnum(e, &nph) != 0) throw sim_error(ErrorKind::kLoader, "{}: bad program headers: {}", name, elf_errmsg(-1));
  Program p;
  p.entry = static_cast<uint32_t>(eh.e_entry);
  uint64_t lo = UINT64_MAX;
  uint64_t hi = 0;
  for (size_t i = 0; i < nph; ++i) {
    GElf_Phdr ph;
    if (gelf_getphdr(e, static_cast<int>(i), &ph) == nullptr) continue;
    if (ph.p_type != PT_LOAD || ph.p_memsz == 0) continue;
    if (ph.p_offset + ph.p_filesz > bytes.size() || ph.p_filesz > ph.p_memsz) {
      throw sim_error(ErrorKind::kLoader, "{}: segment {} lies outside the file (truncated ELF?)", name, i);
    }
    mem.write(ph.p_vaddr, bytes.data() + ph.p_offset, ph.p_filesz);
    mem.fill(ph.p_vaddr + ph.p_filesz, 0, ph.p_memsz - ph.p_filesz);
    lo = std::min<uint64_t>(lo, ph.p_vaddr);
    hi = std::max<uint64_t>(hi, ph.p_vaddr + ph.p_memsz);
  }
  if (lo == UINT64_MAX) throw sim_error(ErrorKind::kLoader, "{}: no loadable segment", name);
  p.min_vma = static_cast<uint32_t>(lo);
  p.max_vma = static_cast<uint32_t>(hi);
  Elf_Scn* scn = nullptr;
  while ((scn = elf_nextscn(e, scn)) != nullptr) {
    GElf_Shdr sh;
    if (gelf_getshdr(scn, &sh) == nullptr || sh.sh_type != SHT_SYMTAB) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr || sh.sh_entsize == 0) continue;
    size_t n = sh.sh_size / sh.sh_entsize;
    for (size_t i = 0; i < n; ++i) {
      GElf_Sym sym;
      if (gelf_getsym(data, static_cast<int>(i), &sym) == nullptr) continue;
      const char* nm = elf_strptr(e, sh.sh_link, sym.st_name);
      if (nm != nullptr && *nm != '\0') p.symbols[nm] = static_cast<uint32_t>(sym.st_value);
    }
  }
  return p;
}

Program load_program(Processor& proc, const std::filesystem::path& path) {
  std::string data = read_image(path);
  std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(data.data()), data.size());
  Program p;
  if (data.size() >= 4 && std::memcmp(data.data(), "\x7f" "ELF", 4) == 0) {
    p = load_elf(proc.memory(), bytes, path.string());
  } else {
    p = load_vxbin(proc.memory(), bytes, path.string());
  }
  proc.set_image_range(p.min_vma, p.max_vma);
  proc.dcr_write(0x001, p.entry);
  proc.dcr_write(0x002, 0);
  return p;
}

}  // namespace vxsim
