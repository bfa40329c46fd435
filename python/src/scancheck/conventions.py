"""A kernel's own conventions, declared once, and the conversions between them and the spec's.

Real kernels do not take tensors in the spec's layout ([B, L, W] activations, [B, W] states, complex values
as merged [Re | Im] real tensors). A backend declares how its kernel takes them and scancheck converts a
case into that form and the kernel's outputs back, exactly (permutations and reshapes, no arithmetic):

    >>> import numpy as np
    >>> c = Conventions(layout="B W L")
    >>> c.to_kernel(np.zeros((2, 5, 8), np.float32), "activation", heads=1).shape
    (2, 8, 5)

- `layout`: the axis order of activations. "B L W" (the spec's), "B W L", "L B W", or heads split off the
  width as "B H L D" or "B L H D" (D = W / H, H the case's head count). States follow: [B, W], or [B, H, D]
  when heads are split.
- `complex_layout` (complex kinds): "merged" ([.., Re | Im], the spec's and RecurrentGemma's),
  "interleaved" ([.., (re, im) pairs]) or "native" (a complex64 tensor of half the width).
- `resets` (the RG-LRU layers): "segment_pos" (the spec's int32 positions, a reset where 0), "flags" (a
  boolean `reset` per step, in the layout's order of B and L), or "cu_seqlens": the batch packed into one
  sequence of B L steps, cut at every reset, with the offsets of the sequences (`PackedSequences`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from scancheck._architectures import Role

ComplexLayout = Literal["merged", "interleaved", "native"]
Resets = Literal["segment_pos", "flags", "cu_seqlens"]
LAYOUTS = ("B L W", "B W L", "L B W", "B H L D", "B L H D")
COMPLEX_LAYOUTS: tuple[ComplexLayout, ...] = ("merged", "interleaved", "native")
RESETS: tuple[Resets, ...] = ("segment_pos", "flags", "cu_seqlens")


@dataclass(frozen=True)
class Conventions:
    """How a kernel takes its tensors; every conversion is exact and has an inverse."""

    layout: str = "B L W"
    complex_layout: ComplexLayout = "merged"
    resets: Resets = "segment_pos"

    def __post_init__(self) -> None:
        normalised = " ".join(self.layout.split())
        if normalised not in LAYOUTS:
            raise ValueError(f"layout '{self.layout}' is not one of: {', '.join(repr(x) for x in LAYOUTS)}")
        object.__setattr__(self, "layout", normalised)
        if self.complex_layout not in COMPLEX_LAYOUTS:
            raise ValueError(f"complex_layout '{self.complex_layout}' is not one of: {', '.join(COMPLEX_LAYOUTS)}")
        if self.resets not in RESETS:
            raise ValueError(f"resets '{self.resets}' is not one of: {', '.join(RESETS)}")

    @property
    def splits_heads(self) -> bool:
        return "H" in self.layout

    @property
    def time_axis(self) -> int:
        """The axis of the time steps in an activation of this layout."""
        return self.layout.split().index("L")

    def reset_flags(self, segment_pos: np.ndarray) -> np.ndarray:
        """The per-step reset flags of `resets="flags"`: [B, L], or [L, B] where the layout puts L first."""
        flags = segment_pos == 0
        return np.ascontiguousarray(flags.T if self.layout.startswith("L") else flags)

    def to_kernel(self, spec_array: np.ndarray, role: Role, heads: int, is_complex: bool = False) -> np.ndarray:
        """A case tensor in the spec's layout, as the kernel takes it."""
        x = _complex_to_kernel(spec_array, self.complex_layout) if is_complex and role != "positions" else spec_array
        if role == "activation":
            return np.ascontiguousarray(_activation_to_kernel(x, self.layout, heads))
        if role == "state" and self.splits_heads:
            return np.ascontiguousarray(x.reshape(x.shape[0], heads, -1))
        return x

    def to_spec(self, kernel_array: np.ndarray, role: Role, is_complex: bool = False) -> np.ndarray:
        """A kernel's output (or gradient), in the spec's layout: the inverse of `to_kernel`."""
        x = kernel_array
        if role == "activation":
            x = _activation_to_spec(x, self.layout)
        elif role == "state" and self.splits_heads:
            x = x.reshape(x.shape[0], -1)
        if is_complex and role != "positions":
            x = _complex_to_spec(x, self.complex_layout)
        return x


