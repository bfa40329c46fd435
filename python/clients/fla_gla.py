"""flash-linear-attention's gated linear attention (`fla.ops.gla`, `fla.ops.simple_gla`, package fla-core)
judged by `scancheck gla verify` on a stream of drawn problems (scancheck.gla): adapters and a loop.

    python python/clients/fla_gla.py --problems 50            # every kernel, 50 problems each
    python python/clients/fla_gla.py --kernels gla/fused_recurrent --problems 2000
    python python/clients/fla_gla.py --io-dtype bfloat16 --problems 100   # bfloat16 inputs, as models run them

Each problem is drawn from its seed: B 1-2, T 1-130, H 1-3, K and V 1-32 (T, K, V across the interpreted
kernels' tiles), a regime of scancheck.gla.REGIMES in turn, every fourth one packed (cu_seqlens, B = 1) for
the kernels that take offsets. Without a GPU the Triton kernels run under Triton's interpreter. `chunk`
(gla, simple_gla) does not run there (Triton 3.6's interpreter: "'int' object has no attribute 'to'",
the same as fla's chunked HGRN): it needs the GPU, and so does `parallel` (simple_gla) with bfloat16 io
(already at B = T = H = K = V = 1: "'InterpreterBuilder' object has no attribute 'get_bf16'", from its
`(b_q * scale).to(b_q.dtype)`). Prints one line per failing problem (its seed and the verify report) and a
summary per kernel; exits 1 when a kernel fails.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from scancheck import gla
from scancheck.protocol import interpret_triton_without_gpu

interpret_triton_without_gpu()  # before fla imports Triton's kernels

import torch  # noqa: E402
from fla.ops.gla import chunk_gla, fused_recurrent_gla  # noqa: E402
from fla.ops.gla.naive import naive_recurrent_gla  # noqa: E402
from fla.ops.simple_gla import chunk_simple_gla, fused_recurrent_simple_gla, parallel_simple_gla  # noqa: E402
from fla.ops.simple_gla.naive import naive_recurrent_simple_gla  # noqa: E402


def _naive_gla(q, k, v, g, scale=None, initial_state=None, output_final_state=True, cu_seqlens=None):
    """fla's float32 naive recurrence, whose scale is always K^-1/2 and which takes no offsets."""
    del scale, cu_seqlens
    return naive_recurrent_gla(q, k, v, g, initial_state=initial_state, output_final_state=output_final_state)


def _naive_simple_gla(q, k, v, g, scale=None, initial_state=None, output_final_state=True, cu_seqlens=None):
    del cu_seqlens
    return naive_recurrent_simple_gla(
        q, k, v, g, scale=scale, initial_state=initial_state, output_final_state=output_final_state
    )


@dataclass(frozen=True)
class Kernel:
    architecture: str
    run: Callable[..., Any]
    final_state: bool = True  #: has initial and final states (parallel_simple_gla has neither)
    packed: bool = True  #: takes cu_seqlens
    scale: bool = True  #: takes a scale (naive_recurrent_gla's is fixed)


KERNELS = {
    "gla/naive": Kernel("gla", _naive_gla, packed=False, scale=False),
    "gla/fused_recurrent": Kernel("gla", fused_recurrent_gla),
    "gla/chunk": Kernel("gla", chunk_gla),
    "simple_gla/naive": Kernel("simple_gla", _naive_simple_gla, packed=False),
    "simple_gla/fused_recurrent": Kernel("simple_gla", fused_recurrent_simple_gla),
    "simple_gla/chunk": Kernel("simple_gla", chunk_simple_gla),
    "simple_gla/parallel": Kernel("simple_gla", parallel_simple_gla, final_state=False, packed=False),
}
NEEDS_GPU = {"gla/chunk", "simple_gla/chunk"}  # Triton's interpreter cannot run them (the docstring)
NEEDS_GPU_IN_BFLOAT16 = {"simple_gla/parallel"}


def draw(kernel: Kernel, seed: int, io_dtype: str = "float32") -> gla.Problem:
    """Problem `seed` of the stream for `kernel`."""
    rng = np.random.default_rng(seed)
    regime = gla.REGIMES[seed % len(gla.REGIMES)]
    length = int(rng.integers(1, 131))
    packed = kernel.packed and seed % 4 == 3 and length > 2
    offsets = None
    if packed:
        cuts = sorted({int(c) for c in rng.integers(1, length, size=int(rng.integers(1, 4)))})
        offsets = [0, *cuts, length]
    scale = float(np.float32(rng.uniform(0.05, 1.0))) if kernel.scale and seed % 3 == 0 else None
    return gla.draw(
        kernel.architecture,
        batch=1 if packed else int(rng.integers(1, 3)),
        length=length,
        heads=int(rng.integers(1, 4)),
        keys=int(rng.integers(1, 33)),
        values=int(rng.integers(1, 33)),
        seed=seed,
        regime=regime,
        states=kernel.final_state,
        cu_seqlens=offsets,
        scale=scale,
        io_dtype=io_dtype,
    )


def worst_row(report: str) -> tuple[float, str]:
    """The largest err/bound of a verify report's table, and its tensor."""
    rows = [line.split() for line in report.splitlines()]
    judged = [(float(row[1]), row[0]) for row in rows if len(row) > 1 and row[0] in gla.OUTPUTS]
    return max(judged, default=(0.0, ""))


def soak(name: str, problems: int, first_seed: int, io_dtype: str) -> bool:
    kernel, failures, start = KERNELS[name], 0, time.monotonic()
    worst = (0.0, "", 0)
    for seed in range(first_seed, first_seed + problems):
        problem = draw(kernel, seed, io_dtype)
        verdict = gla.verify(problem, gla.run_torch(kernel.run, problem, final_state=kernel.final_state))
        ratio, tensor = worst_row(verdict.report)
        worst = max(worst, (ratio, tensor, seed))
        if not verdict.passed:
            failures += 1
            shape = f"B {problem.q.shape[0]} T {problem.q.shape[1]} H {problem.q.shape[2]} K {problem.q.shape[3]}"
            print(f"{name}: problem {seed} ({problem.regime}, {shape} V {problem.v.shape[3]}) fails:\n{verdict.report}")
    elapsed = time.monotonic() - start
    summary = f"{failures} of {problems} problems fail ({elapsed:.0f} s)"
    print(f"{name} ({io_dtype}): {summary}; worst {worst[0]:.3g} bounds ({worst[1]}, problem {worst[2]})", flush=True)
    return failures == 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernels", nargs="*", default=None, help=f"of {sorted(KERNELS)} (default: all that run here)")
    parser.add_argument("--problems", type=int, default=20, help="problems per kernel")
    parser.add_argument("--seed", type=int, default=1, help="the first problem's seed")
    parser.add_argument("--io-dtype", choices=gla.IO_DTYPES, default="float32", help="the problems' io dtype")
    args = parser.parse_args()
    needs_gpu = NEEDS_GPU | (NEEDS_GPU_IN_BFLOAT16 if args.io_dtype == "bfloat16" else set())
    names = args.kernels or [n for n in KERNELS if torch.cuda.is_available() or n not in needs_gpu]
    unknown = [n for n in names if n not in KERNELS]
    if unknown:
        parser.error(f"unknown kernels {unknown}; known: {sorted(KERNELS)}")
    results = [soak(name, args.problems, args.seed, args.io_dtype) for name in names]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
