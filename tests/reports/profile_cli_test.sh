#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `scancheck render REPORT --timings PROFILE --timings-alias samu=complex_rglru --out DIR` on the seed-shape
# report profile_test writes (the three production backends at the four seed shapes, both dtypes) and the
# real seed profile: the summary line, the joined report.json, the section of report.md and report.html;
# without the alias the four samu rows are reported unmatched naming the option; a malformed profile, a
# bad alias and an alias without --timings are bad input (exit 2, one line, no output directory).
#
# usage: profile_cli_test.sh SCANCHECK REPORT_JSON PROFILE_JSON
set -uo pipefail
bin=$1
report=$2
profile=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "$0")/../check_support.sh"

if [ ! -s "$report" ]; then
  echo "no report at $report: ProfileJoin.WritesReportsForTheSchemaAndCliTests did not write it"
  exit 1
fi

# expect_bad_input_leaving_nothing DESCRIPTION PATTERN OUTDIR ARGS...: exit 2, one stderr line matching
# PATTERN, OUTDIR absent afterwards.
expect_bad_input_leaving_nothing() {
  local what=$1 pattern=$2 out=$3; shift 3
  expect_bad_input "$what" "$pattern" "$@"
  if [ -e "$out" ]; then fail "$what: left $out behind"; fi
}

# The join with the alias: every profile row matches 2 backward rows (both io dtypes).
out=$work/joined
if "$bin" render "$report" --timings "$profile" --timings-alias samu=complex_rglru --out "$out" >"$work/stdout" 2>"$work/stderr"; then
  pass
else
  fail "render --timings exited $?"; cat "$work/stderr"
fi
grep -qx 'profile: 8 rows, 8 matched (16 report rows), 0 unmatched; 8 backward report rows at profiled shapes have no profile entry (.*)' \
  "$work/stdout" && pass || { fail "summary line"; cat "$work/stdout"; }
[ "$(grep -c '^profile:' "$work/stdout")" -eq 1 ] && pass || fail "expected one profile line with every row matched"
/usr/bin/python3 - "$out/report.json" "$profile" <<'PY' && pass || fail "report.json's profile section and row timings"
import hashlib, json, sys
report = json.load(open(sys.argv[1]))
raw = open(sys.argv[2], "rb").read()
p = report["profile"]
assert p["source"]["sha256"] == hashlib.sha256(raw).hexdigest(), p["source"]
assert p["source"]["bytes"] == len(raw) and p["source"]["rows"] == 8
assert p["method"] == json.loads(raw)["method"]
assert p["aliases"] == [{"from": "samu", "to": "complex_rglru"}]
assert p["rows_matched"] == 8 and p["report_rows_timed"] == 16 and p["unmatched"] == []
timed = [r for r in report["rows"] if r.get("profile")]
assert len(timed) == 16 and all(r["direction"] == "backward" for r in timed)
durations = {(r["backend"].split("@")[0], r["shape"][1], r["shape"][2]): r["profile"]["summed_cuda_duration_us"] for r in timed}
assert durations[("rglru/fused_grouped_prefix32_hierarchical_chunk16", 32768, 2048)] == 5664
assert durations[("complex_rglru/fused_output_fused_write_shared_sfu_chunk32", 2048, 2048)] == 1023
PY
grep -q '^## Measured speed (your profile)$' "$out/report.md" && pass || fail "report.md lacks the section"
grep -q '^> one warmed backward pass; CUDA device event durations from torch.profiler$' "$out/report.md" && pass ||
  fail "report.md does not quote the method"
grep -q '| complex_rglru/fused_output_fused_write_shared_sfu_chunk32@bf16 | 4 × 2048 × 2048 | 1 |' "$out/report.md" && pass ||
  fail "report.md lacks the chunk32 bf16 line"
grep -q '<section id="measured-speed">' "$out/report.html" && pass || fail "report.html lacks the section"
grep -q '<blockquote class="profile-method">one warmed backward pass; CUDA device event durations from torch.profiler</blockquote>' \
  "$out/report.html" && pass || fail "report.html does not quote the method"

# Rendering the joined report again keeps its profile; joining again replaces it.
"$bin" render "$out" --out "$work/again" >/dev/null 2>&1 && grep -q 'id="measured-speed"' "$work/again/report.html" &&
  pass || fail "render of a joined report dropped the profile"

# Without the alias: the four samu rows, each with its reason naming the option.
"$bin" render "$report" --timings "$profile" --out "$work/plain" >"$work/stdout" 2>&1 || fail "render without alias"
grep -q '^profile: 8 rows, 4 matched (8 report rows), 4 unmatched' "$work/stdout" && pass || { fail "summary without alias"; cat "$work/stdout"; }
[ "$(grep -c "^profile: rows\[[0-9]\] samu .*: not joined: architecture 'samu' is not one of scancheck's .*--timings-alias samu=ARCHITECTURE" "$work/stdout")" -eq 4 ] &&
  pass || { fail "four unmatched lines naming --timings-alias"; cat "$work/stdout"; }

# Bad input: one line, exit 2, nothing written.
printf '{"schema_version": 1, "method": "m", "rows": []}' >"$work/empty-rows.json"
expect_bad_input_leaving_nothing "profile without rows" "profile $work/empty-rows.json: rows: expected at least one row" \
  "$work/bad1" render "$report" --timings "$work/empty-rows.json" --out "$work/bad1"
/usr/bin/python3 - "$profile" "$work/negative.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["rows"][3]["categories"]["copy"]["duration_us"] = -1
json.dump(p, open(sys.argv[2], "w"))
PY
expect_bad_input_leaving_nothing "negative duration" "rows\[3\].categories.copy.duration_us: expected a non-negative number" \
  "$work/bad2" render "$report" --timings "$work/negative.json" --out "$work/bad2"
printf '{"schema_version": 1,' >"$work/truncated.json"
expect_bad_input_leaving_nothing "truncated profile" "not JSON" "$work/bad3" \
  render "$report" --timings "$work/truncated.json" --out "$work/bad3"
expect_bad_input_leaving_nothing "missing profile" "cannot read it" "$work/bad4" \
  render "$report" --timings "$work/nope.json" --out "$work/bad4"
expect_bad_input_leaving_nothing "alias without =" "--timings-alias 'samu': no '='" "$work/bad5" \
  render "$report" --timings "$profile" --timings-alias samu --out "$work/bad5"
expect_bad_input_leaving_nothing "alias without --timings" "timings" "$work/bad6" \
  render "$report" --timings-alias samu=complex_rglru --out "$work/bad6"
# `report` reads the profile before its run: a malformed one fails at once and writes nothing.
expect_bad_input_leaving_nothing "report with a malformed profile" "rows: expected at least one row" "$work/bad7" \
  report --preset quick --backends 'scan/chunk16@fp32' --lengths 2 --timings "$work/empty-rows.json" --out "$work/bad7"

finish profile_cli_test
