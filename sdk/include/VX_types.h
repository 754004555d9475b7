/// \file VX_types.h
/// Vortex 2.x constants shared by kernels, the startup code and host tools: CSR numbers, machine
/// performance-monitor (MPM) counters, device configuration registers (DCRs) and the RV32 address
/// map. Values are those of Vortex master 82e1c2a (Oct 2025, tag [M]) as recorded in
/// docs/vortex.md §2 (CSRs, MPM, DCRs) and §3.1 (addresses).
///
/// Everything here is a plain integer literal so the header can be included from C, C++ and
/// assembly (`.S`) files alike. Address-map values that real Vortex lets a build override
/// (e.g. `-DLMEM_LOG_SIZE=15`, vortex#214, docs/vortex.md §3.1) are guarded with `#ifndef`.
#ifndef VX_TYPES_H
#define VX_TYPES_H

/* ---- Address map (RV32), docs/vortex.md §3.1 ------------------------------------------------ */

#ifndef XLEN_32
#define XLEN_32 1
#endif

#define IO_BASE_ADDR       0x00000040   /* first I/O address                                   */
#define IO_COUT_ADDR       0x00000040   /* console: byte stores to IO_COUT_ADDR + (hart & 63)  */
#define IO_COUT_SIZE       64           /* console window size in bytes                        */
#define IO_MPM_ADDR        0x00000080   /* per-core perf dump: 32 x u64 at IO_MPM_ADDR+256*core */
#define IO_MPM_EXITCODE    0x00000088   /* 32-bit exit code (= slot 1 of core 0's dump block)  */
#define IO_MPM_CORE_STRIDE 256          /* bytes between two cores' dump blocks                */
#define IO_END_ADDR        0x00010000   /* end of the I/O window                               */
#define USER_BASE_ADDR     0x00010000   /* first address handed out by vx_mem_alloc            */

#ifndef STARTUP_ADDR
#define STARTUP_ADDR       0x80000000   /* kernel link/load address; also the start PC         */
#endif
#define PAGE_TABLE_BASE_ADDR 0xF0000000 /* only meaningful with VM_ENABLE                      */

#ifndef STACK_BASE_ADDR
#define STACK_BASE_ADDR    0xFFFF0000   /* stacks grow down from here, one per hart            */
#endif
#ifndef STACK_LOG2_SIZE
#define STACK_LOG2_SIZE    13           /* 8 KiB per hart                                      */
#endif
#define STACK_SIZE         (1 << STACK_LOG2_SIZE)

#ifndef LMEM_BASE_ADDR
#define LMEM_BASE_ADDR     STACK_BASE_ADDR /* per-core local (shared) memory                   */
#endif
#ifndef LMEM_LOG_SIZE
#define LMEM_LOG_SIZE      14           /* 16 KiB per core                                     */
#endif
#define LMEM_SIZE          (1 << LMEM_LOG_SIZE)

/* ---- Standard RISC-V CSRs used by Vortex, docs/vortex.md §2.1 -------------------------------- */

#define VX_CSR_FFLAGS      0x001
#define VX_CSR_FRM         0x002
#define VX_CSR_FCSR        0x003
#define VX_CSR_SATP        0x180
#define VX_CSR_MSTATUS     0x300
#define VX_CSR_MISA        0x301
#define VX_CSR_MEDELEG     0x302
#define VX_CSR_MIDELEG     0x303
#define VX_CSR_MIE         0x304
#define VX_CSR_MTVEC       0x305
#define VX_CSR_MSCRATCH    0x340   /* one per core; holds the kernel-argument pointer at start */
#define VX_CSR_MEPC        0x341
#define VX_CSR_MCAUSE      0x342
#define VX_CSR_PMPCFG0     0x3A0
#define VX_CSR_PMPADDR0    0x3B0
#define VX_CSR_MNSTATUS    0x744
#define VX_CSR_MVENDORID   0xF11
#define VX_CSR_MARCHID     0xF12
#define VX_CSR_MIMPID      0xF13
#define VX_CSR_MHARTID     0xF14   /* (core_id*NUM_WARPS + warp_id)*NUM_THREADS + thread_id    */

/* ---- Vortex GPGPU CSRs, docs/vortex.md §2.1 -------------------------------------------------- */

#define VX_CSR_THREAD_ID      0xCC0  /* lane index within the warp                              */
#define VX_CSR_WARP_ID        0xCC1  /* warp index within the core                              */
#define VX_CSR_CORE_ID        0xCC2  /* global core index                                       */
#define VX_CSR_ACTIVE_WARPS   0xCC3  /* the core's active-warp bitmask                          */
#define VX_CSR_ACTIVE_THREADS 0xCC4  /* this warp's thread mask                                 */
#define VX_CSR_NUM_THREADS    0xFC0  /* threads per warp                                        */
#define VX_CSR_NUM_WARPS      0xFC1  /* warps per core                                          */
#define VX_CSR_NUM_CORES      0xFC2  /* total cores (clusters x cores per cluster)              */
#define VX_CSR_LOCAL_MEM_BASE 0xFC3  /* LMEM_BASE_ADDR                                          */

