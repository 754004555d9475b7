# VortexKernel.cmake — builds Vortex 2.x kernels with Debian's riscv64-unknown-elf-gcc + picolibc.
#
# Included by the top-level CMakeLists.txt when VXSYNTH_KERNELS=ON. Provides:
#   VX_CC, VX_CXX, VX_OBJDUMP, VX_OBJCOPY, VX_READELF, VX_AR   tool paths
#   VX_ARCH_FLAGS, VX_CFLAGS_LIST, VX_CXXFLAGS_LIST, VX_LDFLAGS_LIST   flags (lists)
#   VX_MULTILIB                                                 picolibc/libgcc multilib picked
#   vx_add_kernel(<target> SOURCES ... [INCLUDE_DIRS ...] [DEFINES ...] [COMPILE_OPTIONS ...]
#                 [OUTPUT_DIR dir])
#     -> <dir>/kernel.elf, <dir>/kernel.vxbin, <dir>/kernel.dump (default dir:
#        ${CMAKE_CURRENT_BINARY_DIR}/<target>); target properties VX_KERNEL_DIR, VX_KERNEL_ELF,
#        VX_KERNEL_VXBIN, VX_KERNEL_DUMP.
# The SDK device library (libvxsdk.a) and the vxbin host tool are built by sdk/CMakeLists.txt,
# which also writes ${CMAKE_BINARY_DIR}/sdk/sdk.mk for plain-make builds. Flags and their sources:
# docs/sdk.md "Build flags".

set(_vx_hint "Install the Debian packages gcc-riscv64-unknown-elf, binutils-riscv64-unknown-elf \
and picolibc-riscv64-unknown-elf (scripts/install-deps.sh does), or configure with \
-DVXSYNTH_KERNELS=OFF to skip every kernel and simulator test that needs them.")

find_program(VX_CXX riscv64-unknown-elf-g++)
find_program(VX_CC riscv64-unknown-elf-gcc)
find_program(VX_OBJDUMP riscv64-unknown-elf-objdump)
find_program(VX_OBJCOPY riscv64-unknown-elf-objcopy)
find_program(VX_READELF riscv64-unknown-elf-readelf)
find_program(VX_AR riscv64-unknown-elf-ar)
foreach(_tool VX_CXX VX_CC VX_OBJDUMP VX_OBJCOPY VX_READELF VX_AR)
  if(NOT ${_tool})
    message(FATAL_ERROR "VXSYNTH_KERNELS=ON but ${_tool} (riscv64-unknown-elf-*) was not found. ${_vx_hint}")
  endif()
endforeach()

# Architecture: RV32IMAF, ILP32F, no C extension (Vortex 2.x has no RVC; docs/vortex.md §1.1).
set(VX_ARCH_FLAGS -march=rv32imaf -mabi=ilp32f)

execute_process(COMMAND ${VX_CC} -print-file-name=picolibc.specs
                OUTPUT_VARIABLE _vx_specs OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT IS_ABSOLUTE "${_vx_specs}" OR NOT EXISTS "${_vx_specs}")
  message(FATAL_ERROR "VXSYNTH_KERNELS=ON but picolibc (picolibc.specs) was not found for ${VX_CC}. ${_vx_hint}")
endif()
execute_process(COMMAND ${VX_CC} --specs=picolibc.specs ${VX_ARCH_FLAGS} -print-multi-directory
                OUTPUT_VARIABLE VX_MULTILIB OUTPUT_STRIP_TRAILING_WHITESPACE)
if(VX_MULTILIB MATCHES "^rv(32|64)[^/]*c")
  message(FATAL_ERROR "riscv64-unknown-elf-gcc picked multilib '${VX_MULTILIB}' for ${VX_ARCH_FLAGS}; "
                      "it contains the C extension, which Vortex cannot execute.")
endif()
message(STATUS "Vortex kernels: ${VX_CXX} + picolibc, multilib ${VX_MULTILIB}")

# Compile flags shared by the SDK library and every kernel (docs/vortex.md §4.5, §12):
#  -O3 -mcmodel=medany -ffunction/data-sections  as Vortex's kernel build
#  -fno-jump-tables   a thread-dependent switch must not become an indirect jump (wrong results)
#  -fno-thread-jumps  jump threading duplicates a SPLIT/PRED into both outcomes of the lane
#                     condition, i.e. branches divergently before it (seen on sdk/regression/diverge)
set(VX_CFLAGS_LIST --specs=picolibc.specs ${VX_ARCH_FLAGS} -O3 -mcmodel=medany
    -fno-jump-tables -fno-thread-jumps -ffunction-sections -fdata-sections -DXLEN_32 -DNDEBUG)
set(VX_SDK_SOURCE_DIR ${CMAKE_CURRENT_LIST_DIR}/../sdk)
get_filename_component(VX_SDK_SOURCE_DIR "${VX_SDK_SOURCE_DIR}" ABSOLUTE)
#  C++: no RTTI/exceptions (Vortex), no thread-safe statics (no libstdc++/libsupc++ here); the
#  SDK's freestanding C++ headers (sdk/cxx: <algorithm>, <cstdlib>, <cmath> with float overloads,
#  ...; Debian ships no C++ library for riscv64-unknown-elf), for C++ sources only. -I, not
#  -isystem: picolibc.specs adds its include directory with -isystem ahead of any -isystem given
#  here, so sdk/cxx/math.h (the float overloads) was shadowed by picolibc's <math.h> and a kernel
#  including only <math.h> got double fmin/fmax/sqrt in software. -I directories come before
#  every -isystem one; each sdk/cxx header says `#pragma GCC system_header`.
set(VX_CXXFLAGS_LIST ${VX_CFLAGS_LIST} -fno-rtti -fno-exceptions -fno-threadsafe-statics
    -I${VX_SDK_SOURCE_DIR}/cxx)
