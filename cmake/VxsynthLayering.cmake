# The layering check (docs/architecture.md, "Layers"): at generate time, after every directory has
# been read, writes the project's target graph (each target's component and the project targets it
# links, directly) to <build>/layering/targets.txt; the CTest `layering.targets` runs
# cmake/CheckLayering.cmake on it. Rules, checked there:
#   - the graph of libraries is acyclic;
#   - a library links only libraries of its own component or of an earlier one in
#     VXSYNTH_COMPONENTS (the order the top-level CMakeLists.txt adds them in), so nothing in sim/
#     links core/, check/, codegen/ or refine/. Executables (programs, tests) are where components
#     meet and may link any library.
# Two more tests feed the script graphs that break each rule and expect it to fail.

function(_vxsynth_collect_targets dir out)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    _vxsynth_collect_targets(${sub} more)
    list(APPEND targets ${more})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

# Direct project-target dependencies of `t` (LINK_LIBRARIES and INTERFACE_LINK_LIBRARIES, aliases
# resolved, $<LINK_ONLY:> unwrapped, imported and non-target items left out).
function(_vxsynth_link_deps t out)
  set(deps)
  foreach(prop LINK_LIBRARIES INTERFACE_LINK_LIBRARIES)
    get_target_property(items ${t} ${prop})
    if(NOT items)
      continue()
    endif()
    foreach(d IN LISTS items)
      if(d MATCHES "^\\$<LINK_ONLY:(.*)>$")
        set(d "${CMAKE_MATCH_1}")
      endif()
      if(NOT TARGET "${d}")
        continue()
      endif()
      get_target_property(aliased ${d} ALIASED_TARGET)
      if(aliased)
        set(d ${aliased})
      endif()
      get_target_property(imported ${d} IMPORTED)
      if(NOT imported)
        list(APPEND deps ${d})
      endif()
    endforeach()
  endforeach()
  list(REMOVE_DUPLICATES deps)
  set(${out} "${deps}" PARENT_SCOPE)
endfunction()

function(_vxsynth_write_layering)
  _vxsynth_collect_targets(${CMAKE_SOURCE_DIR} targets)
  set(text "# <kind> <component> <target> : <project targets it links>\n")
  foreach(t IN LISTS targets)
    get_target_property(type ${t} TYPE)
    if(type MATCHES "LIBRARY$")
      set(kind lib)
    elseif(type STREQUAL "EXECUTABLE")
      set(kind exe)
    else()
      continue()  # custom targets (kernels, generated files) link nothing
    endif()
    get_target_property(src ${t} SOURCE_DIR)
    file(RELATIVE_PATH rel ${CMAKE_SOURCE_DIR} ${src})
    string(REGEX REPLACE "/.*" "" component "${rel}")
    if(component STREQUAL "")
      set(component top)  # made by a call deferred to the top directory (e.g. the SDK's regression programs)
    endif()
    _vxsynth_link_deps(${t} deps)
    list(JOIN deps " " deps)
    string(APPEND text "${kind} ${component} ${t} : ${deps}\n")
  endforeach()
  file(WRITE ${CMAKE_BINARY_DIR}/layering/targets.txt "${text}")
endfunction()

function(vxsynth_layering_check)
  cmake_language(DEFER DIRECTORY ${CMAKE_SOURCE_DIR} CALL _vxsynth_write_layering)
  if(NOT VXSYNTH_BUILD_TESTS)
    return()
  endif()
  list(JOIN VXSYNTH_COMPONENTS "," order)
  set(script ${PROJECT_SOURCE_DIR}/cmake/CheckLayering.cmake)
  set(fixtures ${PROJECT_SOURCE_DIR}/cmake/layering-fixtures)
  add_test(NAME layering.targets
           COMMAND ${CMAKE_COMMAND} -DGRAPH=${CMAKE_BINARY_DIR}/layering/targets.txt -DORDER=${order} -P ${script})
  set_tests_properties(layering.targets PROPERTIES PASS_REGULAR_EXPRESSION "layering: [0-9]+ libraries, [0-9]+ executables, no violation")
  add_test(NAME layering.rejects_sim_linking_core
           COMMAND ${CMAKE_COMMAND} -DGRAPH=${fixtures}/sim-links-core.txt -DORDER=${order} -P ${script})
  set_tests_properties(layering.rejects_sim_linking_core PROPERTIES
    PASS_REGULAR_EXPRESSION "library vortex \\(sim\\) links vxsynth_core \\(core\\), a later component")
  add_test(NAME layering.rejects_cycle
           COMMAND ${CMAKE_COMMAND} -DGRAPH=${fixtures}/cycle.txt -DORDER=${order} -P ${script})
  set_tests_properties(layering.rejects_cycle PROPERTIES PASS_REGULAR_EXPRESSION "cycle: vxsim -> vxsim_timing -> vxsim")
endfunction()
