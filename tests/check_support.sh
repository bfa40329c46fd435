# SPDX-License-Identifier: Apache-2.0
# Sourced by the end-to-end test scripts (tests/cli, tests/foreign): the counters, pass and fail, and the
# bad-input contract of every subcommand (exit 2, exactly one line on stderr). Needs $bin (the scancheck
# executable) and $work (a scratch directory) where expect_bad_input is used.
failures=0
passed=0

# The example workers (examples/*_worker.py) are written on the scancheck Python library; run them from the
# checkout, as docs/python.md does without `pip install`.
PYTHONPATH="$(cd "$(dirname "${BASH_SOURCE[0]}")/../python/src" && pwd)${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONPATH
pass() { passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# expect_bad_input DESCRIPTION PATTERN ARGS...: `$bin ARGS` exits 2 with one stderr line matching PATTERN
# (an empty PATTERN matches any line).
expect_bad_input() {
  local what=$1 pattern=$2; shift 2
  "$bin" "$@" >"$work/stdout" 2>"$work/stderr"
  local rc=$? lines
  lines=$(wc -l <"$work/stderr")
  if [ "$rc" -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -q -- "$pattern" "$work/stderr"; then
    fail "$what: exit $rc with $lines stderr lines, expected 2 and one line matching '$pattern'"
    cat "$work/stderr"
    return
  fi
  pass
}

# finish NAME: the summary line; the script's exit status is the verdict.
finish() {
  echo "$1: $passed checks passed, $failures failed"
  [ "$failures" -eq 0 ]
}

# wait_until LIMIT_S WHAT COMMAND...: runs COMMAND every 0.05 s until it succeeds; after LIMIT_S seconds
# it fails loudly ("FAIL: gave up waiting for WHAT") and returns 1. Tests wait on the condition itself,
# never on a fixed sleep standing in for it.
wait_until() {
  local limit=$1 what=$2; shift 2
  local deadline=$(( $(date +%s) + limit ))
  until "$@"; do
    if [ "$(date +%s)" -ge "$deadline" ]; then
      fail "gave up waiting for $what after $limit s"
      return 1
    fi
    sleep 0.05
  done
}

# Held runs, to signal a run that is certainly in progress: the worker
#   held_worker ARCH GATE  ->  "python3 tests/foreign/misbehaving_worker.py held ARCH GATE"
# declares mis-held:ARCH/held@fp32, whose runs create GATE/running.TAG (TAG: the Slurm array task, else 0)
# and wait while GATE/hold exists. hold_runs GATE makes runs wait; release_runs GATE lets them finish.
held_worker() { echo "${python:-/usr/bin/python3} $(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/foreign/misbehaving_worker.py held $1 $2"; }
hold_runs() { mkdir -p "$1" && rm -f "$1"/running.* && touch "$1/hold"; }
release_runs() { rm -f "$1/hold"; }
# wait_for_held_run GATE [TAG]: a run of the held backend has started (and is waiting).
wait_for_held_run() { wait_until 120 "a held run to start (${2:-0})" test -e "$1/running.${2:-0}"; }
# wait_for_stop_taken FILE: scancheck's stderr in FILE says it took the signal and is stopping.
wait_for_stop_taken() { wait_until 60 "scancheck to take the signal ($1)" grep -q 'stopping after the work in progress' "$1"; }
# wait_for_signal_watch PID: PID blocks SIGINT and SIGTERM (its watcher thread takes them; cli/interrupt.cpp),
# so a signal sent now is handled by scancheck, not by the default action.
wait_for_signal_watch() {
  wait_until 60 "process $1 to watch for signals" bash -c \
    'mask=$(awk "/^SigBlk:/ {print \$2}" /proc/'"$1"'/status 2>/dev/null) && [ -n "$mask" ] && (( (16#$mask >> 14) & 1 ))'
}
