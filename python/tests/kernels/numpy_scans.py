"""Scan kernels in numpy, declared in several conventions, for the library's own tests.

A sequential loop over time in float32, its backward written by hand (numpy has no autodiff): the plain
scan in the spec's layout, in [L, B, W] and in [B, W, L], the complex scan as native complex64, and one with
a deliberate bug (the backward drops dh_last).
"""

import numpy as np

import scancheck

SCANCHECK_PROVIDER = "npscans"


def forward_scan(a, b, h0=None, time_axis=1):
    a, b = np.moveaxis(a, time_axis, 1), np.moveaxis(b, time_axis, 1)
    h = np.empty_like(b)
    state = np.zeros_like(b[:, 0]) if h0 is None else h0.astype(b.dtype)
    for t in range(b.shape[1]):
        state = a[:, t] * state + b[:, t]
        h[:, t] = state
    return np.moveaxis(h, 1, time_axis)


def backward_scan(a, b, h0, dh, dh_last, time_axis=1):
    """da, db, dh0 of recurrences.md section 1 (conj for the complex scan)."""
    a, b, dh = (np.moveaxis(x, time_axis, 1) for x in (a, b, dh))
    h = forward_scan(a, b, h0)
    g = np.empty_like(dh)
    carry = np.zeros_like(dh[:, 0]) if dh_last is None else dh_last.astype(dh.dtype)
    for t in range(dh.shape[1] - 1, -1, -1):
        carry = dh[:, t] + (np.conj(a[:, t + 1]) * carry if t + 1 < dh.shape[1] else carry)
        g[:, t] = carry
    previous = np.concatenate([(np.zeros_like(h[:, :1]) if h0 is None else h0[:, None]), h[:, :-1]], axis=1)
    grads = {"a": g * np.conj(previous), "b": g, "h0": np.conj(a[:, 0]) * g[:, 0]}
    return {k: (np.moveaxis(v, 1, time_axis) if v.ndim == 3 else v) for k, v in grads.items()}


def _backward(time_axis=1, drop_dh_last=False):
    def backward(a, b, dh, h0=None, dh_last=None):
        return backward_scan(a, b, h0, dh, None if drop_dh_last else dh_last, time_axis)

    return backward


@scancheck.backend("scan", variant="loop", framework="numpy", backward=_backward())
def loop(a, b, h0):
    return forward_scan(a, b, h0)


@scancheck.backend("scan", variant="loop_time_major", framework="numpy", layout="L B W", backward=_backward(0))
def loop_time_major(a, b, h0):
    return forward_scan(a, b, h0, time_axis=0)


@scancheck.backend("scan", variant="loop_channels_first", framework="numpy", layout="B W L", backward=_backward(2))
def loop_channels_first(a, b, h0):
    return forward_scan(a, b, h0, time_axis=2)


@scancheck.backend(
    "complex_scan", variant="loop_native_complex", framework="numpy", complex_layout="native", backward=_backward()
)
def loop_native_complex(a, b, h0):
    return forward_scan(a, b, h0)


@scancheck.backend("scan", variant="loop_drops_dh_last", framework="numpy", backward=_backward(drop_dh_last=True))
def loop_drops_dh_last(a, b, h0):
    return forward_scan(a, b, h0)
