// C++ headers kernels include (sdk/cxx, docs/sdk.md "C++ headers"), run on the vxsim CLI: the
// <algorithm>, <cstdlib>, <cmath>/<math.h>, <limits>, <utility>, <type_traits>, <cstring>,
// <new> and <initializer_list> subset, as Vortex's regression kernels use it (std::min/max after
// <math.h> alone, fmin/fmax of floats, abs of every type, <cstdlib> in a kernel). Core 0 returns
// the number of failed checks.
#include <math.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <type_traits>
#include <utility>

#include <vx_print.h>

namespace {

int errors = 0;

void check(bool ok, const char* what) {
  if (!ok) {
    ++errors;
    vx_printf("cxx_compat: FAILED %s\n", what);
  }
}

struct Pod {
  int a;
  float b;
};

}  // namespace

// A clamp as Vortex's dogfood kernel writes it: with the float overloads this is fmax.s + fmin.s;
// without them both calls convert to double and run in software (the test in CMakeLists.txt reads
// this function's disassembly).
extern "C" __attribute__((noinline)) float cxx_compat_fclamp(float a, float b, float c) { return fmin(fmax(a, b), c); }

// An integer clamp as dogfood writes it (std::min(std::max(a, b), c) on lane data): the int
// overloads of bits/vx_cxx_base.h make it branch-free (the test in CMakeLists.txt reads this
// function's disassembly: no conditional branch); the templates made bge + bge.
extern "C" __attribute__((noinline)) int cxx_compat_iclamp(int a, int b, int c) { return std::min(std::max(a, b), c); }

int main() {
  check(std::min(3, 7) == 3 && std::max(3, 7) == 7, "std::min/max");
  check(std::max({4, 9, 2}) == 9 && std::min({4, 9, 2}) == 2, "std::min/max of a list");
  check(std::clamp(12, 0, 10) == 10 && std::clamp(-1, 0, 10) == 0 && std::clamp(5, 0, 10) == 5, "std::clamp");
  int v[9] = {5, 3, 8, 1, 9, 2, 7, 4, 6};
  std::sort(v, v + 9);
  bool sorted = true;
  for (int i = 0; i < 9; ++i) sorted = sorted && v[i] == i + 1;
  check(sorted, "std::sort");
  std::sort(v, v + 9, [](int x, int y) { return x > y; });
  check(v[0] == 9 && v[8] == 1, "std::sort with a comparator");
  check(*std::max_element(v, v + 9) == 9 && *std::min_element(v, v + 9) == 1, "min/max_element");
  check(std::lower_bound(v, v + 9, 5, [](int x, int y) { return x > y; }) - v == 4, "lower_bound");
  check(std::count(v, v + 9, 4) == 1 && std::find(v, v + 9, 7) - v == 2, "count/find");
  std::reverse(v, v + 9);
  check(v[0] == 1 && v[8] == 9, "reverse");
  int w[9];
  std::fill(w, w + 9, 0);
  std::copy(v, v + 9, w);
  check(std::equal(v, v + 9, w), "fill/copy/equal");
  int x = 1, y = 2;
  std::swap(x, y);
  check(x == 2 && y == 1, "std::swap");
  auto p = std::make_pair(3, 4.5f);
  check(p.first == 3 && p.second == 4.5f, "std::pair");

  check(std::abs(-5) == 5 && std::abs(-5L) == 5L && std::abs(-5LL) == 5LL, "std::abs (integers)");
  check(std::abs(-2.5f) == 2.5f && std::is_same_v<decltype(std::abs(-2.5f)), float>, "std::abs(float)");
  check(std::atoi("-42") == -42 && std::strtol("ff", nullptr, 16) == 255, "atoi/strtol");
  std::div_t d = std::div(17, 5);
  check(d.quot == 3 && d.rem == 2, "std::div");

  check(cxx_compat_fclamp(1.0f, 3.0f, 2.0f) == 2.0f && cxx_compat_fclamp(1.0f, -3.0f, 2.0f) == 1.0f, "fmin/fmax clamp");
  check(cxx_compat_iclamp(1, 5, 3) == 3 && cxx_compat_iclamp(1, -5, 3) == 1 && cxx_compat_iclamp(1, 2, 3) == 2,
        "std::min/max clamp of ints");
  check(std::min(-0.0f, 0.0f) == 0.0f && !__builtin_signbit(std::min(0.0f, -0.0f)) &&
            std::max(2u, 0xffffffffu) == 0xffffffffu && std::min(-7L, 3L) == -7L && std::clamp(9, 1, 5) == 5 &&
            std::clamp(0.5f, 1.0f, 2.0f) == 1.0f, "branch-free overloads keep the template results");
  check(std::is_same_v<decltype(fmin(1.0f, 2.0f)), float> && std::is_same_v<decltype(std::sqrt(2.0f)), float>,
        "float overloads return float");
  check(fabs(std::sqrt(16.0f) - 4.0f) < 1e-6f && std::floor(2.7f) == 2.0f && std::ceil(2.1f) == 3.0f, "sqrt/floor/ceil");
  check(fabs(std::exp(0.0f) - 1.0f) < 1e-6f && fabs(std::pow(2.0f, 10.0f) - 1024.0f) < 1e-3f, "exp/pow");
  check(std::fma(2.0f, 3.0f, 1.0f) == 7.0f && std::copysign(1.0f, -0.0f) == -1.0f, "fma/copysign");

  check(std::numeric_limits<int>::max() == 2147483647 && std::numeric_limits<uint8_t>::max() == 255,
        "numeric_limits (integers)");
  check(std::numeric_limits<float>::epsilon() == 1.1920929e-7f && std::numeric_limits<float>::infinity() > 1e38f,
        "numeric_limits<float>");
  check(std::is_integral_v<long> && !std::is_integral_v<float> && std::is_floating_point_v<double> &&
            std::is_signed_v<int> && std::is_unsigned_v<unsigned>, "type traits");

  alignas(Pod) unsigned char raw[sizeof(Pod)];
  Pod* pod = new (raw) Pod{7, 1.5f};
  check(pod->a == 7 && pod->b == 1.5f, "placement new");
  char s[8];
  std::memset(s, 0, sizeof s);
  std::strcpy(s, "abc");
  check(std::strlen(s) == 3 && std::strcmp(s, "abc") == 0, "<cstring>");

  vx_printf("cxx_compat: %d errors\n", errors);
  return errors;
}
