#!/usr/bin/env bash
# The GPU checks, shaped for a device lease: a GPU machine is lent rarely and briefly (15 minutes of device
# time in all, 10 minutes a call, 64 MiB of working tree and carried paths) and has nvcc, CMake, cuBLAS,
# compute-sanitizer and Python with torch, but no Boost, Eigen, GoogleTest or RapidCheck. So everything is
# built here, staged small, and the device runs one prepared call:
#
#   ci/gpu-check.sh stage [--from BUILD_DIR] [--to DIR]
#       here: builds the ci preset's CUDA targets (`cmake --build --preset ci-cuda`; --from BUILD_DIR stages
#       an existing build instead) and stages DIR (default build/gpu-stage): bin/ (scancheck and the
#       gpu-labelled test programs, stripped), lib/ (the shared libraries a bare machine may lack),
#       fixtures/ (the seed profile, tests/fixtures/profiles), scripts/ (manifest, stage info, this
#       script as staged). Prints the size; exit 1 over 48 MiB.
#   ci/gpu-check.sh device
#       there, from the repository root with build/gpu-stage carried: the steps below in order of value,
#       each under its own time limit, within 7 minutes in all; each step's files land in $OUT as it ends
#       (one .tar.gz a step: only 8 files come back from a call) and $OUT/summary.md is rewritten after
#       each, in the form docs/gpu-results.md takes as it is. Exit 1 if any step failed or timed out.
#         0 environment   the staged files against the manifest (a missing or truncated one ends the run at
#                         once: nothing after it could be trusted), nvidia-smi, which staged libraries the
#                         machine lacks
#         a correctness   every backend on the cuda executor against the reference, lengths 2, 33, 300, 2100
#         b seed timings  the seed-shapes report (sampled reference) with device times beside the seed profile
#         c sanitizer     compute-sanitizer memcheck and racecheck on a few backends at small awkward shapes
#         d python        python/tests on the machine's own torch and triton, fuzzing against staged scancheck
#         e gpu tests     the staged gpu-labelled test programs
#   ci/gpu-check.sh sanitize
#       there, a later lease: the full compute-sanitizer sweep (four tools, every backend) from the stage.
#   ci/gpu-check.sh parallel
#       there, on a multi-GPU machine: the staged gpu tests side by side, one GPU each, then fuzz --devices all.
#
# Rehearsal (tests/gpu_check/rehearse.sh, in CI): SCANCHECK_GPU_REHEARSAL=1 stages from a build without
# CUDA too, and `device` uses the host executor where the cuda one would run, a handful of backends and short
# lengths, and every staged library, so the paths, sizes and parsing are exercised on a CPU.
# Knobs: SCANCHECK_GPU_STAGE (the staged folder), SCANCHECK_GPU_BUDGET (seconds for `device`, default 420),
# SCANCHECK_GPU_LIMIT_{ENV,A,B,C,D,E} (per-step seconds), SCANCHECK_GPU_PYTHON (default python3),
# SCANCHECK_GPU_PYTHON_CASES (default 20), SCANCHECK_GPU_STAGE_LIMIT_MIB (default 48), SCANCHECK_JOBS.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

# The gpu-labelled test programs (tests/backends), in order of value: the backends against the reference
# first. cuda_executor_test is unit-labelled (it expects no device) and plugin_install/plugin_example_cuda
# need a CMake package build: none of them is staged.
GPU_TESTS=(scan_backend_gpu_test gated_backend_gpu_test gemm_gpu_test gate_math_gpu_test cuda_bf16_test gla_backend_gpu_test)
PROFILE_NAME=backward_profile_seed.json
# The production backends in bf16, the dtype the seed profile was taken in (torch's BFloat16 kernels).
PRODUCTION_BF16='{rglru/fused_grouped_prefix32_hierarchical_chunk16,complex_rglru/fused_output_fused_write_shared_sfu_chunk32,complex_rglru/fused_output_fused_write_shared_sfu_grouped_prefix64_hierarchical_chunk32}@bf16'
PROFILE_SRC=$root/tests/fixtures/profiles/$PROFILE_NAME
# Libraries every Linux with a CUDA driver has (or must not be shipped: the driver's own libcuda).
SYSTEM_LIBS='^(linux-vdso|ld-linux|libc|libm|libdl|libpthread|librt|libutil|libstdc\+\+|libgcc_s|libcuda|libnvidia)\.'
rehearsal=${SCANCHECK_GPU_REHEARSAL:-0}

