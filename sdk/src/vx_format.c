/* vx_format.c — the kernel-side printf formatter behind vx_printf/vx_putfloat (docs/sdk.md
 * "Console output"). picolibc's vsnprintf costs about 2.5 times the instructions of the small
 * printf Vortex bundles, and every printing thread pays it one after another (vx_serial), so the
 * SDK formats with this one instead.
 *
 * Conversions: d i u x X o c s p % f F e E g G; flags - 0 + space #; width and precision, also
 * as *; length modifiers hh h l ll z j t. Integers that fit 32 bits are converted with 32-bit
 * division (RV32M), wider ones with 64-bit. Floating-point values are formatted from the value
 * scaled to an integer of at most 19 significant digits and rounded to nearest, ties to even (as
 * glibc for values that scale exactly, e.g. every %.2f of a float below 2^46); when the scaling
 * itself rounds (beyond 2^53) the last digit may differ by one, and digits after the 19th print as 0. Output goes to vx_putchar byte by byte; the count of bytes is returned.
 * Runs inside vx_serial (one lane at a time), so its branches cannot diverge.
 */
#include <stdarg.h>
#include <stdint.h>

#include <vx_print.h>

#include "vx_format.h"

enum { F_LEFT = 1, F_ZERO = 2, F_PLUS = 4, F_SPACE = 8, F_ALT = 16, F_UPPER = 32 };

typedef struct {
  int flags;
  int width;
  int prec;  /* -1: none given */
  int count; /* bytes written */
} spec_t;

static void put(spec_t* s, char c) {
  vx_putchar((unsigned char)c);
  s->count += 1;
}

static void pad(spec_t* s, char c, int n) {
  for (; n > 0; --n) put(s, c);
}

/* Digits of v in base (2..16), least significant first, into buf; returns their count. */
static int digits_u64(uint64_t v, unsigned base, int upper, char* buf) {
  const char* digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  int n = 0;
  if ((v >> 32) == 0) {
    uint32_t w = (uint32_t)v;
    do {
      buf[n++] = digits[w % base];
      w /= base;
    } while (w != 0);
  } else {
    do {
      buf[n++] = digits[v % base];
      v /= base;
    } while (v != 0);
  }
  return n;
}

/* Prints sign/prefix, zero-extended digits (most significant last in buf) and padding. */
static void emit_number(spec_t* s, const char* prefix, const char* buf, int ndigits, int min_digits) {
  int plen = 0;
  while (prefix[plen] != '\0') ++plen;
  int zeros = min_digits > ndigits ? min_digits - ndigits : 0;
  int len = plen + zeros + ndigits;
  if ((s->flags & (F_LEFT | F_ZERO)) == F_ZERO && s->prec < 0 && s->width > len) {
    zeros += s->width - len;
    len = s->width;
  }
  if (!(s->flags & F_LEFT)) pad(s, ' ', s->width - len);
  for (int i = 0; i < plen; ++i) put(s, prefix[i]);
  pad(s, '0', zeros);
  for (int i = ndigits; i > 0; --i) put(s, buf[i - 1]);
  if (s->flags & F_LEFT) pad(s, ' ', s->width - len);
}

static const char* sign_prefix(const spec_t* s, int negative) {
  return negative ? "-" : (s->flags & F_PLUS) ? "+" : (s->flags & F_SPACE) ? " " : "";
}

static void format_int(spec_t* s, uint64_t magnitude, int negative, unsigned base) {
  char buf[24];
  int n = 0;
  if (!(magnitude == 0 && s->prec == 0)) n = digits_u64(magnitude, base, s->flags & F_UPPER, buf);
  const char* prefix = sign_prefix(s, negative);
  if (base == 16 && (s->flags & F_ALT) && magnitude != 0) prefix = (s->flags & F_UPPER) ? "0X" : "0x";
  int min_digits = s->prec < 0 ? 1 : s->prec;
  if (base == 8 && (s->flags & F_ALT) && min_digits <= n) min_digits = n + 1;
  if (magnitude == 0 && s->prec == 0) min_digits = 0;
  emit_number(s, prefix, buf, n, min_digits);
}

static void format_str(spec_t* s, const char* str) {
  if (str == 0) str = "(null)";
  int n = 0;
  while (str[n] != '\0' && (s->prec < 0 || n < s->prec)) ++n;
  if (!(s->flags & F_LEFT)) pad(s, ' ', s->width - n);
  for (int i = 0; i < n; ++i) put(s, str[i]);
  if (s->flags & F_LEFT) pad(s, ' ', s->width - n);
}

static const uint64_t kPow10[20] = {1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull,
                                    10000000ull, 100000000ull, 1000000000ull, 10000000000ull,
                                    100000000000ull, 1000000000000ull, 10000000000000ull,
                                    100000000000000ull, 1000000000000000ull, 10000000000000000ull,
                                    100000000000000000ull, 1000000000000000000ull,
                                    10000000000000000000ull};

