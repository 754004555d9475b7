/* vx_spawn_entry.S — the entries of the warps taking part in vx_spawn_threads.
 *
 * Both enable all threads before anything else, so that every register used afterwards is
 * computed by each lane itself; __vx_spawn_body reduces the mask where a warp has fewer
 * blocks/threads than lanes, and reads this core's schedule from MSCRATCH (docs/sdk.md
 * "vx_spawn_threads behaviour").
 *  - __vx_spawn_entry: warps 1..n-1, started by wspawn with thread 0 only; they end with tmc 0.
 *  - __vx_spawn_warp0: called by vx_spawn_threads on warp 0 / thread 0; ra is saved by lane 0 on
 *    lane 0's stack before the other lanes run, and the warp returns with thread 0 (tmc 1).
 */
#include <VX_types.h>

#define CUSTOM0 0x0B

  .text
  .global __vx_spawn_entry
  .type __vx_spawn_entry, @function
__vx_spawn_entry:
  li    t0, -1
  .insn r CUSTOM0, 0, 0, x0, t0, x0      /* tmc -1 */
  csrr  a0, VX_CSR_MSCRATCH              /* spawn_sched_t* of this core */
  call  __vx_spawn_body
  .insn r CUSTOM0, 0, 0, x0, x0, x0      /* tmc 0: the warp ends */
  .size __vx_spawn_entry, .-__vx_spawn_entry

  .global __vx_spawn_warp0
  .type __vx_spawn_warp0, @function
__vx_spawn_warp0:
  addi  sp, sp, -16
  sw    ra, 12(sp)
  li    t0, -1
  .insn r CUSTOM0, 0, 0, x0, t0, x0      /* tmc -1 */
  csrr  a0, VX_CSR_MSCRATCH
  call  __vx_spawn_body
  li    t0, 1
  .insn r CUSTOM0, 0, 0, x0, t0, x0      /* tmc 1: back to thread 0 */
  lw    ra, 12(sp)
  addi  sp, sp, 16
  ret
  .size __vx_spawn_warp0, .-__vx_spawn_warp0
