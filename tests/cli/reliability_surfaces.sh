#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every input surface of scancheck against each kind of bad input, and the table of docs/reliability.md
# ("Input surfaces") that records what each one prints.
#
#   reliability_surfaces.sh BIN DOC [--update]
#
# The contract (README, "Using it"): bad input is exactly one line on stderr starting `scancheck: error:`,
# exit code 2, and nothing left behind (nor removed) where the command writes. Each entry below runs one
# command in a scratch directory holding the fixtures this script makes (cases from `BIN make-case`,
# corrupted with printf and python; a report; hello-only workers; plugins compiled from
# tests/foreign/plugins/broken_plugin.c), records the exit code, the error line, the other stderr lines
# (progress lines, `[...` and `cases N...`, are not counted) and what changed in the scratch directory,
# and renders one Markdown table row. The test fails
#   - when an entry breaks the contract, unless it is marked:
#       design=CODE:WHY   the exit code is CODE by design (e.g. verify's "the candidate fails", exit 1);
#                         keep these rare, each with its reason
#       bug=WHY           a known bug: the row says so; the entry must still break the contract (once
#                         scancheck is fixed, the test asks for the mark to be dropped)
#   - when the rendered table differs from DOC's section between <!-- surfaces:begin --> and
#     <!-- surfaces:end --> (it prints the diff); --update rewrites that section instead.
# Lines are made stable: the scratch directory reads $TMP, the machine's memory size N, temporary names
# .tmp-PID-N, and the plugin host's two phrasings of one event (see "normalise") are one.
set -uo pipefail

if [ $# -lt 2 ] || [ $# -gt 3 ] || { [ $# -eq 3 ] && [ "$3" != --update ]; }; then
  echo "usage: $0 BIN DOC [--update]" >&2
  exit 2
fi
bin=$(realpath "$1")
doc=$(realpath "$2")
update=${3:-}
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(cd "$(mktemp -d)" && pwd -P)
cap=$(mktemp -d)
trap 'rm -rf "$tmp" "$cap"' EXIT

py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3)
cc=${CC:-cc}
if ! "$py" -c 'import numpy' 2>/dev/null; then echo "FAIL: $py has no numpy (needed for the fixtures)"; exit 1; fi
if ! command -v "$cc" >/dev/null; then echo "FAIL: no C compiler '$cc' (needed for the plugin fixtures)"; exit 1; fi

# Worker case directories go to the scratch directory too, so anything a worker leaves is seen.
export SCANCHECK_SCRATCH="$tmp/scratch"
mkdir -p "$SCANCHECK_SCRATCH"
cd "$tmp" || exit 1

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
rows=()
entries=0

# normalise: one stderr line made independent of the machine and of timing.
normalise() {
  # A plugin host that fails to load its plugin exits at once; whether scancheck's hello write meets the
  # closed pipe ("did not read hello") or its read meets end of file first is a race (same event, two
  # phrasings). A --device that is not there reads differently in a build without the CUDA executor (CI's
  # sanitizer build) and in a CUDA build on a machine without a GPU: one placeholder, NO_SUCH_DEVICE.
  sed -e "s|$tmp|\$TMP|g" \
      -e 's/\(--device [0-9]*\): this scancheck was built without the CUDA executor/\1: NO_SUCH_DEVICE/' \
      -e 's/\(--device [0-9]*\): no such CUDA device here.*/\1: NO_SUCH_DEVICE/' \
      -e 's/[0-9][0-9]* bytes of physical memory/N bytes of physical memory/g' \
      -e 's/\.tmp-[0-9][0-9]*-[0-9][0-9]*/.tmp-PID-N/g' \
      -e 's/did not read hello/exited before answering hello/g'
}

