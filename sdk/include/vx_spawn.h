/// \file vx_spawn.h
/// CUDA-like thread launch for Vortex 2.x kernels (names and signatures of Vortex master 82e1c2a,
/// [M]; behaviour per docs/vortex.md §4.2, detailed in docs/sdk.md).
///
/// A kernel's `main()` reads its argument pointer from MSCRATCH and calls vx_spawn_threads(),
/// which runs `kernel_func(arg)` once per thread of a grid of blocks:
///  - block mode (product of block_dim > 1): each block ("group") runs on
///    ceil(group_size / NUM_THREADS) warps of one core; `threadIdx` is the thread's index in the
///    block, `blockIdx` the block's index; `__local_mem()` and `__syncthreads()` are per block;
///  - thread mode (block_dim null or all 1): every hardware thread takes blocks of one thread;
///    `blockIdx` is then the global thread index and `threadIdx` is 0.
#ifndef VX_SPAWN_H
#define VX_SPAWN_H

#include <stdint.h>

#include <vx_intrinsics.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A 3-D extent or index; `x` varies fastest. `m[i]` aliases x, y, z.
typedef union {
  struct {
    uint32_t x;
    uint32_t y;
    uint32_t z;
  };
  uint32_t m[3];
} dim3_t;

/// Index of the current block in the grid (per hardware thread).
extern __thread dim3_t blockIdx;
/// Index of the current thread in its block (per hardware thread; 0 in thread mode).
extern __thread dim3_t threadIdx;
/// Grid extent in blocks, as passed to vx_spawn_threads (missing dimensions are 1).
extern dim3_t gridDim;
/// Block extent in threads, as passed to vx_spawn_threads (missing dimensions are 1).
extern dim3_t blockDim;

/// Resident-block slot of the current block on its core: the barrier id used by __syncthreads()
/// and the multiplier of __local_mem(). 0 in thread mode.
extern __thread uint32_t __local_group_id;
/// Warps per block (ceil(block size / NUM_THREADS)); 0 in thread mode.
extern uint32_t __warps_per_group;

/// Kernel body called once per thread with the pointer given to vx_spawn_threads.
typedef void (*vx_kernel_func_cb)(void* arg);
/// Callback run once per active thread, one thread at a time, by vx_serial.
typedef void (*vx_serial_cb)(void* arg);

/// Runs `kernel_func(arg)` for every thread of a `dimension`-D grid (1..3) of `grid_dim` blocks
/// of `block_dim` threads (`block_dim` may be null: blocks of one thread). Must be called by
/// warp 0 / thread 0 of every core (as `main()` is). Returns 0 once every thread of this core has
/// finished, or -1 (after printing an error) if a block has more than NUM_WARPS*NUM_THREADS
/// threads. Uses MSCRATCH while it runs and restores it before returning.
int vx_spawn_threads(uint32_t dimension,
                     const uint32_t* grid_dim,
                     const uint32_t* block_dim,
                     vx_kernel_func_cb kernel_func,
                     const void* arg);

/// Runs `callback(arg)` once for each active thread of the calling warp, lowest lane first, one
/// thread at a time (divergence-safe: built on vx_split/vx_join).
void vx_serial(vx_serial_cb callback, const void* arg);

/// Base of the current block's share of local memory, when each block uses `size` bytes.
#define __local_mem(size) \
  ((void*)((int8_t*)csr_read(VX_CSR_LOCAL_MEM_BASE) + __local_group_id * (size)))

/// Barrier across the warps of the current block (a no-op for one-warp blocks and thread mode).
#define __syncthreads() vx_barrier((int)__local_group_id, (int)__warps_per_group)

#ifdef __cplusplus
}
#endif

#endif /* VX_SPAWN_H */
