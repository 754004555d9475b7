/* vx_print.c — console output (../shared/docs/vortex-2x.md §4.4). vx_putchar is one byte store
 * to IO_COUT_ADDR + (hart id & 63); everything that loops over data runs inside vx_serial, i.e.
 * on one lane at a time, so no data-dependent branch can diverge. */
#include <stdint.h>
#include <stdio.h>

#include <vx_print.h>
#include <vx_spawn.h>

#define VX_PRINT_BUF 256

void vx_putchar(int c) {
  volatile uint8_t* port =
      (volatile uint8_t*)(uintptr_t)(IO_COUT_ADDR + ((uint32_t)vx_hart_id() & (IO_COUT_SIZE - 1)));
  *port = (uint8_t)c;
}

static void put_string(const char* s, int n) {
  for (int i = 0; i < n; ++i) {
    vx_putchar(s[i]);
  }
}

typedef struct {
  const char* format;
  va_list* va;
  int written;
} printf_ctx_t;

static void printf_cb(void* arg) {
  printf_ctx_t* ctx = (printf_ctx_t*)arg;
  char buf[VX_PRINT_BUF];
  va_list va;
  va_copy(va, *ctx->va);
  int n = vsnprintf(buf, sizeof(buf), ctx->format, va);
  va_end(va);
  if (n < 0) {
    n = 0;
  }
  if (n > VX_PRINT_BUF - 1) {
    n = VX_PRINT_BUF - 1;
  }
  put_string(buf, n);
  ctx->written = n;
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

static void putfloat_cb(void* arg) {
  const put_ctx_t* ctx = (const put_ctx_t*)arg;
  char buf[64];
  int n = snprintf(buf, sizeof(buf), "%.*f", ctx->param, (double)ctx->fvalue);
  if (n > (int)sizeof(buf) - 1) {
    n = (int)sizeof(buf) - 1;
  }
  put_string(buf, n < 0 ? 0 : n);
}

void vx_putfloat(float value, int precision) {
  put_ctx_t ctx = {0, value, precision};
  vx_serial(putfloat_cb, &ctx);
}