set(VX_SDK_INCLUDE_DIR ${VX_SDK_SOURCE_DIR}/include)
set(VX_LINK_SCRIPT ${VX_SDK_SOURCE_DIR}/scripts/link32.ld)
set(VX_STARTUP_ADDR 0x80000000)
set(VX_SDK_LIB ${CMAKE_BINARY_DIR}/sdk/libvxsdk.a)

# Link: our startup instead of picolibc's crt0 (-nostartfiles), explicit libraries (-nostdlib:
# Debian ships no riscv libstdc++), one group so picolibc can call back into the SDK (_exit,
# stdout).
set(VX_LDFLAGS_LIST -nostartfiles -nostdlib -T ${VX_LINK_SCRIPT}
    -Wl,--defsym=STARTUP_ADDR=${VX_STARTUP_ADDR} -Wl,--gc-sections
    -Wl,--start-group ${VX_SDK_LIB} -lm -lc -lgcc -Wl,--end-group)

# vx_add_kernel(<target> SOURCES ... [INCLUDE_DIRS ...] [DEFINES ...] [COMPILE_OPTIONS ...]
#               [OUTPUT_DIR dir])
function(vx_add_kernel target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "OUTPUT_DIR" "SOURCES;INCLUDE_DIRS;DEFINES;COMPILE_OPTIONS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "vx_add_kernel(${target}): unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "vx_add_kernel(${target}): SOURCES is required")
  endif()
  if(NOT TARGET vxsdk_device OR NOT TARGET vxbin)
    message(FATAL_ERROR "vx_add_kernel(${target}): the SDK (sdk/) must be added first")
  endif()
  if(NOT ARG_OUTPUT_DIR)
    set(ARG_OUTPUT_DIR ${CMAKE_CURRENT_BINARY_DIR}/${target})
  endif()
  get_filename_component(out "${ARG_OUTPUT_DIR}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  set(objdir ${out}/obj)
  file(MAKE_DIRECTORY ${objdir})

  set(incs -I${VX_SDK_INCLUDE_DIR})
  foreach(d IN LISTS ARG_INCLUDE_DIRS)
    get_filename_component(d "${d}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND incs -I${d})
  endforeach()
  set(defs)
  foreach(d IN LISTS ARG_DEFINES)
    list(APPEND defs -D${d})
  endforeach()

  set(objects)
  set(has_cxx FALSE)
  foreach(src IN LISTS ARG_SOURCES)
    get_filename_component(src "${src}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    get_filename_component(base "${src}" NAME)
    get_filename_component(ext "${src}" LAST_EXT)
    if(ext STREQUAL ".c" OR ext STREQUAL ".S" OR ext STREQUAL ".s")
      set(compiler ${VX_CC})
      set(flags ${VX_CFLAGS_LIST})
    elseif(ext MATCHES "^\\.(cpp|cc|cxx)$")
      set(compiler ${VX_CXX})
      set(flags ${VX_CXXFLAGS_LIST})
      set(has_cxx TRUE)
    else()
      message(FATAL_ERROR "vx_add_kernel(${target}): unsupported source type '${src}'")
    endif()
    set(obj ${objdir}/${base}.o)
    add_custom_command(
      OUTPUT ${obj}
      COMMAND ${compiler} ${flags} ${ARG_COMPILE_OPTIONS} ${incs} ${defs}
              -MD -MF ${obj}.d -c ${src} -o ${obj}
      DEPENDS ${src}
      DEPFILE ${obj}.d
      COMMENT "Vortex kernel ${target}: compiling ${base}"
      VERBATIM)
    list(APPEND objects ${obj})
  endforeach()

  set(linker ${VX_CC})
  if(has_cxx)
    set(linker ${VX_CXX})
  endif()
  add_custom_command(
    OUTPUT ${out}/kernel.elf
    COMMAND ${linker} ${VX_ARCH_FLAGS} --specs=picolibc.specs ${objects} ${VX_LDFLAGS_LIST}
            -o ${out}/kernel.elf
    DEPENDS ${objects} vxsdk_device ${VX_SDK_LIB} ${VX_LINK_SCRIPT}
    COMMENT "Vortex kernel ${target}: linking kernel.elf"
    VERBATIM)
  add_custom_command(
    OUTPUT ${out}/kernel.vxbin
    COMMAND vxbin ${out}/kernel.elf ${out}/kernel.vxbin
    DEPENDS ${out}/kernel.elf vxbin
    COMMENT "Vortex kernel ${target}: kernel.vxbin"
    VERBATIM)
  add_custom_command(
    OUTPUT ${out}/kernel.dump
    COMMAND sh -c "\"$0\" -D \"$1\" > \"$2\"" ${VX_OBJDUMP} ${out}/kernel.elf ${out}/kernel.dump
    DEPENDS ${out}/kernel.elf
    COMMENT "Vortex kernel ${target}: kernel.dump"
    VERBATIM)
  add_custom_target(${target} ALL DEPENDS ${out}/kernel.elf ${out}/kernel.vxbin ${out}/kernel.dump)
  set_target_properties(${target} PROPERTIES
    VX_KERNEL_DIR ${out}
    VX_KERNEL_ELF ${out}/kernel.elf
    VX_KERNEL_VXBIN ${out}/kernel.vxbin
    VX_KERNEL_DUMP ${out}/kernel.dump)
endfunction()