/* Decimal exponent e with 10^e <= v < 10^(e+1), for finite v > 0. */
static int decimal_exponent(double v) {
  int e = 0;
  while (v >= 1e16) { v *= 1e-16; e += 16; }
  while (v >= 10.0) { v *= 0.1; e += 1; }
  while (v < 1e-16) { v *= 1e16; e -= 16; }
  while (v < 1.0) { v *= 10.0; e -= 1; }
  return e;
}

/* 10^0 .. 10^22: every one exact in binary64. */
static const double kPow10d[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                   1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* v scaled by 10^shift (shift may be negative), rounded to nearest, ties to even. With one exact
 * power of ten (0 <= shift <= 22) a product that rounded onto .5 is resolved by its exact error. */
static uint64_t scaled(double v, int shift) {
  const double v0 = v;
  const int exact = shift >= 0 && shift <= 22;
  if (exact) {
    v *= kPow10d[shift];
  } else {
    while (shift > 0) { int k = shift > 22 ? 22 : shift; v *= kPow10d[k]; shift -= k; }
    while (shift < 0) { int k = -shift > 22 ? 22 : -shift; v /= kPow10d[k]; shift += k; }
  }
  if (v >= 18446744073709551615.0) return 18446744073709551615ull;
  uint64_t i = (uint64_t)v;                     /* truncates: v >= 0 */
  double rest = v - (double)i;
  int up = rest > 0.5;
  if (rest == 0.5) {
    double err = exact ? __builtin_fma(v0, kPow10d[shift], -v) : 0.0;
    up = err > 0.0 || (err == 0.0 && (i & 1u));
  }
  return i + (up ? 1u : 0u);
}

/* Writes value × 10^low_zeros as int part . frac (frac_digits digits after the point), then
 * e±XX when has_exp. trim: drop trailing fraction zeros (%g). */
static void emit_decimal(spec_t* s, int negative, uint64_t value, int low_zeros, int frac_digits, int has_exp,
                         int exp10, int trim) {
  char buf[360];
  int n = 0;
  char exp_buf[8];
  int en = 0;
  if (has_exp) {
    int ae = exp10 < 0 ? -exp10 : exp10;
    do { exp_buf[en++] = (char)('0' + ae % 10); ae /= 10; } while (ae != 0);
    if (en < 2) exp_buf[en++] = '0';
    exp_buf[en++] = exp10 < 0 ? '-' : '+';
    exp_buf[en++] = (s->flags & F_UPPER) ? 'E' : 'e';
  }
  int frac = frac_digits;
  for (; n < low_zeros; ++n) buf[n] = '0';     /* least significant first */
  n += digits_u64(value, 10, 0, buf + n);
  while (n <= frac) buf[n++] = '0';             /* at least one integer digit */
  int skip = 0;
  if (trim) while (skip < frac && buf[skip] == '0') ++skip;
  int shown_frac = frac - skip;
  int point = shown_frac > 0 || (s->flags & F_ALT);
  const char* prefix = sign_prefix(s, negative);
  int plen = prefix[0] != '\0';
  int len = plen + (n - frac) + point + shown_frac + en;
  int zeros = 0;
  if ((s->flags & (F_LEFT | F_ZERO)) == F_ZERO && s->width > len) zeros = s->width - len;
  if (!(s->flags & F_LEFT)) pad(s, ' ', s->width - len - zeros);
  if (plen) put(s, prefix[0]);
  pad(s, '0', zeros);
  for (int i = n; i > frac; --i) put(s, buf[i - 1]);
  if (point) put(s, '.');
  for (int i = frac; i > skip; --i) put(s, buf[i - 1]);
  for (int i = en; i > 0; --i) put(s, exp_buf[i - 1]);
  if (s->flags & F_LEFT) pad(s, ' ', s->width - len - zeros);
}

static void format_float(spec_t* s, double v, char conv) {
  int negative = __builtin_signbit(v) != 0;
  if (negative) v = -v;
  if (conv == 'F' || conv == 'E' || conv == 'G') s->flags |= F_UPPER;
  if (v != v || v == __builtin_inf()) {
    spec_t t = *s;
    t.prec = -1;
    t.flags &= ~F_ZERO;
    const char* word = v != v ? ((s->flags & F_UPPER) ? "NAN" : "nan") : ((s->flags & F_UPPER) ? "INF" : "inf");
    char text[5] = {0, 0, 0, 0, 0};
    const char* p = sign_prefix(s, negative);
    int i = 0;
    if (p[0] != '\0') text[i++] = p[0];
    for (int k = 0; k < 3; ++k) text[i++] = word[k];
    format_str(&t, text);
    s->count = t.count;
    return;
  }
  int prec = s->prec < 0 ? 6 : s->prec;
  char c = (char)(conv | 0x20);
  int trim = 0;
  if (c == 'g') {
    int p = prec == 0 ? 1 : prec;
    int x = v == 0.0 ? 0 : decimal_exponent(v);
    uint64_t probe = v == 0.0 ? 0 : scaled(v, p - 1 - x);      /* rounding may carry to 10^p */
    if (probe >= kPow10[p < 19 ? p : 19] && p < 19) x += 1;
    trim = !(s->flags & F_ALT);
    if (x < p && x >= -4) { c = 'f'; prec = p - 1 - x; } else { c = 'e'; prec = p - 1; }
  }
  if (prec > 30) prec = 30;
  if (c == 'f') {
    /* Keep the scaled value below 2^64: at most 19 significant digits, zeros after them. */
    int x = v == 0.0 ? 0 : decimal_exponent(v);
    int low = x + prec > 18 ? x + prec - 18 : 0;
    emit_decimal(s, negative, scaled(v, prec - low), low, prec, 0, 0, trim);
    return;
  }
  int x = v == 0.0 ? 0 : decimal_exponent(v);
  int low = prec > 18 ? prec - 18 : 0;
  uint64_t m = v == 0.0 ? 0 : scaled(v, prec - low - x);
  if (m >= kPow10[prec - low + 1]) { m /= 10; x += 1; }  /* 9.99.. rounded up to 10.0 */
  emit_decimal(s, negative, m, low, prec, 1, x, trim);
}

static int parse_int(const char** f) {
  int v = 0;
  while (**f >= '0' && **f <= '9') { v = v * 10 + (**f - '0'); ++*f; }
  return v;
}

int vx_format(const char* f, va_list* va) {
  spec_t s = {0, 0, -1, 0};
  for (; *f != '\0'; ++f) {
    if (*f != '%') { put(&s, *f); continue; }
    ++f;
    s.flags = 0; s.width = 0; s.prec = -1;
    for (;; ++f) {
      if (*f == '-') s.flags |= F_LEFT;
      else if (*f == '0') s.flags |= F_ZERO;
      else if (*f == '+') s.flags |= F_PLUS;
      else if (*f == ' ') s.flags |= F_SPACE;
      else if (*f == '#') s.flags |= F_ALT;
      else break;
    }
    if (*f == '*') { s.width = va_arg(*va, int); ++f; if (s.width < 0) { s.flags |= F_LEFT; s.width = -s.width; } }
    else s.width = parse_int(&f);
    if (*f == '.') {
      ++f;
      if (*f == '*') { s.prec = va_arg(*va, int); ++f; if (s.prec < 0) s.prec = -1; }
      else s.prec = parse_int(&f);
    }
    int lng = 0; /* 0 int, 1 long, 2 long long, -1 short, -2 char */
    for (;; ++f) {
      if (*f == 'l') lng = lng == 1 ? 2 : 1;
      else if (*f == 'h') lng = lng == -1 ? -2 : -1;
      else if (*f == 'z' || *f == 'j' || *f == 't') lng = *f == 'j' ? 2 : 1;
      else break;
    }
    char conv = *f;
    if (conv == '\0') break;
    if (conv == 'd' || conv == 'i') {
      int64_t v = lng == 2 ? va_arg(*va, long long) : lng == 1 ? va_arg(*va, long) : va_arg(*va, int);
      if (lng == -1) v = (short)v;
      if (lng == -2) v = (signed char)v;
      format_int(&s, v < 0 ? 0ull - (uint64_t)v : (uint64_t)v, v < 0, 10);
    } else if (conv == 'u' || conv == 'x' || conv == 'X' || conv == 'o') {
      uint64_t v = lng == 2 ? va_arg(*va, unsigned long long) : lng == 1 ? va_arg(*va, unsigned long) : va_arg(*va, unsigned);
      if (lng == -1) v = (unsigned short)v;
      if (lng == -2) v = (unsigned char)v;
      s.flags &= ~(F_PLUS | F_SPACE);
      if (conv == 'X') s.flags |= F_UPPER;
      format_int(&s, v, 0, conv == 'u' ? 10u : conv == 'o' ? 8u : 16u);
    } else if (conv == 'p') {
      s.flags = (s.flags & F_LEFT) | F_ALT;
      s.prec = -1;
      format_int(&s, (uintptr_t)va_arg(*va, void*), 0, 16);
    } else if (conv == 'c') {
      char c = (char)va_arg(*va, int);
      if (!(s.flags & F_LEFT)) pad(&s, ' ', s.width - 1);
      put(&s, c);
      if (s.flags & F_LEFT) pad(&s, ' ', s.width - 1);
    } else if (conv == 's') {
      format_str(&s, va_arg(*va, const char*));
    } else if (conv == 'f' || conv == 'F' || conv == 'e' || conv == 'E' || conv == 'g' || conv == 'G') {
      format_float(&s, va_arg(*va, double), conv);
    } else if (conv == '%') {
      put(&s, '%');
    } else {
      put(&s, '%');  /* unknown conversion: printed as written */
      put(&s, conv);
    }
  }
  return s.count;
}
