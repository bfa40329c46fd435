# Runs one libFuzzer target for RUNS executions: the committed corpus (read only) seeds it, new inputs and
# any crash go to WORK. A crash, a sanitizer report, a leak, a timeout or an out-of-memory fails the test
# and prints the reproducer's path: `<fuzzer> <crash file>` replays it.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/new ${WORK}/artifacts)
execute_process(
  COMMAND ${FUZZER} -runs=${RUNS} -seed=1 -max_len=65536 -timeout=10 -rss_limit_mb=2048
    -malloc_limit_mb=512 -print_final_stats=1 -artifact_prefix=${WORK}/artifacts/ ${WORK}/new ${CORPUS}
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${FUZZER} found a bug (exit ${rc}); reproducers in ${WORK}/artifacts")
endif()
