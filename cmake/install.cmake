# Packaging: the static twin of a shared clsort, the `docs` target, install rules, the CMake package
# (clsortConfig.cmake) and clsort.pc. Included at the end of the top-level CMakeLists.txt, once every
# target exists.
include(CMakePackageConfigHelpers)

# On by default also under add_subdirectory/FetchContent: an application linking the shared library
# installs it with its own targets. A parent that links statically may turn this off.
option(CLSORT_INSTALL "Generate clsort's install rules" ON)

set(CLSORT_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/clsort CACHE STRING
    "Where clsortConfig.cmake goes, relative to the prefix")

# ---- Libraries -----------------------------------------------------------------------------------------
# Pre-1.0 minor releases may break the ABI, so the SONAME carries the minor version until 1.0.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(CLSORT_SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
  set(CLSORT_COMPATIBILITY SameMinorVersion)
else()
  set(CLSORT_SOVERSION ${PROJECT_VERSION_MAJOR})
  set(CLSORT_COMPATIBILITY SameMajorVersion)
endif()
set(CLSORT_INSTALLED_TARGETS clsort)
get_target_property(_clsort_type clsort TYPE)
if(_clsort_type STREQUAL "SHARED_LIBRARY")
  set_target_properties(clsort PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION ${CLSORT_SOVERSION}
                                          WINDOWS_EXPORT_ALL_SYMBOLS ON)
  # The static library reuses the shared library's objects (they are position independent anyway), so
  # nothing compiles twice; it takes the same usage requirements, copied verbatim so that the
  # BUILD_INTERFACE/INSTALL_INTERFACE expressions and $<LINK_ONLY:> private dependencies carry over.
  add_library(clsort_static STATIC $<TARGET_OBJECTS:clsort>)
  add_library(clsort::clsort_static ALIAS clsort_static)
  foreach(_prop INTERFACE_INCLUDE_DIRECTORIES INTERFACE_SYSTEM_INCLUDE_DIRECTORIES INTERFACE_COMPILE_DEFINITIONS
                INTERFACE_COMPILE_OPTIONS INTERFACE_COMPILE_FEATURES INTERFACE_LINK_LIBRARIES)
    get_target_property(_value clsort ${_prop})
    if(_value)
      set_property(TARGET clsort_static PROPERTY ${_prop} "${_value}")
    endif()
  endforeach()
  # A static library must carry its private dependencies to whoever links it.
  set_property(TARGET clsort_static APPEND PROPERTY INTERFACE_LINK_LIBRARIES $<LINK_ONLY:Threads::Threads>)
  # libclsort.a beside libclsort.so; on Windows the import library would take that name.
  if(NOT WIN32)
    set_target_properties(clsort_static PROPERTIES OUTPUT_NAME clsort)
  endif()
  list(APPEND CLSORT_INSTALLED_TARGETS clsort_static)
else()
  # Static only: one library under both names, as the installed package config also provides.
  add_library(clsort::clsort_static ALIAS clsort)
endif()

# The installed tool finds the shared library beside it wherever the tree is unpacked.
if(TARGET clsort_cli AND _clsort_type STREQUAL "SHARED_LIBRARY")
  if(APPLE)
    set_target_properties(clsort_cli PROPERTIES INSTALL_RPATH "@loader_path/../${CMAKE_INSTALL_LIBDIR}")
  elseif(UNIX)
    set_target_properties(clsort_cli PROPERTIES INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")
  endif()
endif()

# ---- Documentation ---------------------------------------------------------------------------------------
# `docs` at the top level; under a parent project `clsort_docs`, as the parent may have a `docs` of its own.
if(PROJECT_IS_TOP_LEVEL)
  set(CLSORT_DOCS_TARGET docs)
else()
  set(CLSORT_DOCS_TARGET clsort_docs)
endif()
find_package(Doxygen QUIET)
if(DOXYGEN_FOUND)
  set(DOXYGEN_PROJECT_NAME clsort)
  set(DOXYGEN_PROJECT_NUMBER ${PROJECT_VERSION})
  set(DOXYGEN_PROJECT_BRIEF "${PROJECT_DESCRIPTION}")
  set(DOXYGEN_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/doxygen)
  set(DOXYGEN_USE_MDFILE_AS_MAINPAGE ${PROJECT_SOURCE_DIR}/README.md)
  set(DOXYGEN_STRIP_FROM_PATH ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}/generated)
  set(DOXYGEN_STRIP_FROM_INC_PATH ${PROJECT_SOURCE_DIR}/host/include ${PROJECT_BINARY_DIR}/generated/include)
  set(DOXYGEN_EXCLUDE_SYMBOLS detail clsort::detail)
  set(DOXYGEN_EXTRACT_ALL YES)
  set(DOXYGEN_GENERATE_LATEX NO)
  set(DOXYGEN_WARN_IF_UNDOCUMENTED NO)
  doxygen_add_docs(${CLSORT_DOCS_TARGET} ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/CHANGELOG.md
                   ${PROJECT_SOURCE_DIR}/docs/design.md ${PROJECT_SOURCE_DIR}/docs/benchmarks.md
                   ${PROJECT_SOURCE_DIR}/host/include/clsort
                   ${PROJECT_BINARY_DIR}/generated/include/clsort/version.hpp
                   COMMENT "API reference (Doxygen) in ${PROJECT_BINARY_DIR}/doxygen/html")
