#!/usr/bin/python3
"""Validates every report the tests wrote against reports/schema/report.schema.json.

usage: validate_reports.py SCHEMA DIR

Every *.json file under DIR must be a scancheck report and valid under the schema (JSON Schema draft
2020-12, Debian's python3-jsonschema). Fails when DIR holds no report, so it cannot pass vacuously, and
first checks that the validator rejects broken copies of a real report, so it cannot pass by accepting
everything. Exit 77 (skipped) when python3-jsonschema is missing.
"""

import copy
import json
import pathlib
import sys

try:
    import jsonschema
except ImportError:
    print("skipped: python3-jsonschema is not installed (ci/bootstrap.sh installs it)")
    sys.exit(77)


def broken_copies(report):
    """Copies of a valid report that the schema must reject, each with what was broken."""
    without_rows = copy.deepcopy(report)
    del without_rows["rows"]
    yield "rows removed", without_rows
    future = copy.deepcopy(report)
    future["schema_version"] = 3
    yield "schema_version 3", future
    extra = copy.deepcopy(report)
    extra["surprise"] = True
    yield "unknown top-level field", extra
    if report["rows"]:
        bad_verdict = copy.deepcopy(report)
        bad_verdict["rows"][0]["verdict"] = "maybe"
        yield "row verdict 'maybe'", bad_verdict
        if report["rows"][0]["tensors"]:
            nan_number = copy.deepcopy(report)
            nan_number["rows"][0]["tensors"][0]["max_abs"] = "NaN?"
            yield "max_abs not a number", nan_number


def main():
    schema = json.loads(pathlib.Path(sys.argv[1]).read_text())
    validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())
    files = sorted(pathlib.Path(sys.argv[2]).rglob("*.json"))
    if not files:
        print(f"no report under {sys.argv[2]}: the tests that write reports did not run")
        return 1
    failed = 0
    for path in files:
        errors = sorted(validator.iter_errors(json.loads(path.read_text())), key=lambda e: list(e.path))
        for error in errors[:5]:
            print(f"{path}: /{'/'.join(map(str, error.path))}: {error.message[:300]}")
        failed += bool(errors)
        print(f"{'INVALID' if errors else 'valid'}: {path} ({len(errors)} errors)")
    sample = json.loads(files[0].read_text())
    for what, broken in broken_copies(sample):
        if validator.is_valid(broken):
            print(f"the validator accepted a report with {what}")
            failed += 1
    print(f"{len(files)} reports, {failed} invalid")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
