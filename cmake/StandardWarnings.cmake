# Warnings as an INTERFACE target: link `wacamp_warnings` to get them.
add_library(wacamp_warnings INTERFACE)
target_compile_options(wacamp_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow
                       -Wnon-virtual-dtor -Wcast-align -Woverloaded-virtual)
if(WACAMP_WERROR)
  target_compile_options(wacamp_warnings INTERFACE -Werror)
endif()
