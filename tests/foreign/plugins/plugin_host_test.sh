#!/usr/bin/env bash
# C ABI plugins behind the plugin host and in process (foreign-backends.md, "C ABI plugins"): a plugin that
# cannot be used (another ABI version, no entry point, a malformed table, not a library) is one line naming
# the problem and exit 2; every way a run can go wrong (quirky_plugin.c) gets its verdict while scancheck
# goes on; the plugin host speaks the worker protocol and keeps a plugin's stdout out of it.
# Usage: plugin_host_test.sh SCANCHECK QUIRKY.so BROKEN_ABI.so BROKEN_NO_ENTRY.so BROKEN_MALFORMED.so
set -uo pipefail
bin=$1
quirky=$2
abi=$3
no_entry=$4
malformed=$5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "$0")/../../check_support.sh"


# Plugins that cannot be used: through the plugin host (scancheck reports the host's one line) and in process.
echo "not an ELF file" >"$work/not-a-library.so"
for mode in --plugin --plugin-in-process; do
  expect_bad_input "$mode: an unknown ABI version" 'ABI version 7, which this scancheck does not know' list $mode "$abi"
  expect_bad_input "$mode: no entry point" "no entry point 'scancheck_plugin'" list $mode "$no_entry"
  expect_bad_input "$mode: not a library" 'cannot be loaded' list $mode "$work/not-a-library.so"
  expect_bad_input "$mode: no such file" 'cannot be loaded' list $mode "$work/absent.so"
  for expectation in 'null_table:returned NULL' 'null_name:name is NULL' "bad_name:'Bad Name' is not" \
      'no_backends:declares no backend' 'null_run:backends\[1\].run is NULL' \
      'bad_device:backends\[1\].device_type is 4' 'bad_architecture:backends\[1\].architecture is 9' \
      'bad_passes:backends\[1\].passes' 'duplicate:declared twice' 'bad_variant:backends\[1\].variant' \
      'null_heads:heads is NULL' 'zero_head:heads'; do
    export SCANCHECK_TEST_MALFORMED=${expectation%%:*}
    expect_bad_input "$mode: malformed table $SCANCHECK_TEST_MALFORMED" "${expectation#*:}" list $mode "$malformed"
    unset SCANCHECK_TEST_MALFORMED
  done
done
"$bin" list --plugin "$malformed" >"$work/list.txt" 2>&1 && grep -q '^broken:scan/second@fp32 ' "$work/list.txt" &&
  pass || { fail "the malformed plugin's well-formed table loads"; cat "$work/list.txt"; }
expect_bad_input "a provider loaded twice" 'already has' list --plugin "$quirky" --plugin-in-process "$quirky"

# One case, every quirk: the verdict, its message, and the run goes on (exit 1 when any row fails).
cuda_build=0
# (the listing first, then grep: with pipefail, grep -q closing the pipe early would fail the pipeline)
"$bin" list --json --arch scan >"$work/executors.json" && grep -q '"cuda"' "$work/executors.json" && cuda_build=1
case_args=(--arch scan --shape 3,9,4 --seed 3)
for mode in --plugin --plugin-in-process; do
  for expectation in 'sequential|PASS|' 'refuses_odd_batch|ERROR|B = 3: this kernel needs an even batch' \
      'skips_h_last|ERROR|output h_last: 12 of 12 elements never written' \
      'overruns_h|ERROR|output h: a guard region around it was overwritten' \
      'writes_input|ERROR|input a: the backend wrote into it' \
      'forward_only|PASS (forward only: gradients not checked)|' 'prints_to_stdout|PASS|' 'aborts|FAULT|' \
      'on_device|ERROR|'; do
    IFS='|' read -r variant verdict message <<<"$expectation"
    [ "$mode" = --plugin-in-process ] && [ "$variant" = aborts ] && continue  # it would abort scancheck itself
    [ "$variant" = on_device ] && [ "$cuda_build" = 0 ] && message='this scancheck has no CUDA executor'
    "$bin" check $mode "$quirky" "${case_args[@]}" --backend "{quirky:scan/$variant@fp32,scan/chunk16@fp32}" \
      >"$work/$variant.txt" 2>&1
    rc=$?
    want_rc=1
    [ "${verdict%% *}" = PASS ] && want_rc=0
    if [ "$rc" -eq "$want_rc" ] && grep -q "^quirky:scan/$variant@fp32: $verdict\$" "$work/$variant.txt" &&
        grep -q '^scan/chunk16@fp32: PASS' "$work/$variant.txt" && grep -qF -- "$message" "$work/$variant.txt"; then
      pass
    else
      fail "$mode $variant: expected $verdict (exit $want_rc) with '$message', got exit $rc"
      cat "$work/$variant.txt"
    fi
  done
