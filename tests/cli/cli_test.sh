#!/usr/bin/env bash
# End-to-end checks of the scancheck executable: make-case and reference on every architecture, run, property and the
# bad-input contract (one line on stderr, exit code 2, no output directory left behind).
# Usage: cli_test.sh /path/to/scancheck [REPORTS_DIR]   (reports written here are copied to REPORTS_DIR, where
# report_schema_test validates them)
set -uo pipefail
bin=$1
reports_dir=${2:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "$0")/../check_support.sh"

# expect_bad_input_leaving_nothing DESCRIPTION OUTDIR ARGS...: exit 2, exactly one stderr line, OUTDIR absent afterwards.
expect_bad_input_leaving_nothing() {
  local what=$1 out=$2; shift 2
  "$bin" "$@" >"$work/stdout" 2>"$work/stderr"
  local rc=$?
  local lines
  lines=$(wc -l <"$work/stderr")
  if [ "$rc" -ne 2 ]; then fail "$what: exit $rc, expected 2"; return; fi
  if [ "$lines" -ne 1 ]; then fail "$what: $lines stderr lines, expected 1"; cat "$work/stderr"; return; fi
  if [ -n "$out" ] && [ -e "$out" ]; then fail "$what: left $out behind"; return; fi
  if compgen -G "$work/*.tmp-*" >/dev/null; then fail "$what: left a temporary behind"; return; fi
  pass
}

for arch in scan complex_scan rglru complex_rglru; do
  for regime in default long_memory resets extreme clip; do
    c="$work/$arch-$regime"
    if ! "$bin" make-case --arch "$arch" --batch 2 --length 9 --width 8 --heads 2 --seed 5 \
        --regime "$regime" --out "$c" >/dev/null; then fail "make-case $arch $regime"; continue; fi
    if ! "$bin" reference --case "$c" --out "$c.ref" --threads 2 >/dev/null; then
      fail "reference $arch $regime"; continue
    fi
    for f in "$c.ref/reference.json" "$c.ref/h_last.npy" "$c.ref/dh0.npy" "$c.ref/bounds/h_last.npy"; do
      [ -f "$f" ] || fail "reference $arch $regime: missing $f"
    done
    pass
  done
done

# mpfr50 and sampled references.
"$bin" reference --case "$work/rglru-default" --out "$work/mpfr" --precision mpfr50 >/dev/null && pass ||
  fail "reference --precision mpfr50"
"$bin" reference --case "$work/rglru-default" --out "$work/sampled" --sample 1:0 >/dev/null &&
  [ -f "$work/sampled/covered/dx.npy" ] && pass || fail "reference --sample"

# list shows every schedule of both scan architectures in both dtypes; run works for every backend.
"$bin" list >"$work/list.txt" || fail "list"
"$bin" list --json >"$work/list.json" || fail "list --json"
grep -q '"executors"' "$work/list.json" && pass || fail "list --json has no executors"
for arch in scan complex_scan; do
  for schedule in sequential chunk16 chunk32 chunk64 grouped_prefix32_hierarchical_chunk16 \
      grouped_prefix32_hierarchical_chunk32 grouped_prefix64_hierarchical_chunk16 grouped_prefix64_hierarchical_chunk32; do
    for dtype in fp32 bf16; do
      name="$arch/$schedule@$dtype"
      grep -q "^$name " "$work/list.txt" || { fail "list lacks $name"; continue; }
      io=float32; [ "$dtype" = bf16 ] && io=bfloat16
      c="$work/run-$arch-$io"
      [ -d "$c" ] || "$bin" make-case --arch "$arch" --batch 2 --length 37 --width 6 --seed 9 --regime resets \
        --io-dtype "$io" --out "$c" >/dev/null
      if "$bin" run --backend "$name" --case "$c" --out "$work/out" >/dev/null &&
         [ -f "$work/out/h.npy" ] && [ -f "$work/out/dh0.npy" ]; then pass; else fail "run $name"; fi
    done
  done
