#!/usr/bin/env bash
# Runs every parser's libFuzzer target (tests/fuzz) for a while, one after another, from its committed
# corpus, and prints the executions each made. Needs the asan-ubsan build (clang, SCANCHECK_BUILD_FUZZERS).
# A crash stops the script with the reproducer's path: add it to tests/fuzz/corpus/<target>/ as
# regression-<what>, fix the bug, rerun.
# Usage: ci/fuzz-parsers.sh [--time 10m | --runs N] [target ...]   (default: --time 1m each, all targets)
set -euo pipefail
cd "$(dirname "$0")/.."
build=build/asan-ubsan/tests/fuzz
limit=(-max_total_time=60)
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --time)
      t=$2; shift 2
      case "$t" in
        *h) s=$(( ${t%h} * 3600 ));; *m) s=$(( ${t%m} * 60 ));; *s) s=${t%s};; *) s=$t;;
      esac
      limit=(-max_total_time="$s");;
    --runs) limit=(-runs="$2"); shift 2;;
    -h|--help) sed -n 2,7p "$0"; exit 0;;
    *) targets+=("$1"); shift;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=(npy_fuzz case_json_fuzz case_dir_fuzz policy_fuzz report_json_fuzz \
  finding_json_fuzz worker_protocol_fuzz names_fuzz profile_fuzz)
[ -x "$build/npy_fuzz" ] || { bash ci/build.sh asan-ubsan >/dev/null; }
log_dir=${SCANCHECK_FUZZ_LOGS:-build/asan-ubsan/fuzz-logs}
mkdir -p "$log_dir"
printf '%-22s %14s %10s %8s\n' target executions exec/s seconds
for t in "${targets[@]}"; do
  work=build/asan-ubsan/fuzz-work/$t
  mkdir -p "$work/new" "$work/artifacts"
  start=$(date +%s)
  if ! ASAN_OPTIONS=halt_on_error=1:detect_leaks=1 "$build/$t" "${limit[@]}" \
      -max_len=65536 -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=512 -print_final_stats=1 \
      -artifact_prefix="$work/artifacts/" "$work/new" "tests/fuzz/corpus/$t" >"$log_dir/$t.log" 2>&1; then
    echo "$t: FOUND A BUG; reproducer(s): $(ls "$work"/artifacts/* 2>/dev/null | tr '\n' ' ')" >&2
    tail -40 "$log_dir/$t.log" >&2
    exit 1
  fi
  runs=$(grep -h 'stat::number_of_executed_units' "$log_dir/$t.log" 2>/dev/null | awk '{s+=$2} END{print s+0}')
  seconds=$(( $(date +%s) - start ))
  printf '%-22s %14d %10d %8d\n' "$t" "$runs" $(( runs / (seconds > 0 ? seconds : 1) )) "$seconds"
done
