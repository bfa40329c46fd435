#!/usr/bin/env bash
# The public-kernels report (issue 27, docs/public-kernels.md): `scancheck report` over every client of
# python/clients/ (RecurrentGemma PyTorch and JAX, accelerated-scan, fla-core HGRN), each served by the Python
# library's worker from .venv, into build/public-kernels/ (report.json, report.md, report.html).
#   ci/public-kernels-report.sh [REPORT ARGS...]     e.g. --preset ci, --regimes default,long_memory
#   SCANCHECK_PUBLIC_SHARDS=N ci/public-kernels-report.sh ...   N shards side by side (report --shard i/N, each
#       with its own workers, in build/public-kernels-shards/), merged and rendered into build/public-kernels/
# Needs .venv with the pinned packages (ci/bootstrap.sh) and the executable (ci/build.sh, or $SCANCHECK).
# Without a GPU, Triton kernels run under Triton's interpreter and fla's chunk_hgrn is an error row (it does
# not run there: docs/public-kernels.md); on a GPU they run compiled.
set -euo pipefail
cd "$(dirname "$0")/.."
python=$PWD/.venv/bin/python
scancheck=${SCANCHECK:-$PWD/build/default/cli/scancheck}
[ -x "$python" ] || { echo "public-kernels-report: no $python (ci/bootstrap.sh makes it)" >&2; exit 2; }
[ -x "$scancheck" ] || { echo "public-kernels-report: no $scancheck (ci/build.sh builds it)" >&2; exit 2; }
out=build/public-kernels
workers=()
for client in recurrentgemma_torch recurrentgemma_jax accelerated_scan_client fla_hgrn; do
  workers+=(--worker "$python -m scancheck.worker python/clients/$client.py")
done
shards=${SCANCHECK_PUBLIC_SHARDS:-1}
mkdir -p "$out"
start=$(date +%s)
status=0
report() {  # report OUT [ARGS...]
  local to=$1
  shift
  "$scancheck" report "${workers[@]}" --backends '{recurrentgemma_torch,recurrentgemma_jax,accelerated_scan,fla_hgrn}:*' \
    --label public-kernels --timeout 600 --out "$to" "$@"
}
if [ "$shards" -le 1 ]; then
  report "$out" "$@" || status=$?
else
  parts=build/public-kernels-shards  # beside $out: render replaces $out as a whole
  rm -rf "$parts" && mkdir -p "$parts"
  pids=()
  for ((i = 0; i < shards; i++)); do
    report "$parts/shard-$i" --shard "$i/$shards" "$@" >"$parts/shard-$i.log" 2>&1 &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || status=$(( status > $? ? status : $? )); done
  # A failing row exits 1: only a shard without its report.json is missing from the merge (which names it).
  written=()
  for ((i = 0; i < shards; i++)); do [ -f "$parts/shard-$i/report.json" ] && written+=("$parts/shard-$i"); done
  if [ ${#written[@]} -lt 2 ]; then
    echo "public-kernels-report: ${#written[@]} of $shards shards wrote a report (logs: $parts/shard-*.log)" >&2
    exit 2
  fi
  "$scancheck" merge "${written[@]}" --shards "$shards" --out "$parts/report.json"
  "$scancheck" render "$parts/report.json" --out "$out"
fi
echo "public-kernels-report: $out/report.md, $out/report.html (exit $status, $(( $(date +%s) - start )) s)"
exit "$status"
