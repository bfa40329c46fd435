#!/usr/bin/env bash
# The RecurrentGemma fixtures come from the public package, not from anyone's word: the repository's script
# (tests/fixtures/regenerate_recurrentgemma.py, RecurrentGemma's PyTorch RG-LRU in float64 autograd at the
# pinned version) reproduces every checked-in expected tensor; and with one number of one fixture changed in
# a copy (y[0, 0, 0] of the default case, in its 13th significant digit), the same check fails naming it.
# Usage: fixture_regeneration_test.sh PYTHON     (.venv's; exit 77, skipped, without it or its packages)
set -uo pipefail
py=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
script=$root/tests/fixtures/regenerate_recurrentgemma.py
if ! [ -x "$py" ] || ! "$py" -c 'import recurrentgemma.torch, torch' 2>/dev/null; then
  echo "SKIP: no $py with recurrentgemma and torch (ci/bootstrap.sh makes .venv)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0

"$py" "$script" --check || { echo "FAIL: the checked-in fixtures are not what the script regenerates"; status=1; }

cp -r "$root/tests/fixtures/recurrentgemma_torch" "$work/changed"
changed=rglru_default_B2_L33_W16_H2/expected/y.npy
"$py" - "$work/changed/$changed" <<'PY'
import sys
import numpy as np
y = np.load(sys.argv[1])
y[0, 0, 0] *= 1 + 1e-12
np.save(sys.argv[1], y)
PY
"$py" "$script" --check --fixtures "$work/changed" 2>"$work/stderr"
rc=$?
if [ "$rc" -eq 1 ] && grep -q "^regenerate_recurrentgemma: $changed: at \[0, 0, 0\]" "$work/stderr" &&
  [ "$(wc -l <"$work/stderr")" -eq 1 ]; then
  echo "ok: one number changed in the 13th digit is named: $(cat "$work/stderr")"
else
  echo "FAIL: a changed fixture value went unnoticed (exit $rc):"; cat "$work/stderr"; status=1
fi
exit "$status"
