# Runs one compat program and compares its output with the libtorch output committed for it.
#   cmake -DPROGRAM=... -DCOMPARE=... -DEXPECTED=... -DOUTPUT=... -P run_and_compare.cmake
get_filename_component(out_dir ${OUTPUT} DIRECTORY)
file(MAKE_DIRECTORY ${out_dir})
execute_process(COMMAND ${PROGRAM} OUTPUT_FILE ${OUTPUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} failed (${rc}); its output so far is in ${OUTPUT}")
endif()
execute_process(COMMAND ${COMPARE} ${EXPECTED} ${OUTPUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the output of ${PROGRAM} differs from libtorch's (${EXPECTED})")
endif()
