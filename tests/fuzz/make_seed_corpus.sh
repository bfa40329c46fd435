#!/usr/bin/env bash
# Regenerates the committed seed corpora of the fuzz targets (tests/fuzz/corpus/<target>/) from a built
# scancheck: valid files of every kind plus the malformed kinds the unit tests know. Regression inputs
# (corpus/<target>/regression-*) are kept. Usage: make_seed_corpus.sh path/to/scancheck
set -euo pipefail
bin=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
corpus=$here/corpus
py=/usr/bin/python3  # Debian's, with numpy
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for t in npy_fuzz case_json_fuzz case_dir_fuzz policy_fuzz report_json_fuzz finding_json_fuzz \
    worker_protocol_fuzz names_fuzz profile_fuzz; do
  mkdir -p "$corpus/$t"
  find "$corpus/$t" -type f ! -name 'regression-*' -delete
done

# Case directories: every architecture, both io dtypes, with and without h0 / dh_last.
for arch in scan complex_scan rglru complex_rglru; do
  for dtype in float32 bfloat16; do
    "$bin" make-case --arch "$arch" --batch 2 --length 5 --width 4 --heads 2 --seed 7 --io-dtype "$dtype" \
      --regime resets --out "$work/cases/$arch-$dtype" >/dev/null
  done
  "$bin" make-case --arch "$arch" --batch 1 --length 1 --width 2 --seed 3 --no-h0 --no-dh-last \
    --out "$work/cases/$arch-minimal" >/dev/null
