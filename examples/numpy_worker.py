#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A scancheck worker in Python with numpy (../shared/spec/foreign-backends.md, worker protocol 1).

It implements the real affine scan and the RG-LRU layer (recurrences.md sections 1 and 2) in float32, the
way a model author writes them with numpy: batched over (B, W), a Python loop over time, the gate
projections as einsum, numerically stable sigmoid and softplus, q = -expm1(2 log a), sigma' = sigma(z)
sigma(-z). Run it under scancheck:

    scancheck fuzz --worker 'python3 examples/numpy_worker.py' --backends 'numpy:*' --cases 200

`--misbehave` adds backends that go wrong on purpose, to see scancheck's verdicts:
    numpy:rglru/dh_last_ignored@fp32    a plausible bug: the backward drops dh_last       (fail, shrunk)
    numpy:rglru/crashes_when_long@fp32  segfaults when L > 1000                          (fault)
    numpy:rglru/hangs_when_long@fp32    never answers when L > 1000                      (timeout)
    numpy:rglru/refuses_odd_batch@fp32  answers ok: false when B is odd                  (error)
"""
import json
import os
import signal
import sys
import time

import numpy as np

F32 = np.float32


def sigmoid_pair(z):
    """sigma(z) and sigma(-z), accurate in both tails."""
    e = np.exp(-np.abs(z))
    big = F32(1) / (F32(1) + e)
    small = e / (F32(1) + e)
    return np.where(z >= 0, big, small), np.where(z >= 0, small, big)


def softplus(z):
    return np.maximum(z, F32(0)) + np.log1p(np.exp(-np.abs(z)))


def load_case(case_dir):
    with open(os.path.join(case_dir, "case.json")) as f:
        meta = json.load(f)
    tensors = {}
    for name in os.listdir(case_dir):
        if name.endswith(".npy"):
            tensors[name[:-4]] = np.load(os.path.join(case_dir, name))
    return meta, tensors


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


def run_scan(meta, t, backward):
    a, b, h0 = t["a"], t["b"], t.get("h0")
    h = forward_scan(a, b, h0)
    out = {"h": h, "h_last": h[:, -1]}
    if backward:
        g = reverse_scan(a, t["dh"], t.get("dh_last"))
        out.update(db=g, da=g * shifted(h, h0), dh0=a[:, 0] * g[:, 0])
    return out


def run_rglru(meta, t, backward, bug=None):
    x, pos, h0 = t["x"], t["segment_pos"], t.get("h0")
    B, L, W = x.shape
    H = meta["heads"]
    K = W // H
    xh = x.reshape(B, L, H, K)

    def gate(w, bias):
        return (np.einsum("blhi,hij->blhj", xh, w) + bias).reshape(B, L, W).astype(F32)

    gx, gx_neg = sigmoid_pair(gate(t["input_gate_w"], t["input_gate_b"]))
    ga, ga_neg = sigmoid_pair(gate(t["a_gate_w"], t["a_gate_b"]))
    s = softplus(t["a_param"])
    log_a = F32(-8) * ga * s
    a = np.exp(log_a)
    q = -np.expm1(F32(2) * log_a)
    reset = (pos == 0)[:, :, None]
    m = np.where(reset, F32(1), np.sqrt(q))
    at = np.where(reset, F32(0), a)
    h = forward_scan(at, x * gx * m, h0)
    out = {"y": h, "h_last": h[:, -1]}
    if not backward:
        return out
    dh_last = None if bug == "dh_last_ignored" else t.get("dh_last")
    g = reverse_scan(at, t["dy"], dh_last)
    d_at = g * shifted(h, h0)
    dgx, dm, dx = g * x * m, g * x * gx, g * gx * m
    two_sqrt_q = F32(2) * np.sqrt(q)
    if meta["sqrt_gradient"] == "bounded":
        two_sqrt_q = np.maximum(two_sqrt_q, F32(1e-3))
    with np.errstate(divide="ignore", invalid="ignore"):
        dq = np.where(reset, F32(0), dm / two_sqrt_q)
    dlog_a = np.where(reset, F32(0), d_at * a) - F32(2) * np.exp(F32(2) * log_a) * dq
    dga = F32(-8) * s * dlog_a
    dzx = (dgx * gx * gx_neg).reshape(B, L, H, K)
    dza = (dga * ga * ga_neg).reshape(B, L, H, K)
    wx, wa = t["input_gate_w"], t["a_gate_w"]
    dx = dx + (np.einsum("blhj,hij->blhi", dzx, wx) + np.einsum("blhj,hij->blhi", dza, wa)).reshape(B, L, W)
    sig_param, _ = sigmoid_pair(t["a_param"])
    out.update(
        dx=dx,
        dh0=at[:, 0] * g[:, 0],
        d_a_param=sig_param * (F32(-8) * ga * dlog_a).sum(axis=(0, 1)),
        d_input_gate_w=np.einsum("blhi,blhj->hij", xh, dzx),
        d_input_gate_b=dzx.sum(axis=(0, 1)),
        d_a_gate_w=np.einsum("blhi,blhj->hij", xh, dza),
        d_a_gate_b=dza.sum(axis=(0, 1)),
    )
    return out


def declared(misbehave):
    backends = [
        {"variant": "sequential", "architecture": "scan", "io_dtype": "float32"},
        {"variant": "textbook", "architecture": "rglru", "io_dtype": "float32"},
    ]
    if misbehave:
        for variant in ("dh_last_ignored", "crashes_when_long", "hangs_when_long", "refuses_odd_batch"):
            backends.append({"variant": variant, "architecture": "rglru", "io_dtype": "float32"})
    return backends


def run(request):
    variant = request["backend"].split("@")[0]
    meta, tensors = load_case(request["case"])
    B, L = tensors["x" if "x" in tensors else "a"].shape[:2]
    if variant == "crashes_when_long" and L > 1000:
        os.kill(os.getpid(), signal.SIGSEGV)
    if variant == "hangs_when_long" and L > 1000:
        while True:
            time.sleep(60)
    if variant == "refuses_odd_batch" and B % 2 == 1:
        return {"ok": False, "error": f"B = {B}: this kernel needs an even batch"}
    if meta["architecture"] == "scan":
        outputs = run_scan(meta, tensors, backward=True)
    else:
        outputs = run_rglru(meta, tensors, backward=True, bug=variant)
    for name, value in outputs.items():
        np.save(os.path.join(request["out"], name + ".npy"), np.ascontiguousarray(value, dtype=F32))
    return {"ok": True}


def main():
    misbehave = "--misbehave" in sys.argv[1:]
    for line in sys.stdin:
        request = json.loads(line)
        if request["op"] == "hello":
            answer = {"protocol": 1, "provider": "numpy", "backends": declared(misbehave)}
        elif request["op"] == "run":
            try:
                answer = run(request)
            except Exception as e:  # a bug of ours: say so, keep serving
                answer = {"ok": False, "error": f"{type(e).__name__}: {e}"}
            answer["id"] = request["id"]
        else:  # bye
            return
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