done
# The gated layers: the three production names are listed, and every rglru and complex_rglru backend runs.
for name in rglru/fused_grouped_prefix32_hierarchical_chunk16@fp32 \
    complex_rglru/fused_output_fused_write_shared_sfu_chunk32@bf16 \
    complex_rglru/fused_output_fused_write_shared_sfu_grouped_prefix64_hierarchical_chunk32@fp32; do
  grep -q "^$name " "$work/list.txt" && pass || fail "list lacks $name"
done
for arch in rglru complex_rglru; do
  for io in float32 bfloat16; do
    "$bin" make-case --arch "$arch" --batch 2 --length 37 --width 12 --heads 2 --seed 9 --regime resets \
      --io-dtype "$io" --out "$work/run-$arch-$io" >/dev/null || fail "make-case $arch $io"
  done
  runs=0
  for name in $("$bin" list --arch "$arch" | awk 'NR > 1 && /@/ {print $1}'); do
    io=float32; [ "${name##*@}" = bf16 ] && io=bfloat16
    if "$bin" run --backend "$name" --case "$work/run-$arch-$io" --out "$work/out" >/dev/null &&
       [ -f "$work/out/dx.npy" ] && [ -f "$work/out/d_a_gate_w.npy" ]; then runs=$((runs + 1)); else fail "run $name"; fi
  done
  [ "$runs" -ge 28 ] && pass || fail "only $runs $arch backends ran"
done
# --sqrt-gradient overrides the case's convention: on the clip regime the two conventions differ in dx.
"$bin" make-case --arch rglru --batch 1 --length 40 --width 8 --seed 3 --regime clip --out "$work/clip" >/dev/null
"$bin" run --backend rglru/fused_chunk16@fp32 --case "$work/clip" --out "$work/clip-bounded" >/dev/null
"$bin" run --backend rglru/fused_chunk16@fp32 --case "$work/clip" --out "$work/clip-exact" --sqrt-gradient exact >/dev/null
cmp -s "$work/clip-bounded/y.npy" "$work/clip-exact/y.npy" && pass || fail "--sqrt-gradient changed y"
cmp -s "$work/clip-bounded/dx.npy" "$work/clip-exact/dx.npy" && fail "--sqrt-gradient exact left dx unchanged" || pass
expect_bad_input_leaving_nothing "unknown sqrt convention" "$work/z" run --backend rglru/fused_chunk16@fp32 --case "$work/clip" \
  --out "$work/z" --sqrt-gradient maybe
# check, verify and fuzz: the judgement's exit codes, findings with a repro.
"$bin" check --arch complex_rglru --shape 1,40,12,2 --seed 5 --backend 'complex_rglru/fused_output_fused_write_shared_sfu_chunk32@*' \
  --threads 2 >"$work/check.txt" && grep -q 'verdict: PASS' "$work/check.txt" && grep -q 'd_a_imag_param' "$work/check.txt" &&
  pass || fail "check on a generated case"
"$bin" check --case "$work/clip" --backend 'rglru/*chunk16@fp32' --threads 2 >/dev/null && pass || fail "check --case"
# Several --backend (repeated, or several names after one): each checked once; an unknown one is bad input.
"$bin" check --case "$work/clip" --backend rglru/sequential@fp32 --backend 'rglru/fused_chunk16@*' rglru/sequential@fp32 \
  --threads 2 >"$work/check-several.txt" && grep -q '^rglru/sequential@fp32: PASS' "$work/check-several.txt" &&
  grep -q '^rglru/fused_chunk16@fp32: PASS' "$work/check-several.txt" &&
  grep -q '^verdict: PASS (2 checked, 0 failed)' "$work/check-several.txt" && pass ||
  { fail "check with several --backend"; cat "$work/check-several.txt"; }
expect_bad_input "an unknown name among several --backend" "no backend matches 'rglru/nonesuch@fp32'" check \
  --case "$work/clip" --backend rglru/sequential@fp32 --backend rglru/nonesuch@fp32
