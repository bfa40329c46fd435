#!/usr/bin/env bash
# Fixtures come from public packages, not from anyone's word: the repository's script reproduces every
# checked-in expected tensor from the pinned package, and with one number of one fixture changed in a copy (a
# tensor's largest, in its 13th significant digit), the same check fails naming it.
#   recurrentgemma: tests/fixtures/regenerate_recurrentgemma.py, RecurrentGemma's PyTorch RG-LRU in float64
#   fla_gla:        tests/fixtures/regenerate_fla_gla.py, fla's naive gla and simple_gla forms in float64
# Usage: fixture_regeneration_test.sh PYTHON SCRIPT FIXTURES CHANGED MODULES
#   (CHANGED: an expected tensor relative to FIXTURES; MODULES: what the script imports, comma-separated.
#   .venv's python; exit 77, skipped, without it or its packages)
set -uo pipefail
py=$1 script=$2 fixtures=$3 changed=$4 modules=$5
name=$(basename "$script" .py)
if ! [ -x "$py" ] || ! "$py" -c "import $modules" 2>/dev/null; then
  echo "SKIP: no $py with $modules (ci/bootstrap.sh makes .venv)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0

"$py" "$script" --check --fixtures "$fixtures" || { echo "FAIL: the checked-in fixtures are not what the script regenerates"; status=1; }

cp -r "$fixtures" "$work/changed"
# The tensor's largest element, whose change the check measures against itself.
index=$("$py" - "$work/changed/$changed" <<'PY'
import sys
import numpy as np
y = np.load(sys.argv[1])
at = np.unravel_index(np.argmax(np.abs(y)), y.shape)
y[at] *= 1 + 1e-12
np.save(sys.argv[1], y)
print([int(i) for i in at])
PY
)
"$py" "$script" --check --fixtures "$work/changed" 2>"$work/stderr"
rc=$?
errors=$(grep -v -e Warning -e _cpu_device_warning "$work/stderr")
if [ "$rc" -eq 1 ] && grep -qF "$name: $changed: at $index" <<<"$errors" && [ "$(wc -l <<<"$errors")" -eq 1 ]; then
  echo "ok: one number changed in the 13th digit is named: $errors"
else
  echo "FAIL: a changed fixture value went unnoticed (exit $rc):"; cat "$work/stderr"; status=1
fi
exit "$status"
