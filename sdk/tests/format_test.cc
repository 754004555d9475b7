// The SDK's kernel-side printf formatter (sdk/src/vx_format.c), compiled for the host and checked
// against the host C library's vsnprintf: fixed cases for every conversion, flag, width,
// precision and length, then 5,000 random float values in %.2f %e %g %.9g %.0f %f.
#include <gtest/gtest.h>

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>

extern "C" {
#include "vx_format.h"

static std::string g_out;
void vx_putchar(int c) { g_out += static_cast<char>(c); }
}

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// Formats with vx_format and with vsnprintf; returns "" when both agree, else both texts.
std::string compare(const char* format, ...) {
  va_list a, b;
  va_start(a, format);
  va_copy(b, a);
  g_out.clear();
  const int n = vx_format(format, &a);
  char ref[1024];
  const int rn = std::vsnprintf(ref, sizeof ref, format, b);
  va_end(a);
  va_end(b);
  if (g_out == ref && n == rn) return "";
  return "got [" + g_out + "] " + std::to_string(n) + ", want [" + ref + "] " + std::to_string(rn);
}

TEST(KernelPrintf, MatchesTheCLibrary) {
  EXPECT_EQ(compare("cid=%d: task=%d, value=%c\n", 3, -17, 'Q'), "");
  EXPECT_EQ(compare("printf: task=%u value=%d half=%.2f\n", 5u, 11, 5.5), "");
  EXPECT_EQ(compare("[%5d][%-5d][%05d][%+d][% d][%.3d][%5.3d]", 42, 42, 42, 42, 42, 7, 7), "");
  EXPECT_EQ(compare("[%x][%X][%#x][%#o][%o][%08x][%-8x|]", 255u, 255u, 255u, 8u, 8u, 0xbeefu, 0xbeefu), "");
  EXPECT_EQ(compare("[%lld][%llu][%llx][%ld][%hd][%hhu]", -1234567890123LL, 18446744073709551615ULL,
                    0x123456789abcULL, -5L, static_cast<short>(-3), static_cast<unsigned char>(250)), "");
  EXPECT_EQ(compare("[%s][%10s][%-10s][%.2s][%c][%5c]", "abc", "abc", "abc", "abc", 'z', 'y'), "");
  EXPECT_EQ(compare("[%f][%.0f][%.1f][%.3f][%10.2f][%-10.2f][%010.2f][%+.2f]", 3.14159, 2.5, 0.05, -1.0005,
                    3.14159, 3.14159, -3.14159, 1.0), "");
  EXPECT_EQ(compare("[%e][%.2e][%E][%.0e][%e]", 12345.678, 0.000123, 1e-10, 5.5, 0.0), "");
  EXPECT_EQ(compare("[%g][%g][%g][%g][%.3g][%g][%G][%#g][%g]", 100000.0, 1000000.0, 0.0001, 0.00001, 3.14159,
                    0.0, 1e-20, 1.5, 123.456), "");
  EXPECT_EQ(compare("[%f][%F][%e][%g][%5.1f]", kInf, -kInf, -0.0, -0.0, 9.96), "");
  EXPECT_EQ(compare("[%*d][%-*d][%.*f][%%][%p]", 6, 1, 6, 2, 3, 1.23456, reinterpret_cast<void*>(0x80001234)), "");
  EXPECT_EQ(compare("[%.0f][%.0f][%.0f][%.1f][%u][%d][%.0d][%#.0x]", 0.5, 1.5, 0.4, 0.25, 0u, 0, 0, 0u), "");
}

TEST(KernelPrintf, RandomFloatsMatchTheCLibrary) {
  unsigned state = 12345;
  int checked = 0;
  for (int k = 0; k < 20000 && checked < 5000; ++k) {
    state = state * 1103515245u + 12345u;
    const unsigned bits = (state >> 1) ^ (state << 7);
    float f;
    std::memcpy(&f, &bits, sizeof f);
    if (f != f || f - f != 0.0f || f > 1e18f || f < -1e18f) continue;  // finite, < 19 integer digits
    const double d = f;
    ASSERT_EQ(compare("%.2f %e %g %.9g %.0f %f", d, d, d, d, d, d), "") << "value bits " << bits;
    ++checked;
  }
  EXPECT_EQ(checked, 5000);
}

}  // namespace
