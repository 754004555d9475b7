// Kernel with its own _start (own_start.S, like Vortex's `basic`): main runs on warp 0 / thread 0
// of core 0 without the SDK's startup, prints one line and stores its result.
#include <vx_intrinsics.h>
#include <vx_print.h>

volatile int own_start_result;

int main() {
  int sum = 0;
  for (int i = 1; i <= 10; ++i) sum += i;
  own_start_result = sum;
  vx_printf("own_start: sum=%d\n", sum);
  return 0;
}
