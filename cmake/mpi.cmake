# clsort_mpi (clsort::clsort_mpi): the sort across MPI ranks (host/mpi, clsort/mpi.hpp), built beside the
# core library when MPI is found; the core library itself never links MPI. Open MPI (Debian:
# libopenmpi-dev openmpi-bin) and MPICH (libmpich-dev mpich: configure with
# -DMPI_CXX_COMPILER=/usr/bin/mpicxx.mpich, or put the wanted mpicxx first in PATH) both build it.
find_package(MPI COMPONENTS CXX QUIET)
option(CLSORT_MPI "Build clsort_mpi, the sort across MPI ranks (on when MPI is found)" ${MPI_CXX_FOUND})
if(NOT CLSORT_MPI)
  return()
endif()
if(NOT MPI_CXX_FOUND)
  message(FATAL_ERROR "CLSORT_MPI is on but MPI was not found (Debian: libopenmpi-dev openmpi-bin)")
endif()
message(STATUS "clsort_mpi: MPI ${MPI_CXX_VERSION} found, building clsort_mpi")

file(GLOB CLSORT_MPI_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/host/mpi/*.cpp)
add_library(clsort_mpi ${CLSORT_LIBRARY_TYPE} ${CLSORT_MPI_SOURCES})
add_library(clsort::clsort_mpi ALIAS clsort_mpi)
target_include_directories(clsort_mpi PRIVATE ${PROJECT_SOURCE_DIR}/host/mpi)
target_link_libraries(clsort_mpi PUBLIC clsort::clsort MPI::MPI_CXX)
clsort_warnings(clsort_mpi)
set_target_properties(clsort_mpi PROPERTIES POSITION_INDEPENDENT_CODE ON CXX_VISIBILITY_PRESET hidden
                                            VISIBILITY_INLINES_HIDDEN ON)

# Install rules, the export (clsortMpiTargets.cmake, loaded by clsortConfig.cmake when MPI is found there
# too: find_package(clsort COMPONENTS mpi)) and clsort-mpi.pc; called by cmake/install.cmake.
function(clsort_mpi_install)
  get_target_property(type clsort_mpi TYPE)
  if(type STREQUAL "SHARED_LIBRARY")
    set_target_properties(clsort_mpi PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION ${CLSORT_SOVERSION})
  endif()
  install(TARGETS clsort_mpi EXPORT clsortMpiTargets
          RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT development
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development)
  install(EXPORT clsortMpiTargets NAMESPACE clsort:: DESTINATION ${CLSORT_INSTALL_CMAKEDIR}
          COMPONENT development)
  # pkg-config: MPI's own flags spelled out, so that a plain compiler works as well as mpicxx.
  set(cflags "")
  foreach(dir ${MPI_CXX_INCLUDE_DIRS})
    if(NOT dir IN_LIST CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES)
      string(APPEND cflags " -I${dir}")
    endif()
  endforeach()
  foreach(definition ${MPI_CXX_COMPILE_DEFINITIONS})
    string(APPEND cflags " -D${definition}")
  endforeach()
  set(libs "")
  foreach(lib ${MPI_CXX_LIBRARIES})
    string(APPEND libs " ${lib}")
  endforeach()
  set(CLSORT_PC_MPI_CFLAGS "${cflags}")
  set(CLSORT_PC_MPI_LIBS "${libs}")
  configure_file(${PROJECT_SOURCE_DIR}/cmake/clsort-mpi.pc.in ${PROJECT_BINARY_DIR}/generated/clsort-mpi.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/generated/clsort-mpi.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
          COMPONENT development)
endfunction()
