# SPDX-License-Identifier: Apache-2.0
# Sourced by the end-to-end test scripts (tests/cli, tests/foreign): the counters, pass and fail, and the
# bad-input contract of every subcommand (exit 2, exactly one line on stderr). Needs $bin (the scancheck
# executable) and $work (a scratch directory) where expect_bad_input is used.
failures=0
passed=0
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
