#include "vxsim/timing/mem_profile.h"

#include <map>

#include <fmt/format.h>

#include "vxsim/isa.h"

namespace vxsim::timing {
namespace {

std::string_view kind_name(MemKind k) {
  switch (k) {
    case MemKind::kLoad: return "load";
    case MemKind::kStore: return "store";
    case MemKind::kAmo: return "amo";
    default: return "-";
  }
}

}  // namespace

PcTraffic& PcTraffic::operator+=(const PcTraffic& o) {
  warp_instrs += o.warp_instrs;
  lane_accesses += o.lane_accesses;
  stack_lanes += o.stack_lanes;
  requests += o.requests;
  sectors += o.sectors;
  read_misses += o.read_misses;
  dram_reads += o.dram_reads;
  dram_writes += o.dram_writes;
  return *this;
}

MemProfile::MemProfile(uint32_t num_cores, uint32_t block_bytes) : cores_(num_cores), block_(block_bytes) {}

void MemProfile::clear() {
  for (PerCore& c : cores_) c = PerCore{};
}

PcTraffic& MemProfile::begin(uint32_t core, uint64_t pc, uint32_t word, MemKind kind) {
  PerCore& c = cores_[core];
  auto [it, fresh] = c.by_pc.try_emplace(pc);
  if (fresh) {
    it->second.word = word;
    it->second.kind = kind;
  }
  c.current = &it->second;
  return it->second;
}

void MemProfile::dram(uint32_t core, bool write) {
  PerCore& c = cores_[core];
  PcTraffic& row = c.current != nullptr ? *c.current : c.outside;
  ++(write ? row.dram_writes : row.dram_reads);
}

std::vector<std::pair<uint64_t, PcTraffic>> MemProfile::rows() const {
  std::map<uint64_t, PcTraffic> merged;
  for (const PerCore& c : cores_) {
    for (const auto& [pc, t] : c.by_pc) {
      auto [it, fresh] = merged.try_emplace(pc, t);
      if (!fresh) it->second += t;
    }
  }
  return {merged.begin(), merged.end()};
}

PcTraffic MemProfile::outside() const {
  PcTraffic t;
  for (const PerCore& c : cores_) t += c.outside;
  return t;
}

std::string_view MemProfile::header() {
  return "launch\tpc\tinstruction\tkind\twarp_instrs\tlane_accesses\tstack_lanes\tl1_requests\tsectors\tl1_read_misses\t"
         "dram_read_bytes\tdram_write_bytes\n";
}

std::string MemProfile::table(uint32_t launch) const {
  std::string out;
  for (const auto& [pc, t] : rows()) {
    const auto pc32 = static_cast<uint32_t>(pc);
    out += fmt::format("{}\t{:#010x}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n", launch, pc,
                       disasm(decode(t.word), pc32), kind_name(t.kind), t.warp_instrs, t.lane_accesses, t.stack_lanes,
                       t.requests, t.sectors, t.read_misses,
                       t.dram_reads * block_, t.dram_writes * block_);
  }
  const PcTraffic f = outside();
  out += fmt::format("{}\tfetch\t(instruction fetches)\t-\t0\t0\t0\t0\t0\t0\t{}\t{}\n", launch, f.dram_reads * block_,
                     f.dram_writes * block_);
  return out;
}

}  // namespace vxsim::timing
