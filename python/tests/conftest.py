"""Shared fixtures: the scancheck executable under test and case directories it generates."""

import subprocess
from pathlib import Path

import pytest

import scancheck

KERNELS = Path(__file__).parent / "kernels"


@pytest.fixture(scope="session")
def scancheck_exe() -> str:
    """The executable under test ($SCANCHECK, else on PATH); the tests that need it fail without it."""
    return scancheck.executable()


@pytest.fixture
def make_case(scancheck_exe, tmp_path):
    """make_case(arch, batch, length, width, heads=1, seed=1, **flags) -> a case directory from scancheck."""

    def make(arch, batch, length, width, heads=1, seed=1, io_dtype="float32", no_h0=False, no_dh_last=False):
        out = tmp_path / f"case-{arch}-{batch}-{length}-{width}-{seed}"
        options = f"--arch {arch} --batch {batch} --length {length} --width {width} --heads {heads} --seed {seed}"
        command = [scancheck_exe, "make-case", *options.split(), "--io-dtype", io_dtype, "--out", str(out)]
        command += ["--no-h0"] * no_h0 + ["--no-dh-last"] * no_dh_last
        subprocess.run(command, check=True, capture_output=True)
        return out

    return make
