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
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

from scancheck._architectures import ArchitectureSpec, Decays, spec_of
from scancheck._frameworks import FRAMEWORKS, FrameworkName, Timings, framework
from scancheck.conventions import ComplexLayout, Conventions, PackedSequences, Resets

IoDtype = Literal["float32", "bfloat16"]
Pass = Literal["forward", "backward"]
#: The constraint keys of worker protocol 1 (docs/foreign-backends.md).
CONSTRAINT_KEYS = frozenset(
    {
        "width_multiple",
        "max_width",
        "max_length",
        "max_batch",
        "heads",
        "sqrt_gradient",
        "h0",
        "dh_last",
        "resets",
        "min_length",
        "length_multiple",
        "positive_decays",
        "resets_at_start",
        "shapes",
    }
)
#: The shape plans a backend may declare (constraint "shapes"): "bucketed" draws every case's shape from a small
#: fixed set, so that a kernel compiled per shape (jax.jit, torch.compile) is compiled a few dozen times.
ShapePlan = Literal["any", "bucketed"]
SHAPE_PLANS: tuple[ShapePlan, ...] = ("any", "bucketed")
_DTYPE_TOKENS = {"float32": "fp32", "bfloat16": "bf16"}
#: Facts of a case (case.json) a kernel function may take as parameters besides its tensors.
CASE_FACTS = ("heads", "sqrt_gradient")
#: The parameter that carries the resets in each `resets` convention of the RG-LRU layers.
RESET_PARAMETERS: dict[str, str] = {"segment_pos": "segment_pos", "flags": "reset", "cu_seqlens": "cu_seqlens"}


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
    decays: Decays = "linear"

    def __post_init__(self) -> None:
        spec = spec_of(self.architecture, self.decays)
        if self.io_dtype not in _DTYPE_TOKENS:
            raise ValueError(f"io_dtype '{self.io_dtype}' is not float32 or bfloat16")
        if self.framework not in FRAMEWORKS:
            raise ValueError(f"framework '{self.framework}' is not one of: {', '.join(FRAMEWORKS)}")
        if self.passes not in (("forward",), ("forward", "backward")):
            raise ValueError("passes must be ('forward',) or ('forward', 'backward')")
        unknown = set(self.constraints) - CONSTRAINT_KEYS
        if unknown:
            raise ValueError(f"unknown constraint(s) {sorted(unknown)} (known: {', '.join(sorted(CONSTRAINT_KEYS))})")
        if self.constraints.get("shapes", "any") not in SHAPE_PLANS:
            raise ValueError(f"shapes '{self.constraints['shapes']}' is not one of: {', '.join(SHAPE_PLANS)}")
        self._check_resets(spec)
        names = {t.name for t in spec.inputs if t.role != "positions"} | set(CASE_FACTS) | set(self._reset_parameter)
        strangers = [p for p in self.parameters if p not in names]
        if strangers:
            raise ValueError(
                f"{self.variant}: parameter(s) {strangers} are not inputs of {spec.name} "
                f"(its inputs: {', '.join(sorted(names - set(CASE_FACTS)))}; "
                f"and {', '.join(CASE_FACTS)})"
            )
        if "h0" not in self.parameters and self.constraints.get("h0", False):
            raise ValueError(f"{self.variant}: constraints say h0 is taken, but the kernel has no h0 parameter")
        gradients = {t.gradient for t in spec.differentiable}
        if set(self.omits) - gradients:
            raise ValueError(
                f"{self.variant}: omits {sorted(set(self.omits) - gradients)}, which are not gradients "
                f"of {spec.name} (its gradients: {', '.join(sorted(gradients))})"
            )
        if self.framework == "numpy" and "backward" in self.passes and self.backward is None:
            raise ValueError(f"{self.variant}: numpy has no autodiff: pass backward=, or passes=('forward',)")

    def _check_resets(self, spec: ArchitectureSpec) -> None:
        resets = self.conventions.resets
        if resets != "segment_pos" and not any(t.role == "positions" for t in spec.inputs):
            raise ValueError(
                f"{self.variant}: resets='{resets}' is for the RG-LRU layers; {spec.name} resets through zero decays"
            )
        if resets == "cu_seqlens" and "h0" in self.parameters:
            raise ValueError(
                f"{self.variant}: a packed kernel (resets='cu_seqlens') starts every sequence with a "
                "reset, which ignores an initial state: drop its h0 parameter"
            )

    @property
    def _reset_parameter(self) -> tuple[str, ...]:
        """The parameter that carries resets to this kernel, where its architecture has resets."""
        has_resets = any(t.role == "positions" for t in self.spec.inputs)
        return (RESET_PARAMETERS[self.conventions.resets],) if has_resets else ()

    @property
    def bucketed(self) -> bool:
        """Whether its cases take their shapes from the bucketed set: the framework then keeps compiled code."""
        return bool(self.constraints.get("shapes") == "bucketed")

    @property
    def spec(self) -> ArchitectureSpec:
        return spec_of(self.architecture, self.decays)

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
        if self.conventions.resets == "cu_seqlens":
            constraints["resets_at_start"] = True  # every packed sequence starts afresh: a reset
        declared = {
            "variant": self.variant,
            "architecture": self.architecture,
            "io_dtype": self.io_dtype,
            "passes": list(self.passes),
            "deterministic": self.deterministic,
            "constraints": constraints,
        }
        if self.decays != "linear":
            declared["decays"] = self.decays
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


