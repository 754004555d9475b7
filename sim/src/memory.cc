#include "vxsim/memory.h"

#include <algorithm>

#include "vxsim/error.h"

namespace vxsim {

namespace {
constexpr uint64_t kSpace = 1ull << 32;
void check_range(uint64_t addr, uint64_t size, const char* what) {
  if (addr >= kSpace || size > kSpace - addr) {
    throw sim_error(ErrorKind::kOutOfRange,
                    "{}: range [{:#x}, {:#x}) lies outside the 32-bit device address space", what,
                    addr, addr + size);
  }
}
}  // namespace

Memory::Memory() : pages_(kSpace >> kPageBits), page_acl_(kSpace >> kPageBits, kPageUnregistered) {}

void Memory::write(uint64_t addr, const void* src, uint64_t size) {
  check_range(addr, size, "memory write");
  const auto* s = static_cast<const uint8_t*>(src);
  while (size > 0) {
    uint64_t off = addr & (kPageSize - 1);
    uint64_t n = std::min<uint64_t>(size, kPageSize - off);
    std::memcpy(page(static_cast<uint32_t>(addr >> kPageBits)) + off, s, n);
    addr += n;
    s += n;
    size -= n;
  }
}

void Memory::read(uint64_t addr, void* dst, uint64_t size) const {
  check_range(addr, size, "memory read");
  auto* d = static_cast<uint8_t*>(dst);
  while (size > 0) {
    uint64_t off = addr & (kPageSize - 1);
    uint64_t n = std::min<uint64_t>(size, kPageSize - off);
    const uint8_t* p = pages_[addr >> kPageBits].get();
    if (p != nullptr) {
      std::memcpy(d, p + off, n);
    } else {
      std::memset(d, 0, n);
    }
    addr += n;
    d += n;
    size -= n;
  }
}

void Memory::fill(uint64_t addr, uint8_t value, uint64_t size) {
  check_range(addr, size, "memory fill");
  while (size > 0) {
    uint64_t off = addr & (kPageSize - 1);
    uint64_t n = std::min<uint64_t>(size, kPageSize - off);
    std::memset(page(static_cast<uint32_t>(addr >> kPageBits)) + off, value, n);
    addr += n;
    size -= n;
  }
}

void Memory::clear() {
  for (auto& p : pages_) p.reset();
  allocated_ = 0;
  std::fill(page_acl_.begin(), page_acl_.end(), kPageUnregistered);
  acl_.clear();
}

void Memory::clear_acl(uint64_t addr, uint64_t size) {
  check_range(addr, size, "ACL update");
  if (size == 0) return;
  uint64_t end = addr + size;
  // Split regions straddling the boundaries, then erase everything inside.
  auto it = acl_.lower_bound(addr);
  if (it != acl_.begin()) {
    auto prev = std::prev(it);
    if (prev->second.end > addr) {
      Region r = prev->second;
      prev->second.end = addr;
      if (r.end > end) acl_[end] = Region{r.end, r.flags};
    }
  }
  it = acl_.lower_bound(addr);
  while (it != acl_.end() && it->first < end) {
    if (it->second.end > end) {
      Region r = it->second;
      acl_.erase(it);
      acl_[end] = r;
      break;
    }
    it = acl_.erase(it);
  }
  refresh_page_acl(addr >> kPageBits, (end - 1) >> kPageBits);
}

void Memory::set_acl(uint64_t addr, uint64_t size, uint8_t flags) {
  if (size == 0) return;
  clear_acl(addr, size);
  acl_[addr] = Region{addr + size, static_cast<uint8_t>(flags & (kAclRead | kAclWrite))};
  refresh_page_acl(addr >> kPageBits, (addr + size - 1) >> kPageBits);
}

void Memory::refresh_page_acl(uint64_t first_page, uint64_t last_page) {
  for (uint64_t pg = first_page; pg <= last_page; ++pg) {
    uint64_t lo = pg << kPageBits;
    uint64_t hi = lo + kPageSize;
    auto it = acl_.upper_bound(lo);
    if (it != acl_.begin()) --it;
    uint8_t st = kPageUnregistered;
    bool any = false;
    for (; it != acl_.end() && it->first < hi; ++it) {
      if (it->second.end <= lo) continue;
      if (!any && it->first <= lo && it->second.end >= hi) {
        st = it->second.flags;
        any = true;
        continue;
      }
      st = kPageMixed;
      break;
    }
    page_acl_[pg] = st;
  }
}

bool Memory::acl_allows_slow(uint32_t addr, uint32_t size, uint8_t need) const {
  uint64_t lo = addr;
  uint64_t hi = lo + size;
  auto it = acl_.upper_bound(lo);
  if (it != acl_.begin()) --it;
  for (; it != acl_.end() && it->first < hi; ++it) {
    if (it->second.end <= lo) continue;
    if ((it->second.flags & need) == 0) return false;
  }
  return true;
}

}  // namespace vxsim
