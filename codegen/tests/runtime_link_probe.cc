// Links the host runtime so that CMake builds it and every library sdk.mk names before the codegen
// end-to-end tests (which link generated main.cpp files against them with make) run.
#include <vortex.h>

int main() {
  vx_device_h device = nullptr;
  return device == nullptr ? 0 : vx_dev_close(device);
}