def backend(
    architecture: str,
    *,
    variant: str | None = None,
    io_dtype: IoDtype = "float32",
    framework: FrameworkName = "torch",
    layout: str = "B L W",
    complex_layout: ComplexLayout = "merged",
    decays: Decays = "linear",
    resets: Resets = "segment_pos",
    passes: tuple[Pass, ...] = ("forward", "backward"),
    deterministic: bool = True,
    constraints: Mapping[str, Any] | None = None,
    backward: Callable[..., Mapping[str, Any]] | None = None,
    omits: tuple[str, ...] = (),
    shapes: ShapePlan = "any",
) -> Callable[[Callable[..., Any]], Backend]:
    """Declares the decorated kernel function as a backend of `architecture`; `variant` defaults to its name.

    Worker protocol 1's constraints (`width_multiple`, `max_length`, `h0`, `dh_last`, `resets`, ...) keep
    generated cases inside what the kernel can take; a kernel without an `h0` parameter declares `h0: False`.
    `omits` names gradients the kernel does not compute (`("d_a_param",)`): they are not judged, and
    scancheck's rows say so; dh0 is omitted by itself when the kernel takes no h0.

    `decays="log"` (the plain scan): the kernel takes `log_a` and returns the gradient `dlog_a`; the cases
    carry log a exactly and the reference exponentiates it, so none of scancheck's roundings is charged to
    the kernel. `resets` (the RG-LRU layers): how resets reach the kernel, as `segment_pos`, per-step
    boolean `reset` flags, or packed sequences with their offsets `cu_seqlens` (conventions.PackedSequences).

    `shapes="bucketed"` (the constraint `shapes`) is for kernels compiled per shape, as under `jax.jit` or
    `torch.compile`: every case's shape comes from a fixed set of a few dozen that still crosses every chunk and
    group boundary, shrinks stay in it, and the framework keeps the compiled code between cases (JAX within a
    bounded cache) rather than compiling anew for nearly every case.
    """

    declared = {**(constraints or {}), **({"shapes": shapes} if shapes != "any" else {})}

    def declare(kernel: Callable[..., Any]) -> Backend:
        return Backend(
            kernel,
            architecture,
            variant or kernel.__name__,
            io_dtype,
            framework,
            Conventions(layout, complex_layout, resets),
            passes,
            deterministic,
            declared,
            backward,
            tuple(omits),
            decays,
        )

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
    if case.meta.get("decays", "linear") != b.decays:
        raise ValueError(
            f"a case with decays '{case.meta.get('decays', 'linear')}' given to a backend that takes "
            f"them as '{b.decays}'"
        )
    packed = PackedSequences.of(case.tensors["segment_pos"]) if conv.resets == "cu_seqlens" else None

    def to_kernel(name: str) -> Any:
        t = spec.tensor(name)
        x = case.tensors[name]
        if packed is not None and t.role == "activation":
            x = packed.pack(x)
        x = conv.to_kernel(x, t.role, case.heads, spec.is_complex and t.role != "parameter")
        return fw.asarray(x, bfloat16=b.io_dtype == "bfloat16" and t.role == "activation" and not np.iscomplexobj(x))

    if "h0" in b.parameters and "h0" not in case.tensors:
        case.tensors["h0"] = _zero_state(case)  # no initial state is a zero one, whose gradient dh0 is judged
    inputs = {n: to_kernel(n) for n in b.parameters if n in case.tensors}
    if "reset" in b.parameters:
        inputs["reset"] = fw.asarray(conv.reset_flags(case.tensors["segment_pos"]))
    if packed is not None and "cu_seqlens" in b.parameters:
        inputs["cu_seqlens"] = fw.asarray(packed.cu_seqlens)
    facts = {n: case.meta[n] for n in b.parameters if n in CASE_FACTS}

    def forward(values: Mapping[str, Any]) -> tuple[Any, ...]:
        result = b.kernel(**values, **facts)
        h, last = (result[0], result[1]) if isinstance(result, tuple) else (result, None)
        if packed is None:
            return h, fw.last_step(h, conv.time_axis) if last is None else last  # h_last is h's last step
        if last is not None:  # the final state of every packed sequence: the batch entries' are their last ones
            return h, fw.take(last, packed.last_of_batch, 0)
        return h, _state_from_steps(fw.take(h, packed.last_steps, conv.time_axis), conv, case.heads, fw)

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
    written = _to_spec(b, outputs, gradients, packed)
    fw.after_run(_compiled_shape(b, inputs, facts) if b.bucketed else None)
    return written, timings


