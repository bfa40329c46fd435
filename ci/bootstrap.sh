#!/usr/bin/env bash
# Installs every Debian package that building and testing scancheck needs, and the Python side's .venv.
# Idempotent: packages already present are not fetched again, and the package lists are refreshed at most
# once per run.
#   ci/bootstrap.sh            everything the test command needs
#   ci/bootstrap.sh cli        only what the executable's build needs (the main job, ci/report.sh): no .venv
#   ci/bootstrap.sh cluster    everything, and Slurm and munge for the test on a real Slurm
set -euo pipefail
mode=${1:-}

# What the scancheck executable links (the cli preset): compilers, CMake and the C++ libraries.
packages=(
  build-essential cmake ninja-build pkg-config
  libboost1.81-dev libmpfr-dev libgmp-dev
  libeigen3-dev libcli11-dev nlohmann-json3-dev libfmt-dev librapidcheck-dev
  # `scancheck history` keeps every report in an SQLite database (reports/history.cpp).
  libsqlite3-dev
  # A joined speed profile (--timings) is identified in the report by its SHA-256 (OpenSSL's libcrypto).
  libssl-dev
  # The C ABI plugins' tensors are DLPack views (include/scancheck/plugin.h).
  libdlpack-dev
)
# What the tests add.
[ "$mode" = cli ] || packages+=(
  libgtest-dev libgmock-dev libbenchmark-dev
  # The asan-ubsan build and the parsers' libFuzzer targets: clang and its sanitizer and fuzzer runtimes.
  clang libclang-rt-14-dev
  # ci/format-check.sh (ctest format_check): the C++ and CUDA files' layout, .clang-format.
  clang-format
  # Reports: the schema test validates with Debian's python3-jsonschema; the HTML test renders in chromium.
  python3 python3-jsonschema chromium
  # The untrusted-text test also renders report.md as GitHub does (cmark-gfm, inline HTML allowed).
  cmark-gfm
  # Foreign backends: the example and test workers use numpy (and torch).
  python3-numpy python3-torch
)

# `ci/bootstrap.sh cluster`: also Slurm and munge, for the test on a real Slurm (tests/cluster/slurm_campaign.sh,
# ctest label cluster), which .ci/run installs and ci/test.sh runs where Slurm is present.
if [ "$mode" = cluster ]; then
  packages+=(slurm-wlm munge)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "bootstrap: all ${#packages[@]} packages present"
else
  echo "bootstrap: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  echo "bootstrap: Debian packages done"
fi

# The Python side (python/): the virtual environment .venv at the repository root, every version from
# python/constraints.txt (PyPI), the package itself installed editable. Remade only when the pins change;
# SCANCHECK_NO_PYTHON=1 skips it (ctest then reports the Python tests as skipped).
[ "${SCANCHECK_NO_PYTHON:-0}" = 1 ] || [ "$mode" = cli ] && exit 0
cd "$(dirname "$0")/.."
pins=$(cat python/constraints.txt python/requirements-dev.txt python/pyproject.toml | sha256sum | cut -d' ' -f1)
if [ "$(cat .venv/.scancheck-pins 2>/dev/null)" = "$pins" ]; then
  echo "bootstrap: .venv up to date"
  exit 0
fi
echo "bootstrap: bringing .venv to python/constraints.txt (a fresh one fetches about 5 GB: torch's CUDA libraries)"
start=$(date +%s)
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/pip install -q --disable-pip-version-check -c python/constraints.txt -r python/requirements-dev.txt
PIP_CONSTRAINT=$PWD/python/constraints.txt .venv/bin/pip install -q --disable-pip-version-check --no-deps -e python
echo "$pins" >.venv/.scancheck-pins
echo "bootstrap: .venv done in $(( $(date +%s) - start )) s"
