#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A scancheck worker in PyTorch (../shared/spec/foreign-backends.md, worker protocol 1).

The RG-LRU layer and its complex variant (recurrences.md sections 2 and 3) the way a model author writes
them in PyTorch: the forward in float32 tensor operations with a loop over time, the backward by autograd
(torch.autograd.grad of <y, dy> + <h_last, dh_last>), bfloat16 io by rounding the io tensors (y, dx) once
at the end. q = -expm1(2 log a) (recurrences.md section 5: the literal 1 - exp(2 log a) cancels), the
sqrt-gradient convention by a custom autograd function, PyTorch's own sigmoid and softplus.

    scancheck fuzz --worker 'python3 examples/torch_worker.py' --backends 'torch:*' --cases 200

`--formulations` adds rglru variants that differ in one textbook formulation (docs/tolerance.md, "Accepted
formulations"): the accepted `sigmoid_pair` (sigma' as sigma(z) sigma(-z) in a custom autograd function),
`stable_softplus` (max(z, 0) + log1p(exp(-|z|)) instead of PyTorch's identity above 20), and the rejected
`q_literal` (q = 1 - exp(2 log a): cancels) and `softplus_naive` (log(1 + exp(z)): overflows).
"""
import json
import os
import sys

import numpy as np
import torch

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


def load_case(case_dir):
    with open(os.path.join(case_dir, "case.json")) as f:
        meta = json.load(f)
    t = {}
    for name in os.listdir(case_dir):
        if name.endswith(".npy"):
            t[name[:-4]] = torch.from_numpy(np.load(os.path.join(case_dir, name)))
    return meta, t


def rg_lru(meta, t, complex_, variant="autograd"):
    """Forward of rglru or complex_rglru; returns the (y, h_last) tensors and the leaves to differentiate."""
    leaves = {k: v.clone().requires_grad_(True) for k, v in t.items()
              if k in ("x", "h0", "a_param", "a_imag_param", "input_gate_w", "input_gate_b", "a_gate_w",
                       "a_gate_b")}
    x = leaves["x"]
    B, L, W = x.shape
    H = meta["heads"]
    xh = x.view(B, L, H, W // H)
    zx = torch.einsum("blhi,hij->blhj", xh, leaves["input_gate_w"]) + leaves["input_gate_b"]
    za = torch.einsum("blhi,hij->blhj", xh, leaves["a_gate_w"]) + leaves["a_gate_b"]
    sigmoid = SigmoidPair.apply if variant == "sigmoid_pair" else torch.sigmoid
    gx, ga = sigmoid(zx).reshape(B, L, -1), sigmoid(za).reshape(B, L, -1)
    log_a = -8.0 * ga * softplus(leaves["a_param"], variant)
    reset = (t["segment_pos"] == 0).unsqueeze(-1)
    q = 1 - torch.exp(2 * log_a) if variant == "q_literal" else -torch.expm1(2 * log_a)
    q = torch.where(reset, torch.ones_like(log_a), q)  # no sqrt'(0) behind a reset
    root = SqrtBoundedGradient.apply(q) if meta["sqrt_gradient"] == "bounded" else torch.sqrt(q)
    m = torch.where(reset, torch.ones_like(root), root)
    if complex_:
        Wc = W // 2
        phi = leaves["a_imag_param"] * ga
        a = torch.complex(torch.exp(log_a) * torch.cos(phi), torch.exp(log_a) * torch.sin(phi))
        xin = torch.complex(x[..., :Wc], x[..., Wc:])
        h = torch.complex(leaves["h0"][:, :Wc], leaves["h0"][:, Wc:])
    else:
        a, xin = torch.exp(log_a), x
        h = leaves["h0"]
    at = torch.where(reset, torch.zeros_like(a), a)
    u = xin * gx * m
    states = []
    for step in range(L):
        h = at[:, step] * h + u[:, step]
        states.append(h)
    hs = torch.stack(states, dim=1)
    if complex_:
        y, h_last = torch.cat([hs.real, hs.imag], dim=-1), torch.cat([h.real, h.imag], dim=-1)
    else:
        y, h_last = hs, h
    return y, h_last, leaves


def run(request):
    meta, t = load_case(request["case"])
    complex_ = meta["architecture"] == "complex_rglru"
    if "h0" not in t:  # a zero initial state: the same forward, and dh0 is its gradient
        t["h0"] = torch.zeros(t["x"].shape[0], t["x"].shape[2], dtype=torch.float32)
    y, h_last, leaves = rg_lru(meta, t, complex_, request["backend"].split("@")[0])
    loss = (y * t["dy"]).sum()
    if "dh_last" in t:
        loss = loss + (h_last * t["dh_last"]).sum()
    names = list(leaves)
    grads = torch.autograd.grad(loss, [leaves[n] for n in names], allow_unused=True)
    out = {"y": y.detach(), "h_last": h_last.detach()}
    gradient_names = {"x": "dx", "h0": "dh0", "a_param": "d_a_param", "a_imag_param": "d_a_imag_param",
                      "input_gate_w": "d_input_gate_w", "input_gate_b": "d_input_gate_b",
                      "a_gate_w": "d_a_gate_w", "a_gate_b": "d_a_gate_b"}
    for name, g in zip(names, grads):
        out[gradient_names[name]] = g if g is not None else torch.zeros_like(leaves[name])
    if meta["io_dtype"] == "bfloat16":  # io tensors are stored in bfloat16, states and parameters in float32
        for name in ("y", "dx"):
            out[name] = out[name].to(torch.bfloat16).to(torch.float32)
    for name, value in out.items():
        np.save(os.path.join(request["out"], name + ".npy"), value.detach().to(torch.float32).contiguous().numpy())
    return {"ok": True}


def main():
    backends = [{"variant": "autograd", "architecture": arch, "io_dtype": dtype}
                for arch in ("rglru", "complex_rglru") for dtype in ("float32", "bfloat16")]
    if "--formulations" in sys.argv[1:]:
        backends += [{"variant": variant, "architecture": "rglru", "io_dtype": dtype}
                     for variant in ("sigmoid_pair", "stable_softplus", "q_literal", "softplus_naive")
                     for dtype in ("float32", "bfloat16")]
    for line in sys.stdin:
        request = json.loads(line)
        if request["op"] == "hello":
            answer = {"protocol": 1, "provider": "torch", "backends": backends}
        elif request["op"] == "run":
            try:
                answer = run(request)
            except Exception as e:  # a bug of ours: say so, keep serving
                answer = {"ok": False, "error": f"{type(e).__name__}: {e}"}
            answer["id"] = request["id"]
        else:
            return
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
