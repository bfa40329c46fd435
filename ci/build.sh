#!/usr/bin/env bash
# Configures and builds scancheck with a CMake preset (default: ci). Usage: ci/build.sh [preset]
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-ci}
jobs=${SCANCHECK_JOBS:-$(nproc)}
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$jobs"
