#!/usr/bin/env bash
# The public-kernels report (issue 27, docs/public-kernels.md): `scancheck report` over every client of
# python/clients/ (RecurrentGemma PyTorch and JAX, accelerated-scan, fla-core HGRN), each served by the Python
# library's worker from .venv, into build/public-kernels/ (report.json, report.md, report.html).
#   ci/public-kernels-report.sh [REPORT ARGS...]     e.g. --preset ci, --regimes default,long_memory
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
mkdir -p "$out"
start=$(date +%s)
status=0
"$scancheck" report "${workers[@]}" --backends '{recurrentgemma_torch,recurrentgemma_jax,accelerated_scan,fla_hgrn}:*' \
  --label public-kernels --timeout 600 --out "$out" "$@" || status=$?
echo "public-kernels-report: $out/report.md, $out/report.html (exit $status, $(( $(date +%s) - start )) s)"
exit "$status"
