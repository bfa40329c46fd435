#!/usr/bin/env bash
# End-to-end checks of foreign backends over the worker protocol (docs/foreign-backends.md):
# a correct numpy worker passes fuzzing; a buggy variant fails with a shrunk finding whose repro replays;
# every kind of misbehaving worker gets its verdict (fault, timeout, error, fail) while the run's other
# backends keep their rows; workers that break hello are bad input (one line, exit 2).
# Usage: foreign_test.sh /path/to/scancheck SOURCE_DIR [REPORTS_DIR]. Exit 77 (skipped) without numpy.
set -uo pipefail
bin=$1
src=$2
reports_dir=${3:-}
python=/usr/bin/python3
if ! "$python" -c 'import numpy' 2>/dev/null; then
  echo "SKIP: $python has no numpy (Debian's python3-numpy)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$src/tests/check_support.sh"
numpy="$python $src/examples/numpy_worker.py"
mis="$python $src/tests/foreign/misbehaving_worker.py"


# A correct worker: listed with its provider, passes 100 fuzz cases per backend (scan and rglru: two groups).
"$bin" list --worker "$numpy" >"$work/list.txt" && grep -q '^numpy:rglru/textbook@fp32 ' "$work/list.txt" &&
  pass || fail "list shows the worker's provider-qualified backends"
"$bin" fuzz --worker "$numpy" --backends 'numpy:*' --cases 100 --findings "$work/ok-findings" >"$work/fuzz.txt" 2>&1 &&
  grep -q 'fuzz: 200 cases (100 in each of 2 groups)' "$work/fuzz.txt" && pass ||
  { fail "numpy worker passes 200 fuzz cases"; cat "$work/fuzz.txt"; }

# A plausible bug (the backward drops dh_last): caught, shrunk to one element, and the repro replays it.
"$bin" fuzz --worker "$numpy --misbehave" --backends 'numpy:rglru/dh_last_ignored@fp32' --cases 60 \
  --findings "$work/findings" >"$work/bug.txt" 2>&1
[ $? -eq 1 ] && grep -q 'shape 1,1,1,1' "$work/bug.txt" && pass || { fail "the dh_last bug is caught and shrunk"; cat "$work/bug.txt"; }
# A group whose backends all failed stops; the other group still gets its --cases (scan: 60).
grep -qE '^fuzz: [0-9]+ cases \([0-9]+ to 60 in each of 2 groups\)' <("$bin" fuzz --worker "$numpy --misbehave" \
  --backends 'numpy:{rglru/dh_last_ignored,scan/sequential}@fp32' --cases 60 --findings "$work/two-groups" 2>&1) &&
  pass || fail "a group that stops early leaves the other its cases"
# --keep-going: the same bug judged on all 60 cases; the first failure shrunk as above, the others counted.
"$bin" fuzz --worker "$numpy --misbehave" --backends 'numpy:rglru/dh_last_ignored@fp32' --cases 60 --keep-going \
  --findings "$work/rate-findings" >"$work/rate.txt" 2>&1
[ $? -eq 1 ] && grep -qE '^fuzz: numpy:rglru/dh_last_ignored@fp32 failed ([2-9]|[1-5][0-9]|60) of 60 cases' "$work/rate.txt" &&
  [ "$(grep -c '^FAIL ' "$work/rate.txt")" -eq 1 ] && grep -q 'shape 1,1,1,1' "$work/rate.txt" && pass ||
  { fail "--keep-going counts the failures"; cat "$work/rate.txt"; }
