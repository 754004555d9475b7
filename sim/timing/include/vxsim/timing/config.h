#pragma once
/// \file
/// Typed configuration of vxsim's timing model. Every default lives in the member initialisers
/// below (one place); the parameter table (`timing_params()`) gives each one a dotted key, a type, a
/// unit and a doc line, and drives TOML loading, `--set key=value` overrides and `dump_toml()`.
/// Defaults are SimX's (docs/vortex.md §8.1) unless a comment says otherwise; modelling
/// compromises are written next to the parameter they concern and in configs/default.toml.

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

namespace vxsim::timing {

/// One set-associative cache (LRU replacement, write-through, no write-allocate).
struct CacheParams {
  bool enabled = true;
  uint32_t size = 16384;    ///< bytes
  uint32_t ways = 4;
  uint32_t line = 64;       ///< bytes; must equal dram.block (one block size end to end)
  uint32_t banks = 1;       ///< line-interleaved banks; each accepts one request per cycle
  uint32_t mshrs = 16;      ///< outstanding distinct-line misses; a miss beyond waits
  uint32_t latency = 2;     ///< pipeline latency of a hit, cycles (SimX: 2 at every level)
};

/// DRAM model after SimX's memory path (docs/timing.md "DRAM"): SimX hands every 64-byte block
/// request to Ramulator2 as `block / request_bytes` requests of 16 bytes (its DRAM channel width, 128
/// bits), at the DRAM addresses (byte address / block) * 16 + 16 i, from ONE pending queue that passes
/// one request per DRAM cycle (`queue_cycles`) to the controller; a read is answered when its first
/// request's data is back, a write when its first request entered the controller. Ramulator's
/// HBM2_8Gb / HBM2_2Gbps presets with `channels` = PLATFORM_MEMORY_NUM_BANKS and the RoBaRaCoCh
/// address mapping: channels interleaved every `interleave` DRAM-address bytes (the transaction),
/// row-sized chunks over banks, each request occupies its channel's data bus nBL cycles
/// (`burst_cycles`) of its pseudo-channel, open-row latency per (channel, bank), all-bank refresh. Not Ramulator's
/// command-level timing: the latencies are its nCL/nRCD/nRP/nBL sums, the scheduler is in order.
struct DramParams {
  uint32_t channels = 2;          ///< PLATFORM_MEMORY_NUM_BANKS
  uint32_t block = 64;            ///< bytes per memory request from the caches (CACHE_BLOCK_SIZE)
  uint32_t request_bytes = 16;    ///< bytes per DRAM request (SimX dram_sim: 128-bit channel); = block: one per block
  uint32_t interleave = 32;       ///< DRAM-address bytes per channel before the next (HBM2 transaction: prefetch 2 x 128 bit)
  uint32_t queue_cycles = 1;      ///< cycles per request leaving SimX's single pending queue (one per DRAM tick)
  uint32_t burst_cycles = 4;      ///< data-bus cycles per request on its pseudo-channel (HBM2_2Gbps nBL = 4)
  /// Data buses per channel. HBM2_8Gb has 2 pseudo-channels; whether Ramulator2 counts nBL per
  /// pseudo-channel or per channel differs between its versions. 1 (per channel) is the calibrated
  /// choice: with 2, vxsim's 4c x 8w x 8t cycles fall to 0.47-0.75 x SimX's (docs/timing.md "DRAM").
  uint32_t pseudo_channels = 1;
  uint32_t banks = 32;            ///< banks per channel: 2 pseudo-channels x 4 bank groups x 4 banks (HBM2_8Gb)
  uint32_t row_size = 1024;       ///< DRAM-address bytes per row (HBM2_8Gb: 64 columns x 16 bytes)
  uint32_t row_hit_latency = 11;  ///< cycles, request to data, open row: nCL 7 + nBL 4
  uint32_t row_miss_latency = 25; ///< cycles, other row: nRP 7 + nRCD 7 + nCL 7 + nBL 4
  uint32_t rw_turnaround = 0;     ///< extra channel cycles when it switches between reads and writes
  uint32_t refresh_interval = 3900; ///< cycles between all-bank refreshes (nREFI); 0 = no refresh
  uint32_t refresh_cycles = 160;    ///< cycles every channel is blocked by a refresh (nRFC of HBM2_8Gb)
};

/// A request port between two memory levels that several requesters share (the socket's L1s →
/// the level below; the cluster's sockets → L3/DRAM): it takes one block request every
/// `cycles_per_request` cycles (0 = no limit), in arrival order, and adds `latency` cycles each way.
/// Default: one request per cycle, no latency (SimX's memory arbiters forward one request per
/// cycle).
struct PortParams {
  uint32_t cycles_per_request = 1;
  uint32_t latency = 0;
};

/// Per-core local (shared) memory.
struct LmemParams {
  bool enabled = true;
  uint32_t size = 16384;  ///< bytes (LMEM_LOG_SIZE = 14)
  uint32_t banks = 0;     ///< 4-byte-word-interleaved banks; 0 = SIMD width (LMEM_NUM_BANKS = LSU lanes)
  uint32_t latency = 2;   ///< cycles of a conflict-free access
};

/// Functional-unit latencies in cycles (SimX func_unit.cpp, docs/vortex.md §8.1).
struct LatencyParams {
  uint32_t alu = 2;        ///< ALU, branch, jump
  uint32_t mul = 2;
  uint32_t div = 34;       ///< XLEN + 2
  uint32_t fma = 6;        ///< LATENCY_FMA (4, FPU_DSP path) + 2
  uint32_t fdiv = 18;      ///< FDIV and FSQRT: 16 + 2
  uint32_t fcvt = 7;       ///< 5 + 2
  uint32_t fmisc = 4;      ///< FP compare/sign/move/class/min/max
  uint32_t sfu = 4;        ///< warp control (TMC, WSPAWN, SPLIT, JOIN, BAR, PRED)
  uint32_t csr = 4;
  uint32_t tcu = 6;        ///< per TCU micro-op
  uint32_t lsu = 2;        ///< address generation + coalescer, before the D-cache / local memory
  uint32_t io = 2;         ///< IO-space access (console, perf dump): no cache
};

/// The whole timing configuration.
struct TimingConfig {
  // Machine shape (must match the functional simulator's vxsim::Config).
  uint32_t clusters = 1;
  uint32_t cores = 1;          ///< per cluster
  uint32_t warps = 4;          ///< per core
  uint32_t threads = 4;        ///< per warp
  uint32_t socket_size = 0;    ///< cores sharing one L1 pair; 0 = min(4, cores) (SOCKET_SIZE)
  uint32_t issue_width = 0;    ///< 0 = ceil(warps/16) (ISSUE_WIDTH)
  uint32_t simd_width = 0;     ///< ALU/FPU/LSU lanes; 0 = min(threads, 16) (SIMD_WIDTH)
  uint32_t ibuf_size = 4;      ///< per-warp instruction buffer entries (IBUF_SIZE)
  uint32_t lsu_blocks = 1;     ///< LSU blocks per core shared by the issue slots (NUM_LSU_BLOCKS = 1); 0 = one per slot
  uint32_t sfu_blocks = 1;     ///< SFU blocks per core shared by the issue slots (NUM_SFU_BLOCKS = 1); 0 = one per slot
  uint32_t fetch_latency = 1;   ///< cycles from the scheduler's pick to the I-cache request
  /// Cycles from I-cache response to the instruction buffer (decode + buffer enqueue). 4 is
  /// calibrated, not a SimX constant: it brings vxsim's cycles for the SDK's regression vecadd,
  /// sgemm, sgemm2 and conv3 to 0.62–1.00 × real SimX's on Vortex's versions (docs/vortex.md §12;
  /// docs/timing.md "Calibration"), from 0.50–0.70 × with 1.
  uint32_t decode_latency = 4;
  uint32_t operand_latency = 1; ///< cycles from issue to the functional unit (operand collector, dispatch)
  uint32_t commit_latency = 1;  ///< cycles from a unit's result to the register file (scoreboard release)
  double clock_mhz = 400.0;    ///< core clock for byte/s metrics ([N] PLATFORM_CLOCK_RATE=400)
  uint64_t max_cycles = 0;     ///< runaway guard; 0 = unlimited
  /// Cycles of one epoch of a partitioned run (docs/vxsim.md "Parallel simulation"): partitions
  /// see each other's memory traffic, stores and global-barrier arrivals at epoch ends. Not a SimX
  /// parameter; 1024 keeps the lag well below a kernel's run time while the host threads
  /// synchronise rarely. Does not matter with one partition.
  uint32_t epoch_cycles = 1024;
  /// The LSU's stack interleave of Vortex's 2026 line ([N] VX_CFG_LSU_STACK_INTERLEAVE_ENABLE,
  /// docs/vortex.md §3.4): per-hart stack addresses are remapped so that the same frame slot of a
  /// warp's lanes is one contiguous block (docs/timing.md "Stack interleave"). Off: Vortex 2.x
  /// ([M], the compatibility target) has no remap, and SimX 2.x sees each lane's stack 8 KiB apart.
  bool stack_interleave = false;

