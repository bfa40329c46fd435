#!/usr/bin/env bash
# The README's test command. Installs what is missing, then:
#   1. the asan-ubsan preset (clang, address and undefined-behaviour sanitizers, warnings are errors, no
#      CUDA executor as on a machine without nvcc): every test but the soak and bench labels, the parsers'
#      fuzz targets (label fuzz) included; the first sanitizer report fails the run;
#   2. when nvcc is present, the ci preset (GCC, CUDA for sm_90, warnings are errors): the executable and
#      every test program that links the CUDA executor, and the tests whose behaviour the CUDA build changes
#      (label gpu, skipped without a device; the CUDA executor's own; the CLI's and the CUDA plugin's); then
#      the host-twin benchmarks' smoke runs, whose ratio lines it prints (ci/bench-ratios.sh: the ci preset
#      is the optimised, unsanitized build; the asan-ubsan build has no benchmarks).
#   Between them, the campaign test on a real Slurm (label cluster), where Slurm is installed.
# Usage: ci/test.sh            both, as CI runs them
#        ci/test.sh PRESET     one preset, all of its tests (ci, asan-ubsan, ci-nocuda, default, tsan)
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/bootstrap.sh
if [ $# -gt 0 ]; then
  preset=$1
  if [ "$preset" = tsan ]; then exec bash ci/tsan.sh; fi
  bash ci/build.sh "$preset"
  ctest --preset "$preset"
  exit
fi
start=$(date +%s)
bash ci/build.sh asan-ubsan
ctest --preset asan-ubsan
# A real Slurm on this machine (tests/cluster/slurm_campaign.sh): skipped, never passed, without Slurm
# (`ci/bootstrap.sh cluster` installs it; CI does) or root.
ctest --preset cluster
echo "ci/test.sh: asan-ubsan done after $(( $(date +%s) - start )) s"
if command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; then
  cmake --preset ci >/dev/null
  cmake --build --preset ci-cuda -j "${SCANCHECK_JOBS:-$(nproc)}"
  ctest --preset ci-cuda
  bash ci/bench-ratios.sh build/ci
else
  echo "ci/test.sh: no nvcc here: the CUDA build was not checked"
  echo "ci/test.sh: no optimised build in this run: no benchmark ratios (ci/bench-ratios.sh BUILD_DIR prints them)"
fi
echo "ci/test.sh: done after $(( $(date +%s) - start )) s"
