"""Declaring a kernel as a scancheck backend, and running it on one case directory.

    >>> import numpy as np, scancheck
    >>> @scancheck.backend("scan", variant="numpy_loop", framework="numpy", passes=("forward",))
    ... def numpy_loop(a, b):
    ...     h = np.empty_like(b); state = np.zeros_like(b[:, 0])
    ...     for t in range(b.shape[1]):
    ...         state = a[:, t] * state + b[:, t]; h[:, t] = state
    ...     return h
    >>> numpy_loop.name
    'scan/numpy_loop@fp32'

The kernel function takes the case's inputs by their spec names (a, b, h0 for the scans; x, segment_pos, h0,
a_param, ... for the RG-LRU layers) in its declared conventions, and returns the forward's outputs: h (or y)
alone, from which h_last is read at the last step, or (h, h_last). Its backward comes from the framework's
autodiff (PyTorch autograd, so a Triton kernel wrapped in a torch.autograd.Function brings its own; jax.vjp),
or from `backward=`, a function of the same inputs and the cotangents (dh or dy, dh_last) returning the
gradients by input name.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

from scancheck._architectures import ArchitectureSpec, spec_of
from scancheck._frameworks import FRAMEWORKS, FrameworkName, Timings, framework
from scancheck.conventions import ComplexLayout, Conventions

IoDtype = Literal["float32", "bfloat16"]
Pass = Literal["forward", "backward"]
#: The constraint keys of worker protocol 1 (docs/foreign-backends.md).
CONSTRAINT_KEYS = frozenset({"width_multiple", "max_width", "max_length", "max_batch", "heads", "sqrt_gradient",
                             "h0", "dh_last", "resets", "min_length", "length_multiple", "positive_decays"})
_DTYPE_TOKENS = {"float32": "fp32", "bfloat16": "bf16"}
#: Facts of a case (case.json) a kernel function may take as parameters besides its tensors.
CASE_FACTS = ("heads", "sqrt_gradient")


@dataclass(frozen=True)
class Backend:
    """A kernel declared to scancheck: what it computes, how it takes its tensors, and what it cannot take."""

    kernel: Callable[..., Any]
    architecture: str
    variant: str
    io_dtype: IoDtype = "float32"
    framework: FrameworkName = "torch"
    conventions: Conventions = field(default_factory=Conventions)
    passes: tuple[Pass, ...] = ("forward", "backward")
    deterministic: bool = True
    constraints: Mapping[str, Any] = field(default_factory=dict)
    backward: Callable[..., Mapping[str, Any]] | None = None
    omits: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        spec = spec_of(self.architecture)
        if self.io_dtype not in _DTYPE_TOKENS:
            raise ValueError(f"io_dtype '{self.io_dtype}' is not float32 or bfloat16")
        if self.framework not in FRAMEWORKS:
            raise ValueError(f"framework '{self.framework}' is not one of: {', '.join(FRAMEWORKS)}")
        if self.passes not in (("forward",), ("forward", "backward")):
            raise ValueError("passes must be ('forward',) or ('forward', 'backward')")
        unknown = set(self.constraints) - CONSTRAINT_KEYS
        if unknown:
            raise ValueError(f"unknown constraint(s) {sorted(unknown)} (known: {', '.join(sorted(CONSTRAINT_KEYS))})")
        names = {t.name for t in spec.inputs} | set(CASE_FACTS)
        strangers = [p for p in self.parameters if p not in names]
        if strangers:
            raise ValueError(f"{self.variant}: parameter(s) {strangers} are not inputs of {spec.name} "
                             f"(its inputs: {', '.join(t.name for t in spec.inputs)}; and {', '.join(CASE_FACTS)})")
        if "h0" not in self.parameters and self.constraints.get("h0", False):
            raise ValueError(f"{self.variant}: constraints say h0 is taken, but the kernel has no h0 parameter")
        gradients = {t.gradient for t in spec.differentiable}
        if set(self.omits) - gradients:
            raise ValueError(f"{self.variant}: omits {sorted(set(self.omits) - gradients)}, which are not gradients "
                             f"of {spec.name} (its gradients: {', '.join(sorted(gradients))})")
        if self.framework == "numpy" and "backward" in self.passes and self.backward is None:
            raise ValueError(f"{self.variant}: numpy has no autodiff: pass backward=, or passes=('forward',)")

    @property
    def spec(self) -> ArchitectureSpec:
        return spec_of(self.architecture)

    @property
    def parameters(self) -> tuple[str, ...]:
        """The spec inputs the kernel function takes, by its signature."""
        return tuple(inspect.signature(self.kernel).parameters)

    @property
    def token(self) -> str:
        """`variant@dtype`: the name a worker serves this backend by."""
        return f"{self.variant}@{_DTYPE_TOKENS[self.io_dtype]}"

    @property
    def name(self) -> str:
        """The backend's name without its provider, as scancheck writes it: `architecture/variant@dtype`."""
        return f"{self.architecture}/{self.token}"

    @property
    def omitted_gradients(self) -> tuple[str, ...]:
        """The gradients it does not compute: those declared, and dh0 of a kernel that takes no h0."""
        implied = ("dh0",) if "h0" not in self.parameters and "backward" in self.passes else ()
        return tuple(dict.fromkeys((*self.omits, *implied)))

    def declaration(self) -> dict[str, Any]:
        """This backend in the hello answer of worker protocol 1."""
        constraints = dict(self.constraints)
        if "h0" not in self.parameters:
            constraints["h0"] = False  # a kernel that cannot take an initial state is never given one
        declared = {"variant": self.variant, "architecture": self.architecture, "io_dtype": self.io_dtype,
                    "passes": list(self.passes), "deterministic": self.deterministic, "constraints": constraints}
        if self.omitted_gradients:
            declared["omits"] = list(self.omitted_gradients)
        return declared

    def run(self, case_dir: str | Path, out_dir: str | Path) -> Timings:
        """Runs the kernel on a case directory and writes its outputs, in the spec's layout, to `out_dir`."""
        case = _read_case(Path(case_dir))
        outputs, timings = _evaluate(self, case)
        for name, value in outputs.items():
            np.save(Path(out_dir) / f"{name}.npy", np.ascontiguousarray(value, dtype=np.float32))
        return timings