  LatencyParams lat;
  CacheParams icache;
  CacheParams dcache{true, 16384, 4, 64, 0, 16, 2};  ///< banks 0 = auto (SimX: 1 at ≤ 4 lanes)
  CacheParams l2{false, 1u << 20, 8, 64, 2, 16, 2};
  CacheParams l3{false, 2u << 20, 8, 64, 2, 16, 2};
  LmemParams lmem;
  PortParams socket_port;   ///< a socket's L1 I/D → the level below (L2 or the cluster port)
  PortParams cluster_port;  ///< a cluster's sockets (or its L2) → L3 / DRAM
  DramParams dram;

  // Derived values (after resolve()).
  [[nodiscard]] uint32_t total_cores() const { return clusters * cores; }
  [[nodiscard]] uint32_t eff_socket_size() const;
  [[nodiscard]] uint32_t eff_issue_width() const;
  [[nodiscard]] uint32_t eff_simd_width() const;
  [[nodiscard]] uint32_t eff_dcache_banks() const;
  [[nodiscard]] uint32_t eff_lmem_banks() const;

  /// Throws vxsynth::Error naming the field when a value is out of range or inconsistent
  /// (sizes not powers of two, line sizes differing from dram.block, warps/threads outside 1..32).
  void validate() const;
};

/// Value type of a parameter.
enum class ParamType : uint8_t { kBool, kU32, kU64, kF64 };

/// One row of the parameter table (gem5-style typed parameter with unit and doc).
struct ParamDef {
  std::string_view key;    ///< dotted key: "dcache.size"
  ParamType type;
  std::string_view unit;   ///< "bytes", "cycles", "count", "MHz", "" for flags
  std::string_view doc;
  void* (*ref)(TimingConfig&);  ///< address of the field in a config
};

/// The parameter table, in TOML section order.
[[nodiscard]] std::span<const ParamDef> timing_params();

/// Sets one parameter from text (`"32768"`, `"true"`, `"1.5"`). Throws vxsynth::Error naming the key
/// when the key is unknown or the value does not parse as the parameter's type. `where` prefixes
/// the message (e.g. "--set" or "file.toml").
void set_param(TimingConfig& cfg, std::string_view key, std::string_view value, std::string_view where);

/// Applies one `key=value` override (the `--set dcache.size=32768` form); `where` names its source
/// in errors ("--set", "VXSIM_SET").
void apply_override(TimingConfig& cfg, std::string_view assignment, std::string_view where = "--set");

/// Reads a TOML file over `cfg` (keys absent from the file keep their values). Throws
/// vxsynth::Error with file, line and key for syntax errors, unknown keys and type mismatches.
void load_toml(TimingConfig& cfg, const std::filesystem::path& path);
/// Same, from text; `name` is used in messages.
void load_toml_text(TimingConfig& cfg, std::string_view text, std::string_view name);

/// Writes every parameter as TOML, one commented line each (`vxsim --dump-config`).
[[nodiscard]] std::string dump_toml(const TimingConfig& cfg);

/// Reads the current value of a parameter as text; throws for an unknown key.
[[nodiscard]] std::string get_param(const TimingConfig& cfg, std::string_view key);

}  // namespace vxsim::timing
