"""scancheck.fuzz from Python: cases per group of backends, and keep_going's failure rates read back."""

from pathlib import Path

import scancheck
from scancheck.checking import FailureRate

KERNELS = Path(__file__).parent / "kernels" / "numpy_scans.py"


def test_cases_are_per_group(tmp_path):
    # scan and complex_scan: two groups, each judged on its 6 cases.
    result = scancheck.fuzz(
        KERNELS, "npscans:{scan/loop,complex_scan/loop_native_complex}@*", cases=6, findings=tmp_path
    )
    assert result.passed, result.output
    assert result.cases == 12
    assert "(6 in each of 2 groups)" in result.output
    assert result.rates == ()


def test_keep_going_counts_every_failure_and_shrinks_the_first(tmp_path):
    result = scancheck.fuzz(
        KERNELS, "npscans:scan/{loop,loop_drops_dh_last}@*", cases=30, findings=tmp_path, keep_going=True
    )
    assert not result.passed
    assert [f.backend for f in result.failures] == ["npscans:scan/loop_drops_dh_last@fp32"]
    assert result.failures[0].repro  # the one FAIL block, read as without keep_going
    rates = {r.backend: r for r in result.rates}
    assert rates["npscans:scan/loop@fp32"] == FailureRate("npscans:scan/loop@fp32", 0, 30)
    dropped = rates["npscans:scan/loop_drops_dh_last@fp32"]
    assert dropped.judged == 30
    assert 1 < dropped.failed < 30, dropped  # cases without dh_last pass
