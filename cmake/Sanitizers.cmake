# ASan + UBSan as an INTERFACE target, switched on by WACAMP_SANITIZE.
add_library(wacamp_sanitizers INTERFACE)
if(WACAMP_SANITIZE)
  set(_san -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  target_compile_options(wacamp_sanitizers INTERFACE ${_san})
  target_link_options(wacamp_sanitizers INTERFACE ${_san})
endif()
