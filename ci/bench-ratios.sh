#!/usr/bin/env bash
# Prints the `ratio ...` lines of the benchmarks' smoke tests (the host twins: scan_bench_smoke,
# gated_bench_smoke; the reference: reference_bench_smoke; fuzz throughput: fuzz_bench_smoke;
# tests/bench/CMakeLists.txt, label bench) under a heading that names the build they come from, so that every
# CI log carries them. The smoke tests run a few iterations of each row on whatever machine CI has, so the
# figures are indicative (the README's come from full runs); a smoke test that fails (a crash, or gated_bench's
# plain loop disagreeing with the twin) fails this script, after printing its output.
# Usage: ci/bench-ratios.sh BUILD_DIR   a configured build with SCANCHECK_BUILD_BENCHMARKS=ON; builds the four
#                                       benchmarks there (the libraries are already built) and runs their
#                                       smoke tests. Refuses a sanitized or unoptimised build: its figures
#                                       would mean nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: ci/bench-ratios.sh BUILD_DIR}
cache="$build/CMakeCache.txt"
value() { sed -n "s/^$1:[A-Z]*=//p" "$cache"; }

build_type=$(value CMAKE_BUILD_TYPE)
sanitizers=$(value SCANCHECK_SANITIZERS)
compiler=$(value CMAKE_CXX_COMPILER)
if [ -n "$sanitizers" ] || { [ "$build_type" != Release ] && [ "$build_type" != RelWithDebInfo ]; }; then
  echo "ci/bench-ratios.sh: $build is a $build_type build with sanitizers '${sanitizers}': no benchmark figures from it" >&2
  exit 2
fi
if [ "$(value SCANCHECK_BUILD_BENCHMARKS)" != ON ]; then
  echo "ci/bench-ratios.sh: $build has SCANCHECK_BUILD_BENCHMARKS off" >&2
  exit 2
fi

start=$(date +%s)
cmake --build "$build" -j "${SCANCHECK_JOBS:-$(nproc)}" --target scan_bench gated_bench reference_bench fuzz_bench >/dev/null
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
ctest --test-dir "$build" -R '^(scan|gated|reference|fuzz)_bench_smoke$' -V >"$log" 2>&1 || status=$?

echo "==== benchmark ratios (host twins, reference, fuzz throughput): $build, CMAKE_BUILD_TYPE=$build_type, $("$compiler" --version | head -n 1)," \
  "no sanitizers; smoke runs (a few iterations a row, on a shared machine: +-20% or more) ===="
# ctest -V prefixes each line of a test's output with the test's number.
sed -n 's/^[0-9]*: \(ratio .*\)$/\1/p' "$log"
if [ "$status" -ne 0 ]; then
  echo "ci/bench-ratios.sh: a benchmark smoke test failed:" >&2
  tail -n 60 "$log" >&2
  exit "$status"
fi
echo "==== (benchmarks built and run in $(( $(date +%s) - start )) s) ===="