die() { echo "gpu-check: $*" >&2; exit 1; }
now() { date +%s; }

# ---------------------------------------------------------------------------------------------- stage --

# stage_program SRC DEST_DIR: a stripped copy (symbols and debug info are most of a test program's size).
stage_program() {
  local src=$1 dest
  dest=$2/$(basename "$1")
  strip --strip-all -o "$dest" "$src"
  chmod 755 "$dest"
  echo "bin/$(basename "$dest") $(stat -c %s "$dest")" >>"$2/../scripts/manifest.txt"
}

# stage_libs STAGE: every non-system library the staged programs load, resolved here; the device decides
# which of them it lacks. libstdc++ and libgcc_s go to lib/fallback, used only if the machine's are older.
stage_libs() {
  local stage=$1 exe
  for exe in "$stage"/bin/*; do
    ldd "$exe" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}'
  done | sort -u | while read -r name path; do
    if [[ $name =~ ^(libstdc\+\+|libgcc_s)\. ]]; then
      cp -L "$path" "$stage/lib/fallback/$name"
    elif ! [[ $name =~ $SYSTEM_LIBS ]]; then
      cp -L "$path" "$stage/lib/$name"
    fi
  done
}

# build_cuda_targets: the ci preset's CUDA build, only the targets the stage needs (cuda_checks).
build_cuda_targets() {
  command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ] || die "no nvcc here: the stage needs the CUDA build"
  SCANCHECK_NO_PYTHON=1 bash "$root/ci/bootstrap.sh"
  (cd "$root" && cmake --preset ci >/dev/null && cmake --build --preset ci-cuda -j "${SCANCHECK_JOBS:-$(nproc)}")
}

stage() {
  local from="" to=$root/build/gpu-stage
  while [ $# -gt 0 ]; do
    case $1 in
      --from) from=$(realpath -m "$2"); shift 2 ;;
      --to) to=$(realpath -m "$2"); shift 2 ;;
      *) die "stage: unknown argument $1 (usage: stage [--from BUILD_DIR] [--to DIR])" ;;
    esac
  done
  if [ -z "$from" ]; then
    build_cuda_targets
    from=$root/build/ci
  fi
  [ -x "$from/cli/scancheck" ] || die "stage: no $from/cli/scancheck (build first, or pass --from BUILD_DIR)"
  [ -f "$PROFILE_SRC" ] || die "stage: no seed profile at $PROFILE_SRC"
  case $to in "$root"|"$root/build"|/|"$HOME") die "stage: refusing to replace $to" ;; esac
  rm -rf "$to"
  mkdir -p "$to/bin" "$to/lib/fallback" "$to/scripts" "$to/fixtures"
  : >"$to/scripts/manifest.txt"
  stage_program "$from/cli/scancheck" "$to/bin"
  local t
  for t in "${GPU_TESTS[@]}"; do
    if [ -x "$from/tests/backends/$t" ]; then
      stage_program "$from/tests/backends/$t" "$to/bin"
    elif [ "$rehearsal" = 1 ]; then
      echo "gpu-check: stage: $t not built in $from (a build without CUDA): not staged, rehearsal only" >&2
    else
      die "stage: $from/tests/backends/$t is missing: the device run needs every gpu test program"
    fi
  done
  # A CUDA build's scancheck carries its kernels in .nv_fatbin; strip must have kept them.
  # (Not `readelf | grep -q`: grep's early exit gives readelf SIGPIPE, a failure under pipefail.)
  if [ "$rehearsal" != 1 ] && [[ $(readelf -S "$to/bin/scancheck") != *nv_fatbin* ]]; then
    die "stage: $to/bin/scancheck has no .nv_fatbin section: not a CUDA build"
  fi
  stage_libs "$to"
  cp "$PROFILE_SRC" "$to/fixtures/$PROFILE_NAME"
  cp "$root/ci/gpu-check.sh" "$to/scripts/gpu-check.sh"
  {
    echo "staged $(date -u +%Y-%m-%dT%H:%M:%SZ) from $from"
    echo "git $(git -C "$root" describe --always --dirty 2>/dev/null || echo unknown)"
    grep -E '^(CMAKE_BUILD_TYPE|SCANCHECK_CUDA_ARCHITECTURES|SCANCHECK_ENABLE_CUDA|SCANCHECK_SANITIZERS):' \
      "$from/CMakeCache.txt" 2>/dev/null || true
  } >"$to/scripts/stage-info.txt"
  check_stage_size "$to"
}

# check_stage_size DIR: what a call carries is 64 MiB with the working tree; 48 MiB leaves room for the tree.
check_stage_size() {
  local bytes limit_mib=${SCANCHECK_GPU_STAGE_LIMIT_MIB:-48}
  bytes=$(du -sb "$1" | cut -f1)
  (cd "$1" && find . -type f -printf '%s %p\n' | sort -rn | awk '{printf "  %6.1f MiB  %s\n", $1 / 1048576, $2}')
  awk -v b="$bytes" -v d="$1" -v l="$limit_mib" 'BEGIN {printf "gpu-check: staged %s: %.1f MiB (limit %s MiB)\n", d, b / 1048576, l}'
  [ "$bytes" -le $((limit_mib * 1048576)) ] || die "stage: $1 is over the $limit_mib MiB limit"
  echo "gpu-check: carry it: run tool, carry [\"${1#"$root"/}\"], command: bash ci/gpu-check.sh device"
}

# ------------------------------------------------------------------------------ the staged programs ---

# use_stage: checks the staged files against the manifest and makes the staged programs loadable. Sets
# stage, bin, missing (lines naming missing files) and lib_lines (what was resolved how).
use_stage() {
  stage=$(realpath -m "${SCANCHECK_GPU_STAGE:-$root/build/gpu-stage}")
  bin=$stage/bin
  missing=()
  lib_lines=()
  if [ ! -f "$stage/scripts/manifest.txt" ]; then
    missing+=("$stage/scripts/manifest.txt (no staged folder: run ci/gpu-check.sh stage here and carry it)")
    return
  fi
  local path size
  while read -r path size; do
    if [ ! -x "$stage/$path" ]; then
      missing+=("staged executable missing: $stage/$path")
    elif [ "$(stat -c %s "$stage/$path")" != "$size" ]; then
      missing+=("staged executable truncated: $stage/$path ($(stat -c %s "$stage/$path") bytes, staged $size)")
    fi
  done <"$stage/scripts/manifest.txt"
  [ ${#missing[@]} -eq 0 ] || return 0
  resolve_libs
}

# resolve_libs: the machine's own libraries first (they match its Python and driver); a staged one only
# for a soname the loader cannot find there, linked into one folder so LD_LIBRARY_PATH holds nothing else.
# lib/fallback (libstdc++, libgcc_s) joins only if a program still fails to load. A rehearsal takes every
# staged library, so that the copies are exercised.
resolve_libs() {
  local libdir=$work/lib name exe
  mkdir -p "$libdir"
  # Three rounds: a library found only in the stage can need another one that ldd could not list before.
  local _
  for _ in 1 2 3; do
    for name in $( (for exe in "$bin"/*; do LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} ldd "$exe" 2>/dev/null; done) |
        awk '$3 == "not" {print $1}' | sort -u); do
      if [ -e "$stage/lib/$name" ]; then ln -sf "$stage/lib/$name" "$libdir/$name"; fi
    done
  done
  if [ "$rehearsal" = 1 ]; then
    for name in "$stage"/lib/*.so*; do ln -sf "$name" "$libdir/"; done
  fi
  export LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  if unresolved >/dev/null; then
    export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$stage/lib/fallback
    lib_lines+=("the machine's libstdc++ or libgcc_s is too old: the staged ones are used")
  fi
  lib_lines+=("staged libraries used: $(find "$libdir" -mindepth 1 -printf '%f ')")
  lib_lines+=("from the machine: $( (for exe in "$bin"/*; do ldd "$exe" 2>/dev/null; done) |
    awk -v w="$work" -v s="$stage" '$3 ~ /^\// && index($3, w) != 1 && index($3, s) != 1 {print $1}' |
    { grep -vE "$SYSTEM_LIBS" || true; } | sort -u | tr '\n' ' ')")
  local bad
  if bad=$(unresolved); then
    missing+=("staged programs cannot load: $bad")
  fi
}

# unresolved: prints and succeeds when a staged program has a library or symbol version it cannot find.
unresolved() {
  local exe out
  out=$(for exe in "$bin"/*; do ldd "$exe" 2>&1 | { grep -E 'not found' || true; } | sed "s|^|$(basename "$exe"): |"; done)
  [ -n "$out" ] && echo "$out" | tr '\n' ';'
}

# ------------------------------------------------------------------------------------- the summary ---

# The summary is rewritten whole after every step, from rows and details kept in $work.
summary_write() {
  local tmp=$out/summary.md.tmp
  {
    echo "# GPU results"
    echo
    echo "Generated by \`ci/gpu-check.sh device\` on $(date -u +%Y-%m-%d) (started $started UTC), git $git_rev;"
    echo "device: $device_line. Budget ${budget} s; $(( $(now) - start )) s used so far."
    [ "$rehearsal" = 1 ] && echo "**Rehearsal on a CPU** (host executor, fake nvidia-smi): no device number here is real."
    echo
    echo "| step | status | seconds | limit (s) | key lines |"
    echo "|---|---|---:|---:|---|"
    cat "$work/rows"
    echo
    cat "$work/details"
  } >"$tmp"
  mv "$tmp" "$out/summary.md"
}

# md_cell FILE: the key lines as one table cell (no pipes, lines joined by <br>).
md_cell() { sed -e 's/|/\\|/g' -e 's/`//g' "$1" | head -12 | awk 'NR > 1 {printf "<br>"} {printf "%s", $0}'; }

# record STEP TITLE STATUS SECONDS LIMIT: the row, the details section and the step's tarball.
record() {
  local step=$1 title=$2 status=$3 secs=$4 limit=$5 dir=$work/$1
  echo "| $step $title | $status | $secs | $limit | $(md_cell "$dir/keys") |" >>"$work/rows"
  {
    echo "## $step $title: $status"
    echo
    echo '```'
    cat "$dir/keys"
    echo '```'
    echo
    [ -s "$dir/details.md" ] && { cat "$dir/details.md"; echo; }
  } >>"$work/details"
  # Only 8 files come back from a call: one tarball a step, written as the step ends.
  tar -czf "$out/$step-$title.tar.gz.tmp" -C "$work" "$step" && mv "$out/$step-$title.tar.gz.tmp" "$out/$step-$title.tar.gz"
  summary_write
  # Skipped for want of something the machine lacks is not a failure; skipped for want of time is.
  case $status in
    pass|"skipped (no"*) ;;
    *) overall=1 ;;
  esac
  echo "gpu-check: step $step $title: $status after $secs s"
}

# step_left: seconds this step may still run (its own limit, and the whole call's budget less a reserve for
# the summary and tarballs).
step_left() {
  local left_step=$(( step_deadline - $(now) )) left_all=$(( deadline - 5 - $(now) ))
  echo $(( left_step < left_all ? left_step : left_all ))
}

# run_step STEP TITLE LIMIT FUNCTION: runs FUNCTION, which writes $dir/keys and sets status.
run_step() {
  local step=$1 title=$2 limit=$3 fn=$4 t0
  dir=$work/$step
  mkdir -p "$dir"
  : >"$dir/keys"
  t0=$(now)
  step_deadline=$(( t0 + limit ))
  if [ "$(step_left)" -lt 10 ]; then
    echo "not run: $(( deadline - t0 )) s left of the ${budget} s budget" >"$dir/keys"
    record "$step" "$title" "skipped (budget spent)" 0 "$limit"
    return
  fi
  status=pass
  "$fn" || status=fail
  record "$step" "$title" "$status" $(( $(now) - t0 )) "$limit"
}

# limited LOG COMMAND...: COMMAND under the step's time left, stdout and stderr to LOG; returns its status
# (124 when the limit stopped it: SIGTERM first, so a report writes what finished, then SIGKILL 10 s later).
limited() {
  local log=$1 left rc=0; shift
  left=$(step_left)
  [ "$left" -ge 5 ] || return 124
  timeout -k 10 "$left" "$@" >"$log" 2>&1 || rc=$?
  return $rc
}

# verdict RC: the status a command's exit code gives.
verdict() {
  case $1 in
    0) echo pass ;;
    124|137) echo "timed out" ;;
    *) echo fail ;;
  esac
}

# ----------------------------------------------------------------------------------------- the steps ---

step_env() {
  {
    if command -v nvidia-smi >/dev/null; then
      nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -4 || true
    else
      echo "nvidia-smi: not found"
    fi
    if [ ${#missing[@]} -eq 0 ]; then printf '%s\n' "${lib_lines[@]}"; else printf '%s\n' "${missing[@]}"; fi
    head -3 "$stage/scripts/stage-info.txt" 2>/dev/null || true
    if [ -f "$stage/scripts/gpu-check.sh" ] && ! cmp -s "$stage/scripts/gpu-check.sh" "$root/ci/gpu-check.sh"; then
      echo "warning: the stage was made by another version of ci/gpu-check.sh"
    fi
    echo "python: $("$python" --version 2>&1 || echo "no $python")"
  } >"$dir/keys"
  (for exe in "$bin"/*; do echo "== $exe"; ldd "$exe" 2>&1; done) >"$dir/ldd.txt" 2>&1 || true
  [ ${#missing[@]} -eq 0 ]
}

# a: every backend (a rehearsal: a handful) against the reference on the ladder of awkward lengths.
step_correctness() {
  local rc=0
  limited "$dir/report.log" "$bin/scancheck" report --preset quick --executor "$executor" --backends "$backends_a" \
    --lengths "$lengths_a" --label first-lease-correctness --out "$dir/report" || rc=$?
  report_keys "$dir/report.log" "$dir/report/report.md" >"$dir/keys"
  status=$(verdict $rc)
}

# report_keys LOG REPORT_MD: the verdict line, where it ran, what it covered, the failures.
report_keys() {
  {
    grep -E '^(PASS|FAIL|INTERRUPTED)|^scancheck: error|^profile: [0-9]' "$1" | head -4 || true
    if [ -f "$2" ]; then
      grep -E '^\| (executor|coverage) \|' "$2" | sed -e 's/^| //' -e 's/ | /: /' -e 's/ |$//' || true
      grep -E '^- \*\*.*: \*\*(fail|error|fault|timeout)\*\*$' "$2" | sed 's/\*\*//g' | head -6 || true
    else
      tail -n 3 "$1" | tr '\r' '\n' | tail -n 3
    fi
  } | awk '!seen[$0]++'
}