def backend(architecture: str, *, variant: str | None = None, io_dtype: IoDtype = "float32",
            framework: FrameworkName = "torch", layout: str = "B L W", complex_layout: ComplexLayout = "merged",
            passes: tuple[Pass, ...] = ("forward", "backward"), deterministic: bool = True,
            constraints: Mapping[str, Any] | None = None, backward: Callable[..., Mapping[str, Any]] | None = None,
            omits: tuple[str, ...] = ()) -> Callable[[Callable[..., Any]], Backend]:
    """Declares the decorated kernel function as a backend of `architecture`; `variant` defaults to its name.

    Worker protocol 1's constraints (`width_multiple`, `max_length`, `h0`, `dh_last`, `resets`, ...) keep
    generated cases inside what the kernel can take; a kernel without an `h0` parameter declares `h0: False`.
    `omits` names gradients the kernel does not compute (`("d_a_param",)`): they are not judged, and
    scancheck's rows say so; dh0 is omitted by itself when the kernel takes no h0.
    """

    def declare(kernel: Callable[..., Any]) -> Backend:
        return Backend(kernel, architecture, variant or kernel.__name__, io_dtype, framework,
                       Conventions(layout, complex_layout), passes, deterministic, dict(constraints or {}), backward,
                       tuple(omits))

    return declare


# ---- one run ----


@dataclass
class _Case:
    meta: dict[str, Any]
    tensors: dict[str, np.ndarray]

    @property
    def heads(self) -> int:
        return int(self.meta["heads"])


def _read_case(case_dir: Path) -> _Case:
    meta = json.loads((case_dir / "case.json").read_text())
    tensors = {p.stem: np.load(p) for p in case_dir.glob("*.npy")}
    return _Case(meta, tensors)


def _evaluate(b: Backend, case: _Case) -> tuple[dict[str, np.ndarray], Timings]:
    """The kernel's outputs on `case`, in the spec's layout and names."""
    spec, fw, conv = b.spec, framework(b.framework), b.conventions
    if case.meta["architecture"] != b.architecture:
        raise ValueError(f"a {case.meta['architecture']} case given to a {b.architecture} backend")

    def to_kernel(name: str) -> Any:
        t = spec.tensor(name)
        x = conv.to_kernel(case.tensors[name], t.role, case.heads, spec.is_complex and t.role != "parameter")
        return fw.asarray(x, bfloat16=b.io_dtype == "bfloat16" and t.role == "activation" and not np.iscomplexobj(x))

    if "h0" in b.parameters and "h0" not in case.tensors:
        case.tensors["h0"] = _zero_state(case)  # no initial state is a zero one, whose gradient dh0 is judged
    inputs = {n: to_kernel(n) for n in b.parameters if n in case.tensors}
    facts = {n: case.meta[n] for n in b.parameters if n in CASE_FACTS}
    time_axis = conv.layout.split().index("L")

    def forward(values: Mapping[str, Any]) -> tuple[Any, ...]:
        result = b.kernel(**values, **facts)
        if isinstance(result, tuple):
            return tuple(result)
        return result, fw.last_step(result, time_axis)  # h_last is h's last step

    if "backward" not in b.passes:
        outputs, timings = fw.forward(forward, inputs)
        gradients: dict[str, Any] = {}
    else:
        cotangents = tuple(to_kernel(t.name) if t.name in case.tensors else None for t in spec.cotangents)
        differentiable = [t.name for t in spec.differentiable if t.name in inputs]
        if b.backward is not None:
            outputs, timings = fw.forward(forward, inputs)
            given = dict(zip((t.name for t in spec.cotangents), cotangents, strict=True))
            gradients = dict(b.backward(**inputs, **facts, **{k: v for k, v in given.items() if v is not None}))
        else:
            outputs, gradients, timings = fw.vjp(forward, inputs, differentiable, cotangents)
    return _to_spec(b, outputs, gradients), timings


def _to_spec(b: Backend, outputs: tuple[Any, ...], gradients: Mapping[str, Any]) -> dict[str, np.ndarray]:
    spec, fw, conv = b.spec, framework(b.framework), b.conventions

    def back(name: str, value: Any) -> np.ndarray:
        t = spec.tensor(name)
        return conv.to_spec(fw.to_numpy(value), t.role, spec.is_complex and t.role != "parameter")

    written = {t.name: back(t.name, v) for t, v in zip(spec.outputs, outputs, strict=True)}
    for t in spec.differentiable:
        if t.name in gradients:
            written[t.gradient] = back(t.gradient, gradients[t.name])
    return written


def _zero_state(case: _Case) -> np.ndarray:
    """h0 = 0, [B, W] in the spec's layout, for a case drawn without an initial state."""
    first = case.tensors["a" if "a" in case.tensors else "x"]
    return np.zeros((first.shape[0], first.shape[-1]), np.float32)
