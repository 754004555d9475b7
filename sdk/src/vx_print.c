/* vx_print.c — console output (docs/sdk.md "Console output"). vx_putchar is one byte store
 * to IO_COUT_ADDR + (hart id & 63); everything that loops over data runs inside vx_serial, i.e.
 * on one lane at a time, so no data-dependent branch can diverge. */
#include <stdint.h>

#include <vx_print.h>
#include <vx_spawn.h>

#include "vx_format.h"

void vx_putchar(int c) {
  volatile uint8_t* port =
      (volatile uint8_t*)(uintptr_t)(IO_COUT_ADDR + ((uint32_t)vx_hart_id() & (IO_COUT_SIZE - 1)));
  *port = (uint8_t)c;
}

typedef struct {
  const char* format;
  va_list* va;
  int written;
} printf_ctx_t;

/* Each thread formats from its own copy of the argument list (vx_format.c, straight to the console). */
static void printf_cb(void* arg) {
  printf_ctx_t* ctx = (printf_ctx_t*)arg;
  va_list va;
  va_copy(va, *ctx->va);
  ctx->written = vx_format(ctx->format, &va);
  va_end(va);
}

int vx_vprintf(const char* format, va_list va) {
  printf_ctx_t ctx;
  va_list copy;
  va_copy(copy, va);
  ctx.format = format;
  ctx.va = &copy;
  ctx.written = 0;
  vx_serial(printf_cb, &ctx);
  va_end(copy);
  return ctx.written;
}

int vx_printf(const char* format, ...) {
  va_list va;
  va_start(va, format);
  int n = vx_vprintf(format, va);
  va_end(va);
  return n;
}

typedef struct {
  int ivalue;
  float fvalue;
  int param;
} put_ctx_t;

static void putint_cb(void* arg) {
  const put_ctx_t* ctx = (const put_ctx_t*)arg;
  static const char digits[] = "0123456789abcdef";
  char buf[40];
  int base = ctx->param;
  if (base < 2 || base > 16) {
    base = 10;
  }
  uint32_t u = (uint32_t)ctx->ivalue;
  int negative = (base == 10 && ctx->ivalue < 0);
  if (negative) {
    u = 0u - u;
  }
  int n = 0;
  do {
    buf[n++] = digits[u % (uint32_t)base];
    u /= (uint32_t)base;
  } while (u != 0);
  if (negative) {
    vx_putchar('-');
  }
  while (n > 0) {
    vx_putchar(buf[--n]);
  }
}

void vx_putint(int value, int base) {
  put_ctx_t ctx = {value, 0.0f, base};
  vx_serial(putint_cb, &ctx);
}

static int format_args(const char* format, ...) {
  va_list va;
  va_start(va, format);
  int n = vx_format(format, &va);
  va_end(va);
  return n;
}

static void putfloat_cb(void* arg) {
  const put_ctx_t* ctx = (const put_ctx_t*)arg;
  (void)format_args("%.*f", ctx->param, (double)ctx->fvalue);
}

void vx_putfloat(float value, int precision) {
  put_ctx_t ctx = {0, value, precision};
  vx_serial(putfloat_cb, &ctx);
}
