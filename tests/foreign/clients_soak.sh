#!/usr/bin/env bash
# The real-client soak: examples/torch_worker.py (rglru and complex_rglru, float32 and bfloat16: 8,000 cases,
# 2,000 per architecture and dtype) and examples/numpy_worker.py (scan and rglru, float32: 4,000 cases), every
# regime, each judged against the exact reference under the default policy. Zero failures expected.
# Usage: clients_soak.sh SCANCHECK SOURCE_DIR. Exit 77 (skipped) without numpy and torch.
set -uo pipefail
bin=$1
src=$2
export PYTHONPATH="$src/python/src${PYTHONPATH:+:$PYTHONPATH}"  # the example workers use the scancheck library
python=/usr/bin/python3
"$python" -c 'import numpy, torch' 2>/dev/null || { echo "SKIP: $python lacks numpy or torch"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
for run in "torch:*/autograd@*|$src/examples/torch_worker.py|2000" "numpy:*/{sequential,textbook}@*|$src/examples/numpy_worker.py|2000"; do
  IFS='|' read -r backends worker cases <<<"$run"
  "$bin" fuzz --worker "$python $worker" --backends "$backends" --cases "$cases" --seed 2026 \
    --findings "$work/findings" 2>&1 | tail -4 || status=1
done
exit $status
