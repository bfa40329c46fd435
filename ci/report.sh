#!/usr/bin/env bash
# The README's main job: the quick tolerance report of every built-in backend on the host executor.
# Installs the Debian packages the executable's build needs (no Python environment: the report is C++),
# builds the executable alone (the cli preset: release, no tests, no CUDA executor) and writes
# build/report/report.{json,md,html}.
# Extra arguments go to `scancheck report` (e.g. --preset ci, --backends 'rglru/*', --seed 7).
# Exit code: scancheck's (0 every backend passed, 1 some failed, 2 bad input).
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/bootstrap.sh cli
start=$(date +%s)
cmake --preset cli >/dev/null
cmake --build --preset cli -j "${SCANCHECK_JOBS:-$(nproc)}" >build/cli/build.log 2>&1 ||
  { tail -n 40 build/cli/build.log >&2; echo "report.sh: the build failed (build/cli/build.log)" >&2; exit 2; }
echo "report.sh: build/cli/cli/scancheck built in $(( $(date +%s) - start )) s" >&2
exec build/cli/cli/scancheck report --preset quick --out build/report "$@"
