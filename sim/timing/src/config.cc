#include "vxsim/timing/config.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <sstream>
#include <type_traits>
#include <utility>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "vxsynth/common/error.h"
#include "vxsynth/common/file_io.h"

namespace vxsim::timing {
namespace {

template <typename T>
constexpr ParamType type_of() {
  if constexpr (std::is_same_v<T, bool>) {
    return ParamType::kBool;
  } else if constexpr (std::is_same_v<T, uint32_t>) {
    return ParamType::kU32;
  } else if constexpr (std::is_same_v<T, uint64_t>) {
    return ParamType::kU64;
  } else {
    static_assert(std::is_same_v<T, double>, "unsupported parameter type");
    return ParamType::kF64;
  }
}

// One row: the field's type is taken from the struct, so a row cannot disagree with its field.
#define VXSIM_PARAM(key, field, unit, doc)                                                   \
  ParamDef {                                                                                  \
    key, type_of<std::remove_cvref_t<decltype(std::declval<TimingConfig&>().field)>>(), unit, \
        doc, [](TimingConfig& c) -> void* { return &c.field; }                                \
  }

#define VXSIM_CACHE_PARAMS(name, label)                                                         \
  VXSIM_PARAM(#name ".enabled", name.enabled, "", label " present"),                    \
      VXSIM_PARAM(#name ".size", name.size, "bytes", label " capacity"),                \
      VXSIM_PARAM(#name ".ways", name.ways, "count", label " associativity"),           \
      VXSIM_PARAM(#name ".line", name.line, "bytes", label " line size (= dram.block)"), \
      VXSIM_PARAM(#name ".banks", name.banks, "count", label " line-interleaved banks"), \
      VXSIM_PARAM(#name ".mshrs", name.mshrs, "count", label " miss status registers"), \
      VXSIM_PARAM(#name ".latency", name.latency, "cycles", label " hit pipeline latency")


const ParamDef kParams[] = {
    VXSIM_PARAM("clusters", clusters, "count", "NUM_CLUSTERS"),
    VXSIM_PARAM("cores", cores, "count", "NUM_CORES per cluster"),
    VXSIM_PARAM("warps", warps, "count", "NUM_WARPS per core (1..32)"),
    VXSIM_PARAM("threads", threads, "count", "NUM_THREADS per warp (1..32)"),
    VXSIM_PARAM("socket_size", socket_size, "count", "cores sharing one L1 I/D pair; 0 = min(4, cores)"),
    VXSIM_PARAM("issue_width", issue_width, "count", "warps issued per cycle; 0 = ceil(warps/16)"),
    VXSIM_PARAM("simd_width", simd_width, "count", "ALU/FPU/LSU lanes; 0 = min(threads, 16)"),
    VXSIM_PARAM("ibuf_size", ibuf_size, "count", "instruction-buffer entries per warp"),
    VXSIM_PARAM("lsu_blocks", lsu_blocks, "count", "LSU blocks per core shared by the issue slots; 0 = issue width"),
    VXSIM_PARAM("sfu_blocks", sfu_blocks, "count", "SFU blocks per core shared by the issue slots; 0 = issue width"),
    VXSIM_PARAM("fetch_latency", fetch_latency, "cycles", "scheduler pick to I-cache request"),
    VXSIM_PARAM("decode_latency", decode_latency, "cycles", "I-cache response to instruction buffer"),
    VXSIM_PARAM("operand_latency", operand_latency, "cycles", "issue to functional unit (operands, dispatch)"),
    VXSIM_PARAM("commit_latency", commit_latency, "cycles", "unit result to register file (scoreboard release)"),
    VXSIM_PARAM("clock_mhz", clock_mhz, "MHz", "core clock, used only to turn cycles into seconds"),
    VXSIM_PARAM("max_cycles", max_cycles, "cycles", "runaway guard; 0 = unlimited"),
    VXSIM_PARAM("epoch_cycles", epoch_cycles, "cycles",
                "cycles between two synchronisations of the partitions (sockets) of a parallel run"),
    VXSIM_PARAM("stack_interleave", stack_interleave, "",
                "LSU remaps per-hart stacks so a warp's frame slot is one block (Vortex [N]; 2.x: off)"),
    VXSIM_PARAM("latency.alu", lat.alu, "cycles", "ALU, branch, jump"),
    VXSIM_PARAM("latency.mul", lat.mul, "cycles", "MUL/MULH*"),
    VXSIM_PARAM("latency.div", lat.div, "cycles", "DIV/REM* (XLEN+2)"),
    VXSIM_PARAM("latency.fma", lat.fma, "cycles", "FADD/FMUL/FMADD family (4+2)"),
    VXSIM_PARAM("latency.fdiv", lat.fdiv, "cycles", "FDIV and FSQRT (16+2)"),
    VXSIM_PARAM("latency.fcvt", lat.fcvt, "cycles", "FCVT.* (5+2)"),
    VXSIM_PARAM("latency.fmisc", lat.fmisc, "cycles", "FP compare/sign/move/class/min/max"),
    VXSIM_PARAM("latency.sfu", lat.sfu, "cycles", "warp control (TMC/WSPAWN/SPLIT/JOIN/BAR/PRED)"),
    VXSIM_PARAM("latency.csr", lat.csr, "cycles", "CSR access"),
    VXSIM_PARAM("latency.tcu", lat.tcu, "cycles", "per TCU micro-op"),
    VXSIM_PARAM("latency.lsu", lat.lsu, "cycles", "LSU address generation + coalescer"),
    VXSIM_PARAM("latency.io", lat.io, "cycles", "IO-space access (console, perf dump)"),
    VXSIM_CACHE_PARAMS(icache, "I-cache"),
    VXSIM_CACHE_PARAMS(dcache, "D-cache"),
    VXSIM_CACHE_PARAMS(l2, "L2 cache"),
    VXSIM_CACHE_PARAMS(l3, "L3 cache"),
    VXSIM_PARAM("lmem.enabled", lmem.enabled, "", "local memory present"),
    VXSIM_PARAM("lmem.size", lmem.size, "bytes", "local memory per core"),
    VXSIM_PARAM("lmem.banks", lmem.banks, "count", "4-byte-interleaved banks; 0 = SIMD width"),
    VXSIM_PARAM("lmem.latency", lmem.latency, "cycles", "conflict-free access"),
    VXSIM_PARAM("socket_port.cycles_per_request", socket_port.cycles_per_request, "cycles",
                "a socket's L1s to the level below: one request per this many cycles; 0 = no limit"),
    VXSIM_PARAM("socket_port.latency", socket_port.latency, "cycles", "socket port latency, each way"),
    VXSIM_PARAM("cluster_port.cycles_per_request", cluster_port.cycles_per_request, "cycles",
                "a cluster's sockets to L3/DRAM: one request per this many cycles; 0 = no limit"),
    VXSIM_PARAM("cluster_port.latency", cluster_port.latency, "cycles", "cluster port latency, each way"),
    VXSIM_PARAM("dram.channels", dram.channels, "count", "block-interleaved channels"),
    VXSIM_PARAM("dram.block", dram.block, "bytes", "bytes per memory request from the caches"),
    VXSIM_PARAM("dram.request_bytes", dram.request_bytes, "bytes", "bytes per DRAM request (a block is block/request_bytes requests)"),
    VXSIM_PARAM("dram.interleave", dram.interleave, "bytes", "DRAM-address bytes per channel before the next"),
    VXSIM_PARAM("dram.queue_cycles", dram.queue_cycles, "cycles", "cycles per request leaving the single pending queue"),
    VXSIM_PARAM("dram.burst_cycles", dram.burst_cycles, "cycles", "data-bus cycles per DRAM request (nBL)"),
    VXSIM_PARAM("dram.pseudo_channels", dram.pseudo_channels, "count", "data buses per channel (pseudo-channels)"),
    VXSIM_PARAM("dram.banks", dram.banks, "count", "banks (row buffers) per channel"),
    VXSIM_PARAM("dram.row_size", dram.row_size, "bytes", "row size"),
    VXSIM_PARAM("dram.row_hit_latency", dram.row_hit_latency, "cycles", "open-row access"),
    VXSIM_PARAM("dram.row_miss_latency", dram.row_miss_latency, "cycles", "closed/other-row access"),
    VXSIM_PARAM("dram.rw_turnaround", dram.rw_turnaround, "cycles", "channel cycles lost switching read/write"),
    VXSIM_PARAM("dram.refresh_interval", dram.refresh_interval, "cycles", "cycles between all-bank refreshes (nREFI); 0 = none"),
    VXSIM_PARAM("dram.refresh_cycles", dram.refresh_cycles, "cycles", "cycles a refresh blocks the channels (nRFC)"),
};

#undef VXSIM_CACHE_PARAMS
#undef VXSIM_PARAM

const ParamDef* find_param(std::string_view key) {
  for (const ParamDef& p : kParams) {
    if (p.key == key) return &p;
  }
  return nullptr;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

bool is_pow2(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

void check_cache(const CacheParams& c, std::string_view name, uint32_t block) {
  if (!c.enabled) return;
  if (!is_pow2(c.line) || c.line < 4) {
    throw vxsynth::make_error("timing config: {}.line = {} must be a power of two ≥ 4", name, c.line);
  }
  if (c.line != block) {
    throw vxsynth::make_error("timing config: {}.line = {} must equal dram.block = {} (one block size end to end)",
                              name, c.line, block);
  }
  if (c.ways == 0 || c.size == 0 || c.size % (c.line * c.ways) != 0 || !is_pow2(c.size / (c.line * c.ways))) {
    throw vxsynth::make_error("timing config: {}.size = {} must be line × ways × (a power of two sets)", name, c.size);
  }
  if (c.mshrs == 0) throw vxsynth::make_error("timing config: {}.mshrs must be ≥ 1", name);
}

}  // namespace

uint32_t TimingConfig::eff_socket_size() const {
  uint32_t s = socket_size != 0 ? socket_size : std::min(4u, cores);
  return std::max(1u, std::min(s, cores));
}
uint32_t TimingConfig::eff_issue_width() const {
  return issue_width != 0 ? std::min(issue_width, warps) : std::max(1u, (warps + 15) / 16);
}
uint32_t TimingConfig::eff_simd_width() const {
  return simd_width != 0 ? std::min(simd_width, threads) : std::min(threads, 16u);
}
uint32_t TimingConfig::eff_dcache_banks() const {
  if (dcache.banks != 0) return dcache.banks;
  // SimX: DCACHE_NUM_REQS = LSU lanes × 4 B / DCACHE_WORD_SIZE, banks = min(that, 16), where the word
  // is min(lanes × 4, 64) bytes: 1 bank up to 16 lanes.
  uint32_t lanes = eff_simd_width();
  uint32_t word = std::min(lanes * 4, 64u);
  return std::max(1u, std::min((lanes * 4) / word, 16u));
}
uint32_t TimingConfig::eff_lmem_banks() const { return lmem.banks != 0 ? lmem.banks : eff_simd_width(); }

void TimingConfig::validate() const {
  if (clusters == 0 || cores == 0) throw vxsynth::make_error("timing config: clusters and cores must be ≥ 1");
  if (warps == 0 || warps > 32) throw vxsynth::make_error("timing config: warps = {} must be 1..32", warps);
  if (threads == 0 || threads > 32) throw vxsynth::make_error("timing config: threads = {} must be 1..32", threads);
  if (ibuf_size == 0 || ibuf_size > 64) throw vxsynth::make_error("timing config: ibuf_size = {} must be 1..64", ibuf_size);
  if (epoch_cycles == 0) throw vxsynth::make_error("timing config: epoch_cycles must be ≥ 1");
  if (!(clock_mhz > 0.0) || !std::isfinite(clock_mhz)) {
    throw vxsynth::make_error("timing config: clock_mhz = {} must be > 0", clock_mhz);
  }
  if (!is_pow2(dram.block)) throw vxsynth::make_error("timing config: dram.block = {} must be a power of two", dram.block);
  if (dram.channels == 0 || dram.banks == 0 || dram.burst_cycles == 0) {
    throw vxsynth::make_error("timing config: dram.channels, dram.banks and dram.burst_cycles must be ≥ 1");
  }
  if (dram.pseudo_channels == 0 || dram.banks % dram.pseudo_channels != 0) {
    throw vxsynth::make_error("timing config: dram.pseudo_channels = {} must be ≥ 1 and divide dram.banks = {}",
                              dram.pseudo_channels, dram.banks);
  }
  if (!is_pow2(dram.request_bytes) || dram.request_bytes > dram.block) {
    throw vxsynth::make_error("timing config: dram.request_bytes = {} must be a power of two ≤ dram.block = {}",
                              dram.request_bytes, dram.block);
  }
  if (!is_pow2(dram.interleave)) {
    throw vxsynth::make_error("timing config: dram.interleave = {} must be a power of two", dram.interleave);
  }
  if (!is_pow2(dram.row_size) || dram.row_size < dram.interleave) {
    throw vxsynth::make_error("timing config: dram.row_size = {} must be a power of two ≥ dram.interleave", dram.row_size);
  }
  if (dram.refresh_interval != 0 && dram.refresh_cycles >= dram.refresh_interval) {
    throw vxsynth::make_error("timing config: dram.refresh_cycles must be < dram.refresh_interval");
  }
  if (!icache.enabled || !dcache.enabled) {
    throw vxsynth::make_error("timing config: icache and dcache cannot be disabled (every Vortex core has both)");
  }
  check_cache(icache, "icache", dram.block);
  check_cache(dcache, "dcache", dram.block);
  check_cache(l2, "l2", dram.block);
  check_cache(l3, "l3", dram.block);
  if (icache.banks == 0) throw vxsynth::make_error("timing config: icache.banks must be ≥ 1");
  if (l2.enabled && l2.banks == 0) throw vxsynth::make_error("timing config: l2.banks must be ≥ 1");
  if (l3.enabled && l3.banks == 0) throw vxsynth::make_error("timing config: l3.banks must be ≥ 1");
  if (stack_interleave && !is_pow2(threads)) {
    throw vxsynth::make_error("timing config: stack_interleave needs a power-of-two thread count (threads = {})", threads);
  }
  if (lsu_blocks > 32 || sfu_blocks > 32) {
    throw vxsynth::make_error("timing config: lsu_blocks/sfu_blocks must be 0 (issue width) or 1..32");
  }
  if (lmem.banks > 32) throw vxsynth::make_error("timing config: lmem.banks = {} must be 0 (auto) or 1..32", lmem.banks);
  if (lmem.enabled && (!is_pow2(lmem.size) || lmem.size < 4)) {
    throw vxsynth::make_error("timing config: lmem.size = {} must be a power of two", lmem.size);
  }
}

std::span<const ParamDef> timing_params() { return kParams; }

void set_param(TimingConfig& cfg, std::string_view key, std::string_view value, std::string_view where) {
  const ParamDef* p = find_param(key);
  if (p == nullptr) {
    throw vxsynth::make_error("{}: unknown timing parameter '{}' (see `vxsim --dump-config` for the list)", where, key);
  }
  value = trim(value);
  void* field = p->ref(cfg);
  auto bad = [&](std::string_view what) {
    return vxsynth::make_error("{}: parameter '{}' expects {}, got '{}'", where, key, what, value);
  };
  switch (p->type) {
    case ParamType::kBool:
      if (value == "true" || value == "1") {
        *static_cast<bool*>(field) = true;
      } else if (value == "false" || value == "0") {
        *static_cast<bool*>(field) = false;
      } else {
        throw bad("true or false (or 1, 0)");
      }
      break;
    case ParamType::kU32:
    case ParamType::kU64: {
      uint64_t v = 0;
      auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
      if (ec != std::errc() || ptr != value.data() + value.size() || value.empty()) throw bad("an unsigned integer");
      if (p->type == ParamType::kU32) {
        if (v > std::numeric_limits<uint32_t>::max()) throw bad("a 32-bit unsigned integer");
        *static_cast<uint32_t*>(field) = static_cast<uint32_t>(v);
      } else {
        *static_cast<uint64_t*>(field) = v;
      }
      break;
    }
    case ParamType::kF64: {
      std::string s(value);
      char* end = nullptr;
      double v = std::strtod(s.c_str(), &end);
      if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v)) throw bad("a number");
      *static_cast<double*>(field) = v;
      break;
    }
  }
}

void apply_override(TimingConfig& cfg, std::string_view assignment, std::string_view where) {
  auto eq = assignment.find('=');
  if (eq == std::string_view::npos) {
    throw vxsynth::make_error("{} '{}': expected key=value, e.g. dcache.size=32768", where, assignment);
  }
  set_param(cfg, trim(assignment.substr(0, eq)), assignment.substr(eq + 1), where);
}

namespace {

void load_table(TimingConfig& cfg, const toml::table& table, const std::string& prefix, std::string_view name) {
  for (const auto& [k, node] : table) {
    std::string key = prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
    auto line = node.source().begin.line;
    std::string where = fmt::format("{}:{}", name, line);
    if (const toml::table* sub = node.as_table()) {
      load_table(cfg, *sub, key, name);
      continue;
    }
    const ParamDef* p = find_param(key);
    if (p == nullptr) {
      throw vxsynth::make_error("{}: unknown timing parameter '{}' (see `vxsim --dump-config` for the list)", where, key);
    }
    std::string text;
    if (auto b = node.value<bool>(); b && node.is_boolean()) {
      text = *b ? "true" : "false";
    } else if (node.is_integer()) {
      int64_t v = *node.value<int64_t>();
      if (v < 0) throw vxsynth::make_error("{}: parameter '{}' must not be negative", where, key);
      text = std::to_string(v);
    } else if (node.is_floating_point()) {
      if (p->type != ParamType::kF64) {
        throw vxsynth::make_error("{}: parameter '{}' expects an integer or boolean, got a float", where, key);
      }
      text = fmt::format("{}", *node.value<double>());
    } else {
      throw vxsynth::make_error("{}: parameter '{}' must be a number or boolean", where, key);
    }
    if (p->type == ParamType::kBool && !node.is_boolean()) {
      throw vxsynth::make_error("{}: parameter '{}' expects true or false", where, key);
    }
    if (p->type != ParamType::kBool && node.is_boolean()) {
      throw vxsynth::make_error("{}: parameter '{}' expects a number, got a boolean", where, key);
    }
    set_param(cfg, key, text, where);
  }
}

}  // namespace

void load_toml_text(TimingConfig& cfg, std::string_view text, std::string_view name) {
  toml::table table;
  try {
    table = toml::parse(text, name);
  } catch (const toml::parse_error& e) {
    throw vxsynth::make_error("{}:{}:{}: TOML syntax error: {}", name, e.source().begin.line, e.source().begin.column,
                              e.description());
  }
  load_table(cfg, table, "", name);
}

void load_toml(TimingConfig& cfg, const std::filesystem::path& path) {
  std::string text = vxsynth::read_file(path);
  load_toml_text(cfg, text, path.string());
}

std::string get_param(const TimingConfig& cfg, std::string_view key) {
  const ParamDef* p = find_param(key);
  if (p == nullptr) throw vxsynth::make_error("unknown timing parameter '{}'", key);
  auto& mut = const_cast<TimingConfig&>(cfg);  // ref() is non-const only to share one accessor
  const void* f = p->ref(mut);
  switch (p->type) {
    case ParamType::kBool: return *static_cast<const bool*>(f) ? "true" : "false";
    case ParamType::kU32: return std::to_string(*static_cast<const uint32_t*>(f));
    case ParamType::kU64: return std::to_string(*static_cast<const uint64_t*>(f));
    case ParamType::kF64: return fmt::format("{}", *static_cast<const double*>(f));
  }
  return {};
}

std::string dump_toml(const TimingConfig& cfg) {
  std::string out = "# vxsim timing configuration (every parameter; see sim/timing/configs/default.toml for notes)\n";
  std::string section;
  for (const ParamDef& p : kParams) {
    std::string_view key = p.key;
    std::string_view sec;
    std::string_view leaf = key;
    if (auto dot = key.find('.'); dot != std::string_view::npos) {
      sec = key.substr(0, dot);
      leaf = key.substr(dot + 1);
    }
    if (sec != section) {
      section = std::string(sec);
      out += fmt::format("\n[{}]\n", section);
    }
    std::string unit = p.unit.empty() ? std::string() : fmt::format(" [{}]", p.unit);
    out += fmt::format("{} = {}  # {}{}\n", leaf, get_param(cfg, key), p.doc, unit);
  }
  return out;
}

}  // namespace vxsim::timing
