# vxsynth_warnings(target): the project's warning set. Every C++ target calls it.
function(vxsynth_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
    -Wno-sign-conversion -Wnon-virtual-dtor -Wold-style-cast -Wcast-align -Woverloaded-virtual
    -Wnull-dereference -Wimplicit-fallthrough)
  if(VXSYNTH_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
