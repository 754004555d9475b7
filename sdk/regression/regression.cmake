# Regression programs in Vortex's tests/regression layout (vortex-2x.md §6): each folder holds
# kernel.cpp (device), main.cpp (host, vortex.h only) and common.h (shared kernel_arg_t).
#
# One row per program: name | kernel compile options | arguments on each config.
# Kernels are always built (they also feed the image tests); host programs and CTest entries
# need the host runtime (target `vortex`, sim/runtime), so they are created at the end of the
# configure step, and only if that target exists.
set(VX_REGRESSION_NAMES vecadd)

foreach(name IN LISTS VX_REGRESSION_NAMES)
  vx_add_kernel(regression_${name}_kernel
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/${name}/kernel.cpp
    INCLUDE_DIRS ${CMAKE_CURRENT_LIST_DIR}/${name}
    COMPILE_OPTIONS -ffp-contract=off
    OUTPUT_DIR ${CMAKE_BINARY_DIR}/sdk/regression/${name})
endforeach()
