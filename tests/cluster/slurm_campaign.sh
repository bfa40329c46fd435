#!/usr/bin/env bash
# A real Slurm on this machine: Debian's slurm-wlm and munge (installed by `ci/bootstrap.sh cluster`), a
# one-node configuration written here, munged, slurmctld and slurmd started, a campaign of 4 shards of the
# ci preset submitted with `scancheck campaign` (one built-in backend and a foreign worker whose buggy
# backend must fail), waited for, its merged report checked (rows, coverage, every shard merged, the
# failure with a repro that replays it), and a second campaign whose array is cancelled while it runs
# (the merge, afterany, still runs and names the shards). The daemons are stopped on every exit.
# Exit 77 (skipped, never passed) when Slurm is not installed or not running as root.
# Usage: slurm_campaign.sh SCANCHECK SOURCE_DIR [RESULT_FILE]
set -uo pipefail
bin=$(readlink -f "$1")
source_dir=$(readlink -f "$2")
result_file=${3:-}
for tool in slurmctld slurmd munged sbatch squeue sacct scancel; do
  command -v "$tool" >/dev/null || { echo "SKIPPED: $tool not found (install with: ci/bootstrap.sh cluster)"; exit 77; }
done
[ "$(id -u)" -eq 0 ] || { echo "SKIPPED: starting slurmd needs root"; exit 77; }
start=$(date +%s)
work=$(mktemp -d /tmp/scancheck-slurm.XXXXXX)
chmod 755 "$work"
export SLURM_CONF=$work/slurm.conf
node=$(hostname -s)
source "$source_dir/tests/check_support.sh"
ok() { echo "ok: $1"; }
fail() { echo "FAIL: $1"; failures=$((failures + 1)); }

stop_daemons() {
  scancel --full --quiet --user=root 2>/dev/null
  for pidfile in "$work/slurmd.pid" "$work/slurmctld.pid" "$work/munge/run/munged.pid"; do
    [ -s "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null
  done
  sleep 1
}
cleanup() {
  stop_daemons
  if [ $failures -ne 0 ]; then
    for log in slurmctld.log slurmd.log; do echo "--- $log"; tail -20 "$work/$log" 2>/dev/null; done
  fi
  rm -rf "$work"
}
trap cleanup EXIT

# munge: its own key and socket here, so a machine's munged (if any) is left alone.
# munged wants its key and state private, its socket's directory open to all.
mkdir -p "$work/munge/private" "$work/munge/run"
chown -R munge: "$work/munge"
chmod 700 "$work/munge/private" && chmod 755 "$work/munge" "$work/munge/run"
dd if=/dev/urandom of="$work/munge/private/munge.key" bs=1024 count=1 status=none
chown munge: "$work/munge/private/munge.key" && chmod 400 "$work/munge/private/munge.key"
runuser -u munge -- munged --key-file="$work/munge/private/munge.key" --socket="$work/munge/run/socket" \
  --pid-file="$work/munge/run/munged.pid" --log-file="$work/munge/private/munged.log" \
  --seed-file="$work/munge/private/seed" || { fail "munged starts"; exit 1; }
cpus=$(nproc)
memory=$(awk '/MemTotal/ {print int($2 / 1024 * 0.8)}' /proc/meminfo)
mkdir -p "$work/state" "$work/spool"
cat >"$SLURM_CONF" <<EOF
ClusterName=scancheck
SlurmctldHost=$node
AuthType=auth/munge
AuthInfo=socket=$work/munge/run/socket
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
SlurmctldPort=16817
SlurmdPort=16818
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
KillWait=20
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
NodeName=$node CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF
slurmctld -i || { fail "slurmctld starts"; exit 1; }
slurmd || { fail "slurmd starts"; exit 1; }
for _ in $(seq 60); do sinfo -h -o '%t' 2>/dev/null | grep -qE '^(idle|mix|alloc)' && break; sleep 0.5; done
sinfo -h -o '%t' | grep -qE '^(idle|mix|alloc)' && ok "one-node Slurm is up ($(sinfo -h -o '%n %c CPUs %t'))" \
  || { fail "the node never became idle: $(sinfo -h 2>&1)"; exit 1; }

# Waits for a job (and its array tasks) to leave the queue.
wait_for_job() {
  local job=$1 limit=$2
  for _ in $(seq "$limit"); do
    [ -z "$(squeue -h -j "$job" 2>/dev/null)" ] && return 0
    sleep 1
  done
  return 1
}

worker="/usr/bin/python3 $source_dir/examples/numpy_worker.py --misbehave"
backends='{rglru/sequential@fp32,numpy:rglru/textbook@fp32,numpy:rglru/dh_last_ignored@fp32}'
# The ci preset's ladder, shortened to lengths a worker in Python runs in seconds; 4 shards of 6 cases.
camp=$work/nightly
"$bin" campaign --shards 4 --out "$camp" --time-limit 00:05:00 -- --preset ci --lengths 2,33,100,300,700,1100 \
  --backends "$backends" --worker "$worker" --threads 1 --label nightly >"$work/campaign.txt" 2>&1 \
  || { fail "campaign submits: $(cat "$work/campaign.txt")"; exit 1; }
cat "$work/campaign.txt"
merge_job=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["jobs"]["merge"])' "$camp/campaign.json")
wait_for_job "$merge_job" 240 && ok "the campaign ran and was merged (job $merge_job)" || fail "the merge job did not end in 240 s"
/usr/bin/python3 - "$camp/report/report.json" "$camp/shards" <<'EOF' && ok "merged report: 4 of 4 shards, all rows, the failure with its repro" || fail "merged report"
import json, os, sys
r = json.load(open(sys.argv[1]))
s = r["coverage"]["shards"]
assert s == {"count": 4, "merged": [0, 1, 2, 3], "missing": [], "interrupted": []}, s
shard_rows = sum(len(json.load(open(os.path.join(sys.argv[2], d, "report.json")))["rows"]) for d in os.listdir(sys.argv[2]))
assert len(r["rows"]) == shard_rows == 6 * 3 * 2, (len(r["rows"]), shard_rows)
assert r["coverage"]["cases"] == 6, r["coverage"]
bad = sorted({row["backend"] for row in r["rows"] if row["verdict"] != "pass"})
assert bad == ["numpy:rglru/dh_last_ignored@fp32"], bad
assert r["verdict"]["summary"].startswith("FAIL: 1 of 3 backends failed"), r["verdict"]["summary"]
repro = next(row["repro"] for row in r["rows"] if row["verdict"] != "pass")
print(repro)
open(os.path.join(os.path.dirname(sys.argv[1]), "repro.txt"), "w").write(repro)
EOF
repro=$(cat "$camp/report/repro.txt" 2>/dev/null)
if [ -n "$repro" ]; then
  (cd "$work" && eval "${repro/scancheck/\"$bin\"}" >"$work/repro.txt" 2>&1)
  rc=$?
  [ $rc -eq 1 ] && ok "the failure's repro replays it (exit 1)" || { fail "the repro did not fail (exit $rc)"; cat "$work/repro.txt"; }
