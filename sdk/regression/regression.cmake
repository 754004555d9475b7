# Regression programs in Vortex's tests/regression layout (docs/vortex.md §6): each folder holds
# kernel.cpp (device), main.cpp (host, vortex.h only) and common.h (shared kernel_arg_t).
#
# One row per program: name | host arguments. Kernels are always built (they also feed the image
# tests). Host programs and their CTest entries need the host runtime (target `vortex`,
# sim/runtime), which is added after sdk/, so they are created at the end of the configure step
# and only if that target exists. Each program runs on every device configuration below; `gbar`
# also runs on two cores.
set(VX_REGRESSION_TABLE
  "vecadd|-n67"      # thread mode, partial last warp
  "sgemm|-n64"       # thread mode, 2-D grid, 64x64
  "sgemm2|-n64"      # block mode, __local_mem + __syncthreads
  "conv3|-n32"       # thread mode, 3x3 stencil
  "diverge|-n131"    # VX_IF nesting, PRED loop, vote loop, selects
  "printf|-n10"      # vx_printf from many threads, vx_putint/putfloat
  "basic|-n256"      # memory round trip, copy kernel, MPM counters through vx_mpm_query
  "fence|-n100"      # store, fence, load back
  "gbar|"            # global barrier across cores
  "relu|-n100"       # thread mode, branch-free select on lanes of both signs
  "sgemv|-m37 -n32"  # kernel-local vec4.h (anonymous-struct union), block_dim = {1}
  "cta|-x3 -y2 -z2 -a3 -b2 -c2"  # 3-D grid of 3-D blocks, __local_mem + __syncthreads, partial warp
  "demo|-n4"         # tasks = cores x warps x threads from vx_dev_caps
  "mstress|-n2"      # dependent pointer-indirect loads from every thread
  "madmax|-n16"      # 2-D grid, fmaf chains, inline compute shared with the host
  "sort|-n67"        # rank sort, branch-free comparisons, ties
  "dotproduct|-n1000"  # block reduction through local memory and barriers, VX_IF, vote loop
  "stencil3d|-n8"    # 3-D grid of 2x2x2 blocks, branch-free border clamp
  "dropout|-n1000"   # device pseudo-random numbers, <cstdlib>, float kernel arguments
  "dogfood|-n2")     # 21 op tests, one launch each: table of kernels, std::min/max, sinf, barriers
# Device configurations: name | cores | warps | threads.
set(VX_REGRESSION_CONFIGS "1c4w4t|1|4|4" "4c8w8t|4|8|8")
# Environment that selects the device configuration of the vortex.h runtime (docs/vxsim.md).
# <C>, <W>, <T> are replaced by cores, warps and threads.
set(VX_RUNTIME_CONFIG_ENV "VXSIM_CORES=<C>" "VXSIM_WARPS=<W>" "VXSIM_THREADS=<T>")

# The registration below runs deferred in the top-level directory scope: hand it the tables.
set_property(GLOBAL PROPERTY VX_REGRESSION_TABLE "${VX_REGRESSION_TABLE}")
set_property(GLOBAL PROPERTY VX_REGRESSION_CONFIGS "${VX_REGRESSION_CONFIGS}")
set_property(GLOBAL PROPERTY VX_RUNTIME_CONFIG_ENV "${VX_RUNTIME_CONFIG_ENV}")

set(VX_REGRESSION_NAMES)
foreach(row IN LISTS VX_REGRESSION_TABLE)
  string(REPLACE "|" ";" fields "${row}")
  list(GET fields 0 name)
  list(APPEND VX_REGRESSION_NAMES ${name})
  vx_add_kernel(regression_${name}_kernel
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/${name}/kernel.cpp
    INCLUDE_DIRS ${CMAKE_CURRENT_LIST_DIR}/${name}
    COMPILE_OPTIONS -ffp-contract=off   # bit-comparable with the host reference (docs/vortex.md §12)
    OUTPUT_DIR ${CMAKE_BINARY_DIR}/sdk/regression/${name})
endforeach()

# sgemm_tcu needs a kernel per warp width (NUM_THREADS is a template argument of wmma_context):
# one per device configuration, in <dir>/nt<T>/. Its test exits 77 (skipped) without a TCU.
foreach(cfgrow IN LISTS VX_REGRESSION_CONFIGS)
  string(REPLACE "|" ";" c "${cfgrow}")
  list(GET c 3 threads)
  if(NOT TARGET regression_sgemm_tcu_nt${threads}_kernel)
    vx_add_kernel(regression_sgemm_tcu_nt${threads}_kernel
      SOURCES ${CMAKE_CURRENT_LIST_DIR}/sgemm_tcu/kernel.cpp
      INCLUDE_DIRS ${CMAKE_CURRENT_LIST_DIR}/sgemm_tcu
      DEFINES NUM_THREADS=${threads}
      OUTPUT_DIR ${CMAKE_BINARY_DIR}/sdk/regression/sgemm_tcu/nt${threads})
  endif()
endforeach()

function(_vx_add_regression_test name cfg cores warps threads args dir)
  get_property(VX_RUNTIME_CONFIG_ENV GLOBAL PROPERTY VX_RUNTIME_CONFIG_ENV)
  set(env)
  foreach(e IN LISTS VX_RUNTIME_CONFIG_ENV)
    string(REPLACE "<C>" "${cores}" e "${e}")
    string(REPLACE "<W>" "${warps}" e "${e}")
    string(REPLACE "<T>" "${threads}" e "${e}")
    list(APPEND env "${e}")
  endforeach()
  separate_arguments(args UNIX_COMMAND "${args}")  # "-m37 -n32" -> two arguments
  add_test(NAME sdk.regression.${name}.${cfg}
           COMMAND $<TARGET_FILE:regression_${name}> ${args}
           WORKING_DIRECTORY ${dir})
  set_tests_properties(sdk.regression.${name}.${cfg} PROPERTIES
    ENVIRONMENT "${env}"
    FAIL_REGULAR_EXPRESSION "FAILED!"
    TIMEOUT 300)
