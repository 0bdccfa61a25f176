# Fails when the program at ZKPIPE was built with a fault compiled in for a
# control run (a ZKPIPE_FAULT_* option; src/util/fault.h): such a build says
# so in `zkpipe version`, and its test suite must not pass for a normal
# one's. Run by CTest as: cmake -DZKPIPE=<path> -P CheckNoFaults.cmake
execute_process(COMMAND ${ZKPIPE} version OUTPUT_VARIABLE out ERROR_VARIABLE err
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${ZKPIPE} version failed (${rc}): ${err}")
endif()
if(NOT out MATCHES "^zkpipe ")
  message(FATAL_ERROR "unexpected output of ${ZKPIPE} version: ${out}")
endif()
if(out MATCHES "ZKPIPE_FAULT_")
  message(FATAL_ERROR "this build has a fault compiled in: ${out}")
endif()
message(STATUS "no fault compiled in: ${out}")
