// vortex.h implemented on vxsim (docs/vortex.md §5; docs/vxsim.md "Runtime").
#include "vortex.h"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "engine.h"
#include "vxsim/core.h"
#include "vxsim/error.h"
#include "vxsim/loader.h"
#include "vxsim/timing/mem_profile.h"
#include "vxsynth/common/file_io.h"

namespace vxsim::runtime {
namespace {

/// Allocation window: USER_BASE_ADDR up to PAGE_TABLE_BASE_ADDR (0xF0000000), which keeps buffers
/// clear of the per-hart stacks below STACK_BASE_ADDR (docs/vortex.md §3.1).
constexpr uint64_t kAllocBegin = kIoEndAddr;
constexpr uint64_t kAllocEnd = 0xF0000000ull;

struct Device;

struct Buffer {
  Device* dev = nullptr;
  uint64_t addr = 0;
  uint64_t size = 0;      ///< requested bytes
  uint64_t reserved = 0;  ///< bytes taken from the allocator (page multiple)
};

struct Device {
  Config cfg;
  EngineOptions engine;
  std::unique_ptr<Processor> proc;
  std::map<uint64_t, std::unique_ptr<Buffer>> buffers;  ///< by address
  uint64_t used = 0;
  int last_status = 0;
  LaunchReport report;
  uint32_t launches = 0;                     ///< vx_start calls that ran the device
  /// Per launch: (instructions, cycles) summed / maxed over cores from the MPM block the kernel's
  /// exit wrote (minstret slot 2, mcycle slot 0), for vx_dump_perf's per-launch lines.
  std::vector<std::pair<uint64_t, uint64_t>> launch_totals;
  std::vector<timing::MeasuredLaunch> signatures;  ///< per launch, timing mode with $VXSIM_SIGNATURE
  std::string mem_profile;  ///< every launch's memory-profile lines, timing mode with $VXSIM_MEM_PROFILE
};

/// MPM slot `index` of `core` for the last launch: what the kernel's perf dump wrote at
/// IO_MPM_ADDR + 256·core, except mcycle (slot 0) in timing mode, which is the core's cycle count
/// from the timing model (the dump samples it a few hundred cycles before the core ends), so that
/// PERF lines, vx_mpm_query and the signature file give one cycle count.
uint64_t mpm_slot(const Device& d, uint32_t core, uint32_t index) {
  if (index == 0 && core < d.report.core_cycles.size()) return d.report.core_cycles[core];
  uint64_t v = 0;
  d.proc->memory().read(kIoMpmAddr + 256ull * core + 8ull * index, &v, 8);
  return v;
}

std::set<Device*>& devices() {
  static std::set<Device*> d;
  return d;
}

template <typename... Args>
int fail(const char* fn, fmt::format_string<Args...> f, Args&&... args) {
  std::cerr << fn << ": " << fmt::format(f, std::forward<Args>(args)...) << std::endl;
  return -1;
}

Device* as_device(vx_device_h h) {
  auto* d = static_cast<Device*>(h);
  return devices().count(d) != 0 ? d : nullptr;
}

Buffer* as_buffer(vx_buffer_h h) {
  auto* b = static_cast<Buffer*>(h);
  if (b == nullptr) return nullptr;
  for (Device* d : devices()) {
    auto it = d->buffers.find(b->addr);
    if (it != d->buffers.end() && it->second.get() == b) return b;
  }
  return nullptr;
}

uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

bool env_u32(const char* name, uint32_t& out) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return true;
  char* end = nullptr;
  unsigned long long x = std::strtoull(v, &end, 0);
  if (*end != '\0' || x > 0xFFFFFFFFull) {
    std::cerr << "vx_dev_open: environment variable " << name << "='" << v << "' is not an unsigned integer" << std::endl;
    return false;
  }
  out = static_cast<uint32_t>(x);
  return true;
}

bool overlaps(const Device& d, uint64_t addr, uint64_t size) {
  auto it = d.buffers.upper_bound(addr);
  if (it != d.buffers.begin()) {
    auto prev = std::prev(it);
    if (prev->second->addr + prev->second->reserved > addr) return true;
  }
  return it != d.buffers.end() && it->second->addr < addr + size;
}

int add_buffer(Device& d, uint64_t addr, uint64_t size, uint64_t reserved, int flags, vx_buffer_h* out) {
  auto b = std::make_unique<Buffer>();
  b->dev = &d;
  b->addr = addr;
  b->size = size;
  b->reserved = reserved;
  d.proc->memory().set_acl(addr, reserved, static_cast<uint8_t>(flags & VX_MEM_READ_WRITE));
  d.used += reserved;
  *out = b.get();
  d.buffers[addr] = std::move(b);
  return 0;
}

}  // namespace
}  // namespace vxsim::runtime

