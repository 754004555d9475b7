/* vx_spawn.c — vx_spawn_threads() for the vxsynth Vortex 2.x SDK.
 *
 * Behaviour (docs/vortex.md §4.2; docs/sdk.md "vx_spawn_threads" has the full
 * description): blocks are distributed over cores in contiguous, balanced ranges; in block mode
 * each block runs on ceil(block size / NT) warps of one core, NW / warps_per_group blocks being
 * resident at once; in thread mode every hardware thread runs blocks of one thread, full warps
 * first and a final partial-mask pass on warp 0.
 *
 * Per lane the work is that of Vortex's vx_spawn_threads (docs/sdk.md, table "where our
 * startup/spawn does what Vortex's does"): the lane's first block and trip count from the warp id,
 * threadIdx once, then per block the x/y/z split with divisions and the call; so thread
 * instructions agree with SimX's.
 *
 * Divergence: every branch in the code that runs on many lanes (__vx_spawn_body and below)
 * depends only on the warp id and on values that are equal in all lanes, never on the thread id.
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
  uint32_t end;               /* one past the last block id of this core                        */
  uint32_t warps_per_group;   /* block mode: warps per block                                    */
  uint32_t active_slots;      /* block mode: resident blocks (slots) used on this core          */
  uint32_t last_mask;         /* block mode: thread mask of a block's last warp                 */
  uint32_t active_warps;      /* warps running the body on this core                            */
  uint32_t warp_batches;      /* thread mode: NT-block batches of every warp                    */
  uint32_t extra_batches;     /* thread mode: warps 0..extra_batches-1 run one batch more        */
  uint32_t remainder;         /* thread mode: blocks left for the partial pass on warp 0        */
  dim3_t grid;                /* this launch's extents: gridDim/blockDim are shared by all      */
  dim3_t block;               /* cores, so another core's next launch may overwrite them       */
} spawn_sched_t;

/* Assembly entries (vx_spawn_entry.S): both enable all threads and call __vx_spawn_body(MSCRATCH);
 * __vx_spawn_entry (warps 1..) then ends the warp, __vx_spawn_warp0 returns with thread 0. */
extern void __vx_spawn_entry(void);
extern void __vx_spawn_warp0(void);

/* Splits a linear id into x, y, z (x fastest) of the extent `ext`, with two divisions and two
 * remainders, as Vortex's spawn does for every block (docs/sdk.md, instruction-count table). */
static inline void decompose(uint32_t id, const dim3_t* ext, dim3_t* out) {
  out->x = id % ext->x;
  out->y = (id / ext->x) % ext->y;
  out->z = id / (ext->x * ext->y);
}

static inline uint32_t low_mask(uint32_t n) { /* n in [1, 32] */
  return 0xffffffffu >> (32u - n);
}

/* Block mode, one lane: the warp's slot and place in its block, then the slot's blocks.
 * noinline (as thread_body): each mode saves only the registers it uses. */
static __attribute__((noinline)) void block_body(const spawn_sched_t* s) {
  uint32_t nt = (uint32_t)vx_num_threads();
  uint32_t wid = (uint32_t)vx_warp_id();
  uint32_t tid = (uint32_t)vx_thread_id();
  uint32_t wpg = s->warps_per_group;
  uint32_t slot = wid / wpg;
  uint32_t warp_in_group = wid - slot * wpg;
  if (warp_in_group == wpg - 1) {                     /* uniform: depends on the warp only */
    vx_tmc((int)s->last_mask);                        /* last warp of a block: partial mask */
  }
  decompose(warp_in_group * nt + tid, &s->block, &threadIdx);
  __local_group_id = slot;

  vx_kernel_func_cb func = s->func;
  void* arg = (void*)s->arg;
  for (uint32_t g = s->first + slot; g < s->end; g += s->active_slots) {
    decompose(g, &s->grid, &blockIdx);
    func(arg);
  }
}

/* Thread mode, one lane: the warp's contiguous range of NT-block batches, then (warp 0) the
 * blocks that do not fill a batch, with a partial thread mask. */
static __attribute__((noinline)) void thread_body(const spawn_sched_t* s) {
  uint32_t nt = (uint32_t)vx_num_threads();
  uint32_t wid = (uint32_t)vx_warp_id();
  uint32_t tid = (uint32_t)vx_thread_id();
  uint32_t extra = s->extra_batches;
  uint32_t first_batch = wid * s->warp_batches + (wid < extra ? wid : extra);
  uint32_t batches = s->warp_batches + (wid < extra ? 1u : 0u);
  uint32_t b = s->first + first_batch * nt + tid;
  uint32_t end = b + batches * nt;                    /* b < end has the same outcome in all lanes */

  threadIdx.x = 0;
  threadIdx.y = 0;
  threadIdx.z = 0;
  __local_group_id = 0;

  vx_kernel_func_cb func = s->func;
  void* arg = (void*)s->arg;
  for (; b < end; b += nt) {
    decompose(b, &s->grid, &blockIdx);
    func(arg);
  }

  if (wid == 0 && s->remainder != 0) {
    vx_tmc((int)low_mask(s->remainder));
    decompose(s->end - s->remainder + tid, &s->grid, &blockIdx);
    func(arg);
  }
}

