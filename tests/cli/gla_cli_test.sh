#!/usr/bin/env bash
# `scancheck gla reference` and `gla verify` end to end on a checked-in problem (tests/fixtures/fla_gla): fla's
# own float64 outputs pass; a systematic 3e-6 relative error on o fails by the distribution rule and one wrong
# element by the bound; bfloat16 io; bad input is one line, exit 2, nothing written.
# Usage: gla_cli_test.sh SCANCHECK FIXTURES      (Debian's /usr/bin/python3 with numpy edits the .npy files)
set -uo pipefail
scancheck=$1 fixtures=$2
problem=$fixtures/fla_gla/gla_resets_T100_H2_K5_V3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }
expect() {  # expect RC DESCRIPTION -- command...: the exit code, and one stderr line when it is 2
  local want=$1 what=$2; shift 3
  "$@" >"$work/stdout" 2>"$work/stderr"
  local rc=$?
  [ "$rc" -eq "$want" ] || { fail "$what: exit $rc, expected $want"; cat "$work/stdout" "$work/stderr"; return; }
  if [ "$want" -eq 2 ] && [ "$(wc -l <"$work/stderr")" -ne 1 ]; then fail "$what: not one error line"; cat "$work/stderr"; fi
  echo "ok: $what"
}
edit() {  # edit FILE PYTHON-EXPRESSION-OF-a: rewrites a float32 .npy
  /usr/bin/python3 -c 'import sys, numpy as np; a = np.load(sys.argv[1]); a = eval(sys.argv[2]); np.save(sys.argv[1], np.asarray(a, np.float32))' "$1" "$2"
}

expect 0 "reference writes values and bounds" -- "$scancheck" gla reference --case "$problem" --out "$work/ref"
[ "$(ls "$work/ref"/*.npy | wc -l)" -eq 7 ] && [ "$(ls "$work/ref/bounds"/*.npy | wc -l)" -eq 7 ] || fail "reference: not 7 values and 7 bounds"
expect 0 "fla's float64 outputs pass" -- "$scancheck" gla verify --case "$problem" --candidate "$problem/expected"

mkdir "$work/systematic" && cp "$problem/expected/o.npy" "$work/systematic/"
edit "$work/systematic/o.npy" 'a * (1 + 3e-6)'
expect 1 "o 3e-6 off everywhere fails" -- "$scancheck" gla verify --case "$problem" --candidate "$work/systematic"
grep -q "accuracy lost" "$work/stdout" || fail "the systematic error is not named as accuracy lost: $(cat "$work/stdout")"

mkdir "$work/spike" && cp "$problem/expected/dk.npy" "$work/spike/"
edit "$work/spike/dk.npy" 'a.__setitem__((0, 50, 1, 2), a[0, 50, 1, 2] * 2 + 1) or a'
expect 1 "one wrong element of dk fails" -- "$scancheck" gla verify --case "$problem" --candidate "$work/spike"
grep -q "bounds at \[0, 50, 1, 2\]" "$work/stdout" || fail "the wrong element is not named: $(cat "$work/stdout")"

cp -r "$problem" "$work/nan" && edit "$work/nan/q.npy" 'a.__setitem__((0, 3, 0, 1), np.nan) or a'
expect 2 "a NaN input is named" -- "$scancheck" gla reference --case "$work/nan" --out "$work/nan-out"
grep -q "q.npy: not finite at \[0, 3, 0, 1\]" "$work/stderr" || fail "NaN not named: $(cat "$work/stderr")"
[ -e "$work/nan-out" ] && fail "a failed reference left its output"
cp -r "$problem" "$work/shape" && edit "$work/shape/g.npy" 'a[:, :, :, :4]'
expect 2 "a misshapen gate is named" -- "$scancheck" gla reference --case "$work/shape" --out "$work/shape-out"
grep -q "gla: g is \[1, 100, 2, 4\], expected \[1, 100, 2, 5\]" "$work/stderr" || fail "shape not named: $(cat "$work/stderr")"
cp -r "$problem" "$work/arch" && sed -i 's/"gla"/"gated"/' "$work/arch/case.json"
expect 2 "an unknown architecture is named" -- "$scancheck" gla verify --case "$work/arch" --candidate "$problem/expected"
mkdir "$work/unknown" && cp "$problem/expected/o.npy" "$work/unknown/y.npy"
expect 2 "an output gla has not is named" -- "$scancheck" gla verify --case "$problem" --candidate "$work/unknown"
expect 2 "a problem without case.json" -- "$scancheck" gla reference --case "$work" --out "$work/none"

# bfloat16 io: inputs rounded to bfloat16, outputs stored in it (o, dq, dk, dv, dg) pass against the
# bfloat16-io bound; the same rounding fails a float32-io case; a float32 input of a bfloat16 case is named.
to_bf16='(((a.astype(np.float32).view(np.uint32) + 0x7FFF + ((a.astype(np.float32).view(np.uint32) >> 16) & 1)) & 0xFFFF0000).view(np.float32))'
cp -r "$problem" "$work/bf16" && rm -r "$work/bf16/expected"
for f in q k v g do; do edit "$work/bf16/$f.npy" "$to_bf16"; done  # h0, dht stay float32, as fla keeps them (g may)
sed -i 's/"architecture"/"io_dtype": "bfloat16", "architecture"/' "$work/bf16/case.json"
expect 0 "a bfloat16-io reference" -- "$scancheck" gla reference --case "$work/bf16" --out "$work/ref16"
mkdir "$work/stored16" && cp "$work/ref16"/*.npy "$work/stored16/"
for f in o dq dk dv dg; do edit "$work/stored16/$f.npy" "$to_bf16"; done
expect 0 "outputs stored in bfloat16 pass a bfloat16-io case" -- "$scancheck" gla verify --case "$work/bf16" --candidate "$work/stored16"
mkdir "$work/stored16-f32" && cp "$problem/expected"/o.npy "$work/stored16-f32/" && edit "$work/stored16-f32/o.npy" "$to_bf16"
expect 1 "o stored in bfloat16 fails a float32-io case" -- "$scancheck" gla verify --case "$problem" --candidate "$work/stored16-f32"
cp -r "$problem" "$work/not16" && sed -i 's/"architecture"/"io_dtype": "bfloat16", "architecture"/' "$work/not16/case.json"
expect 2 "a float32 input of a bfloat16-io case is named" -- "$scancheck" gla reference --case "$work/not16" --out "$work/not16-out"
grep -q "q.npy: .* is not a bfloat16 value" "$work/stderr" || fail "input not named: $(cat "$work/stderr")"
exit "$status"