repro=$(grep -m1 'repro: scancheck check' "$work/bug.txt" | sed 's/.*repro: scancheck check //')
eval "\"$bin\" check $repro" >"$work/replay.txt" 2>&1  # the repro names the worker itself
[ $? -eq 1 ] && grep -q 'dh_last_ignored@fp32: FAIL' "$work/replay.txt" && pass || { fail "the finding replays"; cat "$work/replay.txt"; }
compgen -G "$work/findings/*/finding.json" >/dev/null && grep -q '"format": "scancheck-finding"' "$work"/findings/*/finding.json &&
  pass || fail "the finding is saved as finding.json"

# Misbehaving workers on one case, beside a built-in that must keep its row. The timeout is 10 s where a
# run takes under 0.1 s (and under 0.5 s with both cores loaded): the hang alone reaches it.
"$bin" make-case --arch scan --batch 2 --length 9 --width 4 --seed 3 --no-h0 --no-dh-last --out "$work/case" >/dev/null
verdict_of() {  # verdict_of MODE -> the worker backend's verdict line, the built-in's PASS checked too
  local mode=$1
  "$bin" check --worker "$mis $mode" --timeout 10 --case "$work/case" --backend "{mis-*,scan/chunk16@fp32}" \
    >"$work/$mode.txt" 2>&1
  echo "rc=$?" >>"$work/$mode.txt"
  grep -q '^scan/chunk16@fp32: PASS' "$work/$mode.txt" || fail "$mode: the built-in beside it lost its row"
}
for expectation in segfault:FAULT hang:TIMEOUT garbage:FAULT refuse:ERROR no_outputs:FAIL wrong_shapes:FAIL \
    stderr_chatter:FAULT; do
  mode=${expectation%%:*} want=${expectation#*:}
  verdict_of "$mode"
  grep -q ": $want" "$work/$mode.txt" && grep -q 'rc=1' "$work/$mode.txt" && pass ||
    { fail "$mode gives $want (exit 1)"; cat "$work/$mode.txt"; }
done
# Several --backend: every one judged, and one failing is exit 1 however many pass.
"$bin" check --worker "$mis refuse" --case "$work/case" --backend scan/chunk16@fp32 --backend 'mis-refuse:*' \
  >"$work/several.txt" 2>&1
[ $? -eq 1 ] && grep -q '^scan/chunk16@fp32: PASS' "$work/several.txt" &&
  grep -q '^mis-refuse:scan/refuse@fp32: ERROR' "$work/several.txt" && pass ||
  { fail "check --backend A --backend B judges both"; cat "$work/several.txt"; }
grep -q 'missing from the outputs' "$work/no_outputs.txt" && pass || fail "no outputs are named missing"
grep -q 'wrong shape' "$work/wrong_shapes.txt" && pass || fail "wrong shapes are named"
grep -q 'chatter line 99' "$work/stderr_chatter.txt" && pass || fail "the worker's stderr tail is shown"

# Constraints: generated cases and shrinks stay inside them (the worker refuses any case outside).
"$bin" fuzz --worker "$mis constraints" --backends 'mis-*' --cases 60 --findings "$work/cf" >"$work/constraints.txt" 2>&1 &&
  pass || { fail "cases stay inside a backend's constraints"; cat "$work/constraints.txt"; }
"$bin" make-case --arch scan --batch 2 --length 50 --width 4 --seed 3 --no-h0 --no-dh-last --out "$work/case-long" >/dev/null
expect_bad_input "a case outside the constraints" "" check --worker "$mis constraints" --case "$work/case-long" --backend 'mis-*'
"$bin" make-case --arch scan --batch 2 --length 9 --width 4 --seed 3 --out "$work/case-h0" >/dev/null
grep -q 'h0' <("$bin" check --worker "$mis constraints" --case "$work/case-h0" --backend 'mis-*' 2>&1) &&
  pass || fail "the broken constraint is named"

# A backend that omits a gradient (dh0 of a kernel without h0) is judged on the rest, and says so; an
# omitted name that is no gradient is bad input.
"$bin" fuzz --worker "$mis omits" --backends 'mis-*' --cases 20 --findings "$work/omits-findings" \
  >"$work/omits-fuzz.txt" 2>&1 && pass || { fail "a backend omitting dh0 passes"; cat "$work/omits-fuzz.txt"; }
"$bin" make-case --arch scan --batch 2 --length 9 --width 4 --seed 4 --no-h0 --out "$work/case-no-h0" >/dev/null
"$bin" check --worker "$mis omits" --case "$work/case-no-h0" --backend 'mis-*' >"$work/omits.txt" 2>&1 &&
  grep -q "PASS (not computed: dh0)" "$work/omits.txt" && ! grep -q "^  dh0 " "$work/omits.txt" && pass ||
  { fail "check says dh0 is not computed"; cat "$work/omits.txt"; }
expect_bad_input "omits names no gradient" "'dh' is not a gradient of scan" list --worker "$mis bad_omits"

# Forward-only and nondeterministic backends.
"$bin" check --worker "$mis forward_only" --case "$work/case" --backend 'mis-*' >"$work/fwd.txt" 2>&1 &&
  grep -q 'forward only: gradients not checked' "$work/fwd.txt" && pass || { fail "forward-only backend"; cat "$work/fwd.txt"; }
"$bin" property deterministic --worker "$mis nondeterministic" --arch scan --io-dtype float32 --cases 5 \
  --findings "$work/pf" >"$work/nondet.txt" 2>&1 && pass || { fail "nondeterministic backend is exempt"; cat "$work/nondet.txt"; }

# The PyTorch autograd worker (rglru and complex_rglru, float32 and bfloat16) on every regime: autograd's
# sigma' = sigma (1 - sigma) and its derivative of expm1 are accepted formulations (docs/tolerance.md). Its
# rejected variants fail where the spec says they must: the literal q in the clip regime, the overflowing
# softplus in the extreme regime.
torch_worker="$python $src/examples/torch_worker.py --formulations"
if "$python" -c 'import torch' 2>/dev/null; then
  "$bin" fuzz --worker "$torch_worker" --backends 'torch:*/{autograd,sigmoid_pair,stable_softplus}@*' --cases 50 \
    --findings "$work/torch-findings" >"$work/torch.txt" 2>&1 &&
    grep -q 'fuzz: 200 cases (50 in each of 4 groups)' "$work/torch.txt" && pass ||
    { fail "the torch worker passes 200 cases"; cat "$work/torch.txt"; }
  # A saturated gate: autograd passes with a note naming the better formulation; --strict fails it.
  "$bin" make-case --arch rglru --batch 1 --length 1 --width 2 --heads 1 --seed 17509645367294361568 \
    --regime extreme --out "$work/saturated" >/dev/null
  "$bin" check --worker "$torch_worker" --case "$work/saturated" --backend 'torch:rglru/autograd@fp32' >"$work/note.txt" 2>&1 &&
    grep -q "^  note: d_input_gate_w: .*sigma(z) sigma(-z)" "$work/note.txt" && pass || { fail "a note beside the pass"; cat "$work/note.txt"; }
  "$bin" check --strict --worker "$torch_worker" --case "$work/saturated" --backend 'torch:rglru/autograd@fp32' \
    >"$work/strict.txt" 2>&1
  [ $? -eq 1 ] && grep -q 'FAIL' "$work/strict.txt" && pass || { fail "--strict fails on a note"; cat "$work/strict.txt"; }
  "$bin" check --worker "$numpy" --case "$work/saturated" --backend 'numpy:rglru/textbook@fp32' >"$work/nonote.txt" 2>&1 &&
    ! grep -q 'note:' "$work/nonote.txt" && pass || { fail "sigma(z) sigma(-z) has no note"; cat "$work/nonote.txt"; }
  for rejected in q_literal:clip softplus_naive:extreme; do
    "$bin" fuzz --worker "$torch_worker" --backends "torch:rglru/${rejected%%:*}@*" --cases 50 \
      --regimes "${rejected#*:}" --findings "$work/rejected" >"$work/rejected.txt" 2>&1
    [ $? -eq 1 ] && [ "$(grep -c '^FAIL' "$work/rejected.txt")" -eq 2 ] && pass ||
      { fail "the rejected ${rejected%%:*} fails in both dtypes"; cat "$work/rejected.txt"; }
  done
