/* vx_format.h — internal: the SDK's printf formatter (vx_format.c). */
#ifndef VX_FORMAT_H
#define VX_FORMAT_H

#include <stdarg.h>

/* Formats like vprintf straight to this hart's console (vx_putchar); returns the bytes written.
 * Advances *va past the arguments it used. */
int vx_format(const char* format, va_list* va);

#endif /* VX_FORMAT_H */
