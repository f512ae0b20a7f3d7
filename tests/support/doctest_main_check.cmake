# Checks the shared doctest main (doctest_main.cpp) in every doctest executable. Run by CTest:
#   cmake "-DPROGRAMS=<exe>;<exe>..." -DSELF=<clsort_test_doctest_main> -P doctest_main_check.cmake
# Each program, given a --test-case filter that selects nothing, must exit non-zero and say "no test case
# matched the filters". SELF (one trivial test case) must also pass a filter that selects it, fail when
# --test-case-exclude leaves nothing, and exit 0 on reporting runs (--list-test-cases, --count, ...) that
# select nothing.
cmake_minimum_required(VERSION 3.21)

set(nothing "--test-case=no test case is called this")
set(message "no test case matched the filters")

# run(<expect: pass|fail|fail_message> <program> <args>...)
function(run expect program)
  execute_process(COMMAND ${program} ${ARGN} --no-version --force-colors=false RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE out)
  get_filename_component(name ${program} NAME)
  string(REPLACE ";" " " shown "${name} ${ARGN}")
  if(expect STREQUAL "pass" AND NOT rc EQUAL 0)
    message(SEND_ERROR "${shown}: exited ${rc}, expected 0:\n${out}")
  elseif(expect MATCHES "^fail" AND rc EQUAL 0)
    message(SEND_ERROR "${shown}: exited 0, expected a failure:\n${out}")
  elseif(expect STREQUAL "fail_message" AND NOT out MATCHES "${message}")
    message(SEND_ERROR "${shown}: exited ${rc} without \"${message}\":\n${out}")
  else()
    message(STATUS "${shown}: exited ${rc} as expected")
  endif()
endfunction()

if(NOT PROGRAMS OR NOT SELF)
  message(FATAL_ERROR "PROGRAMS and SELF must be set")
endif()
foreach(program ${PROGRAMS})
  run(fail_message ${program} "${nothing}")
endforeach()

run(pass ${SELF})
run(pass ${SELF} "--test-case=doctest main runs a matched case")
run(fail_message ${SELF} "--test-case-exclude=*")
run(fail_message ${SELF} "--source-file=no_such_file.cpp")
foreach(query --list-test-cases --list-test-suites --count --help --version --list-reporters --no-run)
  run(pass ${SELF} ${query} "${nothing}")
endforeach()
