#!/usr/bin/env bash
# Runs the tests whose outcome could depend on timing or on racing processes many times, and prints how
# many runs each passed: the proof that they do not flake. Labels: concurrency (processes and threads
# racing on one file), timing (signals sent to runs in progress, worker timeouts), cluster (a real Slurm;
# root and `ci/bootstrap.sh cluster`). With --load, a busy process per core runs throughout, as on a
# loaded CI machine.
# Usage: ci/stress.sh [--runs N] [--load] [--preset PRESET] [--label REGEX]
#   defaults: --runs 20 --preset default --label 'concurrency|timing'; the preset must be built
#   (ci/build.sh PRESET); the cluster label runs one test at a time.
# Exit status: 0 when every run of every test passed.
set -uo pipefail
cd "$(dirname "$0")/.."
runs=20 load=false preset=default label='concurrency|timing'
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --load) load=true; shift ;;
    --preset) preset=$2; shift 2 ;;
    --label) label=$2; shift 2 ;;
    *) echo "stress.sh: unknown argument '$1' (usage: ci/stress.sh [--runs N] [--load] [--preset P] [--label REGEX])" >&2
       exit 2 ;;
  esac
done
build=build/$preset  # every configure preset's binaryDir (CMakePresets.json)
[ -f "$build/CTestTestfile.cmake" ] || { echo "stress.sh: $build is not built: run ci/build.sh $preset" >&2; exit 2; }

log=$(mktemp -d)
busy=()
stop_load() { [ ${#busy[@]} -eq 0 ] || kill "${busy[@]}" 2>/dev/null; rm -rf "$log"; }
trap stop_load EXIT
if $load; then
  for _ in $(seq "$(nproc)"); do
    (while :; do :; done) &
    busy+=($!)
  done
fi

echo "stress.sh: $runs runs of ctest -L '$label' in $build$($load && echo ", $(nproc) busy processes beside them")"
for run in $(seq "$runs"); do
  (cd "$build" && ctest -L "$label" --timeout 900 >"$log/run-$run.txt" 2>&1)
  failed=$(grep -cE '\*\*\*(Failed|Timeout|Exception)|Failed  ' "$log/run-$run.txt")
  echo "run $run: $(grep -oE '[0-9]+% tests passed.*' "$log/run-$run.txt" || echo 'no tests ran')"
  [ "$failed" -eq 0 ] || grep -E '\*\*\*(Failed|Timeout|Exception)|Failed  ' "$log/run-$run.txt" | sed 's/^/    /'
done

# Passed runs per test, over every run.
cat "$log"/run-*.txt | awk -v runs="$runs" '
  / Test +#[0-9]+: / {
    name = $0; sub(/.*Test +#[0-9]+: /, "", name); sub(/ \.+.*/, "", name); sub(/ +\*\*\*.*/, "", name)
    total[name]++
    if ($0 ~ / Passed /) passed[name]++
  }
  END {
    bad = 0
    for (n in total) {
      printf "%-72s %d of %d passed\n", n, passed[n], total[n]
      if (passed[n] != total[n] || total[n] != runs) bad = 1
    }
    exit bad
  }' | sort
status=${PIPESTATUS[1]}
[ "$status" -eq 0 ] && echo "stress.sh: every run passed" || echo "stress.sh: some runs failed (above)"
exit "$status"
