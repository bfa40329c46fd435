"""Constraints a real kernel needs are kept by scancheck: every case drawn and every shrink inside them."""

import numpy as np
import pytest

import scancheck

from .kernels.numpy_scans import backward_scan, forward_scan

BLOCKED_LOG_SPACE = {"min_length": 16, "length_multiple": 16, "positive_decays": True, "max_length": 96}


def _log_space_backward(a, b, h0, dh, dh_last=None):
    return backward_scan(a, b, h0, dh, dh_last)


@scancheck.backend(
    "scan", variant="blocked_log_space", framework="numpy", backward=_log_space_backward, constraints=BLOCKED_LOG_SPACE
)
def _blocked_log_space(a, b, h0):
    """A kernel of whole blocks of 16 steps that takes log a: it refuses anything else, loudly."""
    if a.shape[1] % 16 or a.shape[1] < 16:
        raise ValueError(f"L = {a.shape[1]} is not whole blocks of 16")
    if not (a > 0).all():
        raise ValueError("log of a decay <= 0")
    log_a = np.log(a)  # the kernel's own parameterisation; the error of this log is charged to the kernel
    return forward_scan(np.exp(log_a), b, h0)


def test_cases_and_shrinks_stay_inside_length_and_decay_constraints(scancheck_fuzz, tmp_path):
    result = scancheck_fuzz(_blocked_log_space, cases=40, findings=tmp_path)
    assert "not whole blocks" not in result.output
    assert "log of a decay" not in result.output
    # exp(log a) rounds differently from a: the kernel may fail on accuracy, never on a refused case.
    for failure in result.failures:
        assert not any(d.startswith("error:") for d in failure.details), failure
        assert "--shape" in failure.summary
        length = int(failure.summary.split("--shape ")[1].split(",")[1])
        assert length % 16 == 0
        assert length >= 16


def test_impossible_length_constraints_are_bad_input(tmp_path):
    module = tmp_path / "impossible_kernels.py"
    module.write_text(
        "import scancheck\n"
        "@scancheck.backend('scan', framework='numpy', passes=('forward',),\n"
        "                   constraints={'min_length': 20, 'max_length': 30, 'length_multiple': 16})\n"
        "def impossible(a, b):\n    return b\n"
    )
    with pytest.raises(ValueError, match="no length within min_length and max_length is a multiple of length_mul"):
        scancheck.fuzz(module, "*", cases=2, findings=tmp_path / "f")
