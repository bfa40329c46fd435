#!/usr/bin/env bash
# The multi-threaded paths of the executable, end to end, small enough for ThreadSanitizer (the tsan
# preset runs it; elsewhere it is a quick smoke test): the reference's blocks on threads, the host
# executor's threads, fuzz, a report, and an interrupted report (the signal watcher thread).
set -uo pipefail
bin=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "$0")/../check_support.sh"
run() {
  local what=$1; shift
  if "$@" >"$work/out.txt" 2>&1; then echo "ok: $what"; else echo "FAIL: $what"; tail -20 "$work/out.txt"; failures=$((failures + 1)); fi
}
run "make-case" "$bin" make-case --arch rglru --batch 3 --length 40 --width 16 --heads 2 --seed 4 --out "$work/case"
run "reference on 4 threads" "$bin" reference --case "$work/case" --threads 4 --out "$work/ref"
run "check on 4 threads" "$bin" check --case "$work/case" --backend 'rglru/*chunk16*@fp32' --threads 4
run "fuzz" "$bin" fuzz --backends 'scan/*@fp32' --cases 6 --threads 2 --findings "$work/findings"
run "report" "$bin" report --preset quick --backends 'complex_rglru/*@fp32' --lengths 2,17 --threads 2 --out "$work/report"
# Interrupted while the first case's held run waits (tests/check_support.sh): certainly mid-report.
gate=$work/gate
hold_runs "$gate"
"$bin" report --preset ci --worker "$(held_worker rglru "$gate")" --backends '{rglru/*,mis-held:*}' --threads 2 \
  --lengths 2,33,300 --timeout 300 --out "$work/interrupted" >/dev/null 2>"$work/interrupted.err" &
pid=$!
wait_for_held_run "$gate"
kill -TERM "$pid"
wait_for_stop_taken "$work/interrupted.err"
release_runs "$gate"
wait "$pid"
rc=$?
if [ $rc -eq 130 ] && grep -q '"interrupted":"' "$work/interrupted/report.json"; then
  echo "ok: an interrupted report"
else
  echo "FAIL: an interrupted report (exit $rc)"; failures=$((failures + 1))
fi
[ $failures -eq 0 ] && echo "threads smoke: all passed" || { echo "threads smoke: $failures failed"; exit 1; }
