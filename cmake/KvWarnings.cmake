# Compiler warnings and the sanitizer build, applied to kvbench's own targets through
# kv_target_defaults() (generated protobuf code gets neither -Werror nor our warning set).

add_library(kv_build_flags INTERFACE)
target_compile_options(kv_build_flags INTERFACE -Wall -Wextra -Wpedantic -Wshadow=local
                       -Wnon-virtual-dtor -Wno-unused-parameter)
if(KV_WERROR)
  target_compile_options(kv_build_flags INTERFACE -Werror)
endif()

if(KV_SANITIZE)
  # GCC 12's -Wmaybe-uninitialized reports false positives inside libstdc++ (std::regex) and
  # Boost.Beast once ASan instruments the code; keep it a warning there, not an error.
  target_compile_options(kv_build_flags INTERFACE -Wno-error=maybe-uninitialized)
  set(KV_SANITIZER_FLAGS -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_compile_options(${KV_SANITIZER_FLAGS})
  add_link_options(-fsanitize=address,undefined)
  # -O1, as the sanitizers' authors advise: reports as good, compiles ~20% faster than -O2.
  set(CMAKE_CXX_FLAGS_RELWITHDEBINFO "-O1 ${KV_DEBUG_INFO} -DNDEBUG")
endif()

function(kv_target_defaults target)
  target_link_libraries(${target} PRIVATE kv_build_flags)
  if(KV_UNITY)
    # At the end of the folder that declared the target, when all its sources are known (EVAL:
    # a deferred call reads its variables when it runs, so the name goes in now).
    cmake_language(EVAL CODE "cmake_language(DEFER CALL kv_unity_batches [[${target}]])")
  endif()
endfunction()