/* ---- Machine performance monitor (MPM), docs/vortex.md §2.2 ---------------------------------- */
/* Counter i is CSR VX_CSR_MPM_BASE+i (low 32 bits) and VX_CSR_MPM_BASE_H+i (high 32 bits).     */
/* Counters 3..31 depend on the MPM class written to VX_DCR_BASE_MPM_CLASS.                     */

#define VX_CSR_MPM_BASE        0xB00
#define VX_CSR_MPM_BASE_H      0xB80
#define VX_CSR_MPM_USER        0xB03  /* first class-dependent counter                          */
#define VX_CSR_MPM_USER_H      0xB83
#define VX_CSR_MPM_COUNT       32     /* counters per core (the dump block holds 32 x u64)      */

#define VX_CSR_MCYCLE          0xB00
#define VX_CSR_MCYCLE_H        0xB80
#define VX_CSR_MPM_RESERVED    0xB01
#define VX_CSR_MPM_RESERVED_H  0xB81
#define VX_CSR_MINSTRET        0xB02
#define VX_CSR_MINSTRET_H      0xB82

/* Class 1 (VX_DCR_MPM_CLASS_CORE) */
#define VX_CSR_MPM_SCHED_ID    0xB03  /* scheduler idle cycles                                  */
#define VX_CSR_MPM_SCHED_ID_H  0xB83
#define VX_CSR_MPM_SCHED_ST    0xB04  /* scheduler stalls                                       */
#define VX_CSR_MPM_SCHED_ST_H  0xB84
#define VX_CSR_MPM_IBUF_ST     0xB05  /* instruction-buffer stalls                              */
#define VX_CSR_MPM_IBUF_ST_H   0xB85
#define VX_CSR_MPM_SCRB_ST     0xB06  /* scoreboard stalls                                      */
#define VX_CSR_MPM_SCRB_ST_H   0xB86
#define VX_CSR_MPM_OPDS_ST     0xB07  /* operand-collector stalls                               */
#define VX_CSR_MPM_OPDS_ST_H   0xB87
#define VX_CSR_MPM_SCRB_ALU    0xB08
#define VX_CSR_MPM_SCRB_ALU_H  0xB88
#define VX_CSR_MPM_SCRB_FPU    0xB09
#define VX_CSR_MPM_SCRB_FPU_H  0xB89
#define VX_CSR_MPM_SCRB_LSU    0xB0A
#define VX_CSR_MPM_SCRB_LSU_H  0xB8A
#define VX_CSR_MPM_SCRB_SFU    0xB0B
#define VX_CSR_MPM_SCRB_SFU_H  0xB8B
#define VX_CSR_MPM_SCRB_CSRS   0xB0C
#define VX_CSR_MPM_SCRB_CSRS_H 0xB8C
#define VX_CSR_MPM_SCRB_WCTL   0xB0D
#define VX_CSR_MPM_SCRB_WCTL_H 0xB8D
#define VX_CSR_MPM_IFETCHES    0xB0E
#define VX_CSR_MPM_IFETCHES_H  0xB8E
#define VX_CSR_MPM_LOADS       0xB0F
#define VX_CSR_MPM_LOADS_H     0xB8F
#define VX_CSR_MPM_STORES      0xB10
#define VX_CSR_MPM_STORES_H    0xB90
#define VX_CSR_MPM_IFETCH_LT   0xB11  /* sum of instruction-fetch latencies (cycles)            */
#define VX_CSR_MPM_IFETCH_LT_H 0xB91
#define VX_CSR_MPM_LOAD_LT     0xB12  /* sum of load latencies (cycles)                         */
#define VX_CSR_MPM_LOAD_LT_H   0xB92
#define VX_CSR_MPM_SCRB_VPU    0xB13
#define VX_CSR_MPM_SCRB_VPU_H  0xB93
#define VX_CSR_MPM_SCRB_TCU    0xB14
#define VX_CSR_MPM_SCRB_TCU_H  0xB94

