/* vx_spawn_entry.S — the entry of every warp taking part in vx_spawn_threads.
 *
 * Warps 1..n-1 start here through wspawn with thread 0 only; warp 0 calls it from
 * vx_spawn_threads with thread 0 only. The first instruction enables all threads so that every
 * register used afterwards is computed by each lane itself. __vx_spawn_body reduces the mask
 * where a warp has fewer blocks/threads than lanes. At the end, warps other than 0 end
 * (tmc 0) and warp 0 returns to its caller with thread 0 (tmc 1); ra was saved by lane 0 on
 * lane 0's stack before any other lane ran.
 */
#include <VX_types.h>

#define CUSTOM0 0x0B

  .text
  .global __vx_spawn_entry
  .type __vx_spawn_entry, @function
__vx_spawn_entry:
  li    t0, -1
  .insn r CUSTOM0, 0, 0, x0, t0, x0      /* tmc -1 */
  addi  sp, sp, -16
  sw    ra, 12(sp)
  csrr  a0, VX_CSR_MSCRATCH              /* spawn_sched_t* of this core */
  call  __vx_spawn_body
  csrr  t0, VX_CSR_WARP_ID
  seqz  t0, t0
  .insn r CUSTOM0, 0, 0, x0, t0, x0      /* tmc (warp_id == 0) */
  lw    ra, 12(sp)
  addi  sp, sp, 16
  ret
  .size __vx_spawn_entry, .-__vx_spawn_entry
