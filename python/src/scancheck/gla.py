"""Gated linear attention kernels (fla's `gla`, `simple_gla`) judged against scancheck's exact reference.

A problem is docs/recurrences.md section 7's in fla's [B, T, H, D] layout (`head_first=True` runs a kernel that
takes [B, H, T, D]), with float32 or bfloat16 io; a PyTorch kernel runs on it forward and, through autograd,
backward; `scancheck gla verify` judges the outputs (the bound for the problem's io, the float32 recurrent
order as baseline, and the error distribution of the correct float32 orders):

    >>> from scancheck import gla
    >>> from fla.ops.gla import fused_recurrent_gla                                  # doctest: +SKIP
    >>> problem = gla.draw("gla", batch=1, length=64, heads=2, keys=16, values=16, seed=1)
    >>> gla.verify(problem, gla.run_torch(fused_recurrent_gla, problem)).passed       # doctest: +SKIP
    True

The matrix-state family is not yet in the registry: it has no worker protocol, fuzzing or shrinking, and
these functions are its door until it does.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from scancheck.checking import executable

ARCHITECTURES = ("gla", "simple_gla")
IO_DTYPES = ("float32", "bfloat16")
REGIMES = ("default", "long_memory", "extreme")
OUTPUTS = ("o", "ht", "dq", "dk", "dv", "dg", "dh0")


@dataclass(frozen=True)
class Problem:
    """Inputs and cotangents of one problem, float32 arrays in fla's layout (g: [B, T, H, K] for gla,
    [B, T, H] for simple_gla); h0 and dht [N, H, K, V] or None; cu_seqlens [N + 1] or None (then B = 1).
    With `io_dtype` "bfloat16", q, k, v, g and do hold bfloat16 values (h0 and dht stay float32, as fla keeps
    states), and kernels run on them in bfloat16."""

    architecture: str
    q: np.ndarray
    k: np.ndarray
    v: np.ndarray
    g: np.ndarray
    do: np.ndarray
    h0: np.ndarray | None = None
    dht: np.ndarray | None = None
    cu_seqlens: np.ndarray | None = None
    scale: float | None = None
    regime: str = "default"
    seed: int = 0
    io_dtype: str = "float32"


def draw(
    architecture: str,
    *,
    batch: int,
    length: int,
    heads: int,
    keys: int,
    values: int,
    seed: int,
    regime: str = "default",
    states: bool = True,
    cu_seqlens: list[int] | None = None,
    scale: float | None = None,
    io_dtype: str = "float32",
) -> Problem:
    """A problem drawn from `seed`: normal q, k, v, do (over eight decades in the extreme regime); log gates
    log sigmoid of a normal (default), within 1e-5 to 1e-2 of zero (long_memory), or with exact zeros and
    decays down to e^-60 among them (extreme). With `cu_seqlens`, `batch` must be 1. With `io_dtype`
    "bfloat16", q, k, v, g and do are rounded to bfloat16 values.

        >>> p = draw("simple_gla", batch=1, length=9, heads=2, keys=4, values=3, seed=7)
        >>> p.g.shape, p.h0.shape
        ((1, 9, 2), (1, 2, 4, 3))
    """
    if architecture not in ARCHITECTURES:
        raise ValueError(f"architecture must be one of {ARCHITECTURES}, got {architecture!r}")
    if regime not in REGIMES:
        raise ValueError(f"regime must be one of {REGIMES}, got {regime!r}")
    if io_dtype not in IO_DTYPES:
        raise ValueError(f"io_dtype must be one of {IO_DTYPES}, got {io_dtype!r}")
    rng = np.random.default_rng(seed)

    def activations(*shape: int) -> np.ndarray:
        x = rng.normal(size=shape)
        if regime == "extreme":
            x *= 10.0 ** rng.uniform(-4.0, 4.0, shape)
        return x.astype(np.float32)

    def io(x: np.ndarray) -> np.ndarray:
        return round_to_bfloat16(x) if io_dtype == "bfloat16" else x.astype(np.float32)

    gate_shape = (batch, length, heads, keys) if architecture == "gla" else (batch, length, heads)
    if regime == "long_memory":
        gates = -np.exp(rng.uniform(np.log(1e-5), np.log(1e-2), gate_shape))
    else:
        gates = -np.logaddexp(0.0, -rng.normal(size=gate_shape))
        if regime == "extreme":
            pick = rng.uniform(size=gate_shape)
            gates = np.where(pick < 0.2, 0.0, np.where(pick < 0.4, rng.uniform(-60.0, -20.0, gate_shape), gates))
    sequences = len(cu_seqlens) - 1 if cu_seqlens else batch
    return Problem(
        architecture=architecture,
        q=io(activations(batch, length, heads, keys)),
        k=io(activations(batch, length, heads, keys)),
        v=io(activations(batch, length, heads, values)),
        g=io(gates),
        do=io(activations(batch, length, heads, values)),
        h0=activations(sequences, heads, keys, values) if states else None,
        dht=activations(sequences, heads, keys, values) if states else None,
        cu_seqlens=np.asarray(cu_seqlens, dtype=np.int32) if cu_seqlens else None,
        scale=scale,
        regime=regime,
        seed=seed,
        io_dtype=io_dtype,
    )


def round_to_bfloat16(x: np.ndarray) -> np.ndarray:
    """float32 values rounded to the nearest bfloat16 (ties to even), as float32 arrays.

    >>> round_to_bfloat16(np.array([1.0 + 2**-8, 1.0 + 3 * 2**-8], np.float32)).tolist()
    [1.0, 1.015625]
    """
    bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return rounded.astype(np.uint32).view(np.float32)


def run_torch(
    kernel: Callable[..., Any], problem: Problem, *, final_state: bool = True, head_first: bool = False
) -> dict[str, np.ndarray]:
    """o (and ht) of `kernel(q, k, v, g, scale=, initial_state=, output_final_state=, cu_seqlens=)` on the CPU
    in the problem's io dtype (h0 in float32), and the gradients of sum(o do) + sum(ht dht) by autograd, as
    float32 arrays in fla's layout. `final_state=False` for a kernel with none (fla's parallel_simple_gla): it
    is called as kernel(q, k, v, g, scale=) and gives o, dq, dk, dv, dg. `head_first=True` for a kernel that
    takes and returns [B, H, T, D] (g [B, H, T] for simple_gla): the arrays are transposed at the call.
    """
    import torch

    dtype = torch.bfloat16 if problem.io_dtype == "bfloat16" else torch.float32

    def layout(x: Any) -> Any:  # [B, T, H, ...] <-> [B, H, T, ...], its own inverse
        return x.transpose(1, 2) if head_first else x

    leaves = {n: torch.tensor(getattr(problem, n)).to(dtype).requires_grad_() for n in ("q", "k", "v", "g")}
    do = torch.tensor(problem.do).to(dtype)
    if not final_state:
        o = layout(kernel(*map(layout, leaves.values()), scale=problem.scale)[0])
        (o.float() * do.float()).sum().backward()
        return {"o": _array(o)} | {f"d{n}": _gradient(leaf) for n, leaf in leaves.items()}
    h0 = None if problem.h0 is None else torch.tensor(problem.h0, requires_grad=True)
    offsets = None if problem.cu_seqlens is None else torch.tensor(problem.cu_seqlens, dtype=torch.long)
    o, ht = kernel(
        *map(layout, leaves.values()),
        scale=problem.scale,
        initial_state=h0,
        output_final_state=True,
        cu_seqlens=offsets,
    )
    o = layout(o)
    loss = (o.float() * do.float()).sum()
    if problem.dht is not None:
        loss = loss + (ht.float() * torch.tensor(problem.dht)).sum()
    loss.backward()
    outputs = {"o": _array(o), "ht": _array(ht)}
    outputs |= {f"d{n}": _gradient(leaf) for n, leaf in leaves.items()}
    if h0 is not None:
        outputs["dh0"] = _gradient(h0)
    return outputs


def _array(x: Any) -> np.ndarray:
    """A tensor's values as float32 (bfloat16 values are exact in it)."""
    values: np.ndarray = x.detach().float().numpy()
    return values