fixture="$(dirname "$0")/../fixtures/recurrentgemma_torch/rglru_default_B2_L33_W16_H2"
"$bin" verify --case "$fixture" --candidate "$fixture/expected" --threads 2 >/dev/null && pass ||
  fail "verify of PyTorch's outputs"
"$bin" run --backend rglru/fused_chunk16@fp32 --case "$work/clip" --out "$work/cand" >/dev/null
rm "$work/cand/dx.npy"
"$bin" verify --case "$work/clip" --candidate "$work/cand" --threads 2 >"$work/verify.txt"
[ $? -eq 1 ] && grep -q 'dx: missing' "$work/verify.txt" && pass || fail "verify lists a missing tensor with exit 1"
echo '{"bound_factor": 0, "baseline_factor": 0, "baseline_slack_ulps": 0, "baseline_slack_bound": 0}' >"$work/strict.json"
"$bin" fuzz --backends 'scan/chunk16@fp32' --cases 2 --policy "$work/strict.json" --findings "$work/findings" >"$work/fuzz.txt" 2>/dev/null
[ $? -eq 1 ] && grep -q 'repro: scancheck check' "$work/fuzz.txt" && compgen -G "$work/findings/*/finding.json" >/dev/null &&
  "$bin" check --case "$(ls -d "$work"/findings/*/case | head -1)" --backend 'scan/chunk16@fp32' >/dev/null &&
  pass || fail "fuzz saves a shrunk finding that check replays (an impossible policy makes every run fail)"
"$bin" fuzz --backends 'scan/*' --cases 20 --shard 1/3 >/dev/null 2>&1 && pass || fail "fuzz --shard"
# --cases counts per group of architecture, io dtype and constraints; --keep-going judges a failing backend
# on every case, saves its first failure only (one FAIL block, as ever) and prints its failure rate.
"$bin" fuzz --backends 'scan/chunk16@*' --cases 3 --findings "$work/per-group" >"$work/per-group.txt" 2>/dev/null &&
  grep -q '^fuzz: 6 cases (3 in each of 2 groups), 6 backend runs' "$work/per-group.txt" && pass ||
  { fail "fuzz --cases is per group"; cat "$work/per-group.txt"; }
"$bin" fuzz --backends 'scan/chunk16@fp32' --cases 3 --keep-going --policy "$work/strict.json" \
  --findings "$work/keep-going" >"$work/keep-going.txt" 2>/dev/null
[ $? -eq 1 ] && [ "$(grep -c '^FAIL scan/chunk16@fp32 after 1 cases' "$work/keep-going.txt")" -eq 1 ] &&
  grep -q '^fuzz: scan/chunk16@fp32 failed 3 of 3 cases (100.0%)' "$work/keep-going.txt" &&
  [ "$(ls "$work/keep-going" | wc -l)" -eq 1 ] && pass || { fail "fuzz --keep-going counts and shrinks once"; cat "$work/keep-going.txt"; }
# Ctrl-C stops a fuzz run cleanly after the current case: summary printed, exit 130 without findings. The
# case in progress is a held run (check_support.sh), so the signal certainly arrives in the middle of one.
gate=$work/gate
hold_runs "$gate"
"$bin" fuzz --worker "$(held_worker scan "$gate")" --backends 'mis-held:*' --time 600s --timeout 300 \
  --findings "$work/sigint" >"$work/sigint.txt" 2>"$work/sigint.err" &
fuzz_pid=$!
wait_for_held_run "$gate"
kill -INT "$fuzz_pid"
wait_for_stop_taken "$work/sigint.err"
release_runs "$gate"
wait "$fuzz_pid"
[ $? -eq 130 ] && grep -q '(interrupted)' "$work/sigint.txt" && [ ! -e "$work/sigint" ] && pass ||
  { fail "fuzz stops cleanly on SIGINT"; cat "$work/sigint.txt" "$work/sigint.err"; }
