"""Fuzzing declared backends with the `scancheck` executable, from Python.

    >>> result = scancheck.fuzz("tests/test_scan_kernels.py", cases=200)    # doctest: +SKIP
    >>> result.passed, result.cases
    (True, 200)

The executable is `$SCANCHECK` when set, else the one installed with this package (`pip install .` at the
repository root builds it), else `scancheck` on PATH. It runs the exact reference, draws and
shrinks the cases, and starts this library's worker (`python -m scancheck.worker FILE`) for the kernels.
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

REGIMES = ("default", "long_memory", "resets", "extreme", "clip")


class ScancheckNotFound(RuntimeError):
    """No scancheck executable: not in $SCANCHECK, not installed with this package, not on PATH."""


def executable() -> str:
    """The scancheck executable: `$SCANCHECK`; else the one installed with this package; else on PATH.

    `pip install .` at the repository root builds the executable and installs it into the environment's
    scripts folder (bin/ beside its python), where it is found even when that folder is not on PATH (a
    virtual environment run without activating it); `pip install ./python` installs the package alone.

        >>> scancheck.executable()    # doctest: +SKIP
        '/home/me/venv/bin/scancheck'
    """
    explicit = os.environ.get("SCANCHECK")
    if explicit:
        if not (Path(explicit).is_file() and os.access(explicit, os.X_OK)):
            raise ScancheckNotFound(f"SCANCHECK={explicit} is not an executable file")
        return explicit
    found = installed_executable() or shutil.which("scancheck")
    if found is None:
        raise ScancheckNotFound(
            "no scancheck executable: set SCANCHECK=/path/to/scancheck or put it on PATH "
            "(build it with `cmake --preset default && cmake --build build/default`, "
            "or `pip install .` at the repository root, which builds and installs it)"
        )
    return found


def installed_executable() -> str | None:
    """The executable the `scancheck` distribution of this environment installed, or None.

    Read from the distribution's RECORD, so it is found wherever the install scheme put the scripts
    (a virtual environment, `--user`, `--prefix`), and only when a root `pip install .` or the binary wheel
    put it there.
    """
    try:
        dist = importlib.metadata.distribution("scancheck")
    except importlib.metadata.PackageNotFoundError:
        return None
    name = "scancheck.exe" if os.name == "nt" else "scancheck"
    # The binary wheel (ci/build-wheel.sh, auditwheel) keeps the executable in platlib's scancheck.scripts/,
    # beside the libraries it vendors, and leaves in the scripts folder a Python shim that looks for it in the
    # interpreter's default platlib: the executable itself comes first, found where this install put it.
    for folders in (("scancheck.scripts",), ("bin", "Scripts")):
        for record in dist.files or ():
            if record.name == name and record.parent.name in folders:
                path = Path(os.path.normpath(str(dist.locate_file(record))))
                if path.is_file() and os.access(path, os.X_OK):
                    return str(path)
    return None


def worker_command(target: str | Path, only: Sequence[str] = (), provider: str | None = None) -> str:
    """The `--worker` command line that serves `target`'s backends with this Python."""
    words = [sys.executable, "-m", "scancheck.worker", str(target)]
    for name in only:
        words += ["--only", name]
    if provider:
        words += ["--provider", provider]
    return shlex.join(words)


@dataclass(frozen=True)
class Failure:
    """One shrunk failure: the backend, the minimal case, why it failed, and the commands that replay it."""

    backend: str
    summary: str  # "after N cases, shrunk in S steps to --arch ..."
    details: tuple[str, ...]  # the error lines and the diagnosis ("where: ...")
    repro: tuple[str, ...]

    def __str__(self) -> str:
        lines = [f"FAIL {self.backend} {self.summary}", *(f"  {d}" for d in self.details)]
        return "\n".join(lines + [f"  repro: {r}" for r in self.repro])


@dataclass(frozen=True)
class FailureRate:
    """How often a backend failed with `keep_going`: `failed` of the `judged` cases it ran on."""

    backend: str
    failed: int
    judged: int


@dataclass(frozen=True)
class FuzzResult:
    """What one `scancheck fuzz` run found."""

    returncode: int
    cases: int
    failures: tuple[Failure, ...]
    output: str = field(repr=False)
    rates: tuple[FailureRate, ...] = ()  # with keep_going: every backend's

    @property
    def passed(self) -> bool:
        return self.returncode == 0


def fuzz(
    target: str | Path,
    backends: str = "*",
    *,
    cases: int | None = None,
    time: str | None = None,
    seed: int = 1,
    regimes: Sequence[str] = (),
    findings: str | Path = "findings",
    only: Sequence[str] = (),
    provider: str | None = None,
    timeout: float | None = None,
    keep_going: bool = False,
    extra_args: Sequence[str] = (),
) -> FuzzResult:
    """Fuzzes the backends `target` (a file or module) declares, matched by `backends` (a glob over names).

    `cases` is per group of backends with one architecture, io dtype and constraints: every backend is
    judged on that many. `keep_going` judges a failing backend on every case (its first failure is shrunk,
    the others counted) and fills `rates`.

    Raises ValueError on bad input (scancheck's exit code 2), with scancheck's one-line message.
    """
    unknown = [r for r in regimes if r not in REGIMES]
    if unknown:
        raise ValueError(f"unknown regime(s) {unknown} (known: {', '.join(REGIMES)})")
    command = [
        executable(),
        "fuzz",
        "--worker",
        worker_command(target, only, provider),
        "--backends",
        backends,
        "--seed",
        str(seed),
        "--findings",
        str(findings),
    ]
    if cases is not None:
        command += ["--cases", str(cases)]
    if time is not None:
        command += ["--time", time]
    if regimes:
        command += ["--regimes", *regimes]
    if timeout is not None:
        command += ["--timeout", str(timeout)]
    if keep_going:
        command.append("--keep-going")
    command += list(extra_args)
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    output = done.stdout + done.stderr
    if done.returncode == 2:
        raise ValueError(_last_line(done.stderr) or _last_line(done.stdout) or "scancheck fuzz: bad input")
    return FuzzResult(done.returncode, _cases(done.stdout), _failures(done.stdout), output, _rates(done.stdout))


def _last_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def _cases(stdout: str) -> int:
    m = re.search(r"^fuzz: (\d+) cases", stdout, re.MULTILINE)
    return int(m.group(1)) if m else 0


def _rates(stdout: str) -> tuple[FailureRate, ...]:
    """The keep-going lines: "fuzz: BACKEND failed K of N cases (P%)"."""
    found = re.findall(r"^fuzz: (\S+) failed (\d+) of (\d+) cases", stdout, re.MULTILINE)
    return tuple(FailureRate(backend, int(failed), int(judged)) for backend, failed, judged in found)


def _failures(stdout: str) -> tuple[Failure, ...]:
    """The FAIL blocks of fuzz's output: a FAIL line, then its indented details and repro lines."""
    failures: list[Failure] = []
    for block in re.split(r"^(?=FAIL )", stdout, flags=re.MULTILINE)[1:]:
        head, *rest = block.rstrip("\n").splitlines()
        m = re.match(r"FAIL (\S+) (.*)", head)
        if m is None:
            continue
        indented = [line.strip() for line in rest if line.startswith("  ")]
        repro = tuple(line.removeprefix("repro: ") for line in indented if line.startswith("repro: "))
        details = tuple(line for line in indented if not line.startswith("repro: "))
        failures.append(Failure(m.group(1), m.group(2), details, repro))
    return tuple(failures)
