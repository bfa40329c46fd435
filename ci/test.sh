#!/usr/bin/env bash
# The README's test command: installs what is missing, builds with warnings as errors, runs every test but
# the soak runs. Usage: ci/test.sh [preset]   (presets: ci (default), asan-ubsan, default)
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-ci}
bash ci/bootstrap.sh
bash ci/build.sh "$preset"
ctest --preset "$preset"
