/// \file vx_print.h
/// Console output for Vortex 2.x kernels (names and signatures of Vortex master 82e1c2a, [M];
/// docs/vortex.md §4.4). Bytes go to the console window at IO_COUT_ADDR +
/// (hart id & 63). vx_printf formats with the SDK's own formatter (src/vx_format.c) and prints
/// through vx_serial, so the threads of a warp print one after another; every function here is
/// divergence-safe.
#ifndef VX_PRINT_H
#define VX_PRINT_H

#include <stdarg.h>

#include <vx_intrinsics.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Formats like vprintf (conversions d i u x X o c s p % f F e E g G, flags, width, precision,
/// length modifiers) and prints, one calling thread at a time. Returns the number of bytes the
/// calling thread printed.
int vx_vprintf(const char* format, va_list va);

/// Formats like printf and prints, one calling thread at a time (see vx_vprintf).
int vx_printf(const char* format, ...) __attribute__((format(printf, 1, 2)));

/// Stores the byte `c` to this hart's console address (one store, no branches).
void vx_putchar(int c);

/// Prints `value` in `base` (2..16; base 10 is signed, other bases print the 32-bit pattern
/// unsigned), one calling thread at a time.
void vx_putint(int value, int base);

/// Prints `value` with `precision` digits after the decimal point, one calling thread at a time.
void vx_putfloat(float value, int precision);

#ifdef __cplusplus
}
#endif

#endif /* VX_PRINT_H */
