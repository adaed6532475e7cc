# ctest helper: the MPI job must fail (non-zero exit), quickly, naming the failing rank.
execute_process(COMMAND ${MPIEXEC} -n 4 ${EXE}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 30)
message("${out}${err}")
if(rc EQUAL 0)
  message(FATAL_ERROR "expected the job to fail, it exited 0")
endif()
if(rc MATCHES "timeout")
  message(FATAL_ERROR "the job hung (${rc})")
endif()
if(NOT "${out}${err}" MATCHES "rank 2: fatal: boom in rank 2")
  message(FATAL_ERROR "missing the message naming rank 2")
endif()
