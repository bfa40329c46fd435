"""The array frameworks a kernel can be written in, behind one small interface.

Each framework turns numpy arrays into its own (on the GPU when there is one), calls the kernel, and gives
the gradients: autograd for PyTorch (Triton kernels wrapped in torch.autograd.Function included), jax.vjp for
JAX, an explicit backward function for numpy. The frameworks are imported only when a backend uses them.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

FrameworkName = Literal["numpy", "torch", "jax"]
FRAMEWORKS: tuple[FrameworkName, ...] = ("numpy", "torch", "jax")


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

    def __init__(self) -> None:
        import jax

        self.jax: Any = jax  # JAX's own annotations are partial; the calls below are checked by the tests
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
        timings = Timings(forward_ms=self._gpu_ms(start))
        self._forget_compilations()
        return outputs, timings

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
        timings = Timings(forward_ms, self._gpu_ms(start))
        self._forget_compilations()
        return outputs, gradients, timings

    def _forget_compilations(self) -> None:
        """Drops JAX's caches of compiled code after each run. A worker sees a new shape almost every case, so
        they are rarely hit again, and kept they grew a fuzzing worker by about 180 MiB a case (RecurrentGemma's
        layer, 16 GB after an hour); cleared, by a third of that, and no slower."""
        self.jax.clear_caches()

    def _gpu_ms(self, start: float) -> float | None:
        """Wall time of a blocked-on call, reported only on a GPU (on the CPU it is not a device time)."""
        return (time.perf_counter() - start) * 1e3 if self.device() == "gpu" else None


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