else
  echo "note: $python has no torch (Debian's python3-torch): the torch worker was not run"
fi

# A report over misbehaving backends: every verdict in its rows, the run completes, the schema holds.
"$bin" report --worker "$numpy --misbehave" --backends 'numpy:*' --preset quick --lengths 2,1100 --timeout 10 \
  --out "$work/report" >"$work/report.txt" 2>&1
[ $? -eq 1 ] && "$python" - "$work/report/report.json" <<'PY' && pass || { fail "the report's rows carry every verdict"; cat "$work/report.txt"; }
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
verdicts = {(r["backend"].split("/")[1], r["verdict"]) for r in rows}
want = {("textbook@fp32", "pass"), ("dh_last_ignored@fp32", "fail"), ("refuses_odd_batch@fp32", "error"),
        ("crashes_when_long@fp32", "fault"), ("hangs_when_long@fp32", "timeout")}
missing = want - verdicts
assert not missing, f"missing verdicts {missing}; got {sorted(verdicts)}"
assert all(r["repro"].startswith("scancheck check --worker ") for r in rows), "a repro does not load the worker"
PY
grep -q '): \*\*timeout\*\*' "$work/report/report.md" && pass || fail "report.md names the timeout rows"
[ -n "$reports_dir" ] && mkdir -p "$reports_dir/foreign" && cp "$work/report/report.json" "$reports_dir/foreign/"

# A report plans cases inside each backend's constraints and says what it did not check.
"$bin" report --worker "$mis constraints" --worker "$mis forward_only" --backends 'mis-*' --preset quick \
  --lengths 2,33,300 --out "$work/report2" >"$work/report2.txt" 2>&1 && "$python" - "$work/report2/report.json" <<'PY' &&
