#!/usr/bin/env bash
# Installs every Debian package that building and testing scancheck needs. Idempotent: packages already
# present are not fetched again, and the package lists are refreshed at most once per run.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libboost1.81-dev libmpfr-dev libgmp-dev
  libeigen3-dev libcli11-dev nlohmann-json3-dev libfmt-dev
  libgtest-dev libgmock-dev libbenchmark-dev librapidcheck-dev
  # The asan-ubsan build and the parsers' libFuzzer targets: clang and its sanitizer and fuzzer runtimes.
  clang libclang-rt-14-dev
  # Reports: the schema test validates with Debian's python3-jsonschema; the HTML test renders in chromium.
  python3 python3-jsonschema chromium
  # The untrusted-text test also renders report.md as GitHub does (cmark-gfm, inline HTML allowed).
  cmark-gfm
  # Foreign backends: the C ABI plugins' tensors are DLPack views; the example and test workers use numpy.
  libdlpack-dev python3-numpy python3-torch
  # `scancheck history` keeps every report in an SQLite database (reports/history.cpp).
  libsqlite3-dev
  # A joined speed profile (--timings) is identified in the report by its SHA-256 (OpenSSL's libcrypto).
  libssl-dev
)

# `ci/bootstrap.sh cluster`: also Slurm and munge, for the on-demand test on a real Slurm
# (tests/cluster/slurm_campaign.sh, ctest label cluster); CI does not install them.
if [ "${1:-}" = cluster ]; then
  packages+=(slurm-wlm munge)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "bootstrap: all ${#packages[@]} packages present"
  exit 0
fi

echo "bootstrap: installing ${missing[*]}"
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "bootstrap: done"
