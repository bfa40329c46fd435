#!/usr/bin/env bash
# Writes a CTest resource specification with one `gpus` slot per GPU that nvidia-smi sees, so that
#   ctest -L gpu -j N --resource-spec-file FILE
# runs the gpu-labelled tests side by side, each on its own device (they declare RESOURCE_GROUPS gpus:1;
# CTest hands each its GPU in CTEST_RESOURCE_GROUP_0_GPUS and scancheck makes it the only visible one).
# Usage: ci/gpu-resources.sh FILE   (exit 77 when nvidia-smi finds no GPU)
set -euo pipefail
file=${1:?usage: ci/gpu-resources.sh FILE}
ids=$(nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null | tr -d ' ' || true)
if [ -z "$ids" ]; then
  echo "gpu-resources: nvidia-smi sees no GPU" >&2
  exit 77
fi
gpus=$(printf '%s\n' $ids | awk '{printf "%s{\"id\": \"%s\", \"slots\": 1}", (NR > 1 ? ", " : ""), $1}')
printf '{"version": {"major": 1, "minor": 0}, "local": [{"gpus": [%s]}]}\n' "$gpus" >"$file.tmp"
mv "$file.tmp" "$file"
echo "gpu-resources: $(printf '%s\n' $ids | wc -l) GPU(s) in $file"
