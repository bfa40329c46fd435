#!/usr/bin/env bash
# Fails (exit 1, naming each file) when a tracked source file is not as its formatter writes it: C++ and
# CUDA by clang-format with .clang-format, Python by ruff format with python/pyproject.toml's settings.
# ctest runs it as `format_check` (label unit), so CI fails on an unformatted file.
#   ci/format-check.sh          check
#   ci/format-check.sh --fix    rewrite the files in place
set -euo pipefail
cd "$(dirname "$0")/.."
ruff=(.venv/bin/python -m ruff)
command -v clang-format >/dev/null || { echo "format-check: no clang-format (ci/bootstrap.sh installs it)" >&2; exit 2; }
[ -x .venv/bin/python ] || { echo "format-check: no .venv (ci/bootstrap.sh makes it) for ruff" >&2; exit 2; }
mapfile -t cpp < <(git ls-files '*.cpp' '*.hpp' '*.h' '*.cu' '*.cuh')
mapfile -t py < <(git ls-files '*.py')
if [ "${1:-}" = --fix ]; then
  clang-format -i "${cpp[@]}"
  "${ruff[@]}" format --no-cache --config python/pyproject.toml "${py[@]}"
  exit
fi
status=0
unformatted=$(for f in "${cpp[@]}"; do clang-format "$f" | cmp -s - "$f" || echo "$f"; done)
if [ -n "$unformatted" ]; then
  echo "format-check: not as clang-format writes them (ci/format-check.sh --fix rewrites them):" >&2
  echo "$unformatted" | sed 's/^/  /' >&2
  status=1
fi
"${ruff[@]}" format --no-cache --config python/pyproject.toml --check "${py[@]}" >&2 || status=1
[ "$status" -eq 0 ] && echo "format-check: ${#cpp[@]} C++ and ${#py[@]} Python files formatted"
exit "$status"
