#!/usr/bin/env bash
# The binary wheel as a user gets it (ctest python_wheel, label unit; docs/python.md, "The wheel"):
#   1. builds it with ci/build-wheel.sh (a rerun only recompiles what changed), or takes the wheel given;
#   2. installs it into a fresh virtual environment from local files alone (`--no-index --only-binary=:all:`:
#      nothing can be compiled, nothing fetched; numpy and pytest from build/wheel-deps/, which
#      `pip download` fills once per python/constraints.txt) and prints how long that took;
#   3. then, in a clean setting: `env -i` (PATH the venv's bin/, /usr/bin and /bin; HOME a temporary folder;
#      LD_LIBRARY_PATH empty) and, where a mount namespace can be had (root: `unshare --mount`), every system
#      copy of the libraries the wheel vendors hidden behind /dev/null (what Debian's libmpfr-dev, libgmp-dev,
#      libssl-dev, libsqlite3-dev, libfmt-dev and gcc bring) and the repository with its build folders
#      behind an empty tmpfs; without one, the proof is ldd's alone, and it says so:
#      - ldd of the executable the package finds: every library outside the manylinux set (glibc, libstdc++,
#        libgcc_s) resolves inside the wheel's scancheck.libs/;
#      - `scancheck --version` (the scripts folder's shim) and the executable itself;
#      - `scancheck.fuzz` of a numpy kernel (python/tests/kernels/numpy_scans.py, copied);
#      - `pytest --scancheck` over a file of two numpy backends: a sequential loop and a Kogge-Stone tree.
# Exit 77 (skipped) where the Python side is not made (no .venv: SCANCHECK_NO_PYTHON=1, `ci/bootstrap.sh cli`).
# Usage: ci/wheel-check.sh [WHEEL]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$root/.venv/bin/python" ] || { echo "SKIP: no $root/.venv (ci/bootstrap.sh makes the Python side)"; exit 77; }
export PIP_CONSTRAINT=$root/python/constraints.txt PIP_DISABLE_PIP_VERSION_CHECK=1
unset SCANCHECK PYTHONPATH
fail() { echo "wheel-check: FAIL: $*" >&2; exit 1; }