done
grep -q 'second line' "$work/refuses_odd_batch.txt" && fail "a message is one line" || pass

# Constraints: generated cases and their shrinks stay inside (the backend refuses any case outside them).
# The constrained backend is a group of its own: 30 cases each.
for mode in --plugin --plugin-in-process; do
  "$bin" fuzz $mode "$quirky" --backends 'quirky:scan/{sequential,constrained,forward_only}@fp32' --cases 30 \
    --findings "$work/findings" >"$work/fuzz.txt" 2>&1 && grep -q 'fuzz: 60 cases (30 in each of 2 groups)' "$work/fuzz.txt" && pass ||
    { fail "$mode: fuzz passes, inside the constraints"; cat "$work/fuzz.txt"; }
done

# The plugin host itself: the worker protocol on stdin and stdout, the plugin's prints kept out of it.
"$bin" make-case --arch scan --batch 2 --length 5 --width 4 --seed 1 --out "$work/case" >/dev/null
mkdir -p "$work/out-seq" "$work/out-print"
{
  echo '{"op": "hello", "protocol": 1}'
  echo "{\"op\": \"run\", \"id\": 1, \"backend\": \"sequential@fp32\", \"case\": \"$work/case\", \"out\": \"$work/out-seq\"}"
  echo "{\"op\": \"run\", \"id\": 2, \"backend\": \"prints_to_stdout@fp32\", \"case\": \"$work/case\", \"out\": \"$work/out-print\"}"
  echo "{\"op\": \"run\", \"id\": 3, \"backend\": \"missing@fp32\", \"case\": \"$work/case\", \"out\": \"$work/out-seq\"}"
  echo "{\"op\": \"run\", \"id\": 4, \"backend\": \"sequential@fp32\", \"case\": \"$work/no-case\", \"out\": \"$work/out-seq\"}"
} | "$bin" plugin-host "$quirky" >"$work/host.out" 2>"$work/host.err"
rc=$?
/usr/bin/python3 - "$work/host.out" <<'EOF' && pass || { fail "the plugin host's answers"; cat "$work/host.out" "$work/host.err"; }
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 5, lines
hello = json.loads(lines[0])
assert hello["protocol"] == 1 and hello["provider"] == "quirky", hello
backends = {b["variant"]: b for b in hello["backends"]}
assert backends["forward_only"]["passes"] == ["forward"], backends["forward_only"]
assert backends["nondeterministic"]["deterministic"] is False
assert backends["constrained"]["constraints"] == {"width_multiple": 4, "max_length": 40, "max_batch": 2,
    "heads": [1, 2], "sqrt_gradient": ["bounded"], "h0": False, "dh_last": False, "resets": False}
assert "constraints" not in backends["sequential"] and "passes" not in backends["sequential"]
answers = [json.loads(line) for line in lines[1:]]
assert answers[0] == {"id": 1, "ok": True} and answers[1] == {"id": 2, "ok": True}, answers
assert answers[2]["id"] == 3 and not answers[2]["ok"] and "has no backend 'missing@fp32'" in answers[2]["error"]
assert answers[3]["id"] == 4 and not answers[3]["ok"], answers[3]
EOF
[ "$rc" -eq 0 ] && pass || fail "the plugin host exits 0 at the end of its input (exit $rc)"
grep -q 'would break the protocol' "$work/host.err" && pass || fail "the plugin's stdout went to the host's stderr"
[ "$(ls "$work/out-seq" | tr '\n' ' ')" = "da.npy db.npy dh0.npy h.npy h_last.npy " ] && pass ||
  { fail "the outputs are written as .npy"; ls "$work/out-seq"; }
"$bin" verify --case "$work/case" --candidate "$work/out-seq" >"$work/verify.txt" 2>&1 && pass ||
  { fail "the written outputs verify"; cat "$work/verify.txt"; }
printf '{"op": "hello", "protocol": 1}\n{"op": "bye"}\n{"op": "hello", "protocol": 1}\n' |
  "$bin" plugin-host "$quirky" >"$work/bye.out" 2>&1
[ $? -eq 0 ] && [ "$(wc -l <"$work/bye.out")" -eq 1 ] && pass || fail "bye ends the plugin host"
echo 'not json' | "$bin" plugin-host "$quirky" >/dev/null 2>"$work/garbage.err"
[ $? -eq 2 ] && grep -q 'not a request' "$work/garbage.err" && pass || fail "a request that is not JSON ends the host"

echo "plugins: $passed checks passed, $failures failed"
[ "$failures" -eq 0 ]
