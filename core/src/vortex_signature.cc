#include "vxsynth/core/vortex_signature.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "vxsynth/common/error.h"
#include "vxsynth/core/bundle.h"
#include "vxsynth/core/metrics.h"

namespace vxsynth::core {
namespace {

using vxsim::timing::CacheCounters;
using vxsim::timing::CoreCounters;
using vxsim::timing::DeviceCounters;
using vxsim::timing::MeasuredLaunch;
using vxsim::timing::TimingConfig;
using vxsim::timing::UnitGroup;

double ratio(uint64_t num, uint64_t den) {
  return den == 0 ? 0.0 : static_cast<double>(num) / static_cast<double>(den);
}

}  // namespace

Signature vortex_signature(const DeviceCounters& counters, const TimingConfig& cfg) {
  Signature sig;
  const CoreCounters t = counters.total();
  const uint64_t cycles = counters.cycles;
  const uint64_t core_cycles = cycles * counters.cores.size();
  // Each issue slot owns its own instance of every unit group (timing_model.cc `unit_free` is per
  // slot), so a group's busy cycles can reach cycles × issue width: normalise by the instances.
  const uint64_t unit_cycles = core_cycles * std::max<uint32_t>(1, cfg.eff_issue_width());

  sig[MetricId::kL1HitRate] = 100.0 * ratio(t.dcache.reads - std::min(t.dcache.reads, t.dcache.read_misses), t.dcache.reads);

  if (cfg.l2.enabled && !counters.l2.empty()) {
    CacheCounters l2;
    for (const auto& c : counters.l2) l2 += c;
    const uint64_t lookups = l2.reads + l2.writes;
    const uint64_t misses = l2.read_misses + l2.write_misses;
    sig[MetricId::kL2HitRate] = 100.0 * ratio(lookups - std::min(lookups, misses), lookups);
  }

  sig[MetricId::kCoalescing] = t.gld_sectors == 0 ? 0.0 : 100.0 * ratio(t.gld_bytes, 32 * t.gld_sectors);

  uint64_t busiest = 0;
  for (uint64_t b : t.busy) busiest = std::max(busiest, b);
  sig[MetricId::kPeakCompute] = 100.0 * ratio(busiest, unit_cycles);
  sig[MetricId::kTensorMfu] = 100.0 * ratio(t.busy[static_cast<std::size_t>(UnitGroup::kTcu)], unit_cycles);
  sig[MetricId::kAtomicsPerInst] = ratio(t.amo_instrs, t.warp_instrs);

  const uint64_t dram_bytes = counters.dram.bytes_read + counters.dram.bytes_written;
  const double flops = static_cast<double>(t.fp_flops) + 2.0 * static_cast<double>(t.tcu_macs);
  if (dram_bytes != 0) sig[MetricId::kArithIntensity] = flops / static_cast<double>(dram_bytes);
  const double seconds = static_cast<double>(cycles) / (cfg.clock_mhz * 1e6);
  sig[MetricId::kDramBandwidth] = seconds > 0 ? static_cast<double>(dram_bytes) / seconds : 0.0;

  sig[MetricId::kActiveLanes] = ratio(t.thread_instrs, t.warp_instrs * cfg.threads);
  sig[MetricId::kOccupancy] = 100.0 * ratio(t.active_warp_cycles, core_cycles * cfg.warps);
  return sig;
}

std::string vortex_signature_json(const Signature& sig, const DeviceCounters& counters,
                                  const TimingConfig& cfg, const std::string& program) {
  // The signature-file schema of core/ (vxsynth/core/bundle.h: schema, version, label, metrics),
  // plus the Vortex provenance: platform, counters and machine configuration.
  nlohmann::ordered_json j;
  j["schema"] = std::string(kSignatureSchema);
  j["version"] = kSignatureVersion;
  j["label"] = program;
  j["platform"] = "vortex";
  j["source"] = "vxsim timing model";
  nlohmann::ordered_json metrics = nlohmann::ordered_json::object();
  for (const MetricDef& m : metric_table()) {
    const std::string key(m.key);
    if (sig[m.id]) {
      metrics[key] = *sig[m.id];
    } else {
      metrics[key] = nullptr;
    }
  }
  j["metrics"] = metrics;
  const CoreCounters t = counters.total();
  nlohmann::ordered_json c;
  c["cycles"] = counters.cycles;
  c["warp_instrs"] = t.warp_instrs;
  c["thread_instrs"] = t.thread_instrs;
  c["dcache_reads"] = t.dcache.reads;
  c["dcache_read_misses"] = t.dcache.read_misses;
  c["dcache_writes"] = t.dcache.writes;
  c["gld_instrs"] = t.gld_instrs;
  c["gld_bytes"] = t.gld_bytes;
  c["gld_sectors"] = t.gld_sectors;
  c["busy_alu"] = t.busy[0];
  c["busy_fpu"] = t.busy[1];
  c["busy_lsu"] = t.busy[2];
  c["busy_sfu"] = t.busy[3];
  c["busy_tcu"] = t.busy[4];
  c["amo_instrs"] = t.amo_instrs;
  c["fp_flops"] = t.fp_flops;
  c["tcu_macs"] = t.tcu_macs;
  c["dram_bytes_read"] = counters.dram.bytes_read;
  c["dram_bytes_written"] = counters.dram.bytes_written;
  c["active_warp_cycles"] = t.active_warp_cycles;
  c["lmem_reads"] = t.lmem_reads;
  c["lmem_writes"] = t.lmem_writes;
  c["lmem_bank_stalls"] = t.lmem_bank_stalls;
  // Per core, per warp: the arithmetic each hardware warp issued (the sandbox compares the work
  // distribution with the design's launch, docs/sandbox.md "Pair alignment").
  nlohmann::ordered_json wf = nlohmann::ordered_json::array();
  for (const auto& core : counters.cores) wf.push_back(core.warp_flops);
  c["warp_flops"] = wf;
  j["counters"] = c;
  nlohmann::ordered_json m;
  m["clusters"] = cfg.clusters;
  m["cores"] = cfg.cores;
  m["warps"] = cfg.warps;
  m["threads"] = cfg.threads;
  m["lmem_size"] = cfg.lmem.size;
  m["dcache_size"] = cfg.dcache.size;
  m["l2"] = cfg.l2.enabled;
  m["l3"] = cfg.l3.enabled;
  m["clock_mhz"] = cfg.clock_mhz;
  j["config"] = m;
  return j.dump(2) + "\n";
}

std::string vortex_signature_file_json(const std::vector<MeasuredLaunch>& launches) {
  if (launches.empty()) throw vxsynth::make_error("no launch measured a signature");
  std::size_t best = 0;
  for (std::size_t i = 1; i < launches.size(); ++i)
    if (launches[i].counters.cycles > launches[best].counters.cycles) best = i;
  const auto launch_json = [](const MeasuredLaunch& l) {
    return nlohmann::ordered_json::parse(
        vortex_signature_json(vortex_signature(l.counters, l.config), l.counters, l.config, "vxsim launch"));
  };
  // Top level: the main launch's own document, unchanged for a program with one launch except for
  // the two keys added at the end.
  nlohmann::ordered_json top = launch_json(launches[best]);
  if (launches.size() > 1)
    top["label"] = fmt::format("vxsim launch index {} of {} launches (most cycles)", launches[best].index,
                               launches.size());
  top["main_launch"] = launches[best].index;
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < launches.size(); ++i) {
    const MeasuredLaunch& l = launches[i];
    const nlohmann::ordered_json one = i == best ? top : launch_json(l);
    nlohmann::ordered_json e;
    e["index"] = l.index;
    e["kernel_addr"] = l.kernel_addr;
    e["args_addr"] = l.args_addr;
    e["cycles"] = l.counters.cycles;
    e["instructions"] = l.counters.total().warp_instrs;
    e["metrics"] = one.at("metrics");
    e["counters"] = one.at("counters");
    list.push_back(std::move(e));
  }
  top["launches"] = std::move(list);
  return top.dump(2) + "\n";
}

std::string vortex_signature_lines(const Signature& sig) {
  std::string out;
  for (const MetricDef& m : metric_table()) {
    const auto& value = sig[m.id];
    std::string v = value ? fmt::format("{:.6g}", *value) : "NA";
    std::string unit = value && m.unit != "ratio" && m.unit != "fraction" ? fmt::format(" {}", m.unit) : "";
    out += fmt::format("SIGNATURE: {}={}{}\n", m.key, v, unit);
  }
  return out;
}

std::string VortexSignatureAdapter::report_lines(const DeviceCounters& counters, const TimingConfig& cfg) const {
  return vortex_signature_lines(vortex_signature(counters, cfg));
}

std::string VortexSignatureAdapter::run_file(const DeviceCounters& counters, const TimingConfig& cfg,
                                             const std::string& label) const {
  return vortex_signature_json(vortex_signature(counters, cfg), counters, cfg, label);
}

std::string VortexSignatureAdapter::launches_file(const std::vector<MeasuredLaunch>& launches) const {
  return vortex_signature_file_json(launches);
}

}  // namespace vxsynth::core
