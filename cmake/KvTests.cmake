# How tests are registered and labelled. Every ctest test carries one label, so
# `deploy/test.sh -L unit` (or component, cluster, e2e, fuzz, lint) runs one layer:
#   - a Catch2 binary (kv_catch_test) takes the label of the tests/ folder of its first source:
#     unit/, component/, cluster/ or fuzz/;
#   - a script test (add_test) takes the first part of its name: e2e.*, fuzz.*, lint.*; the
#     first kv_catch_test of a folder schedules that for the end of the folder (CMake 3.25 can
#     set a test's properties only from the folder that added it), and tests/CMakeLists.txt
#     labels tests/fuzz/, which has no Catch2 binary, as a whole.
# lint.test_labels fails when a test has no label all the same.

# The label of a Catch2 binary: the tests/ folder its first source file is in.
function(kv_test_label_of_target target out_var)
  get_target_property(sources ${target} SOURCES)
  get_target_property(source_dir ${target} SOURCE_DIR)
  list(GET sources 0 first)
  if(NOT IS_ABSOLUTE "${first}")
    set(first "${source_dir}/${first}")
  endif()
  file(RELATIVE_PATH relative "${PROJECT_SOURCE_DIR}/tests" "${first}")
  string(REGEX MATCH "^[^/]+" folder "${relative}")
  if(NOT folder MATCHES "^(unit|component|cluster|fuzz)$")
    message(FATAL_ERROR "kv_catch_test(${target}): its first source tests/${relative} is not "
      "under tests/unit, tests/component, tests/cluster or tests/fuzz, so it has no label")
  endif()
  set(${out_var} ${folder} PARENT_SCOPE)
endfunction()

# Labels the tests this folder added with add_test that have no label, from their name's first
# part (e2e.x -> e2e); a test named otherwise is a configure error.
function(kv_label_script_tests)
  get_property(tests DIRECTORY PROPERTY TESTS)
  foreach(test IN LISTS tests)
    get_test_property(${test} LABELS labels)
    if(labels)
      continue()
    endif()
    string(REGEX MATCH "^[^.]+" prefix "${test}")
    if(NOT prefix MATCHES "^(e2e|fuzz|lint)$")
      message(FATAL_ERROR "test ${test} (${CMAKE_CURRENT_SOURCE_DIR}) has no label: name it "
        "e2e.*, fuzz.* or lint.*, or give it LABELS (unit, component, cluster, e2e, fuzz, lint)")
    endif()
    set_tests_properties(${test} PROPERTIES LABELS ${prefix})
  endforeach()
endfunction()

function(kv_catch_test target)
  target_link_libraries(${target} PRIVATE Catch2::Catch2WithMain kv_test_support kv_fakes)
  kv_target_defaults(${target})
  kv_test_label_of_target(${target} label)
  # --warn NoTests: a test whose name CTest split or mangled (a ";" in it) matches nothing and
  # fails, instead of passing without running.
  catch_discover_tests(${target} EXTRA_ARGS --warn NoTests PROPERTIES TIMEOUT 120 LABELS ${label})
  get_property(deferred DIRECTORY PROPERTY KV_SCRIPT_LABELS_DEFERRED)
  if(NOT deferred)
    set_property(DIRECTORY PROPERTY KV_SCRIPT_LABELS_DEFERRED TRUE)
    cmake_language(DEFER CALL kv_label_script_tests)
  endif()
endfunction()
