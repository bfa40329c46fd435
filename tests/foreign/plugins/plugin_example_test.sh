#!/usr/bin/env bash
# What a plugin author does with the installed package (cmake/scancheck_package.cmake): build
# examples/plugin_cpp with find_package(scancheck), run its ctest (scancheck_add_backend_tests: the correct
# backend's fuzz and property tests pass, as ctest results in JUnit), fuzz it, see its misbehaving variants
# as fault and timeout rows, load it in process; then discovery at ctest time (discovery_project/): a
# worker's backends, a plugin that fails to load and a glob that matches nothing as failing tests saying
# why, and a real bug as a failing test whose output holds the repro.
# Usage: plugin_example_test.sh PREFIX SOURCE_DIR WORK_DIR GENERATOR CXX BROKEN_ABI.so
set -uo pipefail
prefix=$1
src=$2
work=$3
generator=$4
cxx=$5
broken=$6
bin=$prefix/bin/scancheck
source "$(dirname "$0")/../../check_support.sh"
rm -rf "$work"
mkdir -p "$work"

# The example project, configured and built against the prefix alone.
build=$work/cppdemo
if cmake -S "$src/examples/plugin_cpp" -B "$build" -G "$generator" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_PREFIX_PATH="$prefix" >"$work/configure.txt" 2>&1 &&
    cmake --build "$build" >"$work/build.txt" 2>&1; then
  pass
else
  fail "examples/plugin_cpp configures and builds against the installed package"
  cat "$work/configure.txt" "$work/build.txt"
  echo "plugin example: $passed checks passed, $failures failed"
  exit 1
fi
plugin=$build/cppdemo.so
misbehaving=$build/cppdemo_misbehaving.so

# Its ctest: one fuzz test per backend, two property tests, the in-process fuzz test; JUnit for CI.
ctest --test-dir "$build" --output-junit "$work/junit.xml" >"$work/ctest.txt" 2>&1 && pass ||
  { fail "the example's ctest passes"; cat "$work/ctest.txt"; }
for name in 'cppdemo:scan/textbook@fp32' 'cppdemo:scan@fp32/batch_permutation' 'cppdemo:scan@fp32/causal_and_local' \
    'in_process/cppdemo:scan/textbook@fp32'; do
  grep -qF "<testcase name=\"$name\"" "$work/junit.xml" && pass || fail "JUnit has the test $name"
done
grep -q 'tests="4"' "$work/junit.xml" && grep -q 'failures="0"' "$work/junit.xml" && pass ||
  { fail "JUnit: 4 tests, none failed"; head -12 "$work/junit.xml"; }

# By hand: fuzz through the plugin host and in process.
"$bin" fuzz --plugin "$plugin" --backends 'cppdemo:scan/textbook@fp32' --cases 50 --findings "$work/findings" \
  >"$work/fuzz.txt" 2>&1 && grep -q 'fuzz: 50 cases' "$work/fuzz.txt" && pass ||
  { fail "fuzz --plugin passes 50 cases"; cat "$work/fuzz.txt"; }
"$bin" fuzz --plugin-in-process "$plugin" --backends 'cppdemo:scan/textbook@fp32' --cases 50 \
  --findings "$work/findings" >"$work/fuzz-in.txt" 2>&1 && grep -q 'fuzz: 50 cases' "$work/fuzz-in.txt" && pass ||
  { fail "fuzz --plugin-in-process passes 50 cases"; cat "$work/fuzz-in.txt"; }

# The misbehaving variants: a segfault is a fault row, a hang a timeout row; scancheck itself goes on. (A
# run takes microseconds: only the hang reaches the 10 s timeout.)
"$bin" check --plugin "$misbehaving" --arch scan --shape 1,1200,4 --backend 'cppdemo:*segfault*' >"$work/segv.txt" 2>&1
[ $? -eq 1 ] && grep -q '^cppdemo:scan/segfault_when_long@fp32: FAULT' "$work/segv.txt" &&
  grep -qE 'Segmentation fault|SEGV' "$work/segv.txt" && pass || { fail "the segfault is a FAULT row, exit 1"; cat "$work/segv.txt"; }
"$bin" check --plugin "$misbehaving" --timeout 10 --arch scan --shape 1,1200,4 --backend 'cppdemo:*' >"$work/all.txt" 2>&1
[ $? -eq 1 ] && grep -q '^cppdemo:scan/textbook@fp32: PASS' "$work/all.txt" &&
  grep -q '^cppdemo:scan/segfault_when_long@fp32: FAULT' "$work/all.txt" &&
  grep -q '^cppdemo:scan/hang_when_long@fp32: TIMEOUT' "$work/all.txt" && pass ||
  { fail "pass, fault and timeout rows side by side"; cat "$work/all.txt"; }
"$bin" check --plugin "$misbehaving" --arch scan --shape 1,300,4 --backend 'cppdemo:*' >"$work/short.txt" 2>&1 && pass ||
  { fail "on short cases the misbehaving variants pass"; cat "$work/short.txt"; }

# Discovery at ctest time: a worker's backends, a broken plugin, a glob that matches nothing, a real bug.
python=/usr/bin/python3
worker=""
if "$python" -c 'import numpy' 2>/dev/null; then
  worker="$python $src/examples/numpy_worker.py"
else
  echo "note: $python has no numpy (Debian's python3-numpy): the worker half of discovery is not checked"
fi
discovery=$work/discovery
cmake -S "$src/tests/foreign/plugins/discovery_project" -B "$discovery" -G "$generator" -DCMAKE_PREFIX_PATH="$prefix" \
  -DBROKEN_PLUGIN="$broken" -DGOOD_PLUGIN="$plugin" -DNUMPY_WORKER="$worker" >"$work/d-configure.txt" 2>&1 &&
  cmake --build "$discovery" >>"$work/d-configure.txt" 2>&1 && pass ||
  { fail "the discovery project configures"; cat "$work/d-configure.txt"; }
ctest --test-dir "$discovery" -j2 --output-on-failure --output-junit "$work/d-junit.xml" >"$work/d-ctest.txt" 2>&1
# result NAME passed|failed: ctest's verdict of one test.
result() {
  if grep -qE "Test +#[0-9]+: $(printf '%s' "$1" | sed 's/[][\.*^$/]/\\&/g') \.+ *\**$2" "$work/d-ctest.txt"; then pass
  else fail "test $1 $2"; fi
}
result 'broken/discovery' 'Failed'
grep -q 'ABI version 7' "$work/d-ctest.txt" && pass || fail "the broken plugin's test says why"
result 'nomatch/discovery' 'Failed'
grep -q "no backend matches 'cppdemo:\*nothing\*' (--plugin .*cppdemo.so declares cppdemo:scan/textbook@fp32)" \
  "$work/d-ctest.txt" && pass || fail "the empty glob's test names what the plugin declares"
if [ -n "$worker" ]; then
  result 'worker/numpy:scan/sequential@fp32' 'Passed'
  for property in agrees_with_reference deterministic writes_every_output causal_and_local batch_permutation \
      nan_reaches_dependents; do
    result "worker/numpy:scan@fp32/$property" 'Passed'
  done
  result 'bug/numpy:rglru/dh_last_ignored@fp32' 'Failed'
  grep -q 'repro: scancheck check' "$work/d-junit.xml" && pass || fail "the failing test's JUnit output holds the repro"
fi
if [ "$failures" -gt 0 ]; then cat "$work/d-ctest.txt"; fi

echo "plugin example: $passed checks passed, $failures failed"
[ "$failures" -eq 0 ]
