# The project's warning flags, written once: clsort_warnings(<target> [PRIVATE|PUBLIC|INTERFACE]).
# C++ sources get -Wall -Wextra -Wno-ignored-attributes (the OpenCL headers' attributed cl_* types as
# template arguments trip -Wignored-attributes), C sources -Wall -Wextra -Wpedantic; GCC and Clang only.
# The scope defaults to PRIVATE; PUBLIC or INTERFACE pass the flags on to whatever links the target.
function(clsort_warnings target)
  set(scope PRIVATE)
  if(ARGC GREATER 1)
    set(scope ${ARGV1})
  endif()
  target_compile_options(${target} ${scope}
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU,Clang>>:-Wall -Wextra -Wno-ignored-attributes>
    $<$<AND:$<COMPILE_LANGUAGE:C>,$<C_COMPILER_ID:GNU,Clang>>:-Wall -Wextra -Wpedantic>)
endfunction()
