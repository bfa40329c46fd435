#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# `scancheck history` end to end on History.WritesTheHistoryForTheBrowserTest's 30 nightly report.json files
# (night01..night30; scan/chunk16@fp32 100x worse and failing from night 21 on): add prints one line per
# report and adds nothing twice; check exits 0 for night 20 and 1 for night 21 against the best earlier
# report; show writes history.html and history.md; bad input exits 2 with one line naming the problem.
#
# usage: history_cli.sh SCANCHECK REPORTS_DIR OUT_DIR
set -eu

if [ $# -ne 3 ]; then
  echo "usage: $0 SCANCHECK REPORTS_DIR OUT_DIR" >&2
  exit 2
fi
scancheck=$1
reports=$2
out=$3
rm -rf "$out"
mkdir -p "$out"
db=$out/history.db
log=$out/last.txt

# run CODE ARGS...: `scancheck ARGS...` must exit CODE; its stdout and stderr are in $log.
run() {
  want=$1
  shift
  status=0
  "$scancheck" "$@" >"$log" 2>&1 || status=$?
  if [ "$status" -ne "$want" ]; then
    echo "FAIL: scancheck $* exited $status, expected $want:"
    cat "$log"
    exit 1
  fi
}
# has TEXT: $log holds TEXT.
has() {
  if ! grep -qF -- "$1" "$log"; then
    echo "FAIL: expected '$1' in:"
    cat "$log"
    exit 1
  fi
}

run 0 history add "$reports"/night0?.json "$reports"/night1?.json "$reports/night20.json" --db "$db"
[ "$(grep -c '^added nightly [0-9a-f]* 2024-06-[0-9][0-9]T02:00:00Z (12 rows)$' "$log")" -eq 20 ] ||
  { echo "FAIL: expected 20 'added' lines:"; cat "$log"; exit 1; }
run 0 history add "$reports/night05.json" --db "$db"
has "already in the history: nightly"
echo "ok: add (20 reports, then one again: not added twice)"

run 0 history check "$reports/night20.json" --db "$db"
has "against the best earlier report"
has "verdict: no regression"
run 1 history check "$reports/night21.json" --db "$db"
has "REGRESSION new failure: scan/chunk16@fp32"
has "verdict: REGRESSION"
run 0 history check "$reports/night01.json" --db "$db"
has "nothing to compare with"
echo "ok: check (night 20 passes, night 21 regresses, night 1 has nothing earlier)"

run 0 history add "$reports"/night2?.json "$reports/night30.json" --db "$db"
run 0 history show --db "$db" --out "$out/page"
has "history: 30 reports of 'nightly', 3 backends, 15 plots"
[ -s "$out/page/history.html" ] && [ -s "$out/page/history.md" ] || { echo "FAIL: no page written"; exit 1; }
grep -qF '| scan/chunk16@fp32 | ' "$out/page/history.md" && grep -qF '**worse (' "$out/page/history.md" ||
  { echo "FAIL: history.md does not call scan/chunk16@fp32 worse:"; cat "$out/page/history.md"; exit 1; }
run 0 history show --db "$db" --label nightly --backends 'scan/seq*' --since 2024-06-10 --out "$out/page"
has "history: 21 reports of 'nightly', 1 backends, 5 plots"
echo "ok: show (all 30 reports; one backend since the 10th)"

run 2 history show --db "$out/missing.db" --out "$out/x"
has "does not exist"
run 2 history check "$reports/night30.json" --db "$out/missing.db"
has "does not exist"
[ ! -e "$out/missing.db" ] || { echo "FAIL: show or check created the missing database"; exit 1; }
run 2 history show --db "$reports/night01.json" --out "$out/x"
has "is not an SQLite database"
run 2 history add "$reports/night01.json" --db "$reports/night02.json"
has "is not an SQLite database"
run 2 history show --db "$db" --since yesterday --out "$out/x"
has "--since 'yesterday' is not a date"
run 2 history show --db "$db" --label weekly --out "$out/x"
has "has no report of label 'weekly'"
run 2 history show --db "$db" --out "$out"
has "holds the input"
[ -s "$db" ] || { echo "FAIL: the database is gone"; exit 1; }
run 2 history add "$out/missing.json" --db "$db"
[ "$(wc -l <"$log")" -eq 1 ] || { echo "FAIL: not one error line:"; cat "$log"; exit 1; }
[ ! -e "$out/x" ] || { echo "FAIL: a failed show left $out/x"; exit 1; }
echo "ok: bad input exits 2 with one line"
