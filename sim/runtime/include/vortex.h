/// \file
/// Vortex 2.x host runtime API (names and signatures of upstream `runtime/include/vortex.h` at
/// the Oct-2025 master, docs/vortex.md §5), implemented by vxsim in-process: a regression-style
/// `main.cpp` written for Vortex compiles and runs unchanged against this header. Every call
/// returns 0 on success and a negative value on failure, after printing the reason to stderr.
/// Device shape and behaviour come from environment variables (docs/vxsim.md): VXSIM_CLUSTERS,
/// VXSIM_CORES, VXSIM_WARPS, VXSIM_THREADS, VXSIM_BUDGET, VXSIM_TIME_LIMIT,
/// VXSIM_STRICT_DIVERGENCE, VXSIM_TRACE, VXSIM_CONFIG; VORTEX_PROFILING selects the MPM class as in Vortex.

#ifndef VXSIM_VORTEX_H
#define VXSIM_VORTEX_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef void* vx_device_h;
typedef void* vx_buffer_h;

/* Device capabilities (vx_dev_caps ids; ids >= 7 differ between Vortex versions, §5). */
#define VX_CAPS_VERSION         0x0
#define VX_CAPS_NUM_THREADS     0x1
#define VX_CAPS_NUM_WARPS       0x2
#define VX_CAPS_NUM_CORES       0x3
#define VX_CAPS_CACHE_LINE_SIZE 0x4
#define VX_CAPS_GLOBAL_MEM_SIZE 0x5
#define VX_CAPS_LOCAL_MEM_SIZE  0x6
#define VX_CAPS_ISA_FLAGS       0x7
#define VX_CAPS_NUM_MEM_BANKS   0x8
#define VX_CAPS_MEM_BANK_SIZE   0x9

/* VX_CAPS_ISA_FLAGS = (MISA_EXT << 32) | ((log2(XLEN) - 4) << 30) | MISA_STD (§1.1, §5). */
#define VX_ISA_STD_A (1ull << 0)
#define VX_ISA_STD_C (1ull << 2)
#define VX_ISA_STD_D (1ull << 3)
#define VX_ISA_STD_E (1ull << 4)
#define VX_ISA_STD_F (1ull << 5)
#define VX_ISA_STD_H (1ull << 7)
#define VX_ISA_STD_I (1ull << 8)
#define VX_ISA_STD_N (1ull << 13)
#define VX_ISA_STD_Q (1ull << 16)
#define VX_ISA_STD_S (1ull << 18)
#define VX_ISA_STD_V (1ull << 21)
#define VX_ISA_EXT_ICACHE  (1ull << (32 + 0))
#define VX_ISA_EXT_DCACHE  (1ull << (32 + 1))
#define VX_ISA_EXT_L2CACHE (1ull << (32 + 2))
#define VX_ISA_EXT_L3CACHE (1ull << (32 + 3))
#define VX_ISA_EXT_LMEM    (1ull << (32 + 4))
#define VX_ISA_EXT_ZICOND  (1ull << (32 + 5))
#define VX_ISA_EXT_TCU     (1ull << (32 + 6))
/* XLEN encoded in the flags (32 or 64). */
#define VX_ISA_ARCH(flags) (1 << (((flags >> 30) & 0x3) + 4))

/* Buffer access flags (also the device-side ACL, §3.1). */
#define VX_MEM_READ       0x1
#define VX_MEM_WRITE      0x2
#define VX_MEM_READ_WRITE 0x3
#define VX_MEM_PIN_MEMORY 0x4

/* vx_ready_wait timeout meaning "forever" (ms). */
#define VX_MAX_TIMEOUT (24 * 60 * 60 * 1000)

/* Device */
int vx_dev_open(vx_device_h* hdevice);
int vx_dev_close(vx_device_h hdevice);
int vx_dev_caps(vx_device_h hdevice, uint32_t caps_id, uint64_t* value);

/* Memory */
int vx_mem_alloc(vx_device_h hdevice, uint64_t size, int flags, vx_buffer_h* hbuffer);
int vx_mem_reserve(vx_device_h hdevice, uint64_t address, uint64_t size, int flags, vx_buffer_h* hbuffer);
int vx_mem_free(vx_buffer_h hbuffer);
int vx_mem_access(vx_buffer_h hbuffer, uint64_t offset, uint64_t size, int flags);
int vx_mem_address(vx_buffer_h hbuffer, uint64_t* address);
int vx_mem_info(vx_device_h hdevice, uint64_t* mem_free, uint64_t* mem_used);
int vx_copy_to_dev(vx_buffer_h hbuffer, const void* host_ptr, uint64_t dst_offset, uint64_t size);
int vx_copy_from_dev(void* host_ptr, vx_buffer_h hbuffer, uint64_t src_offset, uint64_t size);

/* Execution */
int vx_start(vx_device_h hdevice, vx_buffer_h hkernel, vx_buffer_h harguments);
int vx_ready_wait(vx_device_h hdevice, uint64_t timeout);

/* Device configuration registers and performance counters */
int vx_dcr_read(vx_device_h hdevice, uint32_t addr, uint32_t* value);
int vx_dcr_write(vx_device_h hdevice, uint32_t addr, uint32_t value);
int vx_mpm_query(vx_device_h hdevice, uint32_t addr, uint32_t core_id, uint64_t* value);

/* Utilities */
int vx_upload_kernel_bytes(vx_device_h hdevice, const void* content, uint64_t size, vx_buffer_h* hbuffer);
int vx_upload_kernel_file(vx_device_h hdevice, const char* filename, vx_buffer_h* hbuffer);
int vx_upload_bytes(vx_device_h hdevice, const void* content, uint64_t size, vx_buffer_h* hbuffer);
int vx_upload_file(vx_device_h hdevice, const char* filename, vx_buffer_h* hbuffer);
int vx_check_occupancy(vx_device_h hdevice, uint32_t group_size, uint32_t* max_localmem);
int vx_dump_perf(vx_device_h hdevice, FILE* stream);

#ifdef __cplusplus
}
#endif

#endif /* VXSIM_VORTEX_H */