# b: the production backends at the seed shapes with device times, beside the seed profile's.
step_seed_timings() {
  local rc=0 profile=$stage/fixtures/$PROFILE_NAME
  limited "$dir/report.log" "$bin/scancheck" report "${preset_b[@]}" --executor "$executor" \
    --timings "$profile" --timings-alias samu=complex_rglru --label first-lease-seed-shapes --out "$dir/report" || rc=$?
  report_keys "$dir/report.log" "$dir/report/report.md" >"$dir/keys"
  # The report's tables (device time per backend) and its section on the profile (scancheck's device
  # time beside the profile's), as they are, a heading level down.
  if [ -f "$dir/report/report.md" ]; then
    awk '/^### Scope/ {exit} /^## / {on = 1} on' "$dir/report/report.md" | sed 's/^## /### /' | head -200 >"$dir/details.md"
  fi
  status=$(verdict $rc)
}

# c: memcheck, then racecheck, on a few backends of each architecture at shapes no chunk or warp divides.
SANITIZE_CASES=(
  "scan scan/*@fp32 2,37,24,1"
  "rglru rglru/fused_grouped_prefix32_hierarchical_chunk16@fp32 2,37,24,2"
  "complex_rglru complex_rglru/fused_output_fused_write_shared_sfu_chunk32@fp32 2,37,24,2"
  "complex_scan complex_scan/chunk16@fp32 1,33,40,1"
)
step_sanitizer() {
  local sanitizer tool c arch glob shape rc t0 log line extra
  sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  if [ ! -x "$sanitizer" ]; then
    echo "compute-sanitizer not found" >"$dir/keys"
    status="skipped (no compute-sanitizer)"
    return
  fi
  for tool in memcheck racecheck; do
    for c in "${SANITIZE_CASES[@]}"; do
      read -r arch glob shape <<<"$c"
      log=$dir/$tool-$arch.log
      t0=$(now)
      rc=0
      extra=()
      [ "$tool" = memcheck ] && extra=(--leak-check full)
      limited "$log" "$sanitizer" --tool "$tool" "${extra[@]}" --error-exitcode 99 --print-limit 20 \
        "$bin/scancheck" check --executor "$executor" --backend "$glob" --arch "$arch" --shape "$shape" --seed 5 || rc=$?
      line=$(grep -m1 -E '(ERROR|RACECHECK) SUMMARY: [0-9]+' "$log" | sed 's/^=* *//' || true)
      # No summary line means the tool did not run the program as meant: a failure too.
      [ $rc -ne 0 ] || [ -n "$line" ] || rc=1
      echo "$tool $glob $shape: $(verdict $rc) (exit $rc, $(( $(now) - t0 )) s): ${line:-no summary}" >>"$dir/keys"
      if [ $rc -ne 0 ]; then
        status=$(verdict $rc)
        [ $rc -eq 124 ] && return 0
      fi
    done
  done
}

