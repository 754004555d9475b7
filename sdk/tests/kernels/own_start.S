/* A kernel's own entry point, as Vortex's `basic` regression test brings one (its start.S): no
 * SDK startup code; set a stack, call main, end the warp with tmc 0. Linking it next to libvxsdk.a
 * must not pull in a second _start (docs/sdk.md "Startup, memory layout, exit"). */
#include <VX_types.h>

  .section .init, "ax"
  .global _start
  .type _start, @function
_start:
  li    sp, STACK_BASE_ADDR
  call  main
  .insn r 0x0b, 0, 0, x0, x0, x0           /* tmc 0 */
  .size _start, .-_start
