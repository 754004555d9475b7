/* vx_spawn.c — vx_spawn_threads() for the vxsynth Vortex 2.x SDK.
 *
 * Behaviour (docs/vortex.md §4.2; docs/sdk.md "vx_spawn_threads" has the full
 * description): blocks are distributed over cores in contiguous, balanced ranges; in block mode
 * each block runs on ceil(block size / NT) warps of one core, NW / warps_per_group blocks being
 * resident at once; in thread mode every hardware thread runs blocks of one thread, full warps
 * first and a final partial-mask pass on warp 0.
 *
 * Divergence: every branch in the code that runs on many lanes (spawn_body and below) depends
 * only on the warp id and on values that are equal in all lanes, never on the thread id.
 */
#include <vx_print.h>
#include <vx_spawn.h>

__thread dim3_t blockIdx;
__thread dim3_t threadIdx;
dim3_t gridDim;
dim3_t blockDim;
__thread uint32_t __local_group_id;
uint32_t __warps_per_group;

/* Per-core launch description. It lives on warp 0's stack; MSCRATCH points to it while the
 * spawned warps run (MSCRATCH is per core). */
typedef struct {
  vx_kernel_func_cb func;
  const void* arg;
  uint32_t block_mode;        /* 1: block mode, 0: thread mode                                  */
  uint32_t first;             /* first block id of this core                                    */
  uint32_t count;             /* blocks of this core                                            */
  uint32_t warps_per_group;   /* block mode: warps per block                                    */
  uint32_t active_slots;      /* block mode: resident blocks (slots) used on this core          */
  uint32_t group_size;        /* block mode: threads per block                                  */
  uint32_t active_warps;      /* warps running the body on this core                            */
  uint32_t full_batches;      /* thread mode: number of NT-block batches                        */
  uint32_t remainder;         /* thread mode: blocks left for the partial pass on warp 0        */
  dim3_t grid;                /* this launch's extents: gridDim/blockDim are shared by all      */
  dim3_t block;               /* cores, so another core's next launch may overwrite them       */
} spawn_sched_t;

/* Assembly entry (vx_spawn_entry.S): enables all threads, calls __vx_spawn_body(MSCRATCH),
 * then ends the warp (warps 1..) or returns to vx_spawn_threads with thread 0 (warp 0). */
extern void __vx_spawn_entry(void);

static inline void decompose(uint32_t id, const dim3_t* ext, dim3_t* out) {
  uint32_t xy = ext->x * ext->y;
  out->x = id % ext->x;
  out->y = (id / ext->x) % ext->y;
  out->z = id / xy;
}

static inline uint32_t low_mask(uint32_t n) { /* n in [1, 32] */
  return 0xffffffffu >> (32u - n);
}

static void block_body(const spawn_sched_t* s) {
  uint32_t nt = (uint32_t)vx_num_threads();
  uint32_t wid = (uint32_t)vx_warp_id();
  uint32_t tid = (uint32_t)vx_thread_id();
  uint32_t wpg = s->warps_per_group;
  uint32_t slot = wid / wpg;
  uint32_t warp_in_group = wid - slot * wpg;
  uint32_t first_thread = warp_in_group * nt;
  uint32_t left = s->group_size - first_thread;       /* threads of this block from this warp on */
  uint32_t lanes = left < nt ? left : nt;             /* uniform: depends on the warp only */
  vx_tmc((int)low_mask(lanes));                       /* last warp of a block: partial mask */

  uint32_t local_id = first_thread + tid;
  decompose(local_id, &s->block, &threadIdx);
  __local_group_id = slot;

  uint32_t end = s->first + s->count;
  for (uint32_t g = s->first + slot; g < end; g += s->active_slots) {
    decompose(g, &s->grid, &blockIdx);
    s->func((void*)s->arg);
  }
}

static void thread_body(const spawn_sched_t* s) {
  uint32_t nt = (uint32_t)vx_num_threads();
  uint32_t wid = (uint32_t)vx_warp_id();
  uint32_t tid = (uint32_t)vx_thread_id();
  uint32_t aw = s->active_warps;

  threadIdx.x = 0;
  threadIdx.y = 0;
  threadIdx.z = 0;
  __local_group_id = 0;

  /* Full batches (NT consecutive blocks each), split into contiguous balanced ranges per warp. */
  uint32_t base = s->full_batches / aw;
  uint32_t extra = s->full_batches % aw;
  uint32_t begin = wid * base + (wid < extra ? wid : extra);
  uint32_t end = begin + base + (wid < extra ? 1u : 0u);
  for (uint32_t b = begin; b < end; ++b) {
    decompose(s->first + b * nt + tid, &s->grid, &blockIdx);
    s->func((void*)s->arg);
  }

  /* The remaining blocks (fewer than NT) run on warp 0 with a partial thread mask. */
  if (wid == 0 && s->remainder != 0) {
    vx_tmc((int)low_mask(s->remainder));
    decompose(s->first + s->full_batches * nt + tid, &s->grid, &blockIdx);
    s->func((void*)s->arg);
  }
}