else()
  add_custom_target(${CLSORT_DOCS_TARGET}
                    COMMAND ${CMAKE_COMMAND} -E echo "doxygen not found: install it and re-run cmake"
                    COMMAND ${CMAKE_COMMAND} -E false)
endif()

if(NOT CLSORT_INSTALL)
  return()
endif()

# ---- Install rules ---------------------------------------------------------------------------------------
install(TARGETS ${CLSORT_INSTALLED_TARGETS} EXPORT clsortTargets
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT development
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/host/include/clsort DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        COMPONENT development FILES_MATCHING PATTERN "*.hpp" PATTERN "*.h")
install(FILES ${PROJECT_BINARY_DIR}/generated/include/clsort/version.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/clsort COMPONENT development)
install(EXPORT clsortTargets NAMESPACE clsort:: DESTINATION ${CLSORT_INSTALL_CMAKEDIR} COMPONENT development)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/clsortConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/generated/clsortConfig.cmake
                              INSTALL_DESTINATION ${CLSORT_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/generated/clsortConfigVersion.cmake
                                 COMPATIBILITY ${CLSORT_COMPATIBILITY})
install(FILES ${PROJECT_BINARY_DIR}/generated/clsortConfig.cmake
              ${PROJECT_BINARY_DIR}/generated/clsortConfigVersion.cmake
        DESTINATION ${CLSORT_INSTALL_CMAKEDIR} COMPONENT development)

# ---- pkg-config ------------------------------------------------------------------------------------------
# Paths relative to ${pcfiledir}, so `cmake --install --prefix` anywhere yields a working file.
set(_pcdir ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}" OR IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(CLSORT_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(CLSORT_PC_LIBDIR "${CMAKE_INSTALL_FULL_LIBDIR}")
  set(CLSORT_PC_INCLUDEDIR "${CMAKE_INSTALL_FULL_INCLUDEDIR}")
else()
  file(RELATIVE_PATH _up /prefix/${_pcdir} /prefix)
  string(REGEX REPLACE "/$" "" _up "${_up}")
  set(CLSORT_PC_PREFIX "\${pcfiledir}/${_up}")
  set(CLSORT_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
  set(CLSORT_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
# The C++ bindings' directory, unless the compiler searches it anyway.
set(CLSORT_PC_CLHPP_CFLAGS "")
if(NOT CLSORT_CLHPP_DIR IN_LIST CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES)
  set(CLSORT_PC_CLHPP_CFLAGS " -I${CLSORT_CLHPP_DIR}")
endif()
# What a static link (pkg-config --static) of C code needs besides OpenCL.
set(CLSORT_PC_LIBS_PRIVATE "-lstdc++ -lm -pthread")
configure_file(${PROJECT_SOURCE_DIR}/cmake/clsort.pc.in ${PROJECT_BINARY_DIR}/generated/clsort.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/generated/clsort.pc DESTINATION ${_pcdir} COMPONENT development)

# clsort_mpi's install rules, export and clsort-mpi.pc (cmake/mpi.cmake), when it is built.
if(TARGET clsort_mpi)
  clsort_mpi_install()
endif()