using namespace vxsim;
using namespace vxsim::runtime;

extern "C" {

int vx_dev_open(vx_device_h* hdevice) {
  if (hdevice == nullptr) return fail("vx_dev_open", "null device handle pointer");
  auto d = std::make_unique<Device>();
  uint64_t budget = d->cfg.instr_budget;
  uint32_t strict = 1;
  uint32_t trace = 0;
  uint32_t races = 0;
  if (!env_u32("VXSIM_CLUSTERS", d->cfg.clusters) || !env_u32("VXSIM_CORES", d->cfg.cores) ||
      !env_u32("VXSIM_WARPS", d->cfg.warps) || !env_u32("VXSIM_THREADS", d->cfg.threads) ||
      !env_u32("VXSIM_STRICT_DIVERGENCE", strict) || !env_u32("VXSIM_TRACE", trace) ||
      !env_u32("VXSIM_CHECK_RACES", races)) {
    return -1;
  }
  d->cfg.check_races = races != 0;
  if (const char* b = std::getenv("VXSIM_BUDGET"); b != nullptr && *b != '\0') {
    char* end = nullptr;
    budget = std::strtoull(b, &end, 0);
    if (*end != '\0') return fail("vx_dev_open", "environment variable VXSIM_BUDGET='{}' is not an unsigned integer", b);
  }
  d->cfg.instr_budget = budget;
  if (const char* t = std::getenv("VXSIM_TIME_LIMIT"); t != nullptr && *t != '\0') {
    char* end = nullptr;
    d->cfg.time_limit_s = std::strtod(t, &end);
    if (*end != '\0' || !(d->cfg.time_limit_s >= 0.0))
      return fail("vx_dev_open", "environment variable VXSIM_TIME_LIMIT='{}' is not a number of seconds (0 = none)", t);
  }
  d->cfg.strict_divergence = strict != 0;
  // VXSIM_LMEM_SIZE: local memory per core in bytes, a power of two (the timing table's lmem.size).
  uint32_t lmem = 1u << d->cfg.lmem_log_size;
  if (!env_u32("VXSIM_LMEM_SIZE", lmem)) return -1;
  if (lmem == 0 || (lmem & (lmem - 1)) != 0)
    return fail("vx_dev_open", "environment variable VXSIM_LMEM_SIZE='{}' is not a power of two", lmem);
  d->cfg.lmem_log_size = static_cast<uint32_t>(std::countr_zero(lmem));
  if (const char* c = std::getenv("VXSIM_CONFIG"); c != nullptr) d->engine.config_path = c;
  try {
    d->proc = std::make_unique<Processor>(d->cfg);
  } catch (const vxsynth::Error& e) {
    return fail("vx_dev_open", "{}", e.what());
  }
  if (trace != 0) d->proc->set_trace(&std::cerr);
  // vx_dev_open writes STARTUP_ADDR, ARG = 0 and MPM_CLASS = 0 (§5).
  d->proc->dcr_write(0x001, kStartupAddr);
  d->proc->dcr_write(0x002, 0);
  d->proc->dcr_write(0x003, 0);
  d->proc->dcr_write(0x004, 0);
  d->proc->dcr_write(0x005, 0);
  *hdevice = d.get();
  devices().insert(d.release());
  return 0;
}

int vx_dev_close(vx_device_h hdevice) {
  Device* d = as_device(hdevice);
  if (d == nullptr) return fail("vx_dev_close", "invalid device handle");
  // PERF lines only for a device that ran something: after a failure before the first launch
  // they would be zeros that read like a measurement.
  if (d->launches > 0) vx_dump_perf(hdevice, stdout);
  devices().erase(d);
  delete d;
  return 0;
}

int vx_dev_caps(vx_device_h hdevice, uint32_t caps_id, uint64_t* value) {
  Device* d = as_device(hdevice);
  if (d == nullptr || value == nullptr) return fail("vx_dev_caps", "invalid device handle or null value pointer");
  const Config& c = d->cfg;
  switch (caps_id) {
    case VX_CAPS_VERSION: *value = 2; break;  // Vortex 2.x
    case VX_CAPS_NUM_THREADS: *value = c.threads; break;
    case VX_CAPS_NUM_WARPS: *value = c.warps; break;
    case VX_CAPS_NUM_CORES: *value = c.total_cores(); break;
    case VX_CAPS_CACHE_LINE_SIZE: *value = kCacheBlockSize; break;
    case VX_CAPS_GLOBAL_MEM_SIZE: *value = kGlobalMemSize; break;
    case VX_CAPS_LOCAL_MEM_SIZE: *value = 1ull << c.lmem_log_size; break;
    case VX_CAPS_ISA_FLAGS:
      // MISA_STD: F, I, M, U(20), X(23); MISA_EXT: ICACHE, DCACHE, LMEM, ZICOND (SimX defaults, §1.1)
      // and TCU (vxsim implements WMMA; SimX needs EXT_TCU_ENABLE).
      *value = VX_ISA_STD_F | VX_ISA_STD_I | (1ull << 12) | (1ull << 20) | (1ull << 23) | (1ull << 30) |
               VX_ISA_EXT_ICACHE | VX_ISA_EXT_DCACHE | VX_ISA_EXT_LMEM | VX_ISA_EXT_ZICOND | VX_ISA_EXT_TCU;
      break;
    case VX_CAPS_NUM_MEM_BANKS: *value = 2; break;  // PLATFORM_MEMORY_NUM_BANKS (§8.1)
    case VX_CAPS_MEM_BANK_SIZE: *value = kGlobalMemSize / 2; break;
    default: return fail("vx_dev_caps", "invalid caps id {}", caps_id);
  }
  return 0;
}

int vx_mem_alloc(vx_device_h hdevice, uint64_t size, int flags, vx_buffer_h* hbuffer) {
  Device* d = as_device(hdevice);
  if (d == nullptr || hbuffer == nullptr) return fail("vx_mem_alloc", "invalid device handle or null buffer pointer");
  if (size == 0) return fail("vx_mem_alloc", "size 0");
  uint64_t need = round_up(size, kMemPageSize);
  uint64_t addr = kAllocBegin;
  for (const auto& [a, b] : d->buffers) {
    if (a >= addr + need) break;
    addr = std::max(addr, round_up(b->addr + b->reserved, kMemPageSize));
  }
  if (addr + need > kAllocEnd) {
    return fail("vx_mem_alloc", "out of device memory: {} bytes requested, {} bytes in use", size, d->used);
  }
  return add_buffer(*d, addr, size, need, flags, hbuffer);
}

int vx_mem_reserve(vx_device_h hdevice, uint64_t address, uint64_t size, int flags, vx_buffer_h* hbuffer) {
  Device* d = as_device(hdevice);
  if (d == nullptr || hbuffer == nullptr) return fail("vx_mem_reserve", "invalid device handle or null buffer pointer");
  if (size == 0 || address < kIoEndAddr || address + size > kGlobalMemSize) {
    return fail("vx_mem_reserve", "range [{:#x}, {:#x}) is empty or outside [{:#x}, {:#x})", address, address + size,
                kIoEndAddr, kGlobalMemSize);
  }
  if (overlaps(*d, address, size)) {
    return fail("vx_mem_reserve", "range [{:#x}, {:#x}) overlaps an existing buffer", address, address + size);
  }
  return add_buffer(*d, address, size, size, flags, hbuffer);
}

int vx_mem_free(vx_buffer_h hbuffer) {
  if (hbuffer == nullptr) return 0;
  Buffer* b = as_buffer(hbuffer);
  if (b == nullptr) return fail("vx_mem_free", "invalid buffer handle");
  Device* d = b->dev;
  d->proc->memory().clear_acl(b->addr, b->reserved);
  d->used -= b->reserved;
  d->buffers.erase(b->addr);
  return 0;
}

int vx_mem_access(vx_buffer_h hbuffer, uint64_t offset, uint64_t size, int flags) {
  Buffer* b = as_buffer(hbuffer);
  if (b == nullptr) return fail("vx_mem_access", "invalid buffer handle");
  if (offset > b->size || size > b->size - offset) {
    return fail("vx_mem_access", "range [{}, {}) outside the buffer of {} bytes at {:#x}", offset, offset + size, b->size,
                b->addr);
  }
  b->dev->proc->memory().set_acl(b->addr + offset, size, static_cast<uint8_t>(flags & VX_MEM_READ_WRITE));
  return 0;
}

int vx_mem_address(vx_buffer_h hbuffer, uint64_t* address) {
  Buffer* b = as_buffer(hbuffer);
  if (b == nullptr || address == nullptr) return fail("vx_mem_address", "invalid buffer handle or null pointer");
  *address = b->addr;
  return 0;
}

int vx_mem_info(vx_device_h hdevice, uint64_t* mem_free, uint64_t* mem_used) {
  Device* d = as_device(hdevice);
  if (d == nullptr) return fail("vx_mem_info", "invalid device handle");
  if (mem_free != nullptr) *mem_free = (kAllocEnd - kAllocBegin) - std::min(d->used, kAllocEnd - kAllocBegin);
  if (mem_used != nullptr) *mem_used = d->used;
  return 0;
}

int vx_copy_to_dev(vx_buffer_h hbuffer, const void* host_ptr, uint64_t dst_offset, uint64_t size) {
  Buffer* b = as_buffer(hbuffer);
  if (b == nullptr || (host_ptr == nullptr && size != 0)) return fail("vx_copy_to_dev", "invalid buffer handle or null host pointer");
  if (dst_offset > b->size || size > b->size - dst_offset) {
    return fail("vx_copy_to_dev", "copy of {} bytes at offset {} overflows the buffer of {} bytes at {:#x}", size, dst_offset,
                b->size, b->addr);
  }
  b->dev->proc->memory().write(b->addr + dst_offset, host_ptr, size);
  return 0;
}

int vx_copy_from_dev(void* host_ptr, vx_buffer_h hbuffer, uint64_t src_offset, uint64_t size) {
  Buffer* b = as_buffer(hbuffer);
  if (b == nullptr || (host_ptr == nullptr && size != 0)) return fail("vx_copy_from_dev", "invalid buffer handle or null host pointer");
  if (src_offset > b->size || size > b->size - src_offset) {
    return fail("vx_copy_from_dev", "copy of {} bytes at offset {} overflows the buffer of {} bytes at {:#x}", size, src_offset,
                b->size, b->addr);
  }
  b->dev->proc->memory().read(b->addr + src_offset, host_ptr, size);
  return 0;
}

int vx_start(vx_device_h hdevice, vx_buffer_h hkernel, vx_buffer_h harguments) {
  Device* d = as_device(hdevice);
  Buffer* k = as_buffer(hkernel);
  if (d == nullptr || k == nullptr) return fail("vx_start", "invalid device or kernel buffer handle");
  Buffer* a = harguments != nullptr ? as_buffer(harguments) : nullptr;
  if (harguments != nullptr && a == nullptr) return fail("vx_start", "invalid argument buffer handle");
  uint32_t mpm_class = 0;
  if (const char* p = std::getenv("VORTEX_PROFILING"); p != nullptr && *p != '\0') mpm_class = static_cast<uint32_t>(std::atoi(p));
  try {
    d->proc->dcr_write(0x005, mpm_class);
    d->proc->dcr_write(0x001, static_cast<uint32_t>(k->addr));
    d->proc->dcr_write(0x002, static_cast<uint32_t>(k->addr >> 32));
    uint64_t arg = a != nullptr ? a->addr : 0;
    d->proc->dcr_write(0x003, static_cast<uint32_t>(arg));
    d->proc->dcr_write(0x004, static_cast<uint32_t>(arg >> 32));
    d->proc->reset();
    const uint32_t index = d->launches++;
    d->report = run_engine(*d->proc, d->engine, index);
    if (d->report.mem_profile) {
      // Rewritten (atomically) after every launch with all launches so far, as the signature.
      d->mem_profile += *d->report.mem_profile;
      d->report.mem_profile.reset();
      vxsynth::write_file_atomic(std::getenv("VXSIM_MEM_PROFILE"),
                                 std::string(timing::MemProfile::header()) + d->mem_profile);
    }
    if (d->report.signature) {
      // One signature per launch; the file is rewritten (atomically) after every launch, so a
      // crash in a later launch keeps what the earlier ones measured.
      timing::MeasuredLaunch s = std::move(*d->report.signature);
      d->report.signature.reset();
      s.index = index;
      s.kernel_addr = k->addr;
      s.args_addr = arg;
      d->signatures.push_back(std::move(s));
      if (const char* path = std::getenv("VXSIM_SIGNATURE"); path != nullptr && *path != '\0')
        vxsynth::write_file_atomic(path, timing::require_signature_adapter("VXSIM_SIGNATURE").launches_file(d->signatures));
    }
    {
      uint64_t instrs = 0, cycles = 0;
      for (uint32_t c = 0; c < d->proc->num_cores(); ++c) {
        instrs += mpm_slot(*d, c, 2);
        cycles = std::max(cycles, mpm_slot(*d, c, 0));
      }
      d->launch_totals.emplace_back(instrs, cycles);
    }
    d->last_status = 0;
    for (uint32_t c = 0; c < d->proc->num_cores(); ++c) {
      const std::string& why = d->proc->core(c).halt_reason();
      if (!why.empty()) std::cerr << "vx_start: note: core stopped by " << why << std::endl;
    }
  } catch (const vxsynth::Error& e) {
    d->proc->flush_console();
    d->last_status = -1;
    return fail("vx_start", "device error: {}", e.what());
  }
  return 0;
}

int vx_ready_wait(vx_device_h hdevice, uint64_t /*timeout*/) {
  Device* d = as_device(hdevice);
  if (d == nullptr) return fail("vx_ready_wait", "invalid device handle");
  return d->last_status;
}

int vx_dcr_read(vx_device_h hdevice, uint32_t addr, uint32_t* value) {
  Device* d = as_device(hdevice);
  if (d == nullptr || value == nullptr) return fail("vx_dcr_read", "invalid device handle or null pointer");
  try {
    *value = d->proc->dcr_read(addr);
  } catch (const vxsynth::Error& e) {
    return fail("vx_dcr_read", "{}", e.what());
  }
  return 0;
}

int vx_dcr_write(vx_device_h hdevice, uint32_t addr, uint32_t value) {
  Device* d = as_device(hdevice);
  if (d == nullptr) return fail("vx_dcr_write", "invalid device handle");
  try {
    d->proc->dcr_write(addr, value);
  } catch (const vxsynth::Error& e) {
    return fail("vx_dcr_write", "{}", e.what());
  }
  return 0;
}

int vx_mpm_query(vx_device_h hdevice, uint32_t addr, uint32_t core_id, uint64_t* value) {
  Device* d = as_device(hdevice);
  if (d == nullptr || value == nullptr) return fail("vx_mpm_query", "invalid device handle or null pointer");
  if (addr < 0xB00 || addr >= 0xB00 + kMpmSlotsPerCore) {
    return fail("vx_mpm_query", "address {:#x} is not an MPM counter (0xB00..0xB1F)", addr);
  }
  if (core_id >= d->proc->num_cores()) return fail("vx_mpm_query", "core {} does not exist ({} cores)", core_id, d->proc->num_cores());
  *value = mpm_slot(*d, core_id, addr - 0xB00);
  return 0;
}

int vx_upload_kernel_bytes(vx_device_h hdevice, const void* content, uint64_t size, vx_buffer_h* hbuffer) {
  Device* d = as_device(hdevice);
  if (d == nullptr || content == nullptr || hbuffer == nullptr) return fail("vx_upload_kernel_bytes", "invalid arguments");
  try {
    VxbinImage img = parse_vxbin({static_cast<const uint8_t*>(content), size}, "kernel image");
    vx_buffer_h buf = nullptr;
    if (vx_mem_reserve(hdevice, img.min_vma, img.max_vma - img.min_vma, 0, &buf) != 0) return -1;
    vx_mem_access(buf, 0, img.image.size(), VX_MEM_READ);
    vx_mem_access(buf, img.image.size(), img.max_vma - img.min_vma - img.image.size(), VX_MEM_READ_WRITE);
    d->proc->memory().write(img.min_vma, img.image.data(), img.image.size());
    d->proc->memory().fill(img.min_vma + img.image.size(), 0, img.max_vma - img.min_vma - img.image.size());
    // As vxsim's loader does: a fetch outside the image is reported as such (sim/src/loader.cc).
    d->proc->set_image_range(img.min_vma, img.max_vma);
    *hbuffer = buf;
  } catch (const vxsynth::Error& e) {
    return fail("vx_upload_kernel_bytes", "{}", e.what());
  }
  return 0;
}

int vx_upload_kernel_file(vx_device_h hdevice, const char* filename, vx_buffer_h* hbuffer) {
  if (filename == nullptr) return fail("vx_upload_kernel_file", "null file name");
  std::string data;
  try {
    data = vxsynth::read_file(filename);
  } catch (const vxsynth::Error& e) {
    return fail("vx_upload_kernel_file", "{}", e.what());
  }
  if (data.empty()) return fail("vx_upload_kernel_file", "{}: empty file", filename);
  return vx_upload_kernel_bytes(hdevice, data.data(), data.size(), hbuffer);
}

int vx_upload_bytes(vx_device_h hdevice, const void* content, uint64_t size, vx_buffer_h* hbuffer) {
  if (content == nullptr || hbuffer == nullptr) return fail("vx_upload_bytes", "invalid arguments");
  vx_buffer_h buf = nullptr;
  if (vx_mem_alloc(hdevice, size, VX_MEM_READ, &buf) != 0) return -1;
  if (vx_copy_to_dev(buf, content, 0, size) != 0) {
    vx_mem_free(buf);
    return -1;
  }
  *hbuffer = buf;
  return 0;
}

int vx_upload_file(vx_device_h hdevice, const char* filename, vx_buffer_h* hbuffer) {
  if (filename == nullptr) return fail("vx_upload_file", "null file name");
  std::string data;
  try {
    data = vxsynth::read_file(filename);
  } catch (const vxsynth::Error& e) {
    return fail("vx_upload_file", "{}", e.what());
  }
  return vx_upload_bytes(hdevice, data.data(), data.size(), hbuffer);
}

int vx_check_occupancy(vx_device_h hdevice, uint32_t group_size, uint32_t* max_localmem) {
  Device* d = as_device(hdevice);
  if (d == nullptr || max_localmem == nullptr) return fail("vx_check_occupancy", "invalid device handle or null pointer");
  const Config& c = d->cfg;
  uint32_t warps_per_group = (group_size + c.threads - 1) / c.threads;
  if (group_size == 0 || warps_per_group > c.warps) {
    return fail("vx_check_occupancy", "group size {} needs {} warps but a core has {} warps of {} threads", group_size,
                warps_per_group, c.warps, c.threads);
  }
  uint32_t groups = c.warps / warps_per_group;  // resident groups per core (§5)
  *max_localmem = (1u << c.lmem_log_size) / groups;
  return 0;
}

int vx_dump_perf(vx_device_h hdevice, FILE* stream) {
  Device* d = as_device(hdevice);
  if (d == nullptr || stream == nullptr) return fail("vx_dump_perf", "invalid device handle or stream");
  // Several launches (split-K partials + reduction, a separate epilogue): one line per launch and
  // their sum first; the SimX-format block below is of the last launch, whose counters the
  // device holds (each launch resets the processor).
  std::string text;
  if (d->launch_totals.size() > 1) {
    uint64_t all_instrs = 0, all_cycles = 0;
    for (size_t i = 0; i < d->launch_totals.size(); ++i) {
      const auto [instrs, cycles] = d->launch_totals[i];
      text += fmt::format("PERF: launch {} of {}: instrs={}, cycles={}\n", i, d->launch_totals.size(), instrs, cycles);
      all_instrs += instrs;
      all_cycles += cycles;
    }
    text += fmt::format("PERF: all {} launches: instrs={}, cycles={}; the lines below are of launch {}\n",
                        d->launch_totals.size(), all_instrs, all_cycles, d->launch_totals.size() - 1);
  }
  text += format_perf(d->proc->num_cores(), d->proc->mpm_class(), d->report,
                      [d](uint32_t core, uint32_t index) { return mpm_slot(*d, core, index); });
  std::fputs(text.c_str(), stream);
  std::fflush(stream);
  return 0;
}

}  // extern "C"