fi

# A campaign whose array is cancelled while its shards run: the merge (afterany) still runs and says so.
# Both shards' first runs are held (check_support.sh) until the signals have been taken, so both are
# certainly mid-case when cancelled, whatever the machine's speed.
cut=$work/cancelled
gate=$work/gate
hold_runs "$gate"
chmod 777 "$gate"
"$bin" campaign --shards 2 --out "$cut" -- --preset ci --backends '{rglru/sequential@fp32,mis-held:*}' --threads 1 \
  --lengths 2,33,100,300 --worker "$(held_worker rglru "$gate")" --timeout 600 --label cancelled \
  >"$work/campaign2.txt" 2>&1 || { fail "second campaign submits: $(cat "$work/campaign2.txt")"; exit 1; }
array_job=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["jobs"]["shards"])' "$cut/campaign.json")
merge_job=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["jobs"]["merge"])' "$cut/campaign.json")
wait_for_held_run "$gate" 0 && wait_for_held_run "$gate" 1
scancel --full --signal=TERM "${array_job}_0"  # what a time limit sends: shard 0 writes what it finished
wait_for_stop_taken "$cut/logs/shard-0.out"
# A crash (or a node lost): shard 1's processes die at once and write nothing. (scancel itself sends SIGTERM
# first, after which scancheck would write what it finished.)
task1=$(squeue -h -j "${array_job}_1" -o %A)
[ -n "$task1" ] && kill -KILL $(scontrol listpids "$task1" 2>/dev/null | awk 'NR > 1 && $1 ~ /^[0-9]+$/ {print $1}') 2>/dev/null
wait_until 60 "shard 1 to end" bash -c "[ -z \"\$(squeue -h -j ${array_job}_1 2>/dev/null)\" ]"
release_runs "$gate"
wait_for_job "$merge_job" 120 && ok "the merge ran after the cancelled array" || fail "the merge job did not end"
/usr/bin/python3 - "$cut/report/report.json" <<'EOF' && ok "cancelled campaign: the merge names the shards cut short or missing" || fail "cancelled campaign's merge"
import json, sys
r = json.load(open(sys.argv[1]))
s = r["coverage"]["shards"]
assert s["count"] == 2 and s["merged"] == [0] and s["interrupted"] == [0] and s["missing"] == [1], s
assert r["verdict"]["summary"].startswith("INTERRUPTED:") and not r["verdict"]["pass"], r["verdict"]
print(r["verdict"]["summary"])
EOF

seconds=$(( $(date +%s) - start ))
summary="slurm campaign test: $([ $failures -eq 0 ] && echo passed || echo "$failures failed") in $seconds s on $(date -u +%Y-%m-%d) (Slurm $(sinfo -V | cut -d' ' -f2), $cpus CPUs)"
echo "$summary"
[ -n "$result_file" ] && echo "$summary" >"$result_file"
[ $failures -eq 0 ]