/* Class 2 (VX_DCR_MPM_CLASS_MEM) */
#define VX_CSR_MPM_ICACHE_READS     0xB03
#define VX_CSR_MPM_ICACHE_READS_H   0xB83
#define VX_CSR_MPM_ICACHE_MISS_R    0xB04
#define VX_CSR_MPM_ICACHE_MISS_R_H  0xB84
#define VX_CSR_MPM_ICACHE_MSHR_ST   0xB05
#define VX_CSR_MPM_ICACHE_MSHR_ST_H 0xB85
#define VX_CSR_MPM_DCACHE_READS     0xB06
#define VX_CSR_MPM_DCACHE_READS_H   0xB86
#define VX_CSR_MPM_DCACHE_WRITES    0xB07
#define VX_CSR_MPM_DCACHE_WRITES_H  0xB87
#define VX_CSR_MPM_DCACHE_MISS_R    0xB08
#define VX_CSR_MPM_DCACHE_MISS_R_H  0xB88
#define VX_CSR_MPM_DCACHE_MISS_W    0xB09
#define VX_CSR_MPM_DCACHE_MISS_W_H  0xB89
#define VX_CSR_MPM_DCACHE_BANK_ST   0xB0A
#define VX_CSR_MPM_DCACHE_BANK_ST_H 0xB8A
#define VX_CSR_MPM_DCACHE_MSHR_ST   0xB0B
#define VX_CSR_MPM_DCACHE_MSHR_ST_H 0xB8B
#define VX_CSR_MPM_L2CACHE_READS     0xB0C
#define VX_CSR_MPM_L2CACHE_READS_H   0xB8C
#define VX_CSR_MPM_L2CACHE_WRITES    0xB0D
#define VX_CSR_MPM_L2CACHE_WRITES_H  0xB8D
#define VX_CSR_MPM_L2CACHE_MISS_R    0xB0E
#define VX_CSR_MPM_L2CACHE_MISS_R_H  0xB8E
#define VX_CSR_MPM_L2CACHE_MISS_W    0xB0F
#define VX_CSR_MPM_L2CACHE_MISS_W_H  0xB8F
#define VX_CSR_MPM_L2CACHE_BANK_ST   0xB10
#define VX_CSR_MPM_L2CACHE_BANK_ST_H 0xB90
#define VX_CSR_MPM_L2CACHE_MSHR_ST   0xB11
#define VX_CSR_MPM_L2CACHE_MSHR_ST_H 0xB91
#define VX_CSR_MPM_L3CACHE_READS     0xB12
#define VX_CSR_MPM_L3CACHE_READS_H   0xB92
#define VX_CSR_MPM_L3CACHE_WRITES    0xB13
#define VX_CSR_MPM_L3CACHE_WRITES_H  0xB93
#define VX_CSR_MPM_L3CACHE_MISS_R    0xB14
#define VX_CSR_MPM_L3CACHE_MISS_R_H  0xB94
#define VX_CSR_MPM_L3CACHE_MISS_W    0xB15
#define VX_CSR_MPM_L3CACHE_MISS_W_H  0xB95
#define VX_CSR_MPM_L3CACHE_BANK_ST   0xB16
#define VX_CSR_MPM_L3CACHE_BANK_ST_H 0xB96
#define VX_CSR_MPM_L3CACHE_MSHR_ST   0xB17
#define VX_CSR_MPM_L3CACHE_MSHR_ST_H 0xB97
#define VX_CSR_MPM_MEM_READS         0xB18
#define VX_CSR_MPM_MEM_READS_H       0xB98
#define VX_CSR_MPM_MEM_WRITES        0xB19
#define VX_CSR_MPM_MEM_WRITES_H      0xB99
#define VX_CSR_MPM_MEM_LT            0xB1A  /* sum of memory latencies (cycles)                 */
#define VX_CSR_MPM_MEM_LT_H          0xB9A
#define VX_CSR_MPM_LMEM_READS        0xB1B
#define VX_CSR_MPM_LMEM_READS_H      0xB9B
#define VX_CSR_MPM_LMEM_WRITES       0xB1C
#define VX_CSR_MPM_LMEM_WRITES_H     0xB9C
#define VX_CSR_MPM_LMEM_BANK_ST      0xB1D
#define VX_CSR_MPM_LMEM_BANK_ST_H    0xB9D
#define VX_CSR_MPM_MEM_BANK_ST       0xB1E
#define VX_CSR_MPM_MEM_BANK_ST_H     0xB9E
#define VX_CSR_MPM_COALESCER_MISS    0xB1F
#define VX_CSR_MPM_COALESCER_MISS_H  0xB9F

/* ---- Device configuration registers (host -> device), docs/vortex.md §2.3 -------------------- */

#define VX_DCR_BASE_STATE_BEGIN   0x001
#define VX_DCR_BASE_STARTUP_ADDR0 0x001  /* start PC, low 32 bits                               */
#define VX_DCR_BASE_STARTUP_ADDR1 0x002  /* start PC, high 32 bits                              */
#define VX_DCR_BASE_STARTUP_ARG0  0x003  /* kernel-argument pointer, low (becomes MSCRATCH)     */
#define VX_DCR_BASE_STARTUP_ARG1  0x004  /* kernel-argument pointer, high                       */
#define VX_DCR_BASE_MPM_CLASS     0x005  /* one of VX_DCR_MPM_CLASS_*                           */
#define VX_DCR_BASE_STATE_END     0x006
#define VX_DCR_BASE_STATE(addr)   ((addr) - VX_DCR_BASE_STATE_BEGIN)
#define VX_DCR_BASE_STATE_COUNT   (VX_DCR_BASE_STATE_END - VX_DCR_BASE_STATE_BEGIN)

#define VX_DCR_MPM_CLASS_NONE 0
#define VX_DCR_MPM_CLASS_CORE 1
#define VX_DCR_MPM_CLASS_MEM  2

#endif /* VX_TYPES_H */