# md_code TEXT: TEXT as a Markdown code span inside a table cell ('|' escaped), cut at 320 characters.
md_code() {
  local s=$1
  if [ ${#s} -gt 320 ]; then s="${s:0:300}… (${#s} characters)"; fi
  s=${s//|/\\|}
  if [[ $s == *'`'* ]]; then printf '`` %s ``' "$s"; else printf '`%s`' "$s"; fi
}
md_text() { local s=$1; printf '%s' "${s//|/\\|}"; }

# snapshot: every path under the scratch directory (files with size and mtime; directories by name only,
# since creating and removing a temporary sibling changes a directory's own mtime).
snapshot() {
  find . -mindepth 1 -type d -printf 'd %P\n' | sort
  find . -mindepth 1 ! -type d -printf '%y %P %s %T@\n' | sort
}

# changed_paths FILE: the paths of snapshot lines, as a Markdown list of at most three.
changed_paths() {
  local out='' p n=0
  while read -r _ p _; do
    n=$((n + 1))
    if [ $n -le 3 ]; then [ -n "$out" ] && out="$out, "; out="$out$(md_code "$(normalise <<<"$p")")"; fi
  done <"$1"
  [ $n -gt 3 ] && out="$out and $((n - 3)) more"
  printf '%s' "$out"
}

# entry SURFACE BAD_INPUT [design=CODE:WHY | bug=WHY] [env=VAR=VALUE] [show=REGEX] -- ARGS...
# Runs `BIN ARGS...` in the scratch directory and records one row (see the header).
entry() {
  local surface=$1 what=$2; shift 2
  local design_code='' why='' bug='' show='' envs=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do
    case $1 in
      design=*) design_code=${1#design=}; why=${design_code#*:}; design_code=${design_code%%:*} ;;
      bug=*) bug=${1#bug=} ;;
      env=*) envs+=("${1#env=}") ;;
      show=*) show=${1#show=} ;;
      *) fail "entry '$surface: $what': unknown mark '$1'"; return ;;
    esac
    shift
  done
  shift  # --
  entries=$((entries + 1))
  snapshot >"$cap/before"
  env "${envs[@]}" timeout 30 "$bin" "$@" >"$cap/out" 2>"$cap/err" </dev/null
  local rc=$?
  snapshot >"$cap/after"
  comm -13 "$cap/before" "$cap/after" >"$cap/added"
  comm -23 "$cap/before" "$cap/after" >"$cap/removed"

  local line extra=0 first_extra=''
  line=$(grep -m1 '^scancheck: error:' "$cap/err" | normalise)
  # Every stderr line that is not progress counts; the contract allows one, the error line.
  local lines
  lines=$(grep -v -E '^\[|^cases [0-9]' "$cap/err" | grep -c '')
  [ -n "$line" ] && extra=$((lines - 1)) || extra=$lines
  first_extra=$(grep -v -E '^\[|^cases [0-9]' "$cap/err" | grep -v '^scancheck: error:' | head -1 | normalise)

  local violations=()
  [ "$rc" -ne 2 ] && violations+=("exit $rc")
  [ -z "$line" ] && violations+=("no 'scancheck: error:' line")
  [ "$extra" -gt 0 ] && violations+=("$lines stderr lines")
  [ -s "$cap/added" ] && violations+=("left $(wc -l <"$cap/added") paths behind")
  [ -s "$cap/removed" ] && violations+=("removed or changed $(wc -l <"$cap/removed") paths")

  local exit_cell="$rc" cell='' label="$surface: $what"
  if [ -n "$design_code" ]; then
    [ "$rc" -eq "$design_code" ] || fail "$label: exit $rc, expected $design_code by design"
    [ "$extra" -gt 0 ] && fail "$label: $lines stderr lines"
    exit_cell="$rc (by design)"
    what="$what — $why"
  elif [ -n "$bug" ]; then
    [ ${#violations[@]} -eq 0 ] &&
      fail "$label now meets the contract: drop its bug= mark (and regenerate the table)"
    exit_cell="$rc (**known bug**)"
    what="$what — **known bug**: $bug"
  elif [ ${#violations[@]} -gt 0 ]; then
    fail "$label: $(printf '%s; ' "${violations[@]}")command: scancheck $*"
    sed 's/^/    stderr: /' "$cap/err"
  fi

  if [ -n "$line" ]; then cell=$(md_code "$line"); else cell="(no error line)"; fi
  if [ -n "$show" ] && [ -z "$line" ]; then
    local shown
    shown=$(grep -m1 -E -- "$show" "$cap/out" | sed 's/^ *//' | normalise)
    [ -n "$shown" ] && cell="$cell; stdout: $(md_code "$shown")"
  fi
  if [ "$extra" -gt 0 ]; then
    local more="more line"; [ "$extra" -gt 1 ] && more="more lines"
    cell="$cell; **+$extra $more**, first: $(md_code "$first_extra")"
  fi
  if [ -z "$design_code" ]; then
    [ -s "$cap/added" ] && cell="$cell; left behind: $(changed_paths "$cap/added")"
    [ -s "$cap/removed" ] && cell="$cell; **removed or changed**: $(changed_paths "$cap/removed")"
  fi
  rows+=("| $(md_text "$surface") | $(md_text "$what") | $exit_cell | $cell |")
  # Whatever a bad command wrote is cleared for the next entry: the comparison is per entry.
  local p
  while read -r _ p _; do rm -rf -- "./$p"; done <"$cap/added"
}

# ---- Fixtures --------------------------------------------------------------------------------------------
# Cases and reports come from the executable; their broken copies are edited by one python program
# (collected in $edits, run once: starting python with numpy is the slow part).
mkdir -p fixtures
mk() { "$bin" make-case "$@" >/dev/null || { echo "FAIL: fixture: make-case $*"; exit 1; }; }
mk --arch rglru --batch 1 --length 4 --width 8 --heads 2 --seed 1 --out fixtures/rglru
mk --arch scan --batch 1 --length 5 --width 4 --seed 1 --out fixtures/scan
mk --arch scan --batch 1 --length 5 --width 4 --seed 1 --io-dtype bfloat16 --out fixtures/scan-bf16
"$bin" run --backend scan/chunk16@fp32 --case fixtures/scan --out fixtures/outputs >/dev/null ||
  { echo "FAIL: fixture outputs"; exit 1; }
"$bin" report --preset quick --backends 'scan/chunk16@fp32' --lengths 2 --out fixtures/report >/dev/null 2>&1 ||
  { echo "FAIL: fixture report"; exit 1; }

edits='import json, os, struct
import numpy as np

def edit_json(path, change):
    j = json.load(open(path))
    change(j)
    json.dump(j, open(path, "w"))

def npy_header(shape):  # an .npy header of float32 with this shape text
    h = ("{\x27descr\x27: \x27<f4\x27, \x27fortran_order\x27: False, \x27shape\x27: %s, }" % shape).ljust(117) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode()
'
# edit PYTHON: one more statement of the program (d is the fixture being made).
edit() { edits+="$1"$'\n'; }
# variant NAME PYTHON: a copy of the rglru case (d in PYTHON), changed by PYTHON.
variant() { cp -r fixtures/rglru "fixtures/$1"; edit "d = 'fixtures/$1'; $2"; }
# copy_of SOURCE NAME PYTHON: a copy of fixtures/SOURCE, changed by PYTHON.
copy_of() { cp -r "fixtures/$1" "fixtures/$2"; edit "d = 'fixtures/$2'; $3"; }
# report_variant NAME PYTHON: fixtures/NAME.json, report.json changed by PYTHON (r the report).
report_variant() {
  edit "r = json.load(open('fixtures/report/report.json')); $2; json.dump(r, open('fixtures/$1.json', 'w'))"
}

mkdir fixtures/no-case-json
variant bad-json 'open(d + "/case.json", "w").write("{\"architecture\": \"rglru\",\n")'
variant json-array 'open(d + "/case.json", "w").write("[1, 2]\n")'
variant unknown-key 'edit_json(d + "/case.json", lambda j: j.update(colour="red"))'
variant wrong-type 'edit_json(d + "/case.json", lambda j: j.update(heads="two"))'
variant absurd-heads 'edit_json(d + "/case.json", lambda j: j.update(heads=10**21))'
variant negative-heads 'edit_json(d + "/case.json", lambda j: j.update(heads=-2))'
variant unknown-arch 'edit_json(d + "/case.json", lambda j: j.update(architecture="lstm"))'
variant truncated-header 'b = open(d + "/x.npy", "rb").read(); open(d + "/x.npy", "wb").write(b[:100])'
variant truncated-data 'b = open(d + "/x.npy", "rb").read(); open(d + "/x.npy", "wb").write(b[:-4])'
variant bad-magic 'open(d + "/x.npy", "wb").write(b"not a numpy file")'
variant trailing-data 'open(d + "/x.npy", "ab").write(b"trailing")'
variant float16 'np.save(d + "/x.npy", np.load(d + "/x.npy").astype(np.float16))'
variant int32-x 'np.save(d + "/x.npy", np.load(d + "/x.npy").astype(np.int32))'
variant float-segment-pos 'np.save(d + "/segment_pos.npy", np.load(d + "/segment_pos.npy").astype(np.float32))'
variant big-endian 'np.save(d + "/x.npy", np.load(d + "/x.npy").astype(">f4"))'
variant fortran 'np.save(d + "/x.npy", np.asfortranarray(np.random.default_rng(1).random((2, 4, 8), np.float32)))'
variant wrong-shape 'np.save(d + "/dy.npy", np.zeros((1, 5, 8), np.float32))'
variant wrong-width 'np.save(d + "/x.npy", np.zeros((1, 4, 6), np.float32))'
variant wrong-rank 'np.save(d + "/x.npy", np.zeros((4, 8), np.float32))'
variant missing-dy 'os.remove(d + "/dy.npy")'
variant directory-x 'os.remove(d + "/x.npy"); os.mkdir(d + "/x.npy")'
variant nan-x 'a = np.load(d + "/x.npy"); a[0, 1, 2] = np.nan; np.save(d + "/x.npy", a)'
variant huge-shape 'open(d + "/x.npy", "wb").write(npy_header("(1, 1000000000000, 8)") + bytes(64))'
variant negative-dim 'open(d + "/x.npy", "wb").write(npy_header("(-1, 4, 8)") + bytes(64))'
copy_of scan-bf16 scan-bf16-unrounded 'a = np.load(d + "/a.npy"); a[0, 0, 0] = 0.1; np.save(d + "/a.npy", a)'
cp -r fixtures/scan fixtures/scan-for-run
echo keep >fixtures/a-file
echo keep >fixtures/file-to-replace
mkdir -p fixtures/keep-dir && echo keep >fixtures/keep-dir/keep

# Candidates for verify: the outputs of a built-in backend, broken.
mkdir fixtures/no-outputs
copy_of outputs outputs-missing 'os.remove(d + "/dh0.npy")'
copy_of outputs outputs-shape 'np.save(d + "/h.npy", np.zeros((1, 4, 4), np.float32))'
copy_of outputs outputs-garbage 'open(d + "/h.npy", "wb").write(b"junk")'
copy_of outputs outputs-float16 'np.save(d + "/h.npy", np.load(d + "/h.npy").astype(np.float16))'

# Policies.
printf '{"bound_factor": ' >fixtures/policy-not-json.json
echo '{"bound_factor": -1}' >fixtures/policy-negative.json
echo '{"colour": 1}' >fixtures/policy-unknown-key.json
echo '{"bound_factor": "nan"}' >fixtures/policy-nan.json
echo '{"bound_factor": 0, "baseline_factor": 0, "baseline_slack_ulps": 0, "baseline_slack_bound": 0}' \
  >fixtures/policy-impossible.json

# Broken reports.
printf '{"schema_version": 2, ' >fixtures/report-not-json.json
echo '[1, 2]' >fixtures/report-array.json
report_variant report-v3 'r["schema_version"] = 3'
report_variant report-verdict 'r["rows"][0]["verdict"] = "maybe"'
report_variant report-missing 'del r["rows"][0]["backend"]'
report_variant report-dangling 'r["rows"][0]["case"] = "c9"'
report_variant report-duplicate-case 'r["cases"].append(dict(r["cases"][0]))'
report_variant report-tool 'r["tool"]["name"] = "other"'
report_variant report-backend 'r["rows"][0]["backend"] = "lstm/x@fp32"'
report_variant report-unknown-key 'r["colour"] = "red"'
report_variant report-negative 'r["cases"][0]["elements_total"] = -5'
report_variant report-other-label 'r["label"] = "other"'
report_variant report-shard 'r["method"]["shard"] = {"index": 0, "count": 2}'
report_variant report-shard-index 'r["method"]["shard"] = {"index": 2, "count": 2}'
report_variant report-shards-missing 'r["coverage"]["shards"] = {"count": 2, "merged": [0], "missing": [5], "interrupted": []}'

# A history holding the fixture report.
"$bin" history add fixtures/report --db fixtures/history.db >/dev/null

# Speed profiles (--timings): the real one's format, broken.
printf '{"schema_version": 1, ' >fixtures/profile-not-json.json
echo '{"schema_version": 2, "method": "m", "rows": []}' >fixtures/profile-v2.json
echo '{"schema_version": 1, "method": "m", "rows": [], "colour": 1}' >fixtures/profile-unknown-key.json
echo '{"schema_version": 1, "method": "m", "rows": []}' >fixtures/profile-no-rows.json

# A stand-in sbatch that refuses every job, as a cluster does for a partition it lacks.
printf '#!/bin/sh\necho "sbatch: error: invalid partition specified: gpu" >&2\nexit 1\n' >fixtures/refusing-sbatch
chmod +x fixtures/refusing-sbatch

"$py" -c "$edits" || { echo "FAIL: the fixture edits"; exit 1; }

# Workers: hello_worker (tests/cli/reliability_cases) run by its own shebang, so lines name no python path.
{ echo "#!$py"; tail -n +2 "$src/tests/cli/reliability_cases/hello_worker.py"; } >hello_worker
chmod +x hello_worker
cp hello_worker not_executable && chmod -x not_executable

# Plugins: tests/foreign/plugins/broken_plugin.c compiled here, one library per kind.
mkdir plugins
for kind in ABI_VERSION NO_ENTRY MALFORMED; do
  "$cc" -std=c99 -shared -fPIC -fvisibility=hidden "-DBROKEN_$kind" -I"$src/include" \
    -o "plugins/broken_${kind,,}.so" "$src/tests/foreign/plugins/broken_plugin.c" ||
    { echo "FAIL: cannot compile the $kind plugin"; exit 1; }
done
printf 'not an ELF file' >plugins/not_a_library.so

# ---- Entries ---------------------------------------------------------------------------------------------
ok=(--batch 1 --length 4 --width 8 --seed 1)
entry "scancheck" "no subcommand" --
entry "scancheck" "unknown subcommand" -- frobnicate
entry "scancheck" "unknown option" -- make-case --arch rglru "${ok[@]}" --out x --colour red

entry "make-case" "--arch unknown" -- make-case --arch lstm "${ok[@]}" --out x
entry "make-case" "--batch not a number" -- make-case --arch rglru --batch x --length 4 --width 8 --seed 1 --out x
entry "make-case" "--batch negative" -- make-case --arch scan --batch -2 --length 4 --width 8 --seed 1 --out x
entry "make-case" "--length 0" -- make-case --arch scan --batch 1 --length 0 --width 8 --seed 1 --out x
entry "make-case" "--width 0" -- make-case --arch scan --batch 1 --length 4 --width 0 --seed 1 --out x
entry "make-case" "--heads 0" -- make-case --arch rglru "${ok[@]}" --heads 0 --out x
entry "make-case" "--heads not dividing W" -- make-case --arch rglru "${ok[@]}" --heads 3 --out x
entry "make-case" "odd W of a complex kind" -- make-case --arch complex_scan --batch 1 --length 4 --width 7 --seed 1 --out x
entry "make-case" "--length 10^12 (too large for memory)" -- make-case --arch rglru --batch 1 --length 1000000000000 --width 8 --seed 1 --out x
entry "make-case" "--length beyond 64 bits" -- make-case --arch rglru --batch 1 --length 99999999999999999999999 --width 8 --seed 1 --out x
entry "make-case" "--regime unknown" -- make-case --arch rglru "${ok[@]}" --regime calm --out x
entry "make-case" "--io-dtype unknown" -- make-case --arch rglru "${ok[@]}" --io-dtype fp16 --out x
entry "make-case" "--sqrt-gradient unknown" -- make-case --arch rglru "${ok[@]}" --sqrt-gradient maybe --out x
entry "make-case" "a required option missing" -- make-case --arch rglru --batch 1
entry "make-case" "--out unwritable (/proc)" -- make-case --arch rglru "${ok[@]}" --out /proc/x
entry "make-case" "--out under a regular file" -- make-case --arch rglru "${ok[@]}" --out fixtures/a-file/x
entry "make-case" "--out DIR/. (a directory named through '.')" \
  -- make-case --arch rglru "${ok[@]}" --out fixtures/keep-dir/.
entry "make-case" "--out an existing regular file" \
  -- make-case --arch rglru "${ok[@]}" --out fixtures/file-to-replace

ref=(--out y)
entry "reference --case" "directory missing" -- reference --case fixtures/nothing "${ref[@]}"
entry "reference --case" "case.json missing" -- reference --case fixtures/no-case-json "${ref[@]}"
entry "reference --case" "case.json not JSON" -- reference --case fixtures/bad-json "${ref[@]}"
entry "reference --case" "case.json a JSON array" -- reference --case fixtures/json-array "${ref[@]}"
entry "reference --case" "case.json unknown key (\"colour\")" \
  design="0:case directories are an interchange format; keys other tools add (made_by, ...) are ignored" -- reference --case fixtures/unknown-key "${ref[@]}"
entry "reference --case" "case.json wrong type (\"heads\": \"two\")" -- reference --case fixtures/wrong-type "${ref[@]}"
entry "reference --case" "case.json absurd number (\"heads\": 10^21)" -- reference --case fixtures/absurd-heads "${ref[@]}"
entry "reference --case" "case.json negative heads" -- reference --case fixtures/negative-heads "${ref[@]}"
entry "reference --case" "case.json unknown architecture" -- reference --case fixtures/unknown-arch "${ref[@]}"
entry "reference --case" ".npy truncated in its header" -- reference --case fixtures/truncated-header "${ref[@]}"
entry "reference --case" ".npy truncated in its data" -- reference --case fixtures/truncated-data "${ref[@]}"
entry "reference --case" ".npy with trailing bytes" -- reference --case fixtures/trailing-data "${ref[@]}"
entry "reference --case" ".npy not an .npy (bad magic)" -- reference --case fixtures/bad-magic "${ref[@]}"
entry "reference --case" ".npy a directory" -- reference --case fixtures/directory-x "${ref[@]}"
entry "reference --case" ".npy of float16" -- reference --case fixtures/float16 "${ref[@]}"
entry "reference --case" ".npy of int32 where float is expected" -- reference --case fixtures/int32-x "${ref[@]}"
entry "reference --case" "segment_pos.npy of float32" -- reference --case fixtures/float-segment-pos "${ref[@]}"
entry "reference --case" ".npy big-endian ('>f4')" -- reference --case fixtures/big-endian "${ref[@]}"
entry "reference --case" ".npy Fortran order" -- reference --case fixtures/fortran "${ref[@]}"
entry "reference --case" "tensor of the wrong shape (dy.npy)" -- reference --case fixtures/wrong-shape "${ref[@]}"
entry "reference --case" "main input of another width (x.npy)" -- reference --case fixtures/wrong-width "${ref[@]}"
entry "reference --case" "main input of rank 2" -- reference --case fixtures/wrong-rank "${ref[@]}"
entry "reference --case" "tensor missing (dy.npy)" -- reference --case fixtures/missing-dy "${ref[@]}"
entry "reference --case" "huge shape in an .npy header (1, 10^12, 8)" -- reference --case fixtures/huge-shape "${ref[@]}"
entry "reference --case" "negative dimension in an .npy header" -- reference --case fixtures/negative-dim "${ref[@]}"
entry "reference --case" "NaN in x.npy" \
  design="0:NaN inputs are allowed; the reference propagates them (property nan_reaches_dependents)" \
  -- reference --case fixtures/nan-x "${ref[@]}"
entry "reference" "--precision unknown" -- reference --case fixtures/rglru "${ref[@]}" --precision half
entry "reference" "--sample malformed (0-1)" -- reference --case fixtures/rglru "${ref[@]}" --sample 0-1
entry "reference" "--sample with an empty item (0:0,)" -- reference --case fixtures/rglru "${ref[@]}" --sample 0:0,
entry "reference" "--sample beyond 64 bits" -- reference --case fixtures/rglru "${ref[@]}" --sample 99999999999999999999:0
entry "reference" "--sample outside the case (5:0)" -- reference --case fixtures/rglru "${ref[@]}" --sample 5:0
entry "reference" "--threads negative" -- reference --case fixtures/rglru "${ref[@]}" --threads -3
entry "reference" "--out unwritable (/proc)" -- reference --case fixtures/rglru --out /proc/y
entry "reference" "--out is the --case directory" \
  -- reference --case fixtures/scan-for-run --out fixtures/scan-for-run

run=(--case fixtures/scan --out z)
entry "run" "--backend unknown" -- run --backend scan/chunk17@fp32 "${run[@]}"
entry "run" "--backend a glob" -- run --backend 'scan/*' "${run[@]}"
entry "run" "dtype mismatch (bf16 backend, float32 case)" -- run --backend scan/chunk16@bf16 "${run[@]}"
entry "run" "architecture mismatch" -- run --backend complex_scan/chunk16@fp32 "${run[@]}"
entry "run" "bfloat16 case holding a value bf16 cannot represent" -- run --backend scan/chunk16@bf16 --case fixtures/scan-bf16-unrounded --out z
entry "run" "--executor unknown" -- run --backend scan/chunk16@fp32 "${run[@]}" --executor tpu
entry "run" "--timeout negative" -- run --backend scan/chunk16@fp32 "${run[@]}" --timeout -1
entry "run" "--timeout nan" \
  -- run --backend scan/chunk16@fp32 "${run[@]}" --timeout nan
entry "run" "--case missing" -- run --backend scan/chunk16@fp32 --case fixtures/nothing --out z

chk=(--case fixtures/scan --backend 'scan/chunk16@fp32')
entry "check --policy" "not JSON" -- check "${chk[@]}" --policy fixtures/policy-not-json.json
entry "check --policy" "negative value" -- check "${chk[@]}" --policy fixtures/policy-negative.json
entry "check --policy" "unknown key" -- check "${chk[@]}" --policy fixtures/policy-unknown-key.json
entry "check --policy" "\"nan\"" -- check "${chk[@]}" --policy fixtures/policy-nan.json
entry "check --policy" "file missing" -- check "${chk[@]}" --policy fixtures/nothing.json
entry "check --backend" "glob matching nothing" -- check --case fixtures/scan --backend 'lstm/*'
entry "check --backend" "glob matching no backend of the case's dtype" -- check --case fixtures/scan --backend 'scan/*@bf16'
entry "check --backend" "one of several matching nothing" \
  -- check --case fixtures/scan --backend 'scan/chunk16@fp32' --backend 'lstm/*'
entry "check --shape" "1,-3,4" -- check --arch scan --shape 1,-3,4 --seed 1 --backend 'scan/chunk16@fp32'
entry "check --shape" "a,b,c" -- check --arch scan --shape a,b,c --seed 1 --backend 'scan/chunk16@fp32'
entry "check --shape" "1,1000000000000,1 (too large for memory)" -- check --arch scan --shape 1,1000000000000,1 --seed 1 --backend 'scan/chunk16@fp32'
entry "check --shape" "1,2 (too few)" -- check --arch scan --shape 1,2 --seed 1 --backend 'scan/chunk16@fp32'
entry "check" "neither --case nor --arch/--shape" -- check --backend 'scan/chunk16@fp32'
entry "check" "--threads negative" \
  -- check --arch scan --shape 1,2,4 --seed 1 --backend 'scan/chunk16@fp32' --threads -1

entry "verify --candidate" "directory missing" -- verify --case fixtures/scan --candidate fixtures/nothing
entry "verify --candidate" "every tensor missing" \
  design="1:a candidate's missing tensors are its failure, listed in the table" show='^verdict' \
  -- verify --case fixtures/scan --candidate fixtures/no-outputs
entry "verify --candidate" "one tensor missing (dh0.npy)" \
  design="1:as above" show='dh0: missing' -- verify --case fixtures/scan --candidate fixtures/outputs-missing
entry "verify --candidate" "tensor of the wrong shape (h.npy)" \
  design="1:a wrong shape is the candidate's failure" show='wrong shape' \
  -- verify --case fixtures/scan --candidate fixtures/outputs-shape
entry "verify --candidate" "tensor not an .npy" -- verify --case fixtures/scan --candidate fixtures/outputs-garbage
entry "verify --candidate" "tensor of float16" -- verify --case fixtures/scan --candidate fixtures/outputs-float16
entry "verify --case" "directory missing" -- verify --case fixtures/nothing --candidate fixtures/outputs

fz=(--backends 'scan/chunk16@fp32')
entry "fuzz" "--shard 3/3" -- fuzz "${fz[@]}" --shard 3/3
entry "fuzz" "--shard a/b" -- fuzz "${fz[@]}" --shard a/b
entry "fuzz" "--time soon" -- fuzz "${fz[@]}" --time soon
entry "fuzz" "--time 0s" -- fuzz "${fz[@]}" --time 0s
entry "fuzz" "--cases -1" -- fuzz "${fz[@]}" --cases -1
entry "fuzz" "--cases 0" -- fuzz "${fz[@]}" --cases 0
entry "fuzz" "--regimes unknown" -- fuzz "${fz[@]}" --regimes calm
entry "fuzz" "--backends glob matching nothing" -- fuzz --backends 'lstm/*'
entry "fuzz --findings" "a regular file, when a case fails" \
  -- fuzz "${fz[@]}" --cases 1 --policy fixtures/policy-impossible.json --findings fixtures/a-file

rep=(--backends 'scan/chunk16@fp32' --out r)
entry "report" "--preset unknown" -- report --preset slow "${rep[@]}"
entry "report" "--lengths 2,0" -- report "${rep[@]}" --lengths 2,0
entry "report" "--lengths a" -- report "${rep[@]}" --lengths a
entry "report" "--lengths 10^12 (too large for memory)" -- report "${rep[@]}" --lengths 1000000000000
entry "report" "--lengths 2,,3 (empty item)" -- report "${rep[@]}" --lengths 2,,3
entry "report" "--executor unknown" -- report "${rep[@]}" --executor tpu
entry "report" "--preset seed-shapes of a plain scan" -- report --preset seed-shapes --backends 'scan/*' --out r
entry "report" "--preset scale of the host twins alone" -- report --preset scale --executor host --out r
entry "report" "--sample with a ladder preset" -- report --preset quick --backends 'scan/chunk16@fp32' --sample --out r
entry "report" "--reference-precision mpfr50" -- report "${rep[@]}" --reference-precision mpfr50
entry "report" "--reference-precision unknown" -- report "${rep[@]}" --reference-precision half
entry "report" "--out unwritable (/proc), after the work" -- report --backends 'scan/chunk16@fp32' --lengths 2 --out /proc/r

rr=(--out rendered)
entry "render report.json" "file missing" -- render fixtures/nothing.json "${rr[@]}"
entry "render report.json" "not JSON" -- render fixtures/report-not-json.json "${rr[@]}"
entry "render report.json" "a JSON array" -- render fixtures/report-array.json "${rr[@]}"
entry "render report.json" "schema_version 3" -- render fixtures/report-v3.json "${rr[@]}"
entry "render report.json" "unknown verdict" -- render fixtures/report-verdict.json "${rr[@]}"
entry "render report.json" "missing field (rows[0].backend)" -- render fixtures/report-missing.json "${rr[@]}"
entry "render report.json" "dangling case id" -- render fixtures/report-dangling.json "${rr[@]}"
entry "render report.json" "duplicate case id" -- render fixtures/report-duplicate-case.json "${rr[@]}"
entry "render report.json" "written by another tool" -- render fixtures/report-tool.json "${rr[@]}"
entry "render report.json" "unknown backend name in a row" -- render fixtures/report-backend.json "${rr[@]}"
entry "render report.json" "unknown top-level key" -- render fixtures/report-unknown-key.json "${rr[@]}"
entry "render report.json" "negative elements_total" -- render fixtures/report-negative.json "${rr[@]}"
entry "render" "--out unwritable (/proc)" -- render fixtures/report --out /proc/rendered
entry "diff" "NEW of schema_version 3" -- diff fixtures/report fixtures/report-v3.json
entry "diff" "OLD with an unknown verdict" -- diff fixtures/report-verdict.json fixtures/report
entry "diff" "--max-growth below 1" -- diff fixtures/report fixtures/report --max-growth 0.5
entry "diff" "--max-growth nan" -- diff fixtures/report fixtures/report --max-growth nan
entry "merge" "a dangling case id" -- merge fixtures/report fixtures/report-dangling.json --out merged.json
entry "merge" "reports of different labels" -- merge fixtures/report fixtures/report-other-label.json --out merged.json
entry "merge" "duplicate rows (a report twice)" -- merge fixtures/report fixtures/report --out merged.json
entry "merge" "one report" -- merge fixtures/report --out merged.json
entry "merge" "one shard twice" -- merge fixtures/report-shard.json fixtures/report-shard.json --out merged.json
entry "merge" "a shard with a whole report" -- merge fixtures/report-shard.json fixtures/report-other-label.json --out merged.json
entry "merge" "--shards of whole reports" -- merge fixtures/report fixtures/report --shards 2 --out merged.json
entry "merge" "--shards disagreeing with the shards" -- merge fixtures/report-shard.json --shards 3 --out merged.json
entry "merge" "--shards 0" -- merge fixtures/report-shard.json --shards 0 --out merged.json
entry "merge" "method.shard index not below count" -- merge fixtures/report-shard-index.json --out merged.json
entry "render report.json" "coverage.shards naming shard 5 of 2" -- render fixtures/report-shards-missing.json "${rr[@]}"

entry "report --shard" "not i/n" -- report --preset quick --backends 'scan/sequential@fp32' --shard half --out r
entry "report --shard" "i not below n" -- report --preset quick --backends 'scan/sequential@fp32' --shard 3/3 --out r
entry "report --shard" "more shards than cases" -- report --preset quick --backends 'scan/sequential@fp32' --shard 0/99 --out r
entry "report (Slurm)" "SLURM_ARRAY_TASK_ID outside the array" env=SLURM_ARRAY_TASK_ID=5 env=SLURM_ARRAY_TASK_COUNT=3 \
  -- report --preset quick --backends 'scan/sequential@fp32' --out r
entry "report (Slurm)" "SLURM_ARRAY_TASK_ID without SLURM_ARRAY_TASK_COUNT" env=SLURM_ARRAY_TASK_ID=1 \
  -- report --preset quick --backends 'scan/sequential@fp32' --out r
entry "fuzz (Slurm)" "SLURM_ARRAY_TASK_ID not a number" env=SLURM_ARRAY_TASK_ID=one env=SLURM_ARRAY_TASK_COUNT=3 \
  -- fuzz --backends 'scan/sequential@fp32' --cases 1 --findings f
entry "report (Kubernetes)" "JOB_COMPLETION_INDEX without SCANCHECK_SHARD_COUNT" env=JOB_COMPLETION_INDEX=0 \
  -- report --preset quick --backends 'scan/sequential@fp32' --out r
entry "report (Kubernetes)" "JOB_COMPLETION_INDEX not below SCANCHECK_SHARD_COUNT" env=JOB_COMPLETION_INDEX=4 \
  env=SCANCHECK_SHARD_COUNT=4 -- report --preset quick --backends 'scan/sequential@fp32' --out r
entry "--device" "with the host executor" -- check --arch scan --shape 1,9,4 --seed 1 --backend 'scan/sequential@fp32' --device 0
entry "--device" "negative" -- check --arch scan --shape 1,9,4 --seed 1 --backend 'scan/sequential@fp32' --executor cuda --device -1
entry "--device" "a GPU this machine lacks" -- check --arch scan --shape 1,9,4 --seed 1 --backend 'scan/sequential@fp32' --executor cuda --device 7
entry "fuzz --devices" "with the host executor" -- fuzz --backends 'scan/sequential@fp32' --devices all --findings f
entry "fuzz --devices" "all, on a machine without a GPU" -- fuzz --backends 'scan/sequential@fp32' --executor cuda --devices all --findings f
entry "fuzz --devices" "with --shard" -- fuzz --backends 'scan/sequential@fp32' --executor cuda --devices 0 --shard 0/2 --findings f

entry "campaign" "--shards 0" -- campaign --shards 0 --sbatch fixtures/refusing-sbatch --out c -- --preset quick
entry "campaign" "no report arguments" -- campaign --shards 2 --sbatch fixtures/refusing-sbatch --out c
entry "campaign" "--out among the report's arguments" -- campaign --shards 2 --sbatch fixtures/refusing-sbatch --out c -- --preset quick --out r
entry "campaign" "a misspelt report option" -- campaign --shards 2 --sbatch fixtures/refusing-sbatch --out c -- --presett quick
entry "campaign" "more shards than the plan's cases" -- campaign --shards 99 --sbatch fixtures/refusing-sbatch --out c -- --preset quick --backends 'scan/sequential@fp32'
entry "campaign" "sbatch not found" -- campaign --shards 2 --sbatch fixtures/no-such-sbatch --out c -- --preset quick
entry "campaign" "sbatch refuses the job" -- campaign --shards 2 --sbatch fixtures/refusing-sbatch --out c -- --preset quick
entry "campaign" "--out unwritable (/proc)" -- campaign --shards 2 --sbatch fixtures/refusing-sbatch --out /proc/c -- --preset quick

entry "render --timings" "profile not JSON" -- render fixtures/report --timings fixtures/profile-not-json.json --out rendered
entry "render --timings" "profile of schema_version 2" -- render fixtures/report --timings fixtures/profile-v2.json --out rendered
entry "render --timings" "profile with an unknown key" -- render fixtures/report --timings fixtures/profile-unknown-key.json --out rendered
entry "render --timings" "profile without rows" -- render fixtures/report --timings fixtures/profile-no-rows.json --out rendered
entry "render --timings" "profile missing" -- render fixtures/report --timings fixtures/nothing.json --out rendered
entry "render --timings" "--timings-alias without '='" -- render fixtures/report --timings fixtures/profile-v2.json --timings-alias samu --out rendered
entry "history add" "a report that is not JSON" -- history add fixtures/report-not-json.json --db h.db
entry "history add" "a database that is not SQLite" -- history add fixtures/report --db fixtures/a-file
entry "history add" "--timings profile not JSON" -- history add fixtures/report --timings fixtures/profile-not-json.json --db h.db
entry "history show" "database missing" -- history show --db fixtures/nothing.db --out hist
entry "history show" "--since not a date" -- history show --db fixtures/history.db --since yesterday --out hist
entry "history show" "a label the history lacks" -- history show --db fixtures/history.db --label weekly --out hist
entry "history show" "--out holding the database" -- history show --db fixtures/history.db --out fixtures
entry "history check" "database missing" -- history check --db fixtures/nothing.db fixtures/report
entry "history check" "a report that is not JSON" -- history check --db fixtures/history.db fixtures/report-not-json.json
entry "report --timings" "profile not JSON (refused before the run)" -- report --preset quick --backends 'scan/sequential@fp32' --timings fixtures/profile-not-json.json --out r
entry "calibrate" "a missing field" -- calibrate fixtures/report-missing.json --out tolerances.json
entry "calibrate" "--margin nan" -- calibrate fixtures/report --out tolerances.json --margin nan
entry "calibrate" "--format yaml" -- calibrate fixtures/report --out tolerances.json --format yaml
entry "calibrate" "--out unwritable (/proc)" -- calibrate fixtures/report --out /proc/tolerances.json

entry "list" "--arch unknown" -- list --arch lstm
entry "property" "unknown property" -- property nonsense
entry "property" "--cases -1" -- property batch_permutation --arch scan --cases -1

entry "--worker" "command not found" -- list --worker 'no-such-command --flag'
entry "--worker" "empty command" -- list --worker ''
entry "--worker" "unterminated quote" -- list --worker "'unclosed"
entry "--worker" "not executable" -- list --worker './not_executable not_json'
entry "--worker" "hello answer not JSON" -- list --worker './hello_worker not_json'
entry "--worker" "hello answer a JSON array" -- list --worker './hello_worker not_object'
entry "--worker" "hello of protocol 2" -- list --worker './hello_worker protocol_2'
entry "--worker" "provider 'Bad Name'" -- list --worker './hello_worker bad_provider'
entry "--worker" "a backend declared twice" -- list --worker './hello_worker duplicate_backends'
entry "--worker" "unknown constraint" -- list --worker './hello_worker unknown_constraint'
entry "--worker" "hello runtime a number" -- list --worker './hello_worker runtime_number'
entry "--worker" "unknown provenance field" -- list --worker './hello_worker provenance_sha'
entry "--worker" "no backends" -- list --worker './hello_worker no_backends'
entry "--worker" "unknown architecture" -- list --worker './hello_worker bad_architecture'
entry "--worker" "variant with a '/'" -- list --worker './hello_worker bad_variant'
entry "--worker" "exits before answering hello" -- list --worker './hello_worker silent_exit'
entry "--worker" "exits before answering hello, after two stderr lines" \
  -- list --worker './hello_worker stderr_then_exit'
entry "--worker" "two workers of one provider" -- list --worker './hello_worker constrained' --worker './hello_worker constrained'
entry "--worker" "run of a case outside the constraints" \
  -- run --worker './hello_worker constrained' --backend 'hello:scan/plain@fp32' --case fixtures/scan --out z
entry "--worker" "check of a case outside the constraints" \
  -- check --worker './hello_worker constrained' --backend 'hello:*' --arch scan --shape 1,9,4 --seed 1
entry "--worker" "report with a worker failing its hello" \
  -- report --worker './hello_worker protocol_2' --backends 'hello:*' --out r

entry "--plugin" "path does not exist" -- list --plugin plugins/nothing.so
entry "--plugin" "not a shared library" -- list --plugin plugins/not_a_library.so
entry "--plugin" "a directory" -- list --plugin plugins
entry "--plugin" "library without the entry point" -- list --plugin plugins/broken_no_entry.so
entry "--plugin" "table of ABI version 7" -- list --plugin plugins/broken_abi_version.so
entry "--plugin" "table returned NULL" env=SCANCHECK_TEST_MALFORMED=null_table -- list --plugin plugins/broken_malformed.so
entry "--plugin" "provider 'Bad Name'" env=SCANCHECK_TEST_MALFORMED=bad_name -- list --plugin plugins/broken_malformed.so
entry "--plugin" "a backend declared twice" env=SCANCHECK_TEST_MALFORMED=duplicate -- list --plugin plugins/broken_malformed.so
entry "--plugin" "the same plugin twice" -- list --plugin plugins/broken_malformed.so --plugin plugins/broken_malformed.so
entry "--plugin-in-process" "path does not exist" -- list --plugin-in-process plugins/nothing.so
entry "--plugin-in-process" "not a shared library" -- list --plugin-in-process plugins/not_a_library.so
entry "--plugin-in-process" "library without the entry point" -- list --plugin-in-process plugins/broken_no_entry.so
entry "--plugin-in-process" "table of ABI version 7" -- list --plugin-in-process plugins/broken_abi_version.so

# Saved findings (finding.json) are read by core's load_finding; a subcommand takes them once `check`
# has --finding. Until then there is no such surface, and the table says so.
if "$bin" check --help 2>/dev/null | grep -q -- '--finding '; then
  mkdir -p fixtures/finding-not-json fixtures/finding-old fixtures/finding-version
  printf '{"format": ' >fixtures/finding-not-json/finding.json
  echo '{"property": "agrees_with_reference"}' >fixtures/finding-old/finding.json
  echo '{"format": "scancheck-finding", "version": 99}' >fixtures/finding-version/finding.json
  entry "check --finding" "finding.json not JSON" -- check --finding fixtures/finding-not-json
  entry "check --finding" "finding.json of an earlier scancheck (no format)" -- check --finding fixtures/finding-old
  entry "check --finding" "finding.json of version 99" -- check --finding fixtures/finding-version
  entry "check --finding" "directory missing" -- check --finding fixtures/nothing
else
  rows+=("| finding.json | (no subcommand reads a saved finding in this build: \`check --help\` has no --finding) | — | — |")
fi

# ---- The table and the document ------------------------------------------------------------------------
table="$cap/table.md"
{
  echo "| Surface | Bad input | Exit | Line printed |"
  echo "|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
} >"$table"

begin='<!-- surfaces:begin -->'
end='<!-- surfaces:end -->'
if ! grep -q -x -F "$begin" "$doc" || ! grep -q -x -F "$end" "$doc"; then
  fail "$doc lacks the lines $begin and $end"
else
  awk -v b="$begin" -v e="$end" '$0 == e {inside = 0} inside {print} $0 == b {inside = 1}' "$doc" >"$cap/current.md"
  if [ -n "$update" ]; then
    awk -v b="$begin" -v e="$end" -v t="$table" '
      $0 == b {print; while ((getline line < t) > 0) print line; skip = 1; next}
      $0 == e {skip = 0}
      !skip {print}' "$doc" >"$cap/doc.md" && cat "$cap/doc.md" >"$doc"
    echo "rewrote the table of $doc ($entries entries)"
  elif ! diff -u "$cap/current.md" "$table" >"$cap/table.diff"; then
    sed 's|^|    |' "$cap/table.diff"
    fail "the table in $doc is stale; regenerate it with: bash $0 $1 $2 --update"
  fi
fi

echo "reliability_surfaces: $entries entries, $failures failures"
[ "$failures" -eq 0 ]
