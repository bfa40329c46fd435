#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A scancheck worker in PyTorch, on the scancheck Python library (python/, docs/python.md).

The RG-LRU layer and its complex variant (recurrences.md sections 2 and 3) the way a model author writes
them in PyTorch: the forward in float32 tensor operations with a loop over time, the backward by autograd,
bfloat16 io by taking x and dy as bfloat16 tensors and rounding y to bfloat16 at the end. q = -expm1(2 log a)
(recurrences.md section 5: the literal 1 - exp(2 log a) cancels), the sqrt-gradient convention by a custom
autograd function, PyTorch's own sigmoid and softplus. The library serves them (worker protocol 1); this file
holds only the math:

    scancheck fuzz --worker 'python3 examples/torch_worker.py' --backends 'torch:*' --cases 200

`--formulations` adds rglru variants that differ in one textbook formulation (docs/tolerance.md, "Accepted
formulations"): the accepted `sigmoid_pair` (sigma' as sigma(z) sigma(-z) in a custom autograd function),
`stable_softplus` (max(z, 0) + log1p(exp(-|z|)) instead of PyTorch's identity above 20), and the rejected
`q_literal` (q = 1 - exp(2 log a): cancels) and `softplus_naive` (log(1 + exp(z)): overflows).
`rg_lru(..., scan=...)` takes another scan of the same signature (a Triton kernel's, for instance).
"""

import sys

import torch

import scancheck
import scancheck.worker

SCANCHECK_PROVIDER = "torch"

torch.set_num_threads(1)  # one run at a time on a shared machine; the kernel is not what is measured


class SqrtBoundedGradient(torch.autograd.Function):
    """sqrt(q) whose derivative is 1 / max(2 sqrt(q), 1/1000): RecurrentGemma's SqrtBoundDerivative."""

    @staticmethod
    def forward(ctx, q):
        root = torch.sqrt(q)
        ctx.save_for_backward(root)
        return root

    @staticmethod
    def backward(ctx, grad):
        (root,) = ctx.saved_tensors
        return grad / torch.clamp(2 * root, min=1e-3)


class SigmoidPair(torch.autograd.Function):
    """sigma(z) whose derivative is sigma(z) sigma(-z), accurate where a gate saturates."""

    @staticmethod
    def forward(ctx, z):
        ctx.save_for_backward(z)
        return torch.sigmoid(z)

    @staticmethod
    def backward(ctx, grad):
        (z,) = ctx.saved_tensors
        return grad * torch.sigmoid(z) * torch.sigmoid(-z)


def softplus(z, variant):
    if variant == "stable_softplus":
        return torch.clamp(z, min=0) + torch.log1p(torch.exp(-torch.abs(z)))
    if variant == "softplus_naive":
        return torch.log(1 + torch.exp(z))
    return torch.nn.functional.softplus(z)


def sequential_scan(at, u, h0):
    """h_t = at_t h_{t-1} + u_t over [B, L, W], a Python loop over time (autograd records every step)."""
    h, states = h0, []
    for step in range(u.shape[1]):
        h = at[:, step] * h + u[:, step]
        states.append(h)
    return torch.stack(states, dim=1)


def rg_lru(
    x,
    segment_pos,
    h0,
    a_param,
    input_gate_w,
    input_gate_b,
    a_gate_w,
    a_gate_b,
    a_imag_param=None,
    *,
    heads,
    sqrt_gradient,
    variant="autograd",
    scan=sequential_scan,
):
    """(y, h_last) of rglru, or of complex_rglru when a_imag_param is given (merged [Re | Im] layout)."""
    io_dtype = x.dtype
    x = x.float()
    B, L, W = x.shape
    xh = x.view(B, L, heads, W // heads)
    zx = torch.einsum("blhi,hij->blhj", xh, input_gate_w) + input_gate_b
    za = torch.einsum("blhi,hij->blhj", xh, a_gate_w) + a_gate_b
    sigmoid = SigmoidPair.apply if variant == "sigmoid_pair" else torch.sigmoid
    gx, ga = sigmoid(zx).reshape(B, L, -1), sigmoid(za).reshape(B, L, -1)
    log_a = -8.0 * ga * softplus(a_param, variant)
    reset = (segment_pos == 0).unsqueeze(-1)
    q = 1 - torch.exp(2 * log_a) if variant == "q_literal" else -torch.expm1(2 * log_a)
    q = torch.where(reset, torch.ones_like(log_a), q)  # no sqrt'(0) behind a reset
    root = SqrtBoundedGradient.apply(q) if sqrt_gradient == "bounded" else torch.sqrt(q)
    m = torch.where(reset, torch.ones_like(root), root)
    if a_imag_param is not None:
        Wc = W // 2
        phi = a_imag_param * ga
        a = torch.complex(torch.exp(log_a) * torch.cos(phi), torch.exp(log_a) * torch.sin(phi))
        xin, state = torch.complex(x[..., :Wc], x[..., Wc:]), torch.complex(h0[:, :Wc], h0[:, Wc:])
    else:
        a, xin, state = torch.exp(log_a), x, h0
    at = torch.where(reset, torch.zeros_like(a), a)
    hs = scan(at, xin * gx * m, state)
    y = torch.cat([hs.real, hs.imag], dim=-1) if a_imag_param is not None else hs
    return y.to(io_dtype), y[:, -1]  # bfloat16 io: y is stored rounded; h_last is a float32 state


def declare(architecture, io_dtype, variant):
    """One backend: rglru or complex_rglru in one io dtype and formulation."""

    def rglru_kernel(x, segment_pos, h0, a_param, input_gate_w, input_gate_b, a_gate_w, a_gate_b, heads, sqrt_gradient):
        return rg_lru(
            x,
            segment_pos,
            h0,
            a_param,
            input_gate_w,
            input_gate_b,
            a_gate_w,
            a_gate_b,
            heads=heads,
            sqrt_gradient=sqrt_gradient,
            variant=variant,
        )

    def complex_rglru_kernel(
        x, segment_pos, h0, a_param, input_gate_w, input_gate_b, a_gate_w, a_gate_b, a_imag_param, heads, sqrt_gradient
    ):
        return rg_lru(
            x,
            segment_pos,
            h0,
            a_param,
            input_gate_w,
            input_gate_b,
            a_gate_w,
            a_gate_b,
            a_imag_param,
            heads=heads,
            sqrt_gradient=sqrt_gradient,
            variant=variant,
        )

    kernel = complex_rglru_kernel if architecture == "complex_rglru" else rglru_kernel
    return scancheck.backend(architecture, variant=variant, io_dtype=io_dtype, framework="torch")(kernel)


BACKENDS = [
    declare(arch, dtype, "autograd") for arch in ("rglru", "complex_rglru") for dtype in ("float32", "bfloat16")
]
if "--formulations" in sys.argv[1:]:
    BACKENDS += [
        declare("rglru", dtype, variant)
        for variant in ("sigmoid_pair", "stable_softplus", "q_literal", "softplus_naive")
        for dtype in ("float32", "bfloat16")
    ]

if __name__ == "__main__":
    sys.exit(scancheck.worker.serve_module(sys.modules[__name__]))