if [ $# -gt 0 ]; then
  wheel=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
else
  bash "$root/ci/build-wheel.sh"
  wheels=("$root"/dist/scancheck-*.whl)
  wheel=${wheels[0]}
fi
[ -f "$wheel" ] || fail "no wheel at $wheel"
echo "wheel-check: $wheel ($(stat -c %s "$wheel") bytes)"

# numpy (the package's one dependency) and pytest as wheels, fetched once per pin set.
deps=$root/build/wheel-deps
pins=$(sha256sum "$root/python/constraints.txt" | cut -d' ' -f1)
if [ "$(cat "$deps/.scancheck-pins" 2>/dev/null)" != "$pins" ]; then
  rm -rf "$deps"
  python3 -m pip download -q --only-binary=:all: -d "$deps" numpy pytest
  echo "$pins" >"$deps/.scancheck-pins"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/venv"
venv=$work/venv
start=$(date +%s%N)
"$venv/bin/pip" install -q --no-index --find-links "$deps" --only-binary=:all: "$wheel"
took=$(( ($(date +%s%N) - start) / 1000000 ))
printf 'wheel-check: pip install of the wheel (and numpy) into a fresh venv, from local files, nothing compiled: %d.%03d s\n' \
  $((took / 1000)) $((took % 1000))
"$venv/bin/pip" install -q --no-index --find-links "$deps" --only-binary=:all: pytest
site=$(readlink -f "$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_path("platlib"))')")
[ -d "$site/scancheck.libs" ] || fail "the installed wheel has no $site/scancheck.libs"
cp "$root/python/tests/kernels/numpy_scans.py" "$work/"

cat >"$work/test_two_backends.py" <<'EOF'
"""Two correct numpy scans, h[t] = a[t] h[t-1] + b[t]: a loop over time and a Kogge-Stone tree."""

import numpy as np

import scancheck

SCANCHECK_PROVIDER = "wheelcheck"


def sequential(a, b, h0):
    h, state = np.empty_like(b), h0.copy()
    for t in range(b.shape[1]):
        state = a[:, t] * state + b[:, t]
        h[:, t] = state
    return h


def kogge_stone(a, b, h0):
    """log2(L) doubling steps over time: after the step of span s, (a, b) at t compose the steps t-2s+1..t."""
    a, b = a.copy(), b.copy()
    b[:, 0] = a[:, 0] * h0 + b[:, 0]
    span = 1
    while span < b.shape[1]:
        b[:, span:], a[:, span:] = a[:, span:] * b[:, :-span] + b[:, span:], a[:, span:] * a[:, :-span]
        span *= 2
    return b


def backward_with(scan):
    def backward(a, b, h0, dh, dh_last=None):
        # g[t] = dh[t] + a[t+1] g[t+1], g[L] = dh_last with a[L] = 1: the same scan, run backwards in time.
        shifted = np.concatenate([a[:, 1:], np.ones_like(a[:, :1])], axis=1)[:, ::-1]
        carry = np.zeros_like(h0) if dh_last is None else dh_last
        g = scan(np.ascontiguousarray(shifted), np.ascontiguousarray(dh[:, ::-1]), carry)[:, ::-1]
        previous = np.concatenate([h0[:, None], scan(a, b, h0)[:, :-1]], axis=1)
        return {"a": g * previous, "b": g, "h0": a[:, 0] * g[:, 0]}

    return backward


@scancheck.backend("scan", variant="sequential", framework="numpy", backward=backward_with(sequential))
def loop(a, b, h0):
    return sequential(a, b, h0)


@scancheck.backend("scan", variant="kogge_stone", framework="numpy", backward=backward_with(kogge_stone))
def tree(a, b, h0):
    return kogge_stone(a, b, h0)
EOF

cat >"$work/inside.sh" <<'EOF'
# Runs under env -i: PATH, HOME and an empty LD_LIBRARY_PATH only.
set -euo pipefail
work=$1 site=$2
fail() { echo "wheel-check: FAIL: $*" >&2; exit 1; }
cd "$work"
echo "wheel-check: environment: $(env | sort | tr '\n' ' ')"
exe=$(python -c 'import scancheck; print(scancheck.executable())')
[ "$(readlink -f "$exe")" = "$site/scancheck.scripts/scancheck" ] || fail "scancheck.executable() is $exe, not the wheel's $site/scancheck.scripts/scancheck"
echo "wheel-check: ldd $exe"
ldd "$exe" | sed 's/^/  /'
# The manylinux policy's libraries (glibc's, libstdc++, libgcc_s) come from the system; every other one from the wheel.
outside=$(ldd "$exe" | python -c '
import os, re, sys

system = re.compile(r"(linux-vdso|/lib64/ld-linux-x86-64|ld-linux-x86-64|libc|libm|libdl|librt|libpthread|libutil"
                    r"|libresolv|libnsl|libstdc\+\+|libgcc_s)\.so\.")
for line in sys.stdin:
    words = line.split()
    if "not found" in line or not (system.match(words[0]) or (len(words) > 2 and words[1] == "=>"
                                   and os.path.realpath(words[2]).startswith(sys.argv[1]))):
        print(line.strip())
' "$site/scancheck.libs/")
[ -z "$outside" ] || fail "libraries resolved outside the wheel: $outside"
echo "wheel-check: every library outside the manylinux set resolves in $site/scancheck.libs/"
version=$(scancheck --version)
echo "wheel-check: $(command -v scancheck) --version: $version"
[[ $version == "scancheck "* ]] || fail "unexpected version line '$version'"
[ "$("$exe" --version)" = "$version" ] || fail "$exe --version differs from the shim's"
python - <<'PY' || fail "scancheck.fuzz of a numpy kernel"
import scancheck

result = scancheck.fuzz("numpy_scans.py", "npscans:scan/loop@*", cases=20, findings="findings")
print(f"wheel-check: scancheck.fuzz of npscans:scan/loop: {result.cases} cases, passed: {result.passed}")
raise SystemExit(0 if result.passed and result.cases == 20 else 1)
PY
python -m pytest -p no:cacheprovider -v --scancheck --scancheck-cases 20 --scancheck-findings findings \
  test_two_backends.py | tee pytest.log || fail "pytest --scancheck over two backends"
grep -q "2 passed" pytest.log || fail "pytest --scancheck did not pass both backends"
EOF

cat >"$work/hidden.sh" <<'EOF'
# In a private mount namespace: every system copy of a vendored library reads as /dev/null, the repository as
# an empty folder; then the checks under env -i.
set -euo pipefail
work=$1 site=$2 root=$3
hidden=()
for vendored in "$site"/scancheck.libs/*; do
  stem=$(basename "$vendored" | sed 's/-[0-9a-f]\{8\}\.so.*//')
  while read -r path; do
    hidden+=("$(readlink -f "$path")")
  done < <( { /sbin/ldconfig -p | awk -v s="$stem.so" 'index($1, s) == 1 { print $NF }'
              ls -d /usr/lib/x86_64-linux-gnu/"$stem".so* /usr/local/lib/"$stem".so* 2>/dev/null || true; } )
done
[ ${#hidden[@]} -gt 0 ] || { echo "wheel-check: FAIL: no system copy of the vendored libraries found" >&2; exit 1; }
mapfile -t hidden < <(printf '%s\n' "${hidden[@]}" | sort -u)
for path in "${hidden[@]}"; do mount --bind /dev/null "$path"; done
echo "wheel-check: hidden behind /dev/null (each now reads $(cat "${hidden[@]}" | wc -c) bytes): ${hidden[*]}"
case $work/ in
  "$root"/*) echo "wheel-check: $work is inside the repository, which stays visible" ;;
  *) mount -t tmpfs -o size=1m none "$root"; echo "wheel-check: $root hidden behind an empty tmpfs: $(ls -A "$root" | wc -l) entries" ;;
esac
exec env -i PATH="$work/venv/bin:/usr/bin:/bin" HOME="$work" LD_LIBRARY_PATH= bash "$work/inside.sh" "$work" "$site"
EOF

if [ "$(id -u)" -eq 0 ] && unshare --mount true 2>/dev/null; then
  unshare --mount --propagation private bash "$work/hidden.sh" "$work" "$site" "$root"
else
  echo "wheel-check: no mount namespace here (unshare --mount needs root): the system's libraries stay on disk;"
  echo "wheel-check: the proof is ldd's, with LD_LIBRARY_PATH empty"
  env -i PATH="$work/venv/bin:/usr/bin:/bin" HOME="$work" LD_LIBRARY_PATH= bash "$work/inside.sh" "$work" "$site"
fi
echo "wheel-check: OK"