endfunction()

function(_vx_sdk_register_regressions)
  if(NOT TARGET vortex)
    message(STATUS "sdk: no host runtime target `vortex` yet: regression host programs skipped")
    return()
  endif()
  # Host programs link the runtime and the signature hook object, so $VXSIM_SIGNATURE works for
  # them as for candidates built through sdk.mk.
  set(rt vortex)
  if(TARGET vxsynth_vortex_signature_hook)
    list(APPEND rt vxsynth_vortex_signature_hook)
  endif()
  get_property(VX_REGRESSION_TABLE GLOBAL PROPERTY VX_REGRESSION_TABLE)
  get_property(VX_REGRESSION_CONFIGS GLOBAL PROPERTY VX_REGRESSION_CONFIGS)
  foreach(row IN LISTS VX_REGRESSION_TABLE)
    string(REPLACE "|" ";" fields "${row}")
    list(GET fields 0 name)
    list(LENGTH fields nfields)
    set(args)
    if(nfields GREATER 1)
      list(GET fields 1 args)
    endif()
    set(dir ${CMAKE_BINARY_DIR}/sdk/regression/${name})
    add_executable(regression_${name} ${VX_SDK_SOURCE_DIR}/regression/${name}/main.cpp)
    target_include_directories(regression_${name} PRIVATE ${VX_SDK_SOURCE_DIR}/regression/${name}
                                                          ${VX_SDK_INCLUDE_DIR})
    target_link_libraries(regression_${name} PRIVATE ${rt})
    set_target_properties(regression_${name} PROPERTIES OUTPUT_NAME ${name}
                                                        RUNTIME_OUTPUT_DIRECTORY ${dir})
    add_dependencies(regression_${name} regression_${name}_kernel)
    vxsynth_warnings(regression_${name})
    if(VXSYNTH_BUILD_TESTS)
      foreach(cfgrow IN LISTS VX_REGRESSION_CONFIGS)
        string(REPLACE "|" ";" c "${cfgrow}")
        list(GET c 0 cfg)
        list(GET c 1 cores)
        list(GET c 2 warps)
        list(GET c 3 threads)
        _vx_add_regression_test(${name} ${cfg} ${cores} ${warps} ${threads} "${args}" ${dir})
      endforeach()
      if(name STREQUAL "gbar")
        _vx_add_regression_test(${name} 2c4w4t 2 4 4 "${args}" ${dir})
      endif()
    endif()
  endforeach()

  # The same programs on several host threads give the serial run's results (docs/vxsim.md
  # "Parallel simulation"): shapes of several partitions, both modes, every counter.
  if(VXSYNTH_BUILD_TESTS)
    add_test(NAME sdk.regression.parallel_identical
             COMMAND bash ${VX_SDK_SOURCE_DIR}/regression/parallel_identical.sh ${CMAKE_BINARY_DIR})
    set_tests_properties(sdk.regression.parallel_identical PROPERTIES TIMEOUT 300)
  endif()

  # sgemm_tcu: one host program per warp width, run on the configuration with that width.
  foreach(cfgrow IN LISTS VX_REGRESSION_CONFIGS)
    string(REPLACE "|" ";" c "${cfgrow}")
    list(GET c 0 cfg)
    list(GET c 1 cores)
    list(GET c 2 warps)
    list(GET c 3 threads)
    set(dir ${CMAKE_BINARY_DIR}/sdk/regression/sgemm_tcu/nt${threads})
    set(exe regression_sgemm_tcu_nt${threads})
    if(NOT TARGET ${exe})
      add_executable(${exe} ${VX_SDK_SOURCE_DIR}/regression/sgemm_tcu/main.cpp)
      target_include_directories(${exe} PRIVATE ${VX_SDK_SOURCE_DIR}/regression/sgemm_tcu ${VX_SDK_INCLUDE_DIR})
      target_compile_definitions(${exe} PRIVATE NUM_THREADS=${threads})
      target_link_libraries(${exe} PRIVATE ${rt})
      set_target_properties(${exe} PROPERTIES OUTPUT_NAME sgemm_tcu RUNTIME_OUTPUT_DIRECTORY ${dir})
      add_dependencies(${exe} regression_sgemm_tcu_nt${threads}_kernel)
      vxsynth_warnings(${exe})
    endif()
    if(VXSYNTH_BUILD_TESTS)
      get_property(env_tmpl GLOBAL PROPERTY VX_RUNTIME_CONFIG_ENV)
      set(env)
      foreach(e IN LISTS env_tmpl)
        string(REPLACE "<C>" "${cores}" e "${e}")
        string(REPLACE "<W>" "${warps}" e "${e}")
        string(REPLACE "<T>" "${threads}" e "${e}")
        list(APPEND env "${e}")
      endforeach()
      add_test(NAME sdk.regression.sgemm_tcu.${cfg} COMMAND ${exe} -n32 WORKING_DIRECTORY ${dir})
      set_tests_properties(sdk.regression.sgemm_tcu.${cfg} PROPERTIES
        ENVIRONMENT "${env}" FAIL_REGULAR_EXPRESSION "FAILED!" SKIP_RETURN_CODE 77 TIMEOUT 300)
    endif()
  endforeach()
endfunction()
cmake_language(DEFER DIRECTORY ${CMAKE_SOURCE_DIR} CALL _vx_sdk_register_regressions)
