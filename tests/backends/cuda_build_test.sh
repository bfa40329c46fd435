#!/usr/bin/env bash
# The build holds real CUDA kernels for the configured architecture: a device stub for every program body
# of every schedule, and a fat binary with code for that architecture. Runs without a GPU.
# Usage: cuda_build_test.sh libscancheck_cuda.a ARCH (e.g. 90)
set -uo pipefail
lib=$1
arch=$2
status=0
# Each __global__ instantiation leaves a host-side launch symbol scancheck::backends::program_kernel<Body>.
stubs=$(nm -C "$lib" | grep -E ' [TtWw] ' | grep 'program_kernel<')
for body in SequentialScan ChunkSummary PrefixFold GroupLocal GroupCorrect ChunkReplay; do
  for seq in ScanForward ScanBackward; do
    [ "$body" = GroupLocal ] || [ "$body" = GroupCorrect ] && seq=""  # field-typed bodies
    if ! grep "kernels::$body<" <<<"$stubs" | grep "$seq" >/dev/null; then
      echo "FAIL: no device kernel for $body $seq"; status=1
    fi
  done
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && ar x "$lib")
found_fatbin=0
for o in "$tmp"/*.o; do
  if readelf -S "$o" | grep "nv_fatbin" >/dev/null; then
    found_fatbin=1
    grep -aq "sm_$arch" "$o" || { echo "FAIL: $(basename "$o") has no sm_$arch code"; status=1; }
  fi
done
[ $found_fatbin -eq 1 ] || { echo "FAIL: no .nv_fatbin section"; status=1; }
[ $status -eq 0 ] && echo "cuda build: kernels for every schedule body, sm_$arch fat binaries present"
exit $status
