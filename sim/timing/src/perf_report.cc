#include "vxsim/timing/perf_report.h"

#include <algorithm>

#include <fmt/format.h>

namespace vxsim::timing {
namespace {

// The two percentages vx_dump_perf prints: a share (part/total) and a "hit ratio" (1 − part/total),
// both truncated to an integer, 0 when the total is 0.
int share_pct(uint64_t part, uint64_t total) {
  if (total == 0) return 0;
  return static_cast<int>(static_cast<double>(part) / static_cast<double>(total) * 100.0);
}
int hit_pct(uint64_t misses, uint64_t total) {
  if (total == 0) return 0;
  return static_cast<int>((1.0 - static_cast<double>(misses) / static_cast<double>(total)) * 100.0);
}
int avg(uint64_t sum, uint64_t n) {
  if (n == 0) return 0;
  return static_cast<int>(static_cast<double>(sum) / static_cast<double>(n));
}

// MPM slot indices (CSR − 0xB00), docs/vortex.md §2.2.
enum Slot : uint32_t {
  kCycle = 0x00, kInstret = 0x02,
  // class 1
  kSchedId = 0x03, kSchedSt = 0x04, kIbufSt = 0x05, kScrbSt = 0x06, kOpdsSt = 0x07, kScrbAlu = 0x08,
  kScrbFpu = 0x09, kScrbLsu = 0x0A, kScrbCsrs = 0x0C, kScrbWctl = 0x0D, kIfetches = 0x0E,
  kLoads = 0x0F, kStores = 0x10, kIfetchLt = 0x11, kLoadLt = 0x12, kScrbTcu = 0x14,
  // class 2
  kIcReads = 0x03, kIcMissR = 0x04, kIcMshrSt = 0x05, kDcReads = 0x06, kDcWrites = 0x07,
  kDcMissR = 0x08, kDcMissW = 0x09, kDcBankSt = 0x0A, kDcMshrSt = 0x0B, kL2Base = 0x0C, kL3Base = 0x12,
  kMemReads = 0x18, kMemWrites = 0x19, kMemLt = 0x1A, kLmemReads = 0x1B, kLmemWrites = 0x1C,
  kLmemBankSt = 0x1D, kMemBankSt = 0x1E, kCoalMiss = 0x1F,
};

struct CacheSums {
  uint64_t reads = 0, writes = 0, read_misses = 0, write_misses = 0, bank_stalls = 0, mshr_stalls = 0;
};

void cache_lines(std::string& out, std::string_view prefix, std::string_view name, const CacheSums& s) {
  out += fmt::format("PERF: {}{} reads={}\n", prefix, name, s.reads);
  out += fmt::format("PERF: {}{} writes={}\n", prefix, name, s.writes);
  out += fmt::format("PERF: {}{} read misses={} (hit ratio={}%)\n", prefix, name, s.read_misses,
                     hit_pct(s.read_misses, s.reads));
  out += fmt::format("PERF: {}{} write misses={} (hit ratio={}%)\n", prefix, name, s.write_misses,
                     hit_pct(s.write_misses, s.writes));
  out += fmt::format("PERF: {}{} bank stalls={} (utilization={}%)\n", prefix, name, s.bank_stalls,
                     share_pct(s.reads + s.writes, s.reads + s.writes + s.bank_stalls));
  out += fmt::format("PERF: {}{} mshr stalls={} (utilization={}%)\n", prefix, name, s.mshr_stalls,
                     share_pct(s.read_misses + s.write_misses, s.read_misses + s.write_misses + s.mshr_stalls));
}

}  // namespace

std::string format_perf_report(const PerfReportInfo& info, const MpmQuery& q) {
  std::string out;
  const bool multi = info.num_cores > 1;
  uint64_t total_instrs = 0;
  uint64_t max_cycles = 0;
  // Class-1 totals.
  uint64_t idle = 0, sst = 0, ibuf = 0, scrb = 0, opds = 0, s_alu = 0, s_fpu = 0, s_lsu = 0, s_csrs = 0,
           s_wctl = 0, s_tcu = 0, ifetches = 0, ifetch_lt = 0, loads = 0, load_lt = 0, stores = 0;
  CacheSums l2;
  CacheSums l3;
  uint64_t mem_reads = 0, mem_writes = 0, mem_lt = 0, mem_bank_st = 0;

  for (uint32_t c = 0; c < info.num_cores; ++c) {
    const uint64_t cycles = q(c, kCycle);
    const uint64_t instrs = q(c, kInstret);
    const std::string pfx = fmt::format("core{}: ", c);
    if (info.mpm_class == MpmClass::kCore) {
      uint64_t v = q(c, kSchedId);
      if (multi) out += fmt::format("PERF: {}scheduler idle={} ({}%)\n", pfx, v, share_pct(v, cycles));
      idle += v;
      v = q(c, kSchedSt);
      if (multi) out += fmt::format("PERF: {}scheduler stalls={} ({}%)\n", pfx, v, share_pct(v, cycles));
      sst += v;
      v = q(c, kIbufSt);
      if (multi) out += fmt::format("PERF: {}ibuffer stalls={} ({}%)\n", pfx, v, share_pct(v, cycles));
      ibuf += v;
      const uint64_t st = q(c, kScrbSt), a = q(c, kScrbAlu), f = q(c, kScrbFpu), l = q(c, kScrbLsu),
                     cs = q(c, kScrbCsrs), w = q(c, kScrbWctl), tc = q(c, kScrbTcu);
      if (multi) {
        uint64_t tot = a + l + cs + w + (info.fpu ? f : 0) + (info.tcu ? tc : 0);
        out += fmt::format("PERF: {}scoreboard stalls={} ({}%) (alu={}%, lsu={}%, csrs={}%, wctl={}%", pfx, st,
                           share_pct(st, cycles), share_pct(a, tot), share_pct(l, tot), share_pct(cs, tot),
                           share_pct(w, tot));
        if (info.fpu) out += fmt::format(", fpu={}%", share_pct(f, tot));
        if (info.tcu) out += fmt::format(", tcu={}%", share_pct(tc, tot));
        out += ")\n";
      }
      scrb += st;
      s_alu += a;
      s_fpu += f;
      s_lsu += l;
      s_csrs += cs;
      s_wctl += w;
      s_tcu += tc;
      v = q(c, kOpdsSt);
      if (multi) out += fmt::format("PERF: {}operands stalls={} ({}%)\n", pfx, v, share_pct(v, cycles));
      opds += v;
      const uint64_t fe = q(c, kIfetches), fel = q(c, kIfetchLt);
      if (multi) {
        out += fmt::format("PERF: {}ifetches={}\n", pfx, fe);
        out += fmt::format("PERF: {}ifetch latency={} cycles\n", pfx, avg(fel, fe));
      }
      ifetches += fe;
      ifetch_lt += fel;
      const uint64_t ld = q(c, kLoads), ldl = q(c, kLoadLt);
      if (multi) {
        out += fmt::format("PERF: {}loads={}\n", pfx, ld);
        out += fmt::format("PERF: {}load latency={} cycles\n", pfx, avg(ldl, ld));
      }
      loads += ld;
      load_lt += ldl;
      v = q(c, kStores);
      if (multi) out += fmt::format("PERF: {}stores={}\n", pfx, v);
      stores += v;
    } else if (info.mpm_class == MpmClass::kMem) {
      if (info.lmem) {
        const uint64_t r = q(c, kLmemReads), w = q(c, kLmemWrites), b = q(c, kLmemBankSt);
        out += fmt::format("PERF: {}lmem reads={}\n", pfx, r);
        out += fmt::format("PERF: {}lmem writes={}\n", pfx, w);
        out += fmt::format("PERF: {}lmem bank stalls={} (utilization={}%)\n", pfx, b, share_pct(r + w, r + w + b));
      }
      const uint64_t ir = q(c, kIcReads), im = q(c, kIcMissR), is = q(c, kIcMshrSt);
      out += fmt::format("PERF: {}icache reads={}\n", pfx, ir);
      out += fmt::format("PERF: {}icache read misses={} (hit ratio={}%)\n", pfx, im, hit_pct(im, ir));
      out += fmt::format("PERF: {}icache mshr stalls={} (utilization={}%)\n", pfx, is, share_pct(im, im + is));
      CacheSums dc{q(c, kDcReads), q(c, kDcWrites), q(c, kDcMissR), q(c, kDcMissW), q(c, kDcBankSt), q(c, kDcMshrSt)};
      cache_lines(out, pfx, "dcache", dc);
      const uint64_t req = dc.reads + dc.writes;
      const uint64_t cm = q(c, kCoalMiss);
      out += fmt::format("PERF: {}coalescer misses={} (hit ratio={}%)\n", pfx, cm, share_pct(req - std::min(req, cm), req));
      if (info.l2) {
        l2.reads += q(c, kL2Base + 0);
        l2.writes += q(c, kL2Base + 1);
        l2.read_misses += q(c, kL2Base + 2);
        l2.write_misses += q(c, kL2Base + 3);
        l2.bank_stalls += q(c, kL2Base + 4);
        l2.mshr_stalls += q(c, kL2Base + 5);
      }
      if (c == 0) {
        if (info.l3) {
          l3 = CacheSums{q(0, kL3Base + 0), q(0, kL3Base + 1), q(0, kL3Base + 2),
                         q(0, kL3Base + 3), q(0, kL3Base + 4), q(0, kL3Base + 5)};
        }
        mem_reads = q(0, kMemReads);
        mem_writes = q(0, kMemWrites);
        mem_lt = q(0, kMemLt);
        mem_bank_st = q(0, kMemBankSt);
      }
    }
    if (multi) {
      out += fmt::format("PERF: {}instrs={}, cycles={}, IPC={:f}\n", pfx, instrs, cycles,
                         cycles == 0 ? 0.0 : static_cast<double>(instrs) / static_cast<double>(cycles));
    }
    total_instrs += instrs;
    max_cycles = std::max(max_cycles, cycles);
  }

  if (info.mpm_class == MpmClass::kCore) {
    // Totals: percentages of the summed per-core cycles, as vx_dump_perf does.
    uint64_t total_cycles = 0;
    for (uint32_t c = 0; c < info.num_cores; ++c) total_cycles += q(c, kCycle);
    uint64_t tot = s_alu + s_fpu + s_lsu + s_csrs + s_wctl;
    out += fmt::format("PERF: scheduler idle={} ({}%)\n", idle, share_pct(idle, total_cycles));
    out += fmt::format("PERF: scheduler stalls={} ({}%)\n", sst, share_pct(sst, total_cycles));
    out += fmt::format("PERF: ibuffer stalls={} ({}%)\n", ibuf, share_pct(ibuf, total_cycles));
    out += fmt::format("PERF: scoreboard stalls={} ({}%) (alu={}%, lsu={}%, csrs={}%, wctl={}%", scrb,
                       share_pct(scrb, total_cycles), share_pct(s_alu, tot), share_pct(s_lsu, tot),
                       share_pct(s_csrs, tot), share_pct(s_wctl, tot));
    if (info.fpu) out += fmt::format(", fpu={}%", share_pct(s_fpu, tot));
    if (info.tcu) out += fmt::format(", tcu={}%", share_pct(s_tcu, tot));
    out += ")\n";
    out += fmt::format("PERF: operands stalls={} ({}%)\n", opds, share_pct(opds, total_cycles));
    out += fmt::format("PERF: ifetches={}\n", ifetches);
    out += fmt::format("PERF: loads={}\n", loads);
    out += fmt::format("PERF: stores={}\n", stores);
    out += fmt::format("PERF: ifetch latency={} cycles\n", avg(ifetch_lt, ifetches));
    out += fmt::format("PERF: load latency={} cycles\n", avg(load_lt, loads));
  } else if (info.mpm_class == MpmClass::kMem) {
    if (info.l2) {
      // Each core reports its cluster's L2 totals; vx_dump_perf averages them over the cores.
      const uint64_t n = info.num_cores;
      CacheSums a{l2.reads / n, l2.writes / n, l2.read_misses / n, l2.write_misses / n, l2.bank_stalls / n,
                  l2.mshr_stalls / n};
      cache_lines(out, "", "l2cache", a);
    }
    if (info.l3) cache_lines(out, "", "l3cache", l3);
    const uint64_t req = mem_reads + mem_writes;
    out += fmt::format("PERF: memory requests={} (reads={}, writes={})\n", req, mem_reads, mem_writes);
    out += fmt::format("PERF: memory latency={} cycles\n", avg(mem_lt, mem_reads));
    out += fmt::format("PERF: memory bank stalls={} (utilization={}%)\n", mem_bank_st,
                       share_pct(req, req + mem_bank_st));
  }
  out += fmt::format("PERF: instrs={}, cycles={}, IPC={:f}\n", total_instrs, max_cycles,
                     max_cycles == 0 ? 0.0 : static_cast<double>(total_instrs) / static_cast<double>(max_cycles));
  return out;
}

std::string format_perf_report(const TimingModel& model, MpmClass cls) {
  const TimingConfig& cfg = model.config();
  PerfReportInfo info;
  info.num_cores = cfg.total_cores();
  info.mpm_class = cls;
  info.lmem = cfg.lmem.enabled;
  info.l2 = cfg.l2.enabled;
  info.l3 = cfg.l3.enabled;
  return format_perf_report(info, [&](uint32_t core, uint32_t index) { return model.mpm_value(core, index, cls); });
}

}  // namespace vxsim::timing
