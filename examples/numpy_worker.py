#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A scancheck worker in numpy, on the scancheck Python library (python/, docs/python.md).

The real affine scan and the RG-LRU layer (recurrences.md sections 1 and 2) in float32, the way a model
author writes them with numpy: batched over (B, W), a Python loop over time, the gate projections as einsum,
numerically stable sigmoid and softplus, q = -expm1(2 log a), sigma' = sigma(z) sigma(-z), and the backward
by hand (numpy has no autodiff). The library serves them (worker protocol 1); this file holds only the math:

    scancheck fuzz --worker 'python3 examples/numpy_worker.py' --backends 'numpy:*' --cases 200

(with PYTHONPATH=python/src from a checkout, or after `pip install ./python`). `--misbehave` adds backends
that go wrong on purpose, to see scancheck's verdicts:
    numpy:rglru/dh_last_ignored@fp32    a plausible bug: the backward drops dh_last       (fail, shrunk)
    numpy:rglru/crashes_when_long@fp32  segfaults when L > 1000                          (fault)
    numpy:rglru/hangs_when_long@fp32    never answers when L > 1000                      (timeout)
    numpy:rglru/refuses_odd_batch@fp32  raises when B is odd                             (error)
"""

import os
import signal
import sys
import time

import numpy as np

import scancheck
import scancheck.worker

SCANCHECK_PROVIDER = "numpy"

F32 = np.float32


def sigmoid_pair(z):
    """sigma(z) and sigma(-z), accurate in both tails."""
    e = np.exp(-np.abs(z))
    big = F32(1) / (F32(1) + e)
    small = e / (F32(1) + e)
    return np.where(z >= 0, big, small), np.where(z >= 0, small, big)


def softplus(z):
    return np.maximum(z, F32(0)) + np.log1p(np.exp(-np.abs(z)))


def reverse_scan(decay, cotangent, dh_last):
    """g_{L-1} = dy_{L-1} + dh_last, g_t = dy_t + decay_{t+1} g_{t+1}: [B, L, W]."""
    B, L, W = cotangent.shape
    g = np.zeros_like(cotangent)
    carry = dh_last.copy() if dh_last is not None else np.zeros((B, W), F32)
    for t in range(L - 1, -1, -1):
        if t < L - 1:
            carry = decay[:, t + 1] * carry
        carry = cotangent[:, t] + carry
        g[:, t] = carry
    return g


def forward_scan(decay, inputs, h0):
    B, L, W = inputs.shape
    h = np.empty_like(inputs)
    state = h0.copy() if h0 is not None else np.zeros((B, W), F32)
    for t in range(L):
        state = decay[:, t] * state + inputs[:, t]
        h[:, t] = state
    return h


def shifted(h, h0):
    """h_{t-1}: h0 (or zero) at t = 0."""
    prev = np.empty_like(h)
    prev[:, 0] = h0 if h0 is not None else 0
    prev[:, 1:] = h[:, :-1]
    return prev


def scan_backward(a, b, h0, dh, dh_last=None):
    h = forward_scan(a, b, h0)
    g = reverse_scan(a, dh, dh_last)
    return {"b": g, "a": g * shifted(h, h0), "h0": a[:, 0] * g[:, 0]}


def rglru(
    x,
    segment_pos,
    h0,
    a_param,
    input_gate_w,
    input_gate_b,
    a_gate_w,
    a_gate_b,
    heads,
    sqrt_gradient,
    dy=None,
    dh_last=None,
):
    """The forward (y) and, given dy, the gradients by input name."""
    B, L, W = x.shape
    H = heads
    K = W // H
    xh = x.reshape(B, L, H, K)

    def gate(w, bias):
        return (np.einsum("blhi,hij->blhj", xh, w) + bias).reshape(B, L, W).astype(F32)

    gx, gx_neg = sigmoid_pair(gate(input_gate_w, input_gate_b))
    ga, ga_neg = sigmoid_pair(gate(a_gate_w, a_gate_b))
    s = softplus(a_param)
    log_a = F32(-8) * ga * s
    a = np.exp(log_a)
    q = -np.expm1(F32(2) * log_a)
    reset = (segment_pos == 0)[:, :, None]
    m = np.where(reset, F32(1), np.sqrt(q))
    at = np.where(reset, F32(0), a)
    h = forward_scan(at, x * gx * m, h0)
    if dy is None:
        return h
    g = reverse_scan(at, dy, dh_last)
    d_at = g * shifted(h, h0)
    dgx, dm, dx = g * x * m, g * x * gx, g * gx * m
    two_sqrt_q = F32(2) * np.sqrt(q)
    if sqrt_gradient == "bounded":
        two_sqrt_q = np.maximum(two_sqrt_q, F32(1e-3))
    with np.errstate(divide="ignore", invalid="ignore"):
        dq = np.where(reset, F32(0), dm / two_sqrt_q)
    dlog_a = np.where(reset, F32(0), d_at * a) - F32(2) * np.exp(F32(2) * log_a) * dq
    dga = F32(-8) * s * dlog_a
    dzx = (dgx * gx * gx_neg).reshape(B, L, H, K)
    dza = (dga * ga * ga_neg).reshape(B, L, H, K)
    wx, wa = input_gate_w, a_gate_w
    dx = dx + (np.einsum("blhj,hij->blhi", dzx, wx) + np.einsum("blhj,hij->blhi", dza, wa)).reshape(B, L, W)
    sig_param, _ = sigmoid_pair(a_param)
    return {
        "x": dx,
        "h0": at[:, 0] * g[:, 0],
        "a_param": sig_param * (F32(-8) * ga * dlog_a).sum(axis=(0, 1)),
        "input_gate_w": np.einsum("blhi,blhj->hij", xh, dzx),
        "input_gate_b": dzx.sum(axis=(0, 1)),
        "a_gate_w": np.einsum("blhi,blhj->hij", xh, dza),
        "a_gate_b": dza.sum(axis=(0, 1)),
    }


def misbehaving(variant):
    """The RG-LRU with one deliberate fault: a dropped dh_last, a crash, a hang, or a refusal."""

    def misbehave(x):
        B, L = x.shape[:2]
        if variant == "crashes_when_long" and L > 1000:
            os.kill(os.getpid(), signal.SIGSEGV)
        if variant == "hangs_when_long" and L > 1000:
            while True:
                time.sleep(60)
        if variant == "refuses_odd_batch" and B % 2 == 1:
            raise ValueError(f"B = {B}: this kernel needs an even batch")

    def forward(x, segment_pos, h0, a_param, input_gate_w, input_gate_b, a_gate_w, a_gate_b, heads, sqrt_gradient):
        misbehave(x)
        return rglru(x, segment_pos, h0, a_param, input_gate_w, input_gate_b, a_gate_w, a_gate_b, heads, sqrt_gradient)

    def backward(dy, dh_last=None, **inputs):
        return rglru(**inputs, dy=dy, dh_last=None if variant == "dh_last_ignored" else dh_last)

    return scancheck.backend("rglru", variant=variant, framework="numpy", backward=backward)(forward)


@scancheck.backend("scan", variant="sequential", framework="numpy", backward=scan_backward)
def sequential(a, b, h0):
    return forward_scan(a, b, h0)


@scancheck.backend(
    "rglru",
    variant="textbook",
    framework="numpy",
    backward=lambda dy, dh_last=None, **inputs: rglru(**inputs, dy=dy, dh_last=dh_last),
)
def textbook(x, segment_pos, h0, a_param, input_gate_w, input_gate_b, a_gate_w, a_gate_b, heads, sqrt_gradient):
    return rglru(x, segment_pos, h0, a_param, input_gate_w, input_gate_b, a_gate_w, a_gate_b, heads, sqrt_gradient)


MISBEHAVING = (
    [misbehaving(v) for v in ("dh_last_ignored", "crashes_when_long", "hangs_when_long", "refuses_odd_batch")]
    if "--misbehave" in sys.argv[1:]
    else []
)

if __name__ == "__main__":
    sys.exit(scancheck.worker.serve_module(sys.modules[__name__]))