# SIGTERM (a cluster's time limit) half way through a report: exit 130, a valid report marked interrupted
# whose headline never says PASS, and no temporary directory left behind. The signal arrives during the
# first case's held run; the report plans more cases than that.
hold_runs "$gate"
"$bin" report --preset ci --worker "$(held_worker rglru "$gate")" --backends '{rglru/sequential@fp32,mis-held:*}' \
  --lengths 2,33,300 --timeout 300 --out "$work/term-report" >/dev/null 2>"$work/term-report.err" &
report_pid=$!
wait_for_held_run "$gate"
kill -TERM "$report_pid"
wait_for_stop_taken "$work/term-report.err"
release_runs "$gate"
wait "$report_pid"
rc=$?
if [ $rc -eq 130 ] && grep -q '"interrupted":"' "$work/term-report/report.json" &&
    head -3 "$work/term-report/report.md" | grep -q 'INTERRUPTED' && ! grep -q 'PASS:' "$work/term-report/report.md" &&
    ! compgen -G "$work/term-report.tmp-*" >/dev/null; then
  pass
  [ -n "$reports_dir" ] && mkdir -p "$reports_dir/cli-interrupted" && cp "$work/term-report/report.json" "$reports_dir/cli-interrupted/"
else
  fail "SIGTERM leaves an interrupted, valid report (exit $rc)"; cat "$work/term-report.err"
fi
# SIGTERM during a long reference or check (subcommands that do not stop cooperatively). The check waits on
# a held run; the reference of this case takes seconds, and the signal follows the moment scancheck watches
# for it (wait_for_signal_watch).
"$bin" make-case --arch rglru --batch 4 --length 3000 --width 64 --heads 4 --seed 1 --out "$work/long-case" >/dev/null
# expect_stops_at_once WHAT PID: SIGTERM to PID ends it within 2 s (the promise of docs/reliability.md: the
# watcher thread ends the process at once; it takes milliseconds here, also with both cores loaded) with
# exit 130, one stderr line ($work/term.err) and no output or temporary left.
expect_stops_at_once() {
  local what=$1 pid=$2 rc killed_at took_ms
  kill -TERM "$pid"
  killed_at=$(date +%s%N)
  wait "$pid"
  rc=$?
  took_ms=$(( ($(date +%s%N) - killed_at) / 1000000 ))
  if [ $rc -eq 130 ] && [ "$took_ms" -lt 2000 ] && [ "$(grep -c . "$work/term.err")" -eq 1 ] &&
      grep -q '^scancheck: interrupted by SIGTERM' "$work/term.err" && [ ! -e "$work/long-ref" ] &&
      ! compgen -G "$work/long-ref.tmp-*" >/dev/null; then
    pass
  else
    fail "SIGTERM during $what: exit $rc after $took_ms ms; $(cat "$work/term.err")"
  fi
}
"$bin" reference --case "$work/long-case" --out "$work/long-ref" --threads 1 >/dev/null 2>"$work/term.err" &
pid=$!
wait_for_signal_watch "$pid"
expect_stops_at_once reference "$pid"
hold_runs "$gate"
"$bin" check --worker "$(held_worker rglru "$gate")" --case "$work/long-case" --backend 'mis-held:*' --timeout 300 \
  >/dev/null 2>"$work/term.err" &
pid=$!
wait_for_held_run "$gate"
expect_stops_at_once check "$pid"
release_runs "$gate"
# A file-size limit: one line, exit 2, no partial file or temporary directory (not a death by SIGXFSZ).
(ulimit -f 10; "$bin" report --preset quick --backends 'scan/chunk16@fp32' --lengths 2,33 --out "$work/fsize" \
  >/dev/null 2>"$work/fsize.err")
rc=$?
# stderr holds the progress lines of a log and then the one error line, which names the reason.
[ $rc -eq 2 ] && [ "$(grep -c . <(grep -v '^\[' "$work/fsize.err"))" -eq 1 ] && grep -q '^scancheck: error: .*File too large$' "$work/fsize.err" && [ ! -e "$work/fsize" ] && ! compgen -G "$work/fsize.tmp-*" >/dev/null &&
  pass || { fail "a file-size limit is one line and exit 2 (exit $rc)"; cat "$work/fsize.err"; }