#: The layouts that only permute [B, L, W]: the axes of the spec's array that the kernel's axes are.
_PERMUTED = {"B L W": (0, 1, 2), "B W L": (0, 2, 1), "L B W": (1, 0, 2)}


def _activation_to_kernel(x: np.ndarray, layout: str, heads: int) -> Any:
    if layout in _PERMUTED:
        return x.transpose(_PERMUTED[layout])
    b, length, width = x.shape
    split = x.reshape(b, length, heads, width // heads)
    return split if layout == "B L H D" else split.transpose(0, 2, 1, 3)  # "B H L D"


def _activation_to_spec(x: np.ndarray, layout: str) -> Any:
    if layout in _PERMUTED:
        return x.transpose(np.argsort(_PERMUTED[layout]))
    if layout == "B H L D":
        x = x.transpose(0, 2, 1, 3)
    return x.reshape(x.shape[0], x.shape[1], -1)


def _complex_to_kernel(merged: np.ndarray, layout: ComplexLayout) -> np.ndarray:
    if layout == "merged":
        return merged
    half = merged.shape[-1] // 2
    re, im = merged[..., :half], merged[..., half:]
    if layout == "native":
        return (re.astype(np.float32) + 1j * im.astype(np.float32)).astype(np.complex64)
    return np.stack([re, im], axis=-1).reshape(*merged.shape)


def _complex_to_spec(x: np.ndarray, layout: ComplexLayout) -> np.ndarray:
    if layout == "merged":
        return x
    if layout == "native":
        return np.concatenate([x.real, x.imag], axis=-1)
    pairs = x.reshape(*x.shape[:-1], -1, 2)
    return np.concatenate([pairs[..., 0], pairs[..., 1]], axis=-1)


@dataclass(frozen=True)
class PackedSequences:
    """A case's batch as one packed sequence of B L steps, cut into sequences at every reset (`cu_seqlens`).

    Packed variable-length kernels start every sequence afresh, which is a reset of the spec (at = 0 and the
    input not normalised: recurrences.md §2), so every batch entry must start with one; scancheck draws such
    cases for a backend declaring `resets="cu_seqlens"` (constraint `resets_at_start`). The gradients at a
    sequence start are then the spec's at a reset: nothing flows through the decay or the normalisation
    there, and nothing crosses into the previous sequence.

        >>> import numpy as np
        >>> p = PackedSequences.of(np.array([[0, 1, 0], [0, 1, 2]], np.int32))
        >>> p.cu_seqlens.tolist(), p.last_of_batch.tolist()
        ([0, 2, 3, 6], [1, 2])
    """

    batch: int
    length: int
    cu_seqlens: np.ndarray  # [N + 1] int32: the offsets of the N sequences in the packed steps

    @classmethod
    def of(cls, segment_pos: np.ndarray) -> PackedSequences:
        batch, length = segment_pos.shape
        if (segment_pos[:, 0] != 0).any():
            raise ValueError(
                "packed sequences (resets='cu_seqlens') need every batch entry to start with a reset "
                "(segment_pos[b, 0] == 0); the backend declares constraint resets_at_start"
            )
        starts = np.flatnonzero(segment_pos.reshape(-1) == 0)
        return cls(batch, length, np.append(starts, batch * length).astype(np.int32))

    @property
    def sequences(self) -> int:
        return len(self.cu_seqlens) - 1

    @property
    def last_of_batch(self) -> np.ndarray:
        """The sequence that ends each batch entry: the one whose final state is the entry's h_last."""
        ends = (np.arange(self.batch) + 1) * self.length
        return np.searchsorted(self.cu_seqlens, ends, side="left") - 1

    @property
    def last_steps(self) -> np.ndarray:
        """The packed step of each batch entry's last step."""
        return (np.arange(self.batch) + 1) * self.length - 1

    def pack(self, x: np.ndarray) -> np.ndarray:
        """[B, L, W] -> [1, B L, W]."""
        return x.reshape(1, self.batch * self.length, *x.shape[2:])

    def unpack(self, x: np.ndarray) -> np.ndarray:
        """[1, B L, W] -> [B, L, W]."""
        return x.reshape(self.batch, self.length, *x.shape[2:])