# d: the Python side on the machine's own torch and triton, against the staged scancheck.
step_python() {
  if ! "$python" -c 'import pytest' 2>/dev/null; then
    echo "$python has no pytest ($("$python" --version 2>&1 || echo "no $python"))" >"$dir/keys"
    status="skipped (no pytest)"
    return
  fi
  # Installed, the package registers its plugin itself; from python/src it must be named.
  local plugin=(-p scancheck.pytest_plugin) rc=0
  if PYTHONPATH=$root/python/src "$python" -c 'import importlib.metadata as m, sys
sys.exit(0 if any(e.value.startswith("scancheck") for e in m.entry_points(group="pytest11")) else 1)' 2>/dev/null; then
    plugin=()
  fi
  mkdir -p "$dir/findings"
  # From python/, as python/run_tests.sh runs them: its pyproject.toml holds the pytest settings.
  (cd "$root/python" && limited "$dir/pytest.log" env PYTHONPATH="$root/python/src" SCANCHECK="$bin/scancheck" \
    PYTHONUNBUFFERED=1 "$python" -m pytest -q -p no:cacheprovider "${plugin[@]}" --scancheck \
    --scancheck-cases "${SCANCHECK_GPU_PYTHON_CASES:-20}" --scancheck-findings "$dir/findings" tests) || rc=$?
  {
    "$python" -c 'import torch, triton; print("torch", torch.__version__, "cuda", torch.cuda.is_available(), "triton", triton.__version__)' 2>&1 | tail -1 || true
    grep -E '^(FAILED|ERROR) ' "$dir/pytest.log" | head -6 || true
    tail -n 1 "$dir/pytest.log"
  } >"$dir/keys"
  status=$(verdict $rc)
}