def _gradient(leaf: Any) -> np.ndarray:
    """A leaf's gradient as float32; zeros where the loss does not reach it (autograd leaves None)."""
    return np.zeros(leaf.shape, np.float32) if leaf.grad is None else _array(leaf.grad)


def write(problem: Problem, folder: str | Path) -> Path:
    """The problem as a directory `scancheck gla` reads: the arrays as .npy and case.json."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("q", "k", "v", "g", "do", "h0", "dht", "cu_seqlens"):
        array = getattr(problem, name)
        if array is not None:
            np.save(folder / f"{name}.npy", np.ascontiguousarray(array))
    meta = {
        "architecture": problem.architecture,
        "scale": problem.scale,
        "io_dtype": problem.io_dtype,
        "regime": problem.regime,
        "seed": problem.seed,
    }
    (folder / "case.json").write_text(json.dumps(meta) + "\n")
    return folder


@dataclass(frozen=True)
class Verdict:
    """`scancheck gla verify`'s verdict and its table (one row per judged output, a reason per failed rule)."""

    passed: bool
    report: str


def verify(problem: Problem, outputs: Mapping[str, np.ndarray]) -> Verdict:
    """Judges `outputs` (any of o, ht, dq, dk, dv, dg, dh0) against the exact reference of `problem`.

    Raises ValueError with scancheck's one-line message on bad input (a misshapen array, an unknown name).
    """
    unknown = set(outputs) - set(OUTPUTS)
    if unknown:
        raise ValueError(f"not outputs of gla: {sorted(unknown)} (expected some of {OUTPUTS})")
    with tempfile.TemporaryDirectory(prefix="scancheck-gla-") as tmp:
        case, candidate = write(problem, Path(tmp) / "case"), Path(tmp) / "candidate"
        candidate.mkdir()
        for name, array in outputs.items():
            np.save(candidate / f"{name}.npy", np.ascontiguousarray(array, dtype=np.float32))
        command = [executable(), "gla", "verify", "--case", str(case), "--candidate", str(candidate)]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1):
        raise ValueError(done.stderr.strip() or f"scancheck gla verify exited {done.returncode}")
    return Verdict(passed=done.returncode == 0, report=done.stdout)
