"""The array frameworks a kernel can be written in, behind one small interface.

Each framework turns numpy arrays into its own (on the GPU when there is one), calls the kernel, and gives
the gradients: autograd for PyTorch (Triton kernels wrapped in torch.autograd.Function included), jax.vjp for
JAX, an explicit backward function for numpy. The frameworks are imported only when a backend uses them.
"""

from __future__ import annotations

import functools
import os
import resource
import time
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

FrameworkName = Literal["numpy", "torch", "jax"]
FRAMEWORKS: tuple[FrameworkName, ...] = ("numpy", "torch", "jax")
#: The most shapes of one bucketed backend whose compiled code is kept (its set is a few dozen).
COMPILED_SHAPES = 128


@dataclass
class Timings:
    """Milliseconds of the forward and the backward on the device (CUDA events), when there is one."""

    forward_ms: float | None = None
    backward_ms: float | None = None


#: forward(inputs) -> outputs in the kernel's layout; all arrays are the framework's own.
Forward = Callable[[Mapping[str, Any]], tuple[Any, ...]]


class Framework:
    """numpy: arrays as they are; gradients come from the backend's own backward function."""

    name: FrameworkName = "numpy"

    def device(self) -> str:
        return "cpu"

    def asarray(self, x: np.ndarray, bfloat16: bool = False) -> Any:
        """`x` as this framework's array; io tensors of a bfloat16 backend as bfloat16 (their values are exact)."""
        return x

    def to_numpy(self, x: Any) -> np.ndarray:
        return np.asarray(x)

    def last_step(self, h: Any, time_axis: int) -> Any:
        return np.take(h, -1, axis=time_axis)

    def take(self, x: Any, indices: np.ndarray, axis: int) -> Any:
        """The entries `indices` of `axis`, differentiably."""
        return np.take(x, indices, axis=axis)

    def moveaxis(self, x: Any, source: int, destination: int) -> Any:
        return np.moveaxis(x, source, destination)

    def forward(self, forward: Forward, inputs: Mapping[str, Any]) -> tuple[tuple[Any, ...], Timings]:
        return forward(inputs), Timings()

    def vjp(
        self, forward: Forward, inputs: Mapping[str, Any], differentiable: list[str], cotangents: tuple[Any, ...]
    ) -> tuple[tuple[Any, ...], dict[str, Any], Timings]:
        raise AssertionError("unreachable: Backend refuses a numpy backward without backward=")

    def after_run(self, shape: tuple[str, Hashable] | None) -> None:
        """Told after each run (backend, shape) of a bucketed backend (its code worth keeping compiled), or None."""


class Torch(Framework):
    name: FrameworkName = "torch"

    def __init__(self) -> None:
        import torch

        self.torch = torch
        self._device = "cuda" if torch.cuda.is_available() else "cpu"

    def device(self) -> str:
        return self._device

    def asarray(self, x: np.ndarray, bfloat16: bool = False) -> Any:
        t = self.torch.from_numpy(np.ascontiguousarray(x)).to(self._device)
        return t.to(self.torch.bfloat16) if bfloat16 else t

    def to_numpy(self, x: Any) -> np.ndarray:
        x = x.detach()
        if x.dtype == self.torch.bfloat16:
            x = x.float()
        return x.cpu().numpy()  # type: ignore[no-any-return]

    def last_step(self, h: Any, time_axis: int) -> Any:
        return h.select(time_axis, -1)

    def take(self, x: Any, indices: np.ndarray, axis: int) -> Any:
        return x.index_select(axis, self.torch.as_tensor(indices, device=x.device))

    def moveaxis(self, x: Any, source: int, destination: int) -> Any:
        return x.movedim(source, destination)

    def after_run(self, shape: tuple[str, Hashable] | None) -> None:
        """torch.compile keeps its compiled code itself, but past its recompile limit (8) it runs the function
        uncompiled without a word: for a bucketed backend the limit is raised to COMPILED_SHAPES, so that every
        shape of the set runs compiled, as the kernel's users run it."""
        if shape is None:
            return
        import torch._dynamo  # not imported with torch itself

        config: Any = torch._dynamo.config  # its attributes are set at run time: no stubs
        config.recompile_limit = max(config.recompile_limit, COMPILED_SHAPES)

    def _timed(self, call: Callable[[], Any]) -> tuple[Any, float | None]:
        if self._device != "cuda":
            return call(), None
        start, end = (self.torch.cuda.Event(enable_timing=True) for _ in range(2))  # type: ignore[no-untyped-call,unused-ignore]
        start.record()
        result = call()
        end.record()
        end.synchronize()
        return result, float(start.elapsed_time(end))

    def forward(self, forward: Forward, inputs: Mapping[str, Any]) -> tuple[tuple[Any, ...], Timings]:
        with self.torch.no_grad():
            outputs, ms = self._timed(lambda: forward(inputs))
        return outputs, Timings(forward_ms=ms)

    def vjp(
        self, forward: Forward, inputs: Mapping[str, Any], differentiable: list[str], cotangents: tuple[Any, ...]
    ) -> tuple[tuple[Any, ...], dict[str, Any], Timings]:
        leaves = {k: (v.clone().requires_grad_(True) if k in differentiable else v) for k, v in inputs.items()}
        outputs, forward_ms = self._timed(lambda: forward(leaves))
        # An output cut from the graph (detached) passes no cotangent back: what the kernel does, not an error.
        pairs = [(o, c) for o, c in zip(outputs, cotangents, strict=True) if c is not None and o.requires_grad]
        wrt = [leaves[k] for k in differentiable]
        grads, backward_ms = self._timed(
            lambda: (
                self.torch.autograd.grad(
                    [o for o, _ in pairs], wrt, grad_outputs=[c.to(o.dtype) for o, c in pairs], allow_unused=True
                )
                if pairs
                else [None] * len(wrt)
            )
        )
        gradients = {
            k: (g if g is not None else self.torch.zeros_like(leaves[k]))
            for k, g in zip(differentiable, grads, strict=True)
        }
        return tuple(o.detach() for o in outputs), gradients, Timings(forward_ms, backward_ms)


