# Builds and runs the consumer project (consumer/) the ways an application links clsort. Run by CTest:
#   cmake -DMODE=install|subdirectory -DCLSORT_BUILD_DIR=... -DCLSORT_SOURCE_DIR=... -DWORK_DIR=...
#         -DGENERATOR=... -DCONFIG=... -DCC=... -DCXX=... -DLIBDIR=... -DVERSION=... -P consumer_test.cmake
# install: `cmake --install` into WORK_DIR/prefix, then find_package, pkg-config and the installed tool.
# subdirectory: add_subdirectory of the source tree, static only.
cmake_minimum_required(VERSION 3.21)

function(run)
  cmake_parse_arguments(R "" "WORKING_DIRECTORY;OUTPUT" "" ${ARGN})
  if(NOT R_WORKING_DIRECTORY)
    set(R_WORKING_DIRECTORY ${WORK_DIR})
  endif()
  string(REPLACE ";" " " shown "${R_UNPARSED_ARGUMENTS}")
  message(STATUS "$ ${shown}")
  execute_process(COMMAND ${R_UNPARSED_ARGUMENTS} WORKING_DIRECTORY ${R_WORKING_DIRECTORY}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  string(STRIP "${out}" out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}):\n${out}")
  endif()
  if(R_OUTPUT)
    set(${R_OUTPUT} "${out}" PARENT_SCOPE)
  endif()
endfunction()

# Shows the programs' own lines; the build logs only when something fails.
function(run_shown)
  run(${ARGN} OUTPUT out)
  message(STATUS "${out}")
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
set(consumer_build ${WORK_DIR}/consumer-build)
set(configure ${CMAKE_COMMAND} -S ${CLSORT_SOURCE_DIR}/tests/package/consumer -B ${consumer_build} -G ${GENERATOR}
              -DCMAKE_BUILD_TYPE=${CONFIG} -DCMAKE_C_COMPILER=${CC} -DCMAKE_CXX_COMPILER=${CXX})
set(build ${CMAKE_COMMAND} --build ${consumer_build} --config ${CONFIG} --parallel 2)
# Multi-config generators put executables under a directory per configuration.
set(exe_dir ${consumer_build})
if(EXISTS ${consumer_build}/${CONFIG})
  set(exe_dir ${consumer_build}/${CONFIG})
endif()

if(MODE STREQUAL "install")
  set(prefix ${WORK_DIR}/prefix)
  run(${CMAKE_COMMAND} --install ${CLSORT_BUILD_DIR} --prefix ${prefix} --config ${CONFIG})
  file(GLOB_RECURSE installed RELATIVE ${prefix} ${prefix}/*)
  list(SORT installed)
  list(JOIN installed "\n  " shown)
  message(STATUS "installed:\n  ${shown}")
  foreach(f include/clsort/clsort.hpp include/clsort/clsort.h include/clsort/key_types.h include/clsort/key_types.hpp include/clsort/version.hpp
            ${LIBDIR}/cmake/clsort/clsortConfig.cmake ${LIBDIR}/cmake/clsort/clsortConfigVersion.cmake
            ${LIBDIR}/pkgconfig/clsort.pc)
    if(NOT EXISTS ${prefix}/${f})
      message(FATAL_ERROR "not installed: ${f}")
    endif()
  endforeach()

  # The tool reports the project's version (the CLI is installed by tools/ when built).
  if(EXISTS ${prefix}/bin/clsort)
    run(${prefix}/bin/clsort --version OUTPUT out)
    message(STATUS "${out}")
    if(NOT out MATCHES "${VERSION}")
      message(FATAL_ERROR "clsort --version does not report ${VERSION}")
    endif()
  endif()

  # find_package from a prefix, as an application does.
  run(${configure} -DCMAKE_PREFIX_PATH=${prefix})
  run(${build})
  run_shown(${exe_dir}/consumer)
  run_shown(${exe_dir}/consumer_c)

  # pkg-config with a plain compiler command, exactly as a Makefile would write it.
  find_program(PKG_CONFIG NAMES pkg-config pkgconf)
  find_program(SH sh)
  if(NOT PKG_CONFIG OR NOT SH)
    message(STATUS "pkg-config or sh not found: pkg-config checks skipped")
    return()
  endif()
  set(ENV{PKG_CONFIG_PATH} ${prefix}/${LIBDIR}/pkgconfig)
  run(${PKG_CONFIG} --modversion clsort OUTPUT pc_version)
  if(NOT pc_version STREQUAL VERSION)
    message(FATAL_ERROR "pkg-config reports version ${pc_version}, the project is ${VERSION}")
  endif()
  run(${PKG_CONFIG} --cflags --libs clsort OUTPUT flags)
  message(STATUS "pkg-config --cflags --libs clsort: ${flags}")
  set(src ${CLSORT_SOURCE_DIR}/tests/package/consumer)
  set(rpath "-Wl,-rpath,$(${PKG_CONFIG} --variable=libdir clsort)")
  run(${SH} -c "${CXX} -std=c++17 -O1 -o consumer_pc ${src}/main.cpp $(${PKG_CONFIG} --cflags --libs clsort) ${rpath}")
  run_shown(${WORK_DIR}/consumer_pc)
  run(${SH} -c "${CC} -std=c99 -O1 -o consumer_pc_c ${src}/main.c $(${PKG_CONFIG} --cflags --libs clsort) ${rpath}")
  run_shown(${WORK_DIR}/consumer_pc_c)
elseif(MODE STREQUAL "subdirectory")
  # Static only, the configuration the install test does not cover (and one link fewer).
  run(${configure} -DCLSORT_CONSUMER_MODE=subdirectory -DCLSORT_SOURCE_DIR=${CLSORT_SOURCE_DIR}
      -DCLSORT_BUILD_SHARED=OFF)
  run(${build})
  run_shown(${exe_dir}/consumer)
  run_shown(${exe_dir}/consumer_c)
else()
  message(FATAL_ERROR "MODE must be install or subdirectory")
endif()
