#!/usr/bin/env bash
# The README's main job. Until the backends and report issues land, it builds scancheck, generates one
# case per architecture and regime, and computes its exact reference with float32 error bounds, printing
# one line per case. Output: build/report/<arch>-<regime>/{case,reference}.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/bootstrap.sh
bash ci/build.sh default >/dev/null
bin=build/default/cli/scancheck
out=build/report
mkdir -p "$out"
for arch in scan complex_scan rglru complex_rglru; do
  for regime in default long_memory resets extreme clip; do
    dir="$out/$arch-$regime"
    "$bin" make-case --arch "$arch" --batch 2 --length 257 --width 16 --heads 2 --seed 1 --regime "$regime" \
      --out "$dir/case" >/dev/null
    "$bin" reference --case "$dir/case" --out "$dir/reference"
  done
done
echo "references written under $out"
