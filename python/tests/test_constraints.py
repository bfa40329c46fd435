"""Constraints a real kernel needs are kept by scancheck: every case drawn and every shrink inside them."""

import os

import numpy as np
import pytest

import scancheck

from .kernels.numpy_scans import backward_scan, forward_scan

BLOCKED_LOG_SPACE = {"min_length": 16, "length_multiple": 16, "positive_decays": True, "max_length": 96}


def _backward(a, b, h0, dh, dh_last=None):
    return backward_scan(a, b, h0, dh, dh_last)


@scancheck.backend(
    "scan", variant="blocked_log_space", framework="numpy", backward=_backward, constraints=BLOCKED_LOG_SPACE
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


@scancheck.backend("scan", framework="numpy", backward=_backward, shapes="bucketed")
def _bucketed_loop(a, b, h0):
    """A correct loop that writes down every shape it is given (SHAPES_SEEN, a file, since it runs in the worker)."""
    with open(os.environ["SHAPES_SEEN"], "a") as seen:
        seen.write(f"{a.shape}\n")
    return forward_scan(a, b, h0)


def test_bucketed_cases_reuse_a_small_set_of_shapes(scancheck_fuzz, tmp_path, monkeypatch):
    """80 cases of the any plan draw about 75 shapes; the bucketed plan draws from its few dozen, boundaries in."""
    monkeypatch.setenv("SHAPES_SEEN", str(tmp_path / "shapes"))
    assert _bucketed_loop.declaration()["constraints"]["shapes"] == "bucketed"
    result = scancheck_fuzz(_bucketed_loop, cases=80, findings=tmp_path / "f")
    assert not result.failures, result.output
    shapes = set((tmp_path / "shapes").read_text().splitlines())
    lengths = {int(s.strip("()").split(",")[1]) for s in shapes}
    assert len(shapes) <= 34, sorted(shapes)
    assert {63, 64, 65} <= lengths or {127, 128, 129} <= lengths, sorted(lengths)


def test_an_unknown_shape_plan_is_refused():
    with pytest.raises(ValueError, match="shapes 'some' is not one of: any, bucketed"):
        scancheck.backend("scan", framework="numpy", passes=("forward",), constraints={"shapes": "some"})(
            lambda a, b: b
        )
