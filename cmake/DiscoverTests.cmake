# Builds the test runner and registers every TEST_CASE(name) found in
# tests/*.c with CTest, twice: once on the arithmetic path CPUID selects and
# once with ZKPIPE_FORCE_PORTABLE=1 (suffix ".portable"), so both paths are
# tested on machines that have the fast one (cluster_* cases, which do no
# arithmetic, run once). The scan runs at configure time;
# the sources are configure dependencies, so a new case re-runs it.
function(zkpipe_discover_tests)
  file(GLOB test_sources CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/*.c)
  # The daemon's tests need its library (ZKPIPE_ENABLE_SERVER), and so do
  # cluster mode's (libpq).
  if(NOT ZKPIPE_ENABLE_SERVER)
    list(FILTER test_sources EXCLUDE REGEX
      "/tests/test_(config|metrics|server|server_rpc|server_tls|cluster|cluster_codec)\\.c$")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${test_sources})
  set(list_content "")
  set(names "")
  foreach(src ${test_sources})
    file(STRINGS ${src} lines REGEX "^TEST_CASE\\([A-Za-z0-9_]+\\)")
    foreach(line ${lines})
      string(REGEX REPLACE "^TEST_CASE\\(([A-Za-z0-9_]+)\\).*" "\\1" name "${line}")
      string(APPEND list_content "TEST_ENTRY(${name})\n")
      list(APPEND names ${name})
    endforeach()
  endforeach()
  set(list_file ${CMAKE_BINARY_DIR}/generated/tests_list.inc)
  file(WRITE ${list_file}.tmp "${list_content}")
  execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different ${list_file}.tmp ${list_file})

  add_executable(zkp_tests ${test_sources})
  target_include_directories(zkp_tests PRIVATE ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/tests
    ${CMAKE_BINARY_DIR}/generated)
  target_compile_definitions(zkp_tests PRIVATE ZKP_TEST_DATA_DIR="${CMAKE_SOURCE_DIR}/tests")
  target_link_libraries(zkp_tests PRIVATE zkpipe)
  if(ZKPIPE_ENABLE_SERVER)
    target_link_libraries(zkp_tests PRIVATE zkpipe_server)
  endif()

  # The cluster_* cases share one PostgreSQL server (tests/cluster_pg.sh),
  # started before the first and stopped after the last.
  set(pg_state ${CMAKE_BINARY_DIR}/cluster-pg.state)
  if(ZKPIPE_ENABLE_SERVER)
    add_test(NAME cluster_pg_start
      COMMAND bash ${CMAKE_SOURCE_DIR}/tests/cluster_pg.sh start ${pg_state})
    add_test(NAME cluster_pg_stop
      COMMAND bash ${CMAKE_SOURCE_DIR}/tests/cluster_pg.sh stop ${pg_state})
    set_tests_properties(cluster_pg_start PROPERTIES FIXTURES_SETUP cluster_pg TIMEOUT 120)
    set_tests_properties(cluster_pg_stop PROPERTIES FIXTURES_CLEANUP cluster_pg TIMEOUT 120)
  endif()

  foreach(name ${names})
    add_test(NAME ${name} COMMAND zkp_tests ${name})
    set_tests_properties(${name} PROPERTIES TIMEOUT 600)
    if(name MATCHES "^cluster_")
      # No arithmetic to run twice: one run, against the shared server. One
      # case at a time: each has its own schema, but the notification
      # channel is the database's, and a case that checks who is woken (or
      # that nobody is) must not hear another case's jobs.
      set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED cluster_pg
        RESOURCE_LOCK cluster_pg ENVIRONMENT "ZKPIPE_TEST_PG_STATE=${pg_state}")
      continue()
    endif()
    if(ZKPIPE_ENABLE_ASM AND CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
      add_test(NAME ${name}.portable COMMAND zkp_tests ${name})
      set_tests_properties(${name}.portable PROPERTIES TIMEOUT 600
        ENVIRONMENT "ZKPIPE_FORCE_PORTABLE=1")
    endif()
  endforeach()
endfunction()