def _compiled_shape(b: Backend, inputs: Mapping[str, Any], facts: Mapping[str, Any]) -> tuple[str, Hashable]:
    """What a kernel compiled per shape is compiled for: the backend, its inputs' shapes and dtypes, the facts."""
    return b.token, (tuple((k, tuple(v.shape), str(v.dtype)) for k, v in inputs.items()), tuple(facts.items()))


def _state_from_steps(steps: Any, conv: Conventions, heads: int, fw: Any) -> Any:
    """Packed activations taken at B steps (the time axis now B long) as states [B, W], or [B, H, D]."""
    state = fw.moveaxis(steps, conv.time_axis, 0)
    return state.reshape(state.shape[0], heads, -1) if conv.splits_heads else state.reshape(state.shape[0], -1)


def _to_spec(
    b: Backend, outputs: tuple[Any, ...], gradients: Mapping[str, Any], packed: PackedSequences | None
) -> dict[str, np.ndarray]:
    spec, fw, conv = b.spec, framework(b.framework), b.conventions

    def back(name: str, value: Any) -> np.ndarray:
        t = spec.tensor(name)
        x = conv.to_spec(fw.to_numpy(value), t.role, spec.is_complex and t.role != "parameter")
        return packed.unpack(x) if packed is not None and t.role == "activation" else x

    written = {t.name: back(t.name, v) for t, v in zip(spec.outputs, outputs, strict=True)}
    for t in spec.differentiable:
        if t.name in gradients:
            written[t.gradient] = back(t.gradient, gradients[t.name])
    return written


def _zero_state(case: _Case) -> np.ndarray:
    """h0 = 0, [B, W] in the spec's layout, for a case drawn without an initial state."""
    first = next(case.tensors[n] for n in ("a", "log_a", "x") if n in case.tensors)
    return np.zeros((first.shape[0], first.shape[-1]), np.float32)
