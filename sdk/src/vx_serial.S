/* vx_serial.S — void vx_serial(vx_serial_cb callback, const void* arg)
 *
 * Runs callback(arg) once per active thread of the calling warp, lane 0 first, one lane at a
 * time. For each lane index i (a loop with a warp-uniform trip count of NUM_THREADS):
 *   depth = split(thread_id == i)   -- the other lanes run first (larger group) and skip;
 *   if (thread_id == i) callback(arg)   -- this branch is uniform within each split group;
 *   join(depth)
 * Uses one IPDOM entry at a time (docs/vortex.md §1.3).
 */
#include <VX_types.h>

#define CUSTOM0 0x0B

  .text
  .global vx_serial
  .type vx_serial, @function
vx_serial:
  addi  sp, sp, -32
  sw    ra, 28(sp)
  sw    s0, 24(sp)
  sw    s1, 20(sp)
  sw    s2, 16(sp)
  sw    s3, 12(sp)
  sw    s4, 8(sp)
  sw    s5, 4(sp)
  mv    s0, a0                          /* callback */
  mv    s1, a1                          /* arg */
  csrr  s2, VX_CSR_THREAD_ID
  csrr  s3, VX_CSR_NUM_THREADS
  li    s4, 0                           /* i */
1:
  sub   t0, s2, s4
  seqz  t0, t0                          /* pred = (thread_id == i) */
  .insn r CUSTOM0, 2, 0, s5, t0, x0     /* s5 = split pred */
  sub   t0, s2, s4
  bnez  t0, 2f                          /* uniform inside each split group */
  mv    a0, s1
  jalr  s0
2:
  .insn r CUSTOM0, 3, 0, x0, s5, x0     /* join s5 */
  addi  s4, s4, 1
  bltu  s4, s3, 1b
  lw    ra, 28(sp)
  lw    s0, 24(sp)
  lw    s1, 20(sp)
  lw    s2, 16(sp)
  lw    s3, 12(sp)
  lw    s4, 8(sp)
  lw    s5, 4(sp)
  addi  sp, sp, 32
  ret
  .size vx_serial, .-vx_serial
