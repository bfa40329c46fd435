#!/usr/bin/env bash
# ctest's entry to the Python side (python/CMakeLists.txt): run_tests.sh pytest|lint VENV_PYTHON SCANCHECK.
# Exit 77 (skipped) without the virtual environment, which ci/bootstrap.sh makes.
set -euo pipefail
what=$1 python=$2 scancheck=$3
[ -x "$python" ] || { echo "SKIP: no $python (ci/bootstrap.sh makes it)"; exit 77; }
cd "$(dirname "$0")"
case $what in
  pytest)
    findings=$(mktemp -d)
    trap 'rm -rf "$findings"' EXIT
    SCANCHECK=$scancheck "$python" -m pytest -q -p no:cacheprovider --scancheck \
      --scancheck-cases "${SCANCHECK_PYTHON_CASES:-15}" --scancheck-findings "$findings" tests ;;
  lint)
    "$python" -m ruff check --no-cache --config pyproject.toml . ../examples/numpy_worker.py ../examples/torch_worker.py
    "$python" -m mypy --no-incremental ;;
  *) echo "usage: run_tests.sh pytest|lint VENV_PYTHON SCANCHECK" >&2; exit 2 ;;
esac