done
for dir in "$work"/cases/*; do
  name=$(basename "$dir")
  "$py" "$here/pack_case_dir.py" "$dir" "$corpus/case_dir_fuzz/$name"
  cp "$dir/case.json" "$corpus/case_json_fuzz/$name.json"
  for f in "$dir"/*.npy; do cp "$f" "$corpus/npy_fuzz/$name-$(basename "$f")"; done
done
# Malformed case.json kinds the unit tests know.
printf '{"architecture": "lstm", "heads": 1, "io_dtype": "float32", "sqrt_gradient": "bounded"}' >"$corpus/case_json_fuzz/bad-architecture.json"
printf '{"architecture": "rglru", "heads": 1e300, "io_dtype": "float32", "sqrt_gradient": "bounded"}' >"$corpus/case_json_fuzz/absurd-heads.json"
printf '{"architecture": "rglru", "heads": 1, "io_dtype": "float32", "sqrt_gradient": "bounded", "extra": 1}' >"$corpus/case_json_fuzz/unknown-key.json"
printf '{"architecture": "rglru", "heads": 1, "io_dtype": "float32"' >"$corpus/case_json_fuzz/truncated.json"

# .npy: both format versions, every dtype read, and the rejected kinds.
"$py" - "$corpus/npy_fuzz" <<'PY'
import io, sys, pathlib
import numpy as np
out = pathlib.Path(sys.argv[1])
def save(name, array, version=None):
    buf = io.BytesIO()
    np.lib.format.write_array(buf, array, version=version, allow_pickle=False)
    (out / name).write_bytes(buf.getvalue())
a = np.arange(12, dtype=np.float32).reshape(3, 4)
save("v1-f4.npy", a, (1, 0)); save("v2-f4.npy", a, (2, 0)); save("v3-f4.npy", a, (3, 0))
save("f8.npy", a.astype(np.float64)); save("i4.npy", a.astype(np.int32)); save("i8.npy", a.astype(np.int64))
save("f2.npy", a.astype(np.float16)); save("scalar.npy", np.float32(1.5)); save("empty.npy", np.zeros((0, 3), np.float32))
save("fortran.npy", np.asfortranarray(a)); save("big-endian.npy", a.astype(">f4")); save("f8-inexact.npy", np.array([0.1]))
save("nan.npy", np.array([np.nan, np.inf, -np.inf], np.float32))
good = (out / "v1-f4.npy").read_bytes()
(out / "truncated.npy").write_bytes(good[:-5])
(out / "bad-magic.npy").write_bytes(b"\x93NUMPZ" + good[6:])
(out / "huge-shape.npy").write_bytes(good.replace(b"(3, 4)", b"(1000000000000, 4)"[:len(b"(3, 4)")]) )
PY
# a header that declares 10^12 elements, padded as numpy pads
"$py" - "$corpus/npy_fuzz/huge.npy" <<'PY'
import sys
header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1000000, 1000000), }"
header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
open(sys.argv[1], "wb").write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode())
PY

# Policies.
"$bin" check --help >/dev/null
printf '{"bound_factor": 4, "baseline_factor": 2, "baseline_slack_ulps": 8, "baseline_slack_bound": 1, "strict": false}\n' >"$corpus/policy_fuzz/default.json"
printf '{"bound_factor": 0, "baseline_factor": 0, "baseline_slack_ulps": 0, "baseline_slack_bound": 0}\n' >"$corpus/policy_fuzz/zero.json"
printf '{"bound_factor": -1}\n' >"$corpus/policy_fuzz/negative.json"
printf '{"bound_factor": 1e999}\n' >"$corpus/policy_fuzz/overflow.json"
printf '{"bound_factr": 4}\n' >"$corpus/policy_fuzz/unknown-key.json"
printf '[4, 2]\n' >"$corpus/policy_fuzz/not-an-object.json"

# Reports (v2, v1, interrupted) and findings: small real runs.
"$bin" report --preset quick --backends 'scan/chunk16@fp32' --lengths 2,17 --out "$work/report" >/dev/null 2>&1
cp "$work/report/report.json" "$corpus/report_json_fuzz/v2.json"
printf '{"bound_factor": 0, "baseline_factor": 0, "baseline_slack_ulps": 0, "baseline_slack_bound": 0}' >"$work/zero.json"
"$bin" report --preset quick --backends 'rglru/fused_chunk16@fp32' --lengths 3 --policy "$work/zero.json" \
  --out "$work/failing" >/dev/null 2>&1 || true
cp "$work/failing/report.json" "$corpus/report_json_fuzz/v2-failing.json"
"$py" - "$work/report/report.json" "$corpus/report_json_fuzz" <<'PY'
import json, sys, pathlib
good = json.load(open(sys.argv[1])); out = pathlib.Path(sys.argv[2])
v1 = json.loads(json.dumps(good)); v1["schema_version"] = 1
for row in v1["rows"]:
    row["pass"] = row.pop("direction")
    for key in ("log", "misshapen"): row.pop(key, None)
(out / "v1.json").write_text(json.dumps(v1))
interrupted = json.loads(json.dumps(good)); interrupted["interrupted"] = "1 of 2 planned cases were run."
(out / "interrupted.json").write_text(json.dumps(interrupted))
bad = json.loads(json.dumps(good)); bad["rows"][0]["verdict"] = "exploded"
(out / "unknown-verdict.json").write_text(json.dumps(bad))
bad = json.loads(json.dumps(good)); bad["rows"][0]["case"] = "c999"
(out / "dangling-case.json").write_text(json.dumps(bad))
bad = json.loads(json.dumps(good)); bad["rows"][0]["backend"] = "<script>alert(1)</script>|x|"
(out / "hostile-name.json").write_text(json.dumps(bad))
(out / "future.json").write_text(json.dumps(dict(good, schema_version=3)))
PY
"$bin" fuzz --backends 'scan/chunk16@fp32' --cases 1 --policy "$work/zero.json" --findings "$work/findings" >/dev/null 2>&1 || true
for f in "$work"/findings/*/finding.json; do cp "$f" "$corpus/finding_json_fuzz/$(basename "$(dirname "$f")").json"; done
f=$(ls "$work"/findings/*/finding.json | head -1)
"$py" - "$f" "$corpus/finding_json_fuzz" <<'PY'
import json, sys, pathlib
good = json.load(open(sys.argv[1])); out = pathlib.Path(sys.argv[2])
(out / "version-0.json").write_text(json.dumps(dict(good, version=0)))
(out / "not-a-finding.json").write_text(json.dumps(dict(good, format="scancheck-report")))
PY

# Worker protocol answers: the example workers' hellos, constraints, run answers, and broken lines.
w=$corpus/worker_protocol_fuzz
echo '{"op":"hello","protocol":1}' | PYTHONPATH="$here/../../python/src" "$py" "$here/../../examples/numpy_worker.py" | head -1 >"$w/numpy-hello"
printf '%s\n' '{"protocol": 1, "provider": "torch", "backends": [{"variant": "autograd", "architecture": "rglru", "io_dtype": "bfloat16", "passes": ["forward"], "deterministic": false, "constraints": {"width_multiple": 8, "max_width": 4096, "max_length": 65536, "max_batch": 8, "heads": [1, 2, 4], "sqrt_gradient": ["bounded"], "h0": true, "dh_last": false, "resets": true}}]}' >"$w/constraints-hello"
printf '%s\n' '{"protocol": 2, "provider": "x", "backends": []}' >"$w/protocol-2"
printf '%s\n' '{"protocol": 1, "provider": "Bad Name", "backends": []}' >"$w/bad-provider"
printf '%s\n' '{"protocol": 1, "provider": "x", "backends": [{"variant": "a", "architecture": "scan", "io_dtype": "float32"}, {"variant": "a", "architecture": "scan", "io_dtype": "float32"}]}' >"$w/duplicate"
printf '%s\n' '{"id": 7, "ok": true, "device_ms": {"forward": 0.5, "backward": 1.25}}' >"$w/run-ok"
printf '%s\n' '{"id": 7, "ok": false, "error": "CUDA out of memory"}' >"$w/run-error"
printf '%s\n' '{"id": 8, "ok": true}' >"$w/run-wrong-id"
printf '%s\n' 'Segmentation fault (core dumped)' >"$w/not-json"

# Names: first byte 0 glob, 1 backend name, 2 shape, 3 shell words.
n=$corpus/names_fuzz
printf '\0%s' 'rglru/*@fp32' >"$n/glob"; printf '\0%s' '{numpy,torch}:*' >"$n/glob-alternation"
printf '\0%s' 'scan/chunk[0-9]*@{fp32,bf16}' >"$n/glob-class"
printf '\1%s' 'rglru/fused_chunk16_tiled_wg2@bf16' >"$n/name"; printf '\1%s' 'numpy:scan/sequential@fp32' >"$n/name-provider"
printf '\2%s' '2,33,16,2' >"$n/shape"; printf '\2%s' '1,1000000000000,1' >"$n/shape-huge"; printf '\2%s' '1,-3,4' >"$n/shape-negative"
printf '\3%s' "python3 -u 'my worker.py' --flag \"a b\" c\\ d" >"$n/shell"; printf '\3%s' "unterminated 'quote" >"$n/shell-bad"
# Speed profiles (--timings): the real seed profile, a foreign backend's, and the malformed kinds the unit
# tests know (tests/reports/profile_test.cpp).
"$py" - "$here/../fixtures/profiles/backward_profile_seed.json" "$corpus/profile_fuzz" <<'PY'
import copy, json, sys, pathlib
seed_text = open(sys.argv[1]).read(); seed = json.loads(seed_text); out = pathlib.Path(sys.argv[2])
(out / "seed.json").write_text(seed_text)
small = {"schema_version": 1, "method": seed["method"], "rows": [copy.deepcopy(seed["rows"][1])]}
small["rows"][0]["top_cuda_events"] = small["rows"][0]["top_cuda_events"][:2]
(out / "one-row.json").write_text(json.dumps(small))
def broken(name, change):
    p = copy.deepcopy(small); change(p); (out / name).write_text(json.dumps(p))
broken("foreign.json", lambda p: p["rows"][0].update(backend="triton:triton_chunk64"))
broken("unknown-key.json", lambda p: p["rows"][0].update(dtype="bf16"))
broken("missing-key.json", lambda p: p["rows"][0].pop("cuda_events"))
broken("negative-duration.json", lambda p: p["rows"][0]["categories"]["copy"].update(duration_us=-1))
broken("infinite-duration.json", lambda p: p["rows"][0].update(summed_cuda_duration_us="inf"))
broken("fractional-events.json", lambda p: p["rows"][0].update(cuda_events=1.5))
broken("schema-version-2.json", lambda p: p.update(schema_version=2))
broken("empty-rows.json", lambda p: p.update(rows=[]))
broken("duplicate-row.json", lambda p: p["rows"].append(copy.deepcopy(p["rows"][0])))
broken("full-backend-name.json", lambda p: p["rows"][0].update(backend="complex_rglru/chunk32@bf16"))
broken("zero-width.json", lambda p: p["rows"][0]["shape"].update(width=0))
(out / "truncated.json").write_text(json.dumps(small)[:200])
PY
echo "seed corpora: $(find "$corpus" -type f | wc -l) files in $corpus"
