# Fails if any kernel (KERNELS: the kernels/ directory) uses double or half precision or enables
# cl_khr_fp64: clsort sorts f64 keys as bits, so it must build on devices without double support.
file(GLOB sources ${KERNELS}/*.cl)
if(NOT sources)
  message(FATAL_ERROR "no kernels in ${KERNELS}")
endif()
foreach(source ${sources})
  file(READ ${source} text)
  string(REGEX REPLACE "/\\*([^*]|\\*+[^*/])*\\*+/" "" text "${text}")  # block comments
  string(REGEX REPLACE "//[^\n]*" "" text "${text}")                     # line comments
  if(text MATCHES "(^|[^A-Za-z0-9_])(double[0-9]*|half[0-9]*|cl_khr_fp64|cl_khr_fp16)([^A-Za-z0-9_]|$)")
    message(FATAL_ERROR "${source} uses '${CMAKE_MATCH_2}' outside comments")
  endif()
endforeach()
list(LENGTH sources count)
message(STATUS "${count} kernel files: no double, half or fp64/fp16 extension")
