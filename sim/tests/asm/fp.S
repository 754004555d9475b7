/* F extension end-to-end: loads/stores, static vs dynamic rounding, fflags accumulation, fcsr
   layout, fmv/fclass/fcvt/fmadd. Results in order into `result`. */
#include "vx_asm.h"
#define PUT(r) sw r, 0(s0); addi s0, s0, 4
  .section .text.init
  .globl _start, result
_start:
  la s0, result
  la s1, consts
  flw fa0, 0(s1)           /* 1.0 */
  flw fa1, 4(s1)           /* 3.0 */
  flw fa2, 8(s1)           /* 2.0 */
  fsflags zero
  fdiv.s fa3, fa0, fa1, rtz
  fmv.x.w t0, fa3;  PUT(t0)        /* 0: 0x3EAAAAAA */
  fsrmi 3                          /* frm = RUP */
  fdiv.s fa3, fa0, fa1             /* dynamic */
  fmv.x.w t0, fa3;  PUT(t0)        /* 1: 0x3EAAAAAB */
  fdiv.s fa3, fa0, fa1, rdn        /* static overrides frm */
  fmv.x.w t0, fa3;  PUT(t0)        /* 2: 0x3EAAAAAA */
  frflags t0;       PUT(t0)        /* 3: NX = 1 */
  fmv.w.x fa4, zero
  fdiv.s fa3, fa0, fa4             /* 1/0: DZ */
  frflags t0;       PUT(t0)        /* 4: NX|DZ = 9 */
  frcsr t0;         PUT(t0)        /* 5: frm 3 << 5 | 9 = 0x69 */
  fscsr zero
  fmadd.s fa3, fa2, fa1, fa0       /* 2*3+1 = 7 */
  fmv.x.w t0, fa3;  PUT(t0)        /* 6: 0x40E00000 */
  fcvt.w.s t0, fa3; PUT(t0)        /* 7: 7 */
  li t1, -5
  fcvt.s.w fa3, t1
  fmv.x.w t0, fa3;  PUT(t0)        /* 8: 0xC0A00000 */
  fclass.s t0, fa3; PUT(t0)        /* 9: negative normal = 2 */
  flt.s t0, fa3, fa0; PUT(t0)      /* 10: 1 */
  fsgnjn.s fa3, fa0, fa0
  fmv.x.w t0, fa3;  PUT(t0)        /* 11: 0xBF800000 */
  fsw fa1, 0(s0)                   /* 12: 0x40400000 */
  addi s0, s0, 4
  frflags t0;       PUT(t0)        /* 13: 0 (no flags since fscsr) */
  li a0, 0
  EXIT(a0)

  .data
  .align 2
consts: .word 0x3F800000, 0x40400000, 0x40000000
result: .space 64