/* Called from __vx_spawn_entry on every lane of every participating warp. */
void __vx_spawn_body(const spawn_sched_t* s) {
  if (s->block_mode) {
    block_body(s);
  } else {
    thread_body(s);
  }
}

/* Splits `total` items into `parts` contiguous balanced ranges (lower indices get the
 * remainder) and returns range `index` as [*first, *first + *count). */
static void balanced_range(uint32_t total, uint32_t parts, uint32_t index,
                           uint32_t* first, uint32_t* count) {
  uint32_t base = total / parts;
  uint32_t extra = total % parts;
  *first = index * base + (index < extra ? index : extra);
  *count = base + (index < extra ? 1u : 0u);
}

int vx_spawn_threads(uint32_t dimension,
                     const uint32_t* grid_dim,
                     const uint32_t* block_dim,
                     vx_kernel_func_cb kernel_func,
                     const void* arg) {
  /* Runs on warp 0 / thread 0 of every core: branches below are single-lane. */
  uint32_t nt = (uint32_t)vx_num_threads();
  uint32_t nw = (uint32_t)vx_num_warps();
  uint32_t nc = (uint32_t)vx_num_cores();
  uint32_t core_id = (uint32_t)vx_core_id();

  dim3_t grid, block;
  for (uint32_t i = 0; i < 3; ++i) {
    grid.m[i] = (i < dimension) ? grid_dim[i] : 1u;
    block.m[i] = (i < dimension && block_dim != 0) ? block_dim[i] : 1u;
  }
  gridDim = grid;
  blockDim = block;
  uint32_t num_groups = grid.x * grid.y * grid.z;
  uint32_t group_size = block.x * block.y * block.z;
  if (group_size > nw * nt) {
    vx_printf("error: vx_spawn_threads: block of %u threads exceeds NUM_WARPS*NUM_THREADS=%u\n",
              (unsigned)group_size, (unsigned)(nw * nt));
    return -1;
  }
  if (num_groups == 0) {
    return 0;
  }

  spawn_sched_t s;
  s.grid = grid;
  s.block = block;
  s.func = kernel_func;
  s.arg = arg;
  s.warps_per_group = 0;
  s.active_slots = 0;
  s.group_size = group_size;
  s.full_batches = 0;
  s.remainder = 0;

  if (group_size > 1) {
    /* Block mode. */
    uint32_t wpg = (group_size + nt - 1) / nt;
    uint32_t needed_cores = (num_groups * wpg + nw - 1) / nw;
    uint32_t active_cores = needed_cores < nc ? needed_cores : nc;
    __warps_per_group = wpg;
    if (core_id >= active_cores) {
      return 0;
    }
    balanced_range(num_groups, active_cores, core_id, &s.first, &s.count);
    uint32_t slots = nw / wpg;
    s.block_mode = 1;
    s.warps_per_group = wpg;
    s.active_slots = s.count < slots ? s.count : slots;
    s.active_warps = s.active_slots * wpg;
  } else {
    /* Thread mode: blocks of one thread. */
    uint32_t needed_cores = (num_groups + nt - 1) / nt;
    uint32_t active_cores = needed_cores < nc ? needed_cores : nc;
    __warps_per_group = 0;
    if (core_id >= active_cores) {
      return 0;
    }
    balanced_range(num_groups, active_cores, core_id, &s.first, &s.count);
    s.block_mode = 0;
    s.full_batches = s.count / nt;
    s.remainder = s.count % nt;
    s.active_warps = s.full_batches < nw ? s.full_batches : nw;
    if (s.active_warps == 0) {
      s.active_warps = 1;   /* only the partial pass, on warp 0 */
    }
  }

  size_t saved_arg = csr_read(VX_CSR_MSCRATCH);
  csr_write(VX_CSR_MSCRATCH, (size_t)&s);
  vx_fence();
  vx_wspawn((int)s.active_warps, __vx_spawn_entry);  /* warps 1..active_warps-1 */
  __vx_spawn_entry();                                /* warp 0 takes part too */
  vx_wspawn(1, 0);                                   /* wait for the other warps to end */
  csr_write(VX_CSR_MSCRATCH, saved_arg);
  return 0;
}
