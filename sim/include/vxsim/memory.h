#pragma once
/// \file
/// Sparse, paged 32-bit global memory of the simulated device, with the access-control list the
/// Vortex runtime attaches to buffers (docs/vortex.md §3.1 "Memory ACL").

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <vector>

namespace vxsim {

/// ACL flag bits, identical to the runtime's VX_MEM_READ / VX_MEM_WRITE (docs/vortex.md §5).
inline constexpr uint8_t kAclRead = 0x1;
inline constexpr uint8_t kAclWrite = 0x2;

/// 4 GiB byte-addressed little-endian memory, allocated in 4 KiB pages on first write. Unwritten
/// bytes read as zero. Host accessors (read/write) ignore the ACL; the simulated cores check it
/// with `acl_allows` before each load/store. Addresses ≥ 2^32 raise SimError (kOutOfRange).
class Memory {
 public:
  static constexpr uint32_t kPageBits = 12;
  static constexpr uint32_t kPageSize = 1u << kPageBits;

  Memory();
  Memory(const Memory&) = delete;
  Memory& operator=(const Memory&) = delete;

  /// Host copy into device memory (no ACL check).
  void write(uint64_t addr, const void* src, uint64_t size);
  /// Host copy out of device memory (no ACL check).
  void read(uint64_t addr, void* dst, uint64_t size) const;
  /// Sets `size` bytes to `value`.
  void fill(uint64_t addr, uint8_t value, uint64_t size);
  [[nodiscard]] uint32_t read32(uint64_t addr) const {
    uint32_t v = 0;
    read(addr, &v, 4);
    return v;
  }
  void write32(uint64_t addr, uint32_t v) { write(addr, &v, 4); }
  /// Drops every page and ACL entry.
  void clear();

  /// Registers [addr, addr+size) with `flags` (kAclRead|kAclWrite), replacing earlier entries
  /// on that range. Device accesses to a registered range need the matching flag.
  void set_acl(uint64_t addr, uint64_t size, uint8_t flags);
  /// Unregisters [addr, addr+size): device accesses there pass again.
  void clear_acl(uint64_t addr, uint64_t size);
  /// True if a device access of `size` bytes at `addr` is allowed: every registered byte of it
  /// must carry kAclWrite (write) or kAclRead (read). Unregistered addresses always pass.
  [[nodiscard]] bool acl_allows(uint32_t addr, uint32_t size, bool is_write) const {
    uint8_t st = page_acl_[addr >> kPageBits];
    if (st == kPageUnregistered) return true;
    uint8_t need = is_write ? kAclWrite : kAclRead;
    if (st != kPageMixed && (addr & (kPageSize - 1)) + size <= kPageSize) return (st & need) != 0;
    return acl_allows_slow(addr, size, need);
  }

  /// Device-side load of a naturally aligned value (no checks; caller validated alignment).
  template <typename T>
  [[nodiscard]] T load(uint32_t addr) const {
    const uint8_t* p = pages_[addr >> kPageBits].get();
    T v{};
    if (p != nullptr) std::memcpy(&v, p + (addr & (kPageSize - 1)), sizeof(T));
    return v;
  }
  /// Device-side store of a naturally aligned value (no checks).
  template <typename T>
  void store(uint32_t addr, T v) {
    std::memcpy(page(addr >> kPageBits) + (addr & (kPageSize - 1)), &v, sizeof(T));
  }
  /// Number of allocated pages (for tests and memory statistics).
  [[nodiscard]] size_t pages_allocated() const { return allocated_; }

 private:
  static constexpr uint8_t kPageUnregistered = 0x80;
  static constexpr uint8_t kPageMixed = 0x40;
  uint8_t* page(uint32_t index) {
    auto& p = pages_[index];
    if (!p) {
      p = std::make_unique<uint8_t[]>(kPageSize);  // value-initialised to zero
      ++allocated_;
    }
    return p.get();
  }
  bool acl_allows_slow(uint32_t addr, uint32_t size, uint8_t need) const;
  void refresh_page_acl(uint64_t first_page, uint64_t last_page);

  std::vector<std::unique_ptr<uint8_t[]>> pages_;
  size_t allocated_ = 0;
  /// Per page: kPageUnregistered, kPageMixed, or the flags of one region covering the page.
  std::vector<uint8_t> page_acl_;
  struct Region {
    uint64_t end;
    uint8_t flags;
  };
  std::map<uint64_t, Region> acl_;  ///< start → region, non-overlapping
};

}  // namespace vxsim
