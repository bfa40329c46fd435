"""What the scancheck library costs a run beyond the kernel itself, and the Triton interpreter's fuzz rate.

    SCANCHECK=build/default/cli/scancheck python python/benchmarks/library_overhead.py [--repeats 20]

For each shape, the same case directory is run two ways in one process: `Backend.run` (read case.json and
the .npy inputs, convert to the kernel's layout and framework, call the kernel and its autograd backward,
convert back, write the outputs) against the kernel's own forward and backward on tensors already in
place. The ratio (library time - kernel time) / kernel time is the overhead a user pays per run, at
(1, 64, 16) and at a seed shape's size (1, 8192, 2560); the kernel is a vectorised closed-form scan in
PyTorch, fast enough that the library's share shows. The last line is `scancheck fuzz`'s rate on the
Triton chunked scan of python/tests under the interpreter.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

import scancheck

HERE = Path(__file__).resolve().parent


def closed_form_scan(a, b, h0):
    """h_t = a_t h_{t-1} + b_t for decays in (0, 1], vectorised in log space (a fast stand-in kernel)."""
    log_p = torch.cumsum(torch.log(a), dim=1)
    p = torch.exp(log_p)
    return p * (h0[:, None] + torch.cumsum(b / p, dim=1))


@scancheck.backend("scan", variant="closed_form", constraints={"resets": False})
def closed_form(a, b, h0):
    return closed_form_scan(a, b, h0)


def make_case(exe: str, out: Path, batch: int, length: int, width: int) -> Path:
    options = f"--arch scan --batch {batch} --length {length} --width {width} --seed 7 --regime long_memory"
    subprocess.run([exe, "make-case", *options.split(), "--out", str(out)], check=True, capture_output=True)
    return out


def kernel_alone(case: Path) -> float:
    """Seconds of the kernel's forward and autograd backward on tensors already in place."""
    import numpy as np

    t = {n: torch.from_numpy(np.load(case / f"{n}.npy")) for n in ("a", "b", "h0", "dh", "dh_last")}
    leaves = [t[n].clone().requires_grad_(True) for n in ("a", "b", "h0")]
    start = time.perf_counter()
    h = closed_form_scan(*leaves)
    torch.autograd.grad([h, h[:, -1]], leaves, grad_outputs=[t["dh"], t["dh_last"]])
    return time.perf_counter() - start


def library_run(case: Path, out: Path) -> float:
    start = time.perf_counter()
    closed_form.run(case, out)
    return time.perf_counter() - start


def overhead(exe: str, shape: tuple[int, int, int], repeats: int) -> None:
    with tempfile.TemporaryDirectory(dir="/dev/shm" if Path("/dev/shm").is_dir() else None) as tmp:
        case = make_case(exe, Path(tmp) / "case", *shape)
        out = Path(tmp) / "out"
        out.mkdir()
        library_run(case, out)  # warm-up: imports, allocator
        alone = statistics.median(kernel_alone(case) for _ in range(repeats))
        whole = statistics.median(library_run(case, out) for _ in range(repeats))
    print(
        f"library overhead at (B, L, W) = {shape}: {1e3 * (whole - alone):.3f} ms per run, "
        f"{(whole - alone) / alone:.2f}x the kernel's own {1e3 * alone:.3f} ms (median of {repeats})"
    )


def interpreter_rate(exe: str, cases: int) -> None:
    target = HERE.parent / "tests" / "test_triton_kernels.py"
    start = time.perf_counter()
    result = scancheck.fuzz(
        target,
        "tritonscan:scan/triton_chunk16@fp32",
        cases=cases,
        only=["scan/triton_chunk16@fp32"],
        findings=tempfile.mkdtemp(),
    )
    elapsed = time.perf_counter() - start
    print(
        f"Triton interpreter fuzz: {result.cases} cases in {elapsed:.1f} s, {result.cases / elapsed:.2f} cases/s "
        f"({'pass' if result.passed else 'FAIL'})"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--interpreter-cases", type=int, default=20)
    args = parser.parse_args()
    torch.set_num_threads(1)
    exe = scancheck.executable()
    overhead(exe, (1, 64, 16), args.repeats)
    overhead(exe, (1, 8192, 2560), max(3, args.repeats // 5))
    interpreter_rate(exe, args.interpreter_cases)
    return 0


if __name__ == "__main__":
    sys.exit(main())