# e: the staged gpu-labelled test programs. On a GPU a skipped test means no device was seen: a failure.
step_gpu_tests() {
  local t rc counts verdict_t
  for t in "${GPU_TESTS[@]}"; do
    if [ ! -x "$bin/$t" ]; then
      echo "$t: not staged" >>"$dir/keys"
      continue
    fi
    rc=0
    limited "$dir/$t.log" "$bin/$t" --gtest_brief=1 || rc=$?
    counts=$(grep -E '^\[ *(PASSED|FAILED|SKIPPED) *\]' "$dir/$t.log" | grep -v '^\[  FAILED  \] [A-Za-z]' |
      sed -E 's/^\[ *([A-Z]+) *\] /\1 /; s/ tests?[.,]?.*//' | tr '\n' ' ')
    verdict_t=$(verdict $rc)
    if [ $rc -eq 0 ] && [ "$rehearsal" != 1 ] && grep -q '^\[  SKIPPED \]' "$dir/$t.log"; then
      verdict_t="fail (tests skipped on a GPU machine: no device seen)"
    fi
    echo "$t: $verdict_t (exit $rc): ${counts:-no gtest summary}" >>"$dir/keys"
    grep -E '^\[  FAILED  \] [A-Za-z]' "$dir/$t.log" | head -4 >>"$dir/keys" || true
    case $verdict_t in
      pass) ;;
      "timed out") status="timed out"; return 0 ;;
      *) status=fail ;;
    esac
  done
  [ "$(grep -vc ': not staged' "$dir/keys")" -gt 0 ] || status="skipped (none staged)"
}

