#!/usr/bin/env bash
# ThreadSanitizer over the multi-threaded parts (label threads): the reference's blocks on threads, the
# host executor's threads, case generation, the fuzz search, and the executable end to end (fuzz, report,
# an interrupted report and its signal watcher). Builds only those programs (build/tsan). On demand: a
# third build does not fit CI's 25 minutes on 2 cores (docs/reliability.md, "Sanitizers").
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/bootstrap.sh
cmake --preset tsan >/dev/null
cmake --build --preset tsan -j "${SCANCHECK_JOBS:-$(nproc)}" --target scancheck core_tests reference_modes_test \
  scan_backend_test gated_backend_test search_test
ctest --preset tsan
