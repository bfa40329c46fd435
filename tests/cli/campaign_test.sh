#!/usr/bin/env bash
# `scancheck campaign` without a cluster: a stand-in sbatch records what would be submitted, then the job
# scripts run here the way Slurm runs them (one shell per array task with SLURM_ARRAY_TASK_* set, the
# merge after them), one shard "preempted" (never run) and one cut short by SIGTERM. The merged report must
# name both, keep the failing foreign backend's rows with their repro, and validate against the schema.
# Also: the shard taken from Slurm's and Kubernetes' variables, and the bad inputs (one line, exit 2).
# tests/cluster/slurm_campaign.sh runs the same on a real Slurm.
# Usage: campaign_test.sh SCANCHECK SOURCE_DIR [REPORTS_DIR]
set -uo pipefail
bin=$1
source_dir=$2
reports_dir=${3:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$source_dir/tests/check_support.sh"
ok() { echo "ok: $1"; }
fail() { echo "FAIL: $1"; failures=$((failures + 1)); }
expect() {  # expect WHAT CONDITION...
  local what=$1; shift
  if "$@"; then ok "$what"; else fail "$what"; fi
}
# One line on stderr, exit 2, for a command expected to refuse its input.
refuses() {
  local what=$1; shift
  "$@" >"$work/out.txt" 2>"$work/err.txt"
  local rc=$?
  if [ $rc -eq 2 ] && [ "$(wc -l <"$work/err.txt")" -eq 1 ]; then ok "$what: $(cat "$work/err.txt")"
  else fail "$what (exit $rc)"; cat "$work/err.txt" "$work/out.txt"; fi
}

# A stand-in sbatch: records its arguments, answers job ids as `sbatch --parsable` does.
mkdir -p "$work/bin"
cat >"$work/bin/sbatch" <<EOF
#!/bin/sh
echo "\$*" >>"$work/sbatch.log"
n=\$(wc -l <"$work/sbatch.log")
echo "\$((100 + n));testcluster"
EOF
chmod +x "$work/bin/sbatch"

worker="/usr/bin/python3 $source_dir/examples/numpy_worker.py --misbehave"
# The held backend (check_support.sh) lets shard 1 be signalled while its case certainly runs.
gate=$work/gate
mkdir -p "$gate"
backends='{rglru/sequential@fp32,numpy:rglru/textbook@fp32,numpy:rglru/dh_last_ignored@fp32,mis-held:*}'
camp="$work/nightly"
"$bin" campaign --shards 3 --gpus-per-shard 1 --time-limit 00:10:00 --partition debug --sbatch-option=--qos=short \
  --sbatch "$work/bin/sbatch" --out "$camp" -- --preset quick --lengths 2,300,3 --backends "$backends" \
  --worker "$worker" --worker "$(held_worker rglru "$gate")" --timeout 300 --label nightly >"$work/campaign.txt" 2>&1
rc=$?
cat "$work/campaign.txt"
expect "campaign submits (exit $rc)" test $rc -eq 0
expect "the array is submitted first, then the merge after it (afterany)" \
  grep -qx -- "--parsable --dependency=afterany:101 $camp/merge.sbatch" "$work/sbatch.log"
expect "the job array has one task per shard" grep -qx '#SBATCH --array=0-2' "$camp/shard.sbatch"
expect "each task asks for its GPU" grep -qx '#SBATCH --gres=gpu:1' "$camp/shard.sbatch"
expect "time limit, partition and extra options" \
  grep -qx '#SBATCH --time=00:10:00' "$camp/shard.sbatch" && grep -qx '#SBATCH --partition=debug' "$camp/merge.sbatch" \
  && grep -qx '#SBATCH --qos=short' "$camp/shard.sbatch"
expect "campaign.json records the job ids" grep -q '"merge": "102"' "$camp/campaign.json"

# Slurm runs the array: task 0 whole, task 1 stopped at its time limit (SIGTERM), task 2 preempted before
# it started. Then the merge job.
task() { env SLURM_ARRAY_JOB_ID=101 SLURM_ARRAY_TASK_ID=$1 SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_MAX=2 \
  SLURM_ARRAY_TASK_STEP=1 SLURM_ARRAY_TASK_COUNT=3 bash "$camp/shard.sbatch"; }
task 0 >"$work/task0.txt" 2>&1
rc=$?
expect "shard 0 runs and fails on the buggy backend (exit $rc)" test $rc -eq 1
expect "shard 0 says which shard it is" grep -q 'report: shard 0 of 3 (from SLURM_ARRAY_TASK_ID)' "$work/task0.txt"
# Its one case is held (check_support.sh) when SIGTERM comes; the job script execs scancheck, so $! is
# scancheck itself, as it is for Slurm.
hold_runs "$gate"
env SLURM_ARRAY_JOB_ID=101 SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_MAX=2 SLURM_ARRAY_TASK_STEP=1 \
  SLURM_ARRAY_TASK_COUNT=3 bash "$camp/shard.sbatch" >"$work/task1.txt" 2>&1 &
pid=$!
wait_for_held_run "$gate" 1
kill -TERM $pid
wait_for_stop_taken "$work/task1.txt"
release_runs "$gate"
wait $pid
rc=$?
expect "shard 1 stops at SIGTERM with exit 130 (got $rc)" test $rc -eq 130
bash "$camp/merge.sbatch" >"$work/merge.txt" 2>&1
rc=$?
cat "$work/merge.txt"
expect "the merge job merges what exists (exit $rc)" test $rc -eq 0
expect "the merged report is rendered" test -s "$camp/report/report.html" -a -s "$camp/report/report.md"
/usr/bin/python3 - "$camp/report/report.json" <<'EOF' && ok "merged report: shards named, failure with its repro" || fail "merged report"
import json, sys
r = json.load(open(sys.argv[1]))
s = r["coverage"]["shards"]
assert s["count"] == 3 and s["merged"] == [0, 1] and s["missing"] == [2] and s["interrupted"] == [1], s
assert r["method"]["shard"] is None
assert not r["verdict"]["pass"] and r["verdict"]["summary"].startswith("INTERRUPTED: 1 of 3 shards wrote no report"), r["verdict"]
bad = [row for row in r["rows"] if row["verdict"] != "pass"]
assert bad and all(row["backend"] == "numpy:rglru/dh_last_ignored@fp32" for row in bad), [row["backend"] for row in bad]
assert all("--worker" in row["repro"] and "--backend 'numpy:rglru/dh_last_ignored@fp32'" in row["repro"] for row in bad)
assert any(row["backend"] == "rglru/sequential@fp32" and row["verdict"] == "pass" for row in r["rows"])
EOF
expect "report.md names the missing and cut-short shards" grep -q '| shards | 2 of 3 shards merged; without a report: 2; cut short: 1 |' "$camp/report/report.md"
[ -n "$reports_dir" ] && mkdir -p "$reports_dir" && cp "$camp/report/report.json" "$reports_dir/campaign_merged.json" \
  && cp "$camp/shards/shard-0/report.json" "$reports_dir/campaign_shard0.json"

# The shard from the environment: Slurm (with a start and a step), Kubernetes, and --shard over both.
shard_of() { /usr/bin/python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["method"]["shard"]; print(s and "{}/{}".format(s["index"], s["count"]))' "$1/report.json"; }
small=(report --preset quick --backends 'scan/sequential@fp32' --lengths 2,3,4,5)
env SLURM_ARRAY_TASK_ID=7 SLURM_ARRAY_TASK_MIN=3 SLURM_ARRAY_TASK_STEP=2 SLURM_ARRAY_TASK_COUNT=4 \
  "$bin" "${small[@]}" --out "$work/slurm" >/dev/null 2>&1
expect "Slurm task 7 of 3,5,7,9 is shard 2/4" test "$(shard_of "$work/slurm")" = "2/4"
env JOB_COMPLETION_INDEX=1 SCANCHECK_SHARD_COUNT=2 "$bin" "${small[@]}" --out "$work/k8s" >/dev/null 2>&1
expect "Kubernetes completion index 1 of 2 is shard 1/2" test "$(shard_of "$work/k8s")" = "1/2"
env JOB_COMPLETION_INDEX=1 SCANCHECK_SHARD_COUNT=2 "$bin" "${small[@]}" --shard 0/1 --out "$work/whole" >/dev/null 2>&1
expect "--shard 0/1 opts out inside a job" test "$(shard_of "$work/whole")" = "None"
env SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_COUNT=3 "$bin" fuzz --backends 'scan/sequential@fp32' --cases 2 \
  --findings "$work/findings" >"$work/fuzz.txt" 2>&1
expect "fuzz takes its shard from Slurm too" grep -q 'shard 1/3 (SLURM_ARRAY_TASK_ID)' "$work/fuzz.txt"

refuses "a Slurm task outside its array" env SLURM_ARRAY_TASK_ID=5 SLURM_ARRAY_TASK_COUNT=3 "$bin" "${small[@]}" --out "$work/x"
refuses "a completion index without a count" env JOB_COMPLETION_INDEX=0 "$bin" "${small[@]}" --out "$work/x"
refuses "a non-numeric task id" env SLURM_ARRAY_TASK_ID=abc SLURM_ARRAY_TASK_COUNT=3 "$bin" "${small[@]}" --out "$work/x"
refuses "more shards than cases" "$bin" "${small[@]}" --shard 4/5 --out "$work/x"
refuses "campaign: --out among the report's arguments" "$bin" campaign --shards 2 --sbatch "$work/bin/sbatch" \
  --out "$work/c1" -- --preset quick --out "$work/y"
refuses "campaign: a misspelt report option" "$bin" campaign --shards 2 --sbatch "$work/bin/sbatch" --out "$work/c2" \
  -- --presett quick
refuses "campaign: more shards than the plan has cases" "$bin" campaign --shards 5 --sbatch "$work/bin/sbatch" \
  --out "$work/c3" -- "${small[@]:1}"
refuses "campaign: a directory that holds a campaign" "$bin" campaign --shards 2 --sbatch "$work/bin/sbatch" \
  --out "$camp" -- "${small[@]:1}"
refuses "campaign: no sbatch" "$bin" campaign --shards 2 --sbatch "$work/bin/no-such-sbatch" --out "$work/c4" \
  -- "${small[@]:1}"
printf '#!/bin/sh\necho "sbatch: error: invalid partition specified: gpu" >&2\nexit 1\n' >"$work/bin/refusing-sbatch"
chmod +x "$work/bin/refusing-sbatch"
refuses "campaign: sbatch refuses" "$bin" campaign --shards 2 --sbatch "$work/bin/refusing-sbatch" --out "$work/c5" \
  -- "${small[@]:1}"
"$bin" campaign --shards 2 --no-submit --out "$work/c6" -- "${small[@]:1}" >"$work/nosubmit.txt" 2>&1
expect "--no-submit writes the jobs and says how to submit them" \
  grep -q 'not submitted' "$work/nosubmit.txt" && test -s "$work/c6/shard.sbatch"

[ $failures -eq 0 ] && echo "campaign test: all passed" || { echo "campaign test: $failures failed"; exit 1; }
