#pragma once
/// \file
/// A partition's private view of global memory during one epoch of a parallel run
/// (docs/vxsim.md "Parallel simulation"). Loads see the memory as it was at the epoch's start plus
/// this partition's own stores; stores go to private copies of the pages they touch, with a mask of
/// the bytes written. At the epoch's end commit() writes those bytes into the memory, partition by
/// partition in order, so a byte two partitions wrote holds the later partition's value.

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <unordered_map>
#include <vector>

#include "vxsim/memory.h"

namespace vxsim {

class MemOverlay {
 public:
  explicit MemOverlay(const Memory& base) : base_(base), present_((uint64_t{1} << (32 - Memory::kPageBits)) / 64, 0) {}
  MemOverlay(const MemOverlay&) = delete;
  MemOverlay& operator=(const MemOverlay&) = delete;

  template <typename T>
  [[nodiscard]] T load(uint32_t addr) const {
    const uint32_t idx = addr >> Memory::kPageBits;
    if (((present_[idx >> 6] >> (idx & 63)) & 1u) == 0) return base_.load<T>(addr);
    T v{};
    std::memcpy(&v, find(idx)->data.data() + (addr & (Memory::kPageSize - 1)), sizeof(T));
    return v;
  }
  template <typename T>
  void store(uint32_t addr, T v) {
    Page& p = page(addr >> Memory::kPageBits);
    const uint32_t off = addr & (Memory::kPageSize - 1);
    std::memcpy(p.data.data() + off, &v, sizeof(T));
    for (uint32_t b = off; b < off + sizeof(T); ++b) p.dirty[b >> 6] |= uint64_t{1} << (b & 63);
  }
  /// Writes every stored byte into `mem` and empties the overlay.
  void commit(Memory& mem);
  /// Bytes stored since the last commit were recorded on this many pages.
  [[nodiscard]] std::size_t pages() const { return pages_.size(); }

 private:
  struct Page {
    std::array<uint8_t, Memory::kPageSize> data;
    std::array<uint64_t, Memory::kPageSize / 64> dirty;
  };
  [[nodiscard]] Page* find(uint32_t idx) const;
  Page& page(uint32_t idx);

  const Memory& base_;
  std::vector<uint64_t> present_;  ///< bit per page: a private copy exists
  std::unordered_map<uint32_t, Page*> pages_;  ///< page index → its copy (owned by store_)
  std::vector<std::unique_ptr<Page>> store_;   ///< copies; the first pages_.size() are in use
  mutable uint32_t last_idx_ = 0xFFFFFFFF;
  mutable Page* last_ = nullptr;
};

}  // namespace vxsim