device() {
  start=$(now)
  started=$(date -u +%H:%M:%S)
  budget=${SCANCHECK_GPU_BUDGET:-420}
  deadline=$(( start + budget ))
  out=$(realpath -m "${OUT:-$root/build/gpu-device-out}")
  mkdir -p "$out"
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  : >"$work/rows"
  : >"$work/details"
  overall=0
  python=${SCANCHECK_GPU_PYTHON:-python3}
  # The device's copy of the tree may have no .git: the stage then says which commit it was made from.
  git_rev=$(git -C "$root" rev-parse --short HEAD 2>/dev/null ||
    sed -n 's/^git /staged from /p' "${SCANCHECK_GPU_STAGE:-$root/build/gpu-stage}/scripts/stage-info.txt" 2>/dev/null || true)
  git_rev=${git_rev:-unknown}
  device_line=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1 || true)
  device_line=${device_line:-no nvidia-smi}
  if [ "$rehearsal" = 1 ]; then
    # The stand-in: the host executor, four cheap backends, short lengths, a quick report for the profile.
    executor=host
    backends_a=${SCANCHECK_GPU_BACKENDS:-'{scan,complex_scan,rglru,complex_rglru}/sequential@fp32'}
    lengths_a=2,33
    preset_b=(--preset quick --lengths 33 --backends "$PRODUCTION_BF16")
    limits=(15 40 40 40 40 40)
  else
    executor=cuda
    backends_a=${SCANCHECK_GPU_BACKENDS:-'*'}
    lengths_a=2,33,300,2100
    # --sample: one (batch, head) block a case; every element of the seed shapes takes 8 minutes on the CPU.
    # bf16 alone halves the step, and is what the profile measured.
    preset_b=(--preset seed-shapes --sample --backends "$PRODUCTION_BF16")
    limits=(15 75 165 75 45 45)
  fi
  use_stage
  run_step 0 environment "${SCANCHECK_GPU_LIMIT_ENV:-${limits[0]}}" step_env
  if [ ${#missing[@]} -gt 0 ]; then
    printf 'gpu-check: %s\n' "${missing[@]}" >&2
    local s
    for s in "a correctness" "b seed-timings" "c sanitizer" "d python" "e gpu-tests"; do
      mkdir -p "$work/${s%% *}"
      echo "not run: the environment step failed" >"$work/${s%% *}/keys"
      record "${s%% *}" "${s#* }" "skipped (environment failed)" 0 0
    done
    exit 1
  fi
  run_step a correctness "${SCANCHECK_GPU_LIMIT_A:-${limits[1]}}" step_correctness
  run_step b seed-timings "${SCANCHECK_GPU_LIMIT_B:-${limits[2]}}" step_seed_timings
  run_step c sanitizer "${SCANCHECK_GPU_LIMIT_C:-${limits[3]}}" step_sanitizer
  run_step d python "${SCANCHECK_GPU_LIMIT_D:-${limits[4]}}" step_python
  run_step e gpu-tests "${SCANCHECK_GPU_LIMIT_E:-${limits[5]}}" step_gpu_tests
  echo "gpu-check device: $(( $(now) - start )) s, summary in $out/summary.md"
  exit $overall
}

# ------------------------------------------------------------------------- longer checks, later leases ---

# What every later check starts with: $work (removed at exit) with a folder named $1, $out, and the stage in
# use with nothing missing from it.
begin_later_check() {
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  out=$(realpath -m "${OUT:-$root/build/gpu-device-out}")
  mkdir -p "$out" "$work/$1"
  use_stage
  [ ${#missing[@]} -eq 0 ] || die "$(printf '%s; ' "${missing[@]}")"
}

# sanitize: the full sweep (four tools, every backend of each architecture) from the stage; one call of up
# to 8 minutes; $OUT/compute-sanitizer.md and the logs in one tarball.
sanitize() {
  local start tool c arch shape flags t0 log rc summary backends result extra status=0
  start=$(now)
  begin_later_check sanitize
  command -v compute-sanitizer >/dev/null || PATH=$PATH:/usr/local/cuda/bin
  local cases=("scan 2,37,24,1" "complex_scan 2,37,24,1" "rglru 2,37,24,2" "complex_rglru 2,37,24,2"
    "rglru 1,5,8,1 --no-h0 --no-dh-last")
  {
    echo "# compute-sanitizer over the CUDA backends"
    echo
    echo "Generated by \`ci/gpu-check.sh sanitize\` on $(date -u +%Y-%m-%d), git $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)."
    echo
    echo "| Tool | Case | Backends | Result | Seconds |"
    echo "|---|---|---|---|---|"
  } >"$out/compute-sanitizer.md"
  for tool in memcheck initcheck synccheck racecheck; do
    for c in "${cases[@]}"; do
      read -r arch shape flags <<<"$c"
      if [ $(( $(now) - start )) -gt 450 ]; then
        echo "| $tool | $arch $shape $flags | $arch/* | not run: the 8-minute budget is spent | |" >>"$out/compute-sanitizer.md"
        status=1
        continue
      fi
      t0=$(now)
      log=$work/sanitize/$tool-$arch-${shape//,/x}.log
      rc=0
      extra=()
      [ "$tool" = memcheck ] && extra=(--leak-check full)
      [ "$tool" = racecheck ] && extra=(--racecheck-report hazard)
      # shellcheck disable=SC2086
      timeout 300 compute-sanitizer --tool "$tool" "${extra[@]}" --error-exitcode 99 --print-limit 20 \
        "$bin/scancheck" check --executor cuda --backend "$arch/*" --arch "$arch" --shape "$shape" \
        --seed 5 $flags >"$log" 2>&1 || rc=$?
      summary=$(grep -m1 -E 'ERROR SUMMARY: [0-9]+|RACECHECK SUMMARY: [0-9]+' "$log" || echo "no summary (exit $rc)")
      backends=$(grep -cE '^[a-z_]+/.*: (PASS|FAIL)' "$log" || true)
      result="clean: $summary"
      if [ $rc -ne 0 ]; then
        result="**FINDING** (exit $rc): $summary; see $(basename "$log") in compute-sanitizer-logs.tar.gz"
        status=1
      fi
      echo "| $tool | $arch $shape $flags | $backends | $result | $(( $(now) - t0 )) |" >>"$out/compute-sanitizer.md"
      tar -czf "$out/compute-sanitizer-logs.tar.gz" -C "$work" sanitize
    done
  done
  echo "gpu-check sanitize: $(( $(now) - start )) s, results in $out/compute-sanitizer.md"
  exit $status
}

# parallel: on a multi-GPU machine, the staged gpu tests side by side, each handed one GPU the way ctest
# hands it (CTEST_RESOURCE_GROUP_0_GPUS, which scancheck's device query adopts), then fuzz --devices all.
parallel() {
  local start gpus i t status=0 pids=()
  start=$(now)
  begin_later_check parallel
  bash "$root/ci/gpu-resources.sh" "$work/parallel/gpu-resources.json"
  mapfile -t gpus < <(nvidia-smi --query-gpu=index --format=csv,noheader | tr -d ' ')
  i=0
  for t in "${GPU_TESTS[@]}"; do
    CTEST_RESOURCE_GROUP_0_GPUS="id:${gpus[i % ${#gpus[@]}]},slots:1" \
      timeout 300 "$bin/$t" --gtest_brief=1 >"$work/parallel/$t.log" 2>&1 &
    pids+=($!)
    i=$((i + 1))
  done
  for i in "${!pids[@]}"; do
    wait "${pids[i]}" || { status=1; echo "gpu-check parallel: ${GPU_TESTS[i]} failed"; }
  done
  timeout 200 "$bin/scancheck" fuzz --executor cuda --devices all --backends 'rglru/*chunk16*@fp32' \
    --cases 20 --findings "$work/parallel/fuzz-devices" >"$work/parallel/fuzz-devices.log" 2>&1 || status=1
  tar -czf "$out/parallel.tar.gz" -C "$work" parallel
  echo "gpu-check parallel: $(( $(now) - start )) s on ${#gpus[@]} GPU(s), logs in $out/parallel.tar.gz"
  exit $status
}

mode=${1:-}
[ $# -gt 0 ] && shift
case $mode in
  stage) stage "$@" ;;
  device) device ;;
  sanitize) sanitize ;;
  parallel) parallel ;;
  *) echo "usage: ci/gpu-check.sh stage [--from BUILD_DIR] [--to DIR] | device | sanitize | parallel" >&2; exit 2 ;;
esac