import json, sys
r = json.load(open(sys.argv[1]))
rows = [x for x in r["rows"] if x["backend"].startswith("mis-constraints:")]
assert rows and all(x["verdict"] == "pass" for x in rows), "the constrained backend has no passing rows"
fwd = [x for x in r["rows"] if x["backend"].startswith("mis-forward-only:")]
assert fwd and all(x["direction"] == "forward" for x in fwd), "a forward-only backend has backward rows"
assert any("forward pass only" in line for line in r["scope"]), "the scope does not say gradients were not checked"
PY
  pass || { fail "reports respect constraints and passes"; cat "$work/report2.txt"; }

# A worker's runtime and provenance (hello, optional): in list (text and JSON), in check and in the report.
"$bin" list --worker "$mis provenance" --worker "$mis refuse" >"$work/prov-list.txt" &&
  grep -q '^    runtime: python 3.11.2, numpy 1.24.2 (misbehaving_worker)$' "$work/prov-list.txt" &&
  grep -q '^    provenance: package miskernels, version 0.3.1, commit 0a1b2c3$' "$work/prov-list.txt" &&
  grep -A2 '^  mis-refuse  --worker ' "$work/prov-list.txt" | grep -q '^    provenance: not said$' &&
  pass || { fail "list shows a worker's runtime and provenance"; cat "$work/prov-list.txt"; }
"$bin" list --json --worker "$mis provenance" --arch scan | "$python" -c '
import json, sys
row = next(r for r in json.load(sys.stdin) if r["provider"] == "mis-provenance")
assert row["runtime"] == "python 3.11.2, numpy 1.24.2 (misbehaving_worker)", row
assert row["provenance"] == {"package": "miskernels", "version": "0.3.1", "commit": "0a1b2c3"}, row
' && pass || fail "list --json has a worker's runtime and provenance"
"$bin" check --worker "$mis provenance" --case "$work/case" --backend 'mis-*' >"$work/prov-check.txt" 2>&1 &&
  grep -q '^provider mis-provenance: runtime python 3.11.2, numpy 1.24.2 (misbehaving_worker); provenance package miskernels, version 0.3.1, commit 0a1b2c3$' \
    "$work/prov-check.txt" && pass || { fail "check names the worker's runtime and provenance"; cat "$work/prov-check.txt"; }
"$bin" report --worker "$mis provenance" --backends 'mis-*' --preset quick --lengths 2 --out "$work/prov-report" \
  >"$work/prov-report.txt" 2>&1 && "$python" - "$work/prov-report/report.json" <<'PY' &&
import json, sys
providers = json.load(open(sys.argv[1]))["providers"]
assert providers == [{"name": "mis-provenance", "loaded_by": providers[0]["loaded_by"],
                      "runtime": "python 3.11.2, numpy 1.24.2 (misbehaving_worker)",
                      "provenance": {"package": "miskernels", "version": "0.3.1", "commit": "0a1b2c3"}}], providers
assert providers[0]["loaded_by"].startswith("--worker "), providers
PY
  grep -q '^| mis-provenance | \\--worker .* | python 3.11.2, numpy 1.24.2 (misbehaving_worker) | package miskernels, version 0.3.1, commit 0a1b2c3 |$' \
    "$work/prov-report/report.md" && grep -q 'runtime: python 3.11.2, numpy 1.24.2' "$work/prov-report/report.html" &&
  pass || { fail "the report shows the worker's runtime and provenance"; cat "$work/prov-report.txt"; }
[ -n "$reports_dir" ] && mkdir -p "$reports_dir/foreign-provenance" && cp "$work/prov-report/report.json" "$reports_dir/foreign-provenance/"
expect_bad_input "a provenance with an unknown field" "provenance: unknown field 'sha'" list --worker "$mis bad_provenance"

# Hello that breaks the protocol: bad input.
expect_bad_input "a worker that exits at hello" "" list --worker "$mis exit_at_hello"
expect_bad_input "another protocol version" "" list --worker "$mis protocol_2"
expect_bad_input "a malformed provider name" "" list --worker "$mis bad_provider"
expect_bad_input "a duplicate provider" "" list --worker "$mis refuse" --worker "$mis refuse"
expect_bad_input "a command that does not exist" "" list --worker "$work/no-such-worker"
expect_bad_input "an unterminated quote" "" list --worker "'$numpy"

finish "foreign workers"
