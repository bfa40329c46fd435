"""What bucketed shapes save a JAX kernel compiled per shape: cases per second and the worker's peak memory.

    SCANCHECK=build/cli/cli/scancheck python python/benchmarks/compiled_shape_reuse.py [--cases 300] [--only NAME]

Each JAX kernel is fuzzed twice in one run, `--cases` cases each with the same seed: as a backend of the shape
plan "any" (a new shape nearly every case, compiled code dropped after every run: the behaviour before bucketing)
and as a bucketed one (shapes from the fixed set, compiled code kept within the framework's bound). The kernels:
the JAX associative scan of python/tests/test_jax_kernels.py (a jitted `jax.lax.associative_scan`), and
RecurrentGemma's JAX RG-LRU layer (python/clients/recurrentgemma_jax.py, its associative and linear scans, the
layer under jax.jit) in the default regime, where the package's q = 1 - exp(2 log a) (docs/public-kernels.md,
A) fails rarely, so little time goes to shrinking (runs go on past a failure: --keep-going). Peak memory is the
largest process's peak resident size in the fuzzing tree (getrusage of the waited scancheck: the worker's).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Kernel:
    """One kernel declared both ways: the worker file and its arguments, and the backend's name in each plan."""

    name: str
    worker: str
    any_plan: tuple[str, str]  # (worker arguments, backend)
    bucketed: tuple[str, str]
    regimes: str = ""


KERNELS = (
    Kernel(
        "jax associative scan",
        "python/tests/test_jax_kernels.py",
        ("", "jaxscans:scan/associative_scan@fp32"),
        ("", "jaxscans:scan/associative_scan_bucketed@fp32"),
    ),
    Kernel(
        "RecurrentGemma JAX layer, associative",
        "python/clients/recurrentgemma_jax.py",
        ("-- --shapes=any", "recurrentgemma_jax:rglru/associative@fp32"),
        ("", "recurrentgemma_jax:rglru/associative@fp32"),
        regimes="default",
    ),
    Kernel(
        "RecurrentGemma JAX layer, linear",
        "python/clients/recurrentgemma_jax.py",
        ("-- --shapes=any", "recurrentgemma_jax:rglru/linear@fp32"),
        ("", "recurrentgemma_jax:rglru/linear@fp32"),
        regimes="default",
    ),
)


@dataclass
class Measured:
    seconds: float
    peak_mib: float
    returncode: int
    failure_rates: list[str]


def fuzz(scancheck: str, kernel: Kernel, plan: tuple[str, str], cases: int, findings: Path) -> Measured:
    """One `scancheck fuzz` run, timed, with the peak resident size of its largest process."""
    worker = f"{sys.executable} -m scancheck.worker {REPO / kernel.worker} {plan[0]}".strip()
    command = [scancheck, "fuzz", "--worker", worker, "--backends", plan[1], "--cases", str(cases), "--seed", "1"]
    command += ["--keep-going", "--threads", "1", "--timeout", "600", "--findings", str(findings)]
    command += ["--regimes", kernel.regimes] if kernel.regimes else []
    start = time.perf_counter()
    with tempfile.TemporaryFile("w+") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, text=True)
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
        log.seek(0)
        rates = [line.strip() for line in log if line.startswith("fuzz:") and " failed " in line]
    return Measured(seconds, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status), rates)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=300)
    parser.add_argument("--only", help="run only the kernels whose name contains this")
    args = parser.parse_args()
    scancheck = os.environ.get("SCANCHECK", str(REPO / "build/cli/cli/scancheck"))
    print(f"{'kernel':40} {'plan':9} {'cases/s':>8} {'time':>8} {'peak MiB':>9}")
    for kernel in KERNELS:
        if args.only and args.only not in kernel.name:
            continue
        rates = {}
        for label, plan in (("any", kernel.any_plan), ("bucketed", kernel.bucketed)):
            with tempfile.TemporaryDirectory() as findings:
                m = fuzz(scancheck, kernel, plan, args.cases, Path(findings))
            rates[label] = args.cases / m.seconds
            failed = f"  ({'; '.join(m.failure_rates) or f'exit {m.returncode}'})" if m.returncode else ""
            row = f"{kernel.name:40} {label:9} {rates[label]:8.2f} {m.seconds:7.0f}s {m.peak_mib:9.0f}"
            print(row + failed, flush=True)
        print(f"{kernel.name:40} bucketed / any: {rates['bucketed'] / rates['any']:.1f}x cases/s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
