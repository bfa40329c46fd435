#!/usr/bin/env bash
# The README's main job: the quick tolerance report of every built-in backend on the host executor.
# Installs the Debian packages, builds scancheck, and writes build/report/report.{json,md,html}.
# Extra arguments go to `scancheck report` (e.g. --preset ci, --backends 'rglru/*', --seed 7).
# Exit code: scancheck's (0 every backend passed, 1 some failed, 2 bad input).
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/bootstrap.sh
bash ci/build.sh default >/dev/null
exec build/default/cli/scancheck report --preset quick --out build/report "$@"
