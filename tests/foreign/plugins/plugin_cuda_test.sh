#!/usr/bin/env bash
# examples/plugin_cuda against the installed package: compiled wherever nvcc is (sm_90), loaded by the plugin
# host everywhere, and run (fuzz and the example's ctest) where a GPU and a CUDA build of scancheck are;
# elsewhere, after the build and the checks that need no device, it is skipped (exit 77).
# Usage: plugin_cuda_test.sh PREFIX SOURCE_DIR WORK_DIR GENERATOR CXX NVCC
set -uo pipefail
prefix=$1
src=$2
work=$3
generator=$4
cxx=$5
nvcc=${6:-}
bin=$prefix/bin/scancheck
# Under `ctest -j` with a resource spec (ci/gpu-check.sh) this test owns one GPU: the plugin sees only it.
if [[ ${CTEST_RESOURCE_GROUP_0_GPUS:-} =~ ^id:([0-9]+) ]]; then export CUDA_VISIBLE_DEVICES=${BASH_REMATCH[1]}; fi
if [ -z "$nvcc" ] || [ ! -x "$nvcc" ]; then
  echo "SKIP: no nvcc, examples/plugin_cuda not compiled"
  exit 77
fi
source "$(dirname "$0")/../../check_support.sh"
rm -rf "$work"
mkdir -p "$work"
build=$work/cudademo
if ! cmake -S "$src/examples/plugin_cuda" -B "$build" -G "$generator" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DCMAKE_PREFIX_PATH="$prefix" >"$work/configure.txt" 2>&1 || ! cmake --build "$build" >"$work/build.txt" 2>&1; then
  echo "FAIL: examples/plugin_cuda configures and builds with $nvcc"
  cat "$work/configure.txt" "$work/build.txt" 2>/dev/null
  exit 1
fi
plugin=$build/cudademo.so
"$bin" list --plugin "$plugin" >"$work/list.txt" 2>&1 && grep -q '^cudademo:scan/thread_per_channel@fp32 ' "$work/list.txt" &&
  pass || { fail "the plugin host loads the CUDA plugin"; cat "$work/list.txt"; }

cuda_build=0
"$bin" list --json --arch scan >"$work/executors.json" && grep -q '"cuda"' "$work/executors.json" && cuda_build=1
gpu=0
command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 && gpu=1
if [ "$cuda_build" = 0 ] || [ "$gpu" = 0 ]; then
  "$bin" check --plugin "$plugin" --arch scan --shape 2,33,8 --backend 'cudademo:*' >"$work/check.txt" 2>&1
  rc=$?
  if [ "$rc" -eq 1 ] && grep -q '^cudademo:scan/thread_per_channel@fp32: ERROR' "$work/check.txt" &&
      { [ "$cuda_build" = 1 ] || grep -q 'this scancheck has no CUDA executor' "$work/check.txt"; }; then
    pass
  else
    fail "without a device the run is an error saying why (exit $rc)"
    cat "$work/check.txt"
  fi
  echo "plugin cuda example: $passed checks passed, $failures failed"
  [ "$failures" -eq 0 ] || exit 1
  echo "SKIP: compiled, but no GPU (nvidia-smi) or no CUDA build of scancheck (cuda build: $cuda_build, GPU: $gpu)"
  exit 77
fi

"$bin" fuzz --plugin "$plugin" --backends 'cudademo:*' --cases 100 --findings "$work/findings" >"$work/fuzz.txt" 2>&1 &&
  grep -q 'fuzz: 100 cases' "$work/fuzz.txt" && pass || { fail "fuzz --plugin passes on the GPU"; cat "$work/fuzz.txt"; }
"$bin" fuzz --plugin-in-process "$plugin" --backends 'cudademo:*' --cases 50 --findings "$work/findings" \
  >"$work/fuzz-in.txt" 2>&1 && pass || { fail "fuzz --plugin-in-process passes on the GPU"; cat "$work/fuzz-in.txt"; }
"$bin" check --plugin "$plugin" --arch scan --shape 2,2100,64 --backend 'cudademo:*' >"$work/long.txt" 2>&1 && pass ||
  { fail "a long case passes"; cat "$work/long.txt"; }
ctest --test-dir "$build" --output-on-failure >"$work/ctest.txt" 2>&1 && pass || { fail "the example's ctest"; cat "$work/ctest.txt"; }
echo "plugin cuda example: $passed checks passed, $failures failed"
[ "$failures" -eq 0 ]