# The same limit while writing a case, a reference and findings.
"$bin" make-case --arch rglru --batch 2 --length 300 --width 64 --heads 2 --seed 1 --out "$work/big-case" >/dev/null
echo '{"bound_factor": 0, "baseline_factor": 0, "baseline_slack_ulps": 0, "baseline_slack_bound": 0}' >"$work/zero-policy.json"
# (In 1 KiB blocks; stderr goes to a file too, so the limit leaves it room. A shrunk finding is small.)
for cmd in "4 make-case --arch rglru --batch 2 --length 300 --width 64 --heads 2 --seed 1 --out $work/limited" \
    "4 reference --case $work/big-case --out $work/limited" \
    "1 fuzz --backends scan/chunk16@fp32 --cases 1 --policy $work/zero-policy.json --findings $work/limited"; do
  # shellcheck disable=SC2086
  (ulimit -f "${cmd%% *}"; "$bin" ${cmd#* } >/dev/null 2>"$work/limit.err")
  rc=$?
  if [ $rc -eq 2 ] && grep -q '^scancheck: error: .*File too large$' "$work/limit.err" &&
      ! compgen -G "$work/limited/*/finding.json" >/dev/null && ! compgen -G "$work/limited*.tmp-*" >/dev/null &&
      ! compgen -G "$work/limited/*.tmp-*" >/dev/null && { [ ! -e "$work/limited" ] || [ -z "$(ls -A "$work/limited")" ]; }; then
    pass
  else
    cmd=${cmd#* }
    fail "a file-size limit while writing: ${cmd%% *} (exit $rc): $(grep -v '^\[' "$work/limit.err" | head -2)"
  fi
  rm -rf "$work/limited"
done
expect_bad_input_leaving_nothing "bad shard" "" fuzz --backends 'scan/*' --shard 3/3
expect_bad_input_leaving_nothing "bad duration" "" fuzz --backends 'scan/*' --time soon
expect_bad_input_leaving_nothing "no backend matches" "" check --case "$work/clip" --backend 'lstm/*'
echo '{"bound_factor": -1}' >"$work/bad-policy.json"
expect_bad_input_leaving_nothing "bad policy" "" check --case "$work/clip" --backend 'rglru/fused_chunk16@fp32' --policy "$work/bad-policy.json"
expect_bad_input_leaving_nothing "unknown backend" "$work/z" run --backend scan/chunk17@fp32 --case "$work/run-scan-float32" --out "$work/z"
expect_bad_input_leaving_nothing "dtype mismatch" "$work/z" run --backend scan/chunk16@bf16 --case "$work/run-scan-float32" --out "$work/z"
expect_bad_input_leaving_nothing "architecture mismatch" "$work/z" run --backend complex_scan/chunk16@fp32 \
  --case "$work/run-scan-float32" --out "$work/z"
expect_bad_input_leaving_nothing "unknown executor" "$work/z" run --backend scan/chunk16@fp32 --case "$work/run-scan-float32" \
  --out "$work/z" --executor tpu
if ! grep -q 'host,cuda' "$work/list.txt"; then
  expect_bad_input_leaving_nothing "cuda executor not built" "$work/z" run --backend scan/chunk16@fp32 \
    --case "$work/run-scan-float32" --out "$work/z" --executor cuda
elif ! command -v nvidia-smi >/dev/null || ! nvidia-smi >/dev/null 2>&1; then
  expect_bad_input_leaving_nothing "no CUDA device" "$work/z" run --backend scan/chunk16@fp32 \
    --case "$work/run-scan-float32" --out "$work/z" --executor cuda
fi

# property: one backend property searched from the CLI; --list (and NAME list) names all six.
"$bin" property agrees_with_reference --arch rglru --io-dtype float32 --cases 5 --findings "$work/findings" \
  >"$work/property.txt" 2>/dev/null && grep -q 'rglru@fp32: 5 cases .*PASS$' "$work/property.txt" && pass ||
  fail "property agrees_with_reference --arch rglru --io-dtype float32 --cases 5"
expect_bad_input_leaving_nothing "unknown property" "" property nonsense
expect_bad_input_leaving_nothing "property without a name" "" property
for how in --list list; do
  "$bin" property "$how" >"$work/properties.txt" || { fail "property $how"; continue; }
  for name in agrees_with_reference deterministic writes_every_output causal_and_local batch_permutation \
      nan_reaches_dependents; do
    grep -q "^$name " "$work/properties.txt" || fail "property $how lacks $name"
  done
  pass
done

# Bad input.
ok=(--batch 1 --length 4 --width 8 --seed 1)
expect_bad_input_leaving_nothing "unknown architecture" "$work/x" make-case --arch lstm "${ok[@]}" --out "$work/x"
expect_bad_input_leaving_nothing "unknown regime" "$work/x" make-case --arch rglru "${ok[@]}" --regime calm --out "$work/x"
expect_bad_input_leaving_nothing "unknown dtype" "$work/x" make-case --arch rglru "${ok[@]}" --io-dtype fp16 --out "$work/x"
expect_bad_input_leaving_nothing "W not divisible by H" "$work/x" make-case --arch rglru "${ok[@]}" --heads 3 --out "$work/x"
expect_bad_input_leaving_nothing "odd W, complex" "$work/x" make-case --arch complex_scan --batch 1 --length 4 --width 7 \
  --seed 1 --out "$work/x"
expect_bad_input_leaving_nothing "zero length" "$work/x" make-case --arch scan --batch 1 --length 0 --width 8 --seed 1 --out "$work/x"
expect_bad_input_leaving_nothing "negative batch" "$work/x" make-case --arch scan --batch -2 --length 4 --width 8 --seed 1 --out "$work/x"
expect_bad_input_leaving_nothing "shape too large" "$work/x" make-case --arch rglru --batch 100000 --length 100000 --width 100000 \
  --seed 1 --out "$work/x"
expect_bad_input_leaving_nothing "missing option" "" make-case --arch rglru --batch 1
expect_bad_input_leaving_nothing "unknown precision" "$work/y" reference --case "$work/rglru-default" --out "$work/y" --precision half
expect_bad_input_leaving_nothing "missing case" "$work/y" reference --case "$work/nothing" --out "$work/y"
expect_bad_input_leaving_nothing "bad sample" "$work/y" reference --case "$work/rglru-default" --out "$work/y" --sample 0-1
expect_bad_input_leaving_nothing "sample out of range" "$work/y" reference --case "$work/rglru-default" --out "$work/y" --sample 5:0

# Malformed case directories.
bad="$work/bad-npy"; cp -r "$work/rglru-default" "$bad"; printf 'not a numpy file' >"$bad/x.npy"
expect_bad_input_leaving_nothing "malformed x.npy" "$work/y" reference --case "$bad" --out "$work/y"
bad="$work/bad-shape"; cp -r "$work/rglru-default" "$bad"; cp "$work/rglru-default/a_param.npy" "$bad/a_gate_b.npy"
expect_bad_input_leaving_nothing "shape disagrees" "$work/y" reference --case "$bad" --out "$work/y"
bad="$work/bad-json"; cp -r "$work/rglru-default" "$bad"; echo '{"architecture": "rglru",' >"$bad/case.json"
expect_bad_input_leaving_nothing "malformed case.json" "$work/y" reference --case "$bad" --out "$work/y"
bad="$work/bad-heads"; cp -r "$work/rglru-default" "$bad"
sed -i 's/"heads": 2/"heads": 3/' "$bad/case.json"
expect_bad_input_leaving_nothing "heads disagree with weights" "$work/y" reference --case "$bad" --out "$work/y"
bad="$work/missing"; cp -r "$work/rglru-default" "$bad"; rm "$bad/dy.npy"
expect_bad_input_leaving_nothing "missing dy.npy" "$work/y" reference --case "$bad" --out "$work/y"

# An existing output directory is replaced whole, not merged.
mkdir -p "$work/replace" && touch "$work/replace/stale"
"$bin" reference --case "$work/scan-default" --out "$work/replace" >/dev/null
[ ! -e "$work/replace/stale" ] && [ -f "$work/replace/h.npy" ] && pass || fail "output directory not replaced atomically"

# scancheck report: the three files, the exit code of the verdict, progress on stderr, bad input.
"$bin" report --preset quick --backends 'rglru/sequential@*' --lengths 2,33,300 --label cli --out "$work/report" \
  >"$work/report.out" 2>"$work/report.err"
rc=$?
[ $rc -eq 0 ] && [ -s "$work/report/report.json" ] && [ -s "$work/report/report.md" ] &&
  [ -s "$work/report/report.html" ] && grep -q '^PASS: 2 backends x 6 cases' "$work/report.out" &&
  grep -q 'runs, case' "$work/report.err" && pass || fail "report: exit $rc, three files, verdict and progress"
grep -q '^# scancheck tolerance report: cli' "$work/report/report.md" && pass || fail "report.md title"
"$bin" check --arch scan --shape 1,40,4,1 --seed 3 --backend '{scan/chunk16,scan/sequential}@fp32' >"$work/alt.out" &&
  grep -q 'verdict: PASS (2 checked, 0 failed)' "$work/alt.out" && pass || fail "backend glob with {a,b} alternatives"
expect_bad_input_leaving_nothing "report of an unknown preset" "$work/r2" report --preset slow --out "$work/r2"
expect_bad_input_leaving_nothing "report of an unknown backend" "$work/r2" report --backends 'nope/*' --out "$work/r2"
expect_bad_input_leaving_nothing "report of seed shapes of a plain scan" "$work/r2" report --preset seed-shapes --backends 'scan/*' \
  --out "$work/r2"
expect_bad_input_leaving_nothing "report of a bad executor" "$work/r2" report --executor tpu --out "$work/r2"
expect_bad_input_leaving_nothing "report of length 0" "$work/r2" report --lengths 2,0 --out "$work/r2"
# --regimes: the ladder's cases take the named regimes in turn.
"$bin" report --preset quick --backends 'scan/sequential@fp32' --lengths 2,33,300 --regimes long_memory,clip \
  --out "$work/regimes" >/dev/null 2>&1
python3 -c 'import json, sys
cases = json.load(open(sys.argv[1]))["cases"]
assert [c["request"]["regime"] for c in cases] == ["long_memory", "clip", "long_memory"], cases' \
  "$work/regimes/report.json" && pass || fail "report --regimes sets the cases' regimes in turn"
expect_bad_input_leaving_nothing "report of an unknown regime" "$work/r2" report --regimes tepid --out "$work/r2"
expect_bad_input_leaving_nothing "report --regimes of seed shapes" "$work/r2" report --preset seed-shapes \
  --regimes default --out "$work/r2"
expect_bad_input_leaving_nothing "report of seed shapes at other lengths" "$work/r2" report --preset seed-shapes --lengths 5 --out "$work/r2"
"$bin" report --preset quick --backends 'scan/chunk16@fp32' --policy "$work/no-such-policy.json" --out "$work/r2" \
  >/dev/null 2>"$work/stderr"; [ $? -eq 2 ] && [ ! -e "$work/r2" ] && pass || fail "report with a missing policy"

# Report tools: diff, merge and calibrate on quick reports of one backend (a second each).
tools="$work/tools"
mkdir -p "$tools"
tools_report() {
  local name=$1; shift
  "$bin" report --preset quick --backends 'scan/chunk16@fp32' "$@" --out "$tools/$name" >/dev/null 2>&1 ||
    fail "report $name for the report tools"
}
tools_report a
tools_report b
tools_report s2 --seed 2
tools_report other --label other
"$bin" diff "$tools/a" "$tools/b/report.json" >"$tools/diff.txt" && grep -q 'verdict: no regression' "$tools/diff.txt" &&
  pass || fail "diff of identical reports exits 0"
/usr/bin/python3 -c '
import json, sys
report = json.load(open(sys.argv[1]))
worst = max((t for row in report["rows"] for t in row["tensors"]), key=lambda t: t["max_abs"])
worst["max_abs"] *= 10
json.dump(report, open(sys.argv[2], "w"))' "$tools/a/report.json" "$tools/grown.json"
"$bin" diff "$tools/a" "$tools/grown.json" >"$tools/diff.txt"
[ $? -eq 1 ] && grep -q 'REGRESSION error growth' "$tools/diff.txt" && pass || fail "diff flags a tenfold error (exit 1)"
"$bin" merge "$tools/a" "$tools/s2" --out "$tools/merged.json" >/dev/null &&
  "$bin" diff "$tools/a" "$tools/merged.json" >/dev/null && pass || fail "merge of two seeds keeps every row"
expect_bad_input_leaving_nothing "merge of different labels" "$tools/m.json" merge "$tools/a" "$tools/other" --out "$tools/m.json"
expect_bad_input_leaving_nothing "merge of duplicate rows" "$tools/m.json" merge "$tools/a" "$tools/b" --out "$tools/m.json"
expect_bad_input_leaving_nothing "merge of one report" "$tools/m.json" merge "$tools/a" --out "$tools/m.json"
echo '{"a": 1}' >"$tools/foreign.json"
expect_bad_input_leaving_nothing "diff of foreign JSON" "" diff "$tools/a" "$tools/foreign.json"
/usr/bin/python3 -c '
import json, sys
report = json.load(open(sys.argv[1]))
report["schema_version"] = 3
json.dump(report, open(sys.argv[2], "w"))' "$tools/a/report.json" "$tools/v2.json"
expect_bad_input_leaving_nothing "diff of schema_version 3" "" diff "$tools/v2.json" "$tools/a"
expect_bad_input_leaving_nothing "diff of a missing report" "" diff "$tools/a" "$tools/nothing"
expect_bad_input_leaving_nothing "diff --max-growth below 1" "" diff "$tools/a" "$tools/b" --max-growth 0.5
"$bin" calibrate "$tools/merged.json" --out "$tools/tolerances.calibration.json" >/dev/null &&
  /usr/bin/python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["tolerances"]' \
    "$tools/tolerances.calibration.json" && pass || fail "calibrate --format json"
"$bin" calibrate "$tools/merged.json" --out "$tools/tolerances.py" --format pytest >/dev/null &&
  /usr/bin/python3 -c 'import ast, sys; ast.parse(open(sys.argv[1]).read())' "$tools/tolerances.py" && pass ||
  fail "calibrate --format pytest writes Python"
"$bin" render "$tools/merged.json" --out "$tools/merged" >/dev/null && [ -s "$tools/merged/report.html" ] &&
  grep -q '^# scancheck tolerance report' "$tools/merged/report.md" && cmp -s "$tools/merged.json" "$tools/merged/report.json" &&
  pass || fail "render a merged report"
expect_bad_input_leaving_nothing "render of foreign JSON" "$tools/r" render "$tools/foreign.json" --out "$tools/r"
expect_bad_input_leaving_nothing "calibrate --margin below 1" "$tools/t.json" calibrate "$tools/a" --out "$tools/t.json" --margin 0.5
expect_bad_input_leaving_nothing "calibrate --format yaml" "$tools/t.json" calibrate "$tools/a" --out "$tools/t.json" --format yaml

if [ -n "$reports_dir" ]; then
  rm -rf "$reports_dir/cli" && mkdir -p "$reports_dir/cli"
  cp "$work/report/report.json" "$reports_dir/cli/report.json"
  for name in a s2 other; do cp "$tools/$name/report.json" "$reports_dir/cli/$name.json"; done
  cp "$tools/merged.json" "$reports_dir/cli/merged.json"
fi

echo "cli: $passed passed, $failures failed"
[ "$failures" -eq 0 ]
