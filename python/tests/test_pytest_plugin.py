"""The pytest plugin, as a kernel repository uses it: one test per backend, failures with their repro."""

import shlex
import subprocess

import pytest

import scancheck

USER_TESTS = """
import numpy as np
import scancheck

SCANCHECK_PROVIDER = "mykernels"

def scan(a, b, h0):
    h, state = np.empty_like(b), h0.copy()
    for t in range(b.shape[1]):
        state = a[:, t] * state + b[:, t]
        h[:, t] = state
    return h

def backward(a, b, h0, dh, dh_last=None):
    g, carry = np.empty_like(dh), (np.zeros_like(h0) if dh_last is None or {drop} else dh_last.copy())
    for t in reversed(range(b.shape[1])):
        carry = dh[:, t] + (a[:, t + 1] * carry if t + 1 < b.shape[1] else carry)
        g[:, t] = carry
    previous = np.concatenate([h0[:, None], scan(a, b, h0)[:, :-1]], axis=1)
    return {{"a": g * previous, "b": g, "h0": a[:, 0] * g[:, 0]}}

@scancheck.backend("scan", variant="loop", framework="numpy", backward=backward,
                   constraints={{"h0": True, "max_length": 64}})
def loop(a, b, h0):
    return scan(a, b, h0)

def test_an_ordinary_test():
    assert loop.name == "scan/loop@fp32"
"""


def write_user_tests(pytester, drop_dh_last):
    return pytester.makepyfile(test_scan_kernels=USER_TESTS.format(drop=drop_dh_last))


def test_without_the_option_backends_are_collected_and_skipped(pytester):
    write_user_tests(pytester, drop_dh_last=False)
    result = pytester.runpytest("-rs")
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(["*pass --scancheck to fuzz it*"])


def test_a_correct_kernel_passes(pytester):
    write_user_tests(pytester, drop_dh_last=False)
    result = pytester.runpytest("--scancheck", "--scancheck-cases", "25", "-v")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*test_scan_kernels.py::loop?scan/loop@fp32? PASSED*"])


def test_a_dropped_dh_last_fails_with_the_shrunk_case_and_a_repro_that_replays_it(pytester):
    write_user_tests(pytester, drop_dh_last=True)
    findings = pytester.path / "found"
    result = pytester.runpytest(
        "--scancheck", "--scancheck-cases", "40", "--scancheck-findings", str(findings), "--junitxml", "junit.xml"
    )
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "FAIL mykernels:scan/loop@fp32 after * cases, shrunk in * steps to --arch scan *",
            "*where: only where dh_last matters*",
            "*repro: * check --worker *",
        ]
    )
    assert "<failure" in (pytester.path / "junit.xml").read_text()
    repro = next(line.split("repro: ", 1)[1] for line in result.outlines if "repro: " in line)
    command = shlex.split(repro)
    assert command[:2] == ["scancheck", "check"]
    replay = subprocess.run(
        [scancheck.executable(), *command[1:]], capture_output=True, text=True, check=False, cwd=pytester.path
    )
    assert replay.returncode == 1, replay.stdout + replay.stderr
    assert "FAIL" in replay.stdout


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--scancheck-regimes", "tepid", "unknown regime"),
        ("--scancheck-time", "soon", "soon"),
    ],
)
def test_bad_options_fail_with_one_message(pytester, option, value, message):
    write_user_tests(pytester, drop_dh_last=False)
    result = pytester.runpytest("--scancheck", option, value)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines([f"*{message}*"])


def test_the_fixture_fuzzes_from_a_users_own_test(pytester):
    write_user_tests(pytester, drop_dh_last=True)
    pytester.makepyfile(
        test_own="""
        from test_scan_kernels import loop

        def test_loop_is_caught(scancheck_fuzz):
            result = scancheck_fuzz(loop, cases=40, findings="own-findings")
            assert not result.passed
            assert result.failures[0].backend == "mykernels:scan/loop@fp32"
            assert result.failures[0].repro
    """
    )
    result = pytester.runpytest("test_own.py")
    result.assert_outcomes(passed=1)  # the imported backend is not collected a second time
