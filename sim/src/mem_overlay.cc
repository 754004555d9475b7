#include "vxsim/mem_overlay.h"

#include <algorithm>
#include <bit>

namespace vxsim {

MemOverlay::Page* MemOverlay::find(uint32_t idx) const {
  if (idx != last_idx_) {
    last_ = pages_.at(idx);
    last_idx_ = idx;
  }
  return last_;
}

MemOverlay::Page& MemOverlay::page(uint32_t idx) {
  if (((present_[idx >> 6] >> (idx & 63)) & 1u) != 0) return *find(idx);
  if (pages_.size() == store_.size()) store_.push_back(std::make_unique<Page>());
  Page& p = *store_[pages_.size()];
  base_.read(static_cast<uint64_t>(idx) << Memory::kPageBits, p.data.data(), Memory::kPageSize);
  p.dirty.fill(0);
  present_[idx >> 6] |= uint64_t{1} << (idx & 63);
  pages_.emplace(idx, &p);
  last_idx_ = idx;
  last_ = &p;
  return p;
}

void MemOverlay::commit(Memory& mem) {
  for (const auto& [idx, p] : pages_) {
    const uint64_t base = static_cast<uint64_t>(idx) << Memory::kPageBits;
    // Runs of written bytes, word of the mask by word.
    uint32_t b = 0;
    while (b < Memory::kPageSize) {
      const uint64_t word = p->dirty[b >> 6] >> (b & 63);
      if (word == 0) {
        b = (b | 63u) + 1;
        continue;
      }
      b += static_cast<uint32_t>(std::countr_zero(word));
      uint32_t e = b;
      for (;;) {  // e: the end of the run, a mask word at a time
        const uint32_t left = 64 - (e & 63);
        const auto ones = static_cast<uint32_t>(std::countr_one(p->dirty[e >> 6] >> (e & 63)));
        e += std::min(ones, left);
        if (ones < left || e == Memory::kPageSize) break;
      }
      mem.write(base + b, p->data.data() + b, e - b);
      b = e;
    }
    present_[idx >> 6] &= ~(uint64_t{1} << (idx & 63));
  }
  pages_.clear();
  last_idx_ = 0xFFFFFFFF;
  last_ = nullptr;
}

}  // namespace vxsim
