"""What each architecture's case holds: its inputs, cotangents, outputs and the axes of each tensor.

The names and shapes are those of docs/architecture.md ("Cases") and docs/recurrences.md; this module is the
Python side's one copy of them. Every tensor is described in the spec's layout: activations [B, L, W], states
[B, W], complex kinds in the merged [Re | Im] layout (W is then twice the complex width).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Architecture = Literal["scan", "complex_scan", "rglru", "complex_rglru"]
ARCHITECTURES: tuple[Architecture, ...] = ("scan", "complex_scan", "rglru", "complex_rglru")
#: How a plain scan's decays are given (docs/foreign-backends.md, "decays"): a, or log a exactly.
Decays = Literal["linear", "log"]
DECAYS: tuple[Decays, ...] = ("linear", "log")

#: How a tensor is shaped: an activation [B, L, W], a state [B, W], segment positions [B, L], or a parameter
#: (gate weights and biases, decay parameters) whose shape no layout convention changes.
Role = Literal["activation", "state", "positions", "parameter"]


@dataclass(frozen=True)
class Tensor:
    """One tensor of a case: its spec name, its role, and whether it is optional in a case."""

    name: str
    role: Role
    optional: bool = False

    @property
    def gradient(self) -> str:
        """The spec's name of this input's gradient: x -> dx, log_a -> dlog_a, a_param -> d_a_param."""
        return ("d_" if self.role == "parameter" else "d") + self.name


@dataclass(frozen=True)
class ArchitectureSpec:
    """The tensors of one architecture, in the order a kernel function usually takes them."""

    name: Architecture
    inputs: tuple[Tensor, ...]
    outputs: tuple[Tensor, ...]  # the forward's: h or y, then h_last
    cotangents: tuple[Tensor, ...]  # dh or dy, then dh_last

    @property
    def is_complex(self) -> bool:
        return self.name.startswith("complex")

    @property
    def differentiable(self) -> tuple[Tensor, ...]:
        """The inputs that have a gradient among the outputs (all but segment_pos)."""
        return tuple(t for t in self.inputs if t.role != "positions")

    def tensor(self, name: str) -> Tensor:
        for t in (*self.inputs, *self.outputs, *self.cotangents):
            if t.name == name:
                return t
        for t in self.differentiable:
            if t.gradient == name:
                return Tensor(name, t.role, t.optional)
        raise KeyError(f"{self.name} has no tensor '{name}'")


def _scan(name: Architecture, decay: str = "a") -> ArchitectureSpec:
    return ArchitectureSpec(
        name,
        inputs=(Tensor(decay, "activation"), Tensor("b", "activation"), Tensor("h0", "state", optional=True)),
        outputs=(Tensor("h", "activation"), Tensor("h_last", "state")),
        cotangents=(Tensor("dh", "activation"), Tensor("dh_last", "state", optional=True)),
    )


def _rglru(name: Architecture) -> ArchitectureSpec:
    parameters: tuple[str, ...] = ("a_param", "input_gate_w", "input_gate_b", "a_gate_w", "a_gate_b")
    if name == "complex_rglru":
        parameters += ("a_imag_param",)
    return ArchitectureSpec(
        name,
        inputs=(
            Tensor("x", "activation"),
            Tensor("segment_pos", "positions"),
            Tensor("h0", "state", optional=True),
            *(Tensor(p, "parameter") for p in parameters),
        ),
        outputs=(Tensor("y", "activation"), Tensor("h_last", "state")),
        cotangents=(Tensor("dy", "activation"), Tensor("dh_last", "state", optional=True)),
    )


SPECS: dict[Architecture, ArchitectureSpec] = {
    "scan": _scan("scan"),
    "complex_scan": _scan("complex_scan"),
    "rglru": _rglru("rglru"),
    "complex_rglru": _rglru("complex_rglru"),
}


#: The plain real scan with its decays as log a: the input log_a and the gradient dlog_a = a da.
LOG_SCAN = _scan("scan", decay="log_a")


def spec_of(architecture: str, decays: str = "linear") -> ArchitectureSpec:
    """The spec of `architecture` with its decays in `decays` form, or a ValueError naming what is known."""
    if architecture not in SPECS:
        raise ValueError(f"unknown architecture '{architecture}' (known: {', '.join(ARCHITECTURES)})")
    if decays not in DECAYS:
        raise ValueError(f"decays '{decays}' is not one of: {', '.join(DECAYS)}")
    if decays == "log":
        if architecture != "scan":
            raise ValueError(f"decays 'log': only the real scan takes its decays in log space, not {architecture}")
        return LOG_SCAN
    return SPECS[architecture]  # type: ignore[index,unused-ignore]