/* Called from __vx_spawn_entry/__vx_spawn_warp0 on every lane of every participating warp. */
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

/* This core's place in the device. */
typedef struct {
  uint32_t nt, nw, nc, core_id;
} spawn_device_t;

/* Block mode: blocks of s->block on ceil(size / NT) warps each. Fills s for this core; returns 0
 * if this core takes no block. */
static int plan_block_mode(spawn_sched_t* s, uint32_t num_groups, uint32_t group_size,
                           const spawn_device_t* d) {
  uint32_t wpg = (group_size + d->nt - 1) / d->nt;
  uint32_t needed_cores = (num_groups * wpg + d->nw - 1) / d->nw;
  uint32_t active_cores = needed_cores < d->nc ? needed_cores : d->nc;
  __warps_per_group = wpg;
  if (d->core_id >= active_cores) {
    return 0;
  }
  uint32_t count;
  balanced_range(num_groups, active_cores, d->core_id, &s->first, &count);
  uint32_t slots = d->nw / wpg;
  s->block_mode = 1;
  s->end = s->first + count;
  s->warps_per_group = wpg;
  s->active_slots = count < slots ? count : slots;
  s->last_mask = low_mask(group_size - (wpg - 1) * d->nt);
  s->active_warps = s->active_slots * wpg;
  return 1;
}

/* Thread mode: blocks of one thread, in batches of NT consecutive blocks. As Vortex's, the
 * cores used are ceil(blocks / (NW * NT)): a grid that fits one core's threads runs on core 0
 * alone. Fills s for this core; returns 0 if this core takes no block. */
static int plan_thread_mode(spawn_sched_t* s, uint32_t num_groups, const spawn_device_t* d) {
  uint32_t threads_per_core = d->nw * d->nt;
  uint32_t needed_cores = (num_groups + threads_per_core - 1) / threads_per_core;
  uint32_t active_cores = needed_cores < d->nc ? needed_cores : d->nc;
  __warps_per_group = 0;
  if (d->core_id >= active_cores) {
    return 0;
  }
  uint32_t count;
  balanced_range(num_groups, active_cores, d->core_id, &s->first, &count);
  uint32_t full_batches = count / d->nt;
  s->block_mode = 0;
  s->end = s->first + count;
  s->remainder = count % d->nt;
  s->active_warps = full_batches < d->nw ? full_batches : d->nw;
  if (s->active_warps == 0) {
    s->active_warps = 1;   /* only the partial pass, on warp 0 */
  }
  s->warp_batches = full_batches / s->active_warps;
  s->extra_batches = full_batches % s->active_warps;
  return 1;
}

/* Runs s on warps 0..s->active_warps-1 of this core and waits for them; MSCRATCH points to s
 * meanwhile and is restored afterwards. */
static void run_schedule(spawn_sched_t* s) {
  size_t saved_arg = csr_read(VX_CSR_MSCRATCH);
  csr_write(VX_CSR_MSCRATCH, (size_t)s);
  vx_fence();
  vx_wspawn((int)s->active_warps, __vx_spawn_entry);  /* warps 1..active_warps-1 */
  __vx_spawn_warp0();                                 /* warp 0 takes part too */
  vx_wspawn(1, 0);                                    /* wait for the other warps to end */
  csr_write(VX_CSR_MSCRATCH, saved_arg);
}

int vx_spawn_threads(uint32_t dimension,
                     const uint32_t* grid_dim,
                     const uint32_t* block_dim,
                     vx_kernel_func_cb kernel_func,
                     const void* arg) {
  /* Runs on warp 0 / thread 0 of every core: branches below are single-lane. */
  spawn_device_t d = {(uint32_t)vx_num_threads(), (uint32_t)vx_num_warps(),
                      (uint32_t)vx_num_cores(), (uint32_t)vx_core_id()};
  spawn_sched_t s;  /* filled field by field: a {0} initialiser would be a byte-loop memset */
  for (uint32_t i = 0; i < 3; ++i) {
    s.grid.m[i] = (i < dimension) ? grid_dim[i] : 1u;
    s.block.m[i] = (i < dimension && block_dim != 0) ? block_dim[i] : 1u;
  }
  gridDim = s.grid;
  blockDim = s.block;
  uint32_t num_groups = s.grid.x * s.grid.y * s.grid.z;
  uint32_t group_size = s.block.x * s.block.y * s.block.z;
  if (group_size > d.nw * d.nt) {
    vx_printf("error: vx_spawn_threads: block of %u threads exceeds NUM_WARPS*NUM_THREADS=%u\n",
              (unsigned)group_size, (unsigned)(d.nw * d.nt));
    return -1;
  }
  if (num_groups == 0) {
    return 0;
  }
  s.func = kernel_func;
  s.arg = arg;
  s.warps_per_group = 0;
  s.active_slots = 0;
  s.last_mask = 0;
  s.warp_batches = 0;
  s.extra_batches = 0;
  s.remainder = 0;
  int active = group_size > 1 ? plan_block_mode(&s, num_groups, group_size, &d)
                              : plan_thread_mode(&s, num_groups, &d);
  if (active) {
    run_schedule(&s);
  }
  return 0;
}
