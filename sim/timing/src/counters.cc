#include "vxsim/timing/counters.h"

#include <algorithm>

namespace vxsim::timing {

CoreCounters& CoreCounters::operator+=(const CoreCounters& o) {
  cycles = std::max(cycles, o.cycles);
  warp_instrs += o.warp_instrs;
  thread_instrs += o.thread_instrs;
  sched_idle += o.sched_idle;
  sched_stalls += o.sched_stalls;
  ibuf_stalls += o.ibuf_stalls;
  scrb_stalls += o.scrb_stalls;
  for (std::size_t i = 0; i < scrb.size(); ++i) scrb[i] += o.scrb[i];
  opds_stalls += o.opds_stalls;
  ifetches += o.ifetches;
  ifetch_latency += o.ifetch_latency;
  loads += o.loads;
  load_latency += o.load_latency;
  stores += o.stores;
  icache += o.icache;
  dcache += o.dcache;
  lmem_reads += o.lmem_reads;
  lmem_writes += o.lmem_writes;
  lmem_bank_stalls += o.lmem_bank_stalls;
  coalescer_misses += o.coalescer_misses;
  for (std::size_t i = 0; i < busy.size(); ++i) busy[i] += o.busy[i];
  for (std::size_t i = 0; i < unit_instrs.size(); ++i) unit_instrs[i] += o.unit_instrs[i];
  fp_flops += o.fp_flops;
  tcu_macs += o.tcu_macs;
  tcu_micro_ops += o.tcu_micro_ops;
  amo_instrs += o.amo_instrs;
  active_warp_cycles += o.active_warp_cycles;
  gld_instrs += o.gld_instrs;
  gld_bytes += o.gld_bytes;
  gld_sectors += o.gld_sectors;
  gst_instrs += o.gst_instrs;
  lmem_instrs += o.lmem_instrs;
  branches += o.branches;
  barriers += o.barriers;
  if (warp_flops.size() < o.warp_flops.size()) warp_flops.resize(o.warp_flops.size(), 0);
  for (std::size_t i = 0; i < o.warp_flops.size(); ++i) warp_flops[i] += o.warp_flops[i];
  return *this;
}

CoreCounters DeviceCounters::total() const {
  CoreCounters t;
  for (const CoreCounters& c : cores) t += c;
  return t;
}

}  // namespace vxsim::timing