class Jax(Framework):
    name: FrameworkName = "jax"
    compiled_shapes = COMPILED_SHAPES

    def __init__(self) -> None:
        import jax

        self.jax: Any = jax  # JAX's own annotations are partial; the calls below are checked by the tests
        #: The resident memory past which compiled code is dropped: SCANCHECK_COMPILED_MIB, by default a quarter
        #: of the machine's memory and at least 4 GiB (RecurrentGemma's jitted layer holds 25 to 80 MiB a shape).
        self.compiled_mib = float(os.environ.get("SCANCHECK_COMPILED_MIB", max(4096, _physical_mib() / 4)))
        self._kept: dict[str, set[Hashable]] = {}
        if self.device() == "cpu":
            _interpret_pallas()

    def device(self) -> str:
        return str(self.jax.devices()[0].platform)

    def asarray(self, x: np.ndarray, bfloat16: bool = False) -> Any:
        return self.jax.numpy.asarray(x, dtype=self.jax.numpy.bfloat16 if bfloat16 else None)

    def last_step(self, h: Any, time_axis: int) -> Any:
        return self.jax.numpy.take(h, -1, axis=time_axis)

    def take(self, x: Any, indices: np.ndarray, axis: int) -> Any:
        return self.jax.numpy.take(x, indices, axis=axis)

    def moveaxis(self, x: Any, source: int, destination: int) -> Any:
        return self.jax.numpy.moveaxis(x, source, destination)

    def forward(self, forward: Forward, inputs: Mapping[str, Any]) -> tuple[tuple[Any, ...], Timings]:
        start = time.perf_counter()
        outputs = self.jax.block_until_ready(forward(inputs))
        return outputs, Timings(forward_ms=self._gpu_ms(start))

    def vjp(
        self, forward: Forward, inputs: Mapping[str, Any], differentiable: list[str], cotangents: tuple[Any, ...]
    ) -> tuple[tuple[Any, ...], dict[str, Any], Timings]:
        fixed = {k: v for k, v in inputs.items() if k not in differentiable}

        def of_differentiable(*values: Any) -> tuple[Any, ...]:
            return forward({**fixed, **dict(zip(differentiable, values, strict=True))})

        start = time.perf_counter()
        outputs, pullback = self.jax.vjp(of_differentiable, *(inputs[k] for k in differentiable))
        outputs = self.jax.block_until_ready(outputs)
        forward_ms = self._gpu_ms(start)
        # JAX's cotangent of a complex value is the conjugate of PyTorch's (the spec's convention).
        ct = tuple(
            self.jax.numpy.zeros_like(o) if c is None else c.astype(o.dtype).conj()
            for o, c in zip(outputs, cotangents, strict=True)
        )
        start = time.perf_counter()
        grads = self.jax.block_until_ready(pullback(ct))
        gradients = {k: g.conj() for k, g in zip(differentiable, grads, strict=True)}
        return outputs, gradients, Timings(forward_ms, self._gpu_ms(start))

    def after_run(self, shape: tuple[str, Hashable] | None) -> None:
        """Keeps JAX's compiled code for the shapes of bucketed backends (backend, shape), within
        `compiled_shapes` shapes of any one backend and `compiled_mib` of resident memory, and drops all of it
        past either bound or after a run of any other backend. Such a run is nearly always a new shape, so its
        code would never be hit again, and kept it grew a fuzzing worker by about 180 MiB a case
        (RecurrentGemma's layer, 16 GB after an hour)."""
        if shape is not None:
            backend, signature = shape
            kept = self._kept.setdefault(backend, set())
            kept.add(signature)
            if len(kept) <= self.compiled_shapes and _resident_mib() <= self.compiled_mib:
                return
        self.jax.clear_caches()
        self._kept.clear()

    def _gpu_ms(self, start: float) -> float | None:
        """Wall time of a blocked-on call, reported only on a GPU (on the CPU it is not a device time)."""
        return (time.perf_counter() - start) * 1e3 if self.device() == "gpu" else None


def _physical_mib() -> float:
    return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") / 2**20


def _resident_mib() -> float:
    """This process's resident memory now (Linux), or its peak where /proc is not there."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _interpret_pallas() -> None:
    """pallas_call has no CPU lowering: on the CPU every Pallas kernel runs as with interpret=True (a kernel
    that passes interpret= itself is unchanged). Where JAX has no such switch, kernels must pass it."""
    try:
        from jax.experimental.pallas import tpu as pltpu

        pltpu.set_tpu_interpret_mode()  # out-of-bounds reads raise
    except (ImportError, AttributeError):
        pass


@functools.cache
def framework(name: FrameworkName) -> Framework:
    """The framework `name`, imported on first use."""
    if name not in FRAMEWORKS:
        raise ValueError(f"unknown framework '{name}' (known: {', '.join(FRAMEWORKS)})")
    return {"numpy": Framework, "torch": Torch, "jax": Jax}[name]()
