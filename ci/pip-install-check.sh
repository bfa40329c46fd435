#!/usr/bin/env bash
# The root `pip install .` as a new user does it, in fresh virtual environments (on demand: ctest label soak,
# `ctest --preset soak -R python_root_install`, or `bash ci/pip-install-check.sh`; it reaches PyPI):
#   1. `pip install <root>` (pyproject.toml: scikit-build-core builds the scancheck executable from the CMake
#      project, CPU only, in a fresh build folder) installs the package and `scancheck` into the venv's bin/;
#      `scancheck --version` runs, the package finds that executable with the venv's bin/ off PATH and
#      $SCANCHECK unset, $SCANCHECK still overrides it, and `scancheck.fuzz` of a numpy kernel passes;
#   2. `pip install <root>/python` stays the package alone (pure Python): no executable of its own, the one
#      on PATH is used.
# Versions from python/constraints.txt (PIP_CONSTRAINT, which pip's isolated build environment honours too).
# CMAKE_BUILD_PARALLEL_LEVEL (default 2) bounds the compile jobs. Prints the time each install took.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PIP_CONSTRAINT=$root/python/constraints.txt PIP_DISABLE_PIP_VERSION_CHECK=1
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2}
unset SCANCHECK
fail() { echo "pip-install-check: FAIL: $*" >&2; exit 1; }

python3 -m venv "$work/venv"
start=$(date +%s)
"$work/venv/bin/pip" install -q --config-settings=build-dir="$work/build" "$root"
echo "pip-install-check: pip install . (the executable built from scratch) took $(( $(date +%s) - start )) s"

exe=$work/venv/bin/scancheck
[ -x "$exe" ] || fail "pip install . put no executable at $exe"
version=$("$exe" --version)
echo "pip-install-check: $exe --version: $version"
[[ $version == "scancheck "* ]] || fail "unexpected version line '$version'"

# The package finds the executable installed with it, not through PATH (the venv is not activated).
found=$(cd "$work" && PATH=/usr/bin:/bin "$work/venv/bin/python" -c "import scancheck; print(scancheck.executable())")
echo "pip-install-check: scancheck.executable() = $found"
[ "$found" = "$exe" ] || fail "scancheck.executable() is $found, not $exe"
package=$(cd "$work" && "$work/venv/bin/python" -c "import scancheck; print(scancheck.__file__)")
[[ $package == "$work/venv/"* ]] || fail "scancheck imported from $package, not from the venv"
override=$(cd "$work" && SCANCHECK=/bin/true "$work/venv/bin/python" -c "import scancheck; print(scancheck.executable())")
[ "$override" = /bin/true ] || fail "\$SCANCHECK does not override the installed executable ($override)"

# End to end: the installed executable fuzzes a numpy kernel through the installed library's worker.
(cd "$work" && PATH=/usr/bin:/bin "$work/venv/bin/python" - "$root/python/tests/kernels/numpy_scans.py" <<'EOF'
import sys

import scancheck

result = scancheck.fuzz(sys.argv[1], "npscans:scan/loop@*", cases=5, findings="findings")
print(f"pip-install-check: fuzz of npscans:scan/loop: {result.cases} cases, passed: {result.passed}")
sys.exit(0 if result.passed and result.cases == 5 else 1)
EOF
) || fail "scancheck.fuzz through the installed executable"

# `pip install ./python`: the package alone, which takes the executable on PATH.
python3 -m venv "$work/pure"
start=$(date +%s)
"$work/pure/bin/pip" install -q "$root/python"
echo "pip-install-check: pip install ./python took $(( $(date +%s) - start )) s"
[ ! -e "$work/pure/bin/scancheck" ] || fail "pip install ./python installed an executable"
found=$(cd "$work" && PATH=$work/venv/bin:/usr/bin:/bin "$work/pure/bin/python" -c \
  "import scancheck, scancheck.checking as c; assert c.installed_executable() is None; print(scancheck.executable())")
[ "$found" = "$exe" ] || fail "pip install ./python: scancheck.executable() is $found, not the one on PATH ($exe)"
echo "pip-install-check: OK"
