"""JAX kernels as scancheck backends: plain functions with jax.vjp for the backward, and Pallas kernels
under `interpret=True` on the CPU: one forward only (pallas_call has no autodiff rule of its own), one with
its backward, a reverse-scan Pallas kernel joined to the forward by jax.custom_vjp, and that backward with a
planted bug (dh_last dropped from the reverse carry), which fuzzing catches.

`jax.lax.associative_scan` is a tree scan, one of the evaluation orders scancheck's bound admits; the
complex one takes native complex64 tensors, whose gradients JAX gives in the conjugate convention (the
library converts them).
"""

import contextlib

import numpy as np
import pytest

import scancheck

from .kernels.examples import only_failure

jax = pytest.importorskip("jax")
jnp = jax.numpy
jax.config.update("jax_enable_x64", False)

SCANCHECK_PROVIDER = "jaxscans"


def _combine(left, right):
    a1, b1 = left
    a2, b2 = right
    return a2 * a1, a2 * b1 + b2


@jax.jit  # one compilation per shape, not one per operation of the tree
def tree_scan(a, b, h0):
    b = b.at[:, 0].add(a[:, 0] * h0)  # the initial state enters the first step
    return jax.lax.associative_scan(_combine, (a, b), axis=1)[1]


def loop_scan(a, b, h0):
    def step(h, ab):
        h = ab[0] * h + ab[1]
        return h, h

    _, hs = jax.lax.scan(step, h0, (jnp.swapaxes(a, 0, 1), jnp.swapaxes(b, 0, 1)))
    return jnp.swapaxes(hs, 0, 1)


@scancheck.backend("scan", variant="associative_scan", framework="jax")
def associative(a, b, h0):
    return tree_scan(a, b, h0)


@scancheck.backend("scan", variant="lax_scan_time_major", framework="jax", layout="L B W")
def lax_scan_time_major(a, b, h0):
    return jnp.swapaxes(loop_scan(jnp.swapaxes(a, 0, 1), jnp.swapaxes(b, 0, 1), h0), 0, 1)


@scancheck.backend("complex_scan", variant="associative_scan_native", framework="jax", complex_layout="native")
def associative_native_complex(a, b, h0):
    return tree_scan(a, b, h0)


def _pallas_scan_kernel(a_ref, b_ref, h0_ref, h_ref):
    def step(t, h):
        h = a_ref[:, t, :] * h + b_ref[:, t, :]
        h_ref[:, t, :] = h
        return h

    jax.lax.fori_loop(0, a_ref.shape[1], step, h0_ref[...])


PALLAS_BUDGET = {"max_length": 256, "max_width": 64, "max_batch": 4}


def _pallas_forward(a, b, h0):
    from jax.experimental import pallas as pl

    return pl.pallas_call(_pallas_scan_kernel, out_shape=jax.ShapeDtypeStruct(b.shape, b.dtype), interpret=True)(
        a, b, h0
    )


@scancheck.backend("scan", variant="pallas_loop", framework="jax", passes=("forward",), constraints=PALLAS_BUDGET)
def pallas_loop(a, b, h0):
    return _pallas_forward(a, b, h0)


def _pallas_scan_backward_kernel(a_ref, h0_ref, h_ref, dh_ref, dh_last_ref, da_ref, db_ref, dh0_ref, *, drop_dh_last):
    """The reverse scan: g_t = dh_t + a_{t+1} g_{t+1}, from the carry dh_last at t = L-1 down to t = 0;
    db_t = g_t, da_t = g_t h_{t-1} (h_{-1} = h0), dh0 = a_0 g_0 (recurrences.md, the scan's backward)."""
    length = a_ref.shape[1]

    def step(i, carry):  # carry: a_{t+1} g_{t+1}, [B, W]
        t = length - 1 - i
        g = dh_ref[:, t, :] + carry
        h_before = jnp.where(t > 0, h_ref[:, jnp.maximum(t - 1, 0), :], h0_ref[...])
        db_ref[:, t, :] = g
        da_ref[:, t, :] = g * h_before
        return a_ref[:, t, :] * g

    carry = jnp.zeros_like(dh_last_ref[...]) if drop_dh_last else dh_last_ref[...]  # the bug: dh_last lost
    dh0_ref[...] = jax.lax.fori_loop(0, length, step, carry)


def _pallas_scan_with_backward(drop_dh_last=False):
    """A scan of Pallas kernels, forward and backward, as a kernel author writes one: pallas_call has no
    autodiff rule, so jax.custom_vjp joins the forward kernel to its reverse-scan kernel. It returns
    (h, h_last), so the backward kernel takes dh_last as its own input, as real kernels do."""
    import functools

    from jax.experimental import pallas as pl

    def backward(a, h0, h, dh, dh_last):
        shapes = (
            jax.ShapeDtypeStruct(a.shape, a.dtype),
            jax.ShapeDtypeStruct(a.shape, a.dtype),
            jax.ShapeDtypeStruct(h0.shape, h0.dtype),
        )
        kernel = functools.partial(_pallas_scan_backward_kernel, drop_dh_last=drop_dh_last)
        return pl.pallas_call(kernel, out_shape=shapes, interpret=True)(a, h0, h, dh, dh_last)

    @jax.custom_vjp
    def scan(a, b, h0):
        h = _pallas_forward(a, b, h0)
        return h, h[:, -1]

    def scan_forward(a, b, h0):
        h = _pallas_forward(a, b, h0)
        return (h, h[:, -1]), (a, h0, h)

    def scan_backward(saved, cotangents):
        a, h0, h = saved
        dh, dh_last = cotangents
        return backward(a, h0, h, dh, dh_last)

    scan.defvjp(scan_forward, scan_backward)
    return scan


_pallas_scan = _pallas_scan_with_backward()
_pallas_scan_dropping_dh_last = _pallas_scan_with_backward(drop_dh_last=True)


@scancheck.backend("scan", variant="pallas_loop_vjp", framework="jax", constraints=PALLAS_BUDGET)
def pallas_loop_vjp(a, b, h0):
    return _pallas_scan(a, b, h0)


@scancheck.backend("scan", variant="pallas_loop_vjp_drops_dh_last", framework="jax", constraints=PALLAS_BUDGET)
def _pallas_loop_vjp_drops_dh_last(a, b, h0):
    return _pallas_scan_dropping_dh_last(a, b, h0)


def test_jax_gradients_come_back_in_the_spec_convention(make_case, tmp_path):
    """The complex tree scan through the library equals numpy's hand-written backward (conj included)."""
    from .kernels.numpy_scans import backward_scan

    case = make_case("complex_scan", 2, 5, 6, seed=3)
    associative_native_complex.run(case, tmp_path)
    t = {p.stem: np.load(p) for p in case.glob("*.npy")}
    native = {k: v[..., :3] + 1j * v[..., 3:] for k, v in t.items()}
    want = backward_scan(native["a"], native["b"], native["h0"], native["dh"], native.get("dh_last"))
    got = np.load(tmp_path / "da.npy")
    np.testing.assert_allclose(got[..., :3] + 1j * got[..., 3:], want["a"], rtol=1e-4, atol=1e-5)


def test_the_pallas_backward_equals_the_hand_written_one(make_case, tmp_path):
    """The reverse-scan Pallas kernel through the library equals numpy's backward, dh_last included."""
    from .kernels.numpy_scans import backward_scan

    case = make_case("scan", 2, 9, 3, seed=4)
    pallas_loop_vjp.run(case, tmp_path)
    t = {p.stem: np.load(p) for p in case.glob("*.npy")}
    want = backward_scan(t["a"], t["b"], t["h0"], t["dh"], t.get("dh_last"))
    for name in ("a", "b", "h0"):
        np.testing.assert_allclose(
            np.load(tmp_path / f"d{name}.npy"), want[name], rtol=1e-5, atol=1e-6, err_msg=f"d{name}"
        )


def test_a_pallas_backward_that_drops_dh_last_is_caught(scancheck_fuzz, tmp_path):
    result = scancheck_fuzz(_pallas_loop_vjp_drops_dh_last, cases=20, findings=tmp_path)
    failure = only_failure(result, where="only where dh_last matters: the run passes without it", shape="1,1,1,1")
    assert failure.repro


def test_a_run_leaves_no_compiled_code_cached(make_case, tmp_path):
    """A fuzzing worker meets a new shape almost every case: kept, JAX's compilations grew it without end."""
    case = make_case("scan", 2, 7, 3, seed=5)
    tree_scan(jnp.ones((1, 2)), jnp.ones((1, 2)), jnp.ones(1))
    assert tree_scan._cache_size() == 1
    associative.run(case, tmp_path)
    assert tree_scan._cache_size() == 0


@scancheck.backend("scan", variant="associative_scan_bucketed", framework="jax", shapes="bucketed")
def associative_bucketed(a, b, h0):
    return tree_scan(a, b, h0)


@contextlib.contextmanager
def counted_compilations():
    """The number of XLA compilations within the block, from JAX's own monitoring events."""
    count = [0]

    def on_event(event: str, duration: float, **_: object) -> None:
        count[0] += event == "/jax/core/compile/backend_compile_duration"

    jax.monitoring.register_event_duration_secs_listener(on_event)
    try:
        yield count
    finally:
        jax.monitoring.unregister_event_duration_listener(on_event)


def test_a_bucketed_backend_keeps_its_compiled_code_within_a_bound(make_case, tmp_path, monkeypatch):
    """Compiled once per shape and kept: a second case of a shape compiles nothing. Past the shape bound or the
    memory bound everything is dropped, as after every run of a backend that is not bucketed."""
    from scancheck._frameworks import framework

    jax_framework = framework("jax")
    seven, seven_again, nine = (make_case("scan", 2, length, 3, seed=seed) for length, seed in ((7, 1), (7, 2), (9, 3)))
    monkeypatch.setattr(jax_framework, "compiled_shapes", 2)
    jax_framework.after_run(None)  # nothing kept from earlier tests
    compilations = []
    for case in (seven, seven_again, nine, seven):
        with counted_compilations() as count:
            associative_bucketed.run(case, tmp_path)
        compilations.append(count[0])
    assert compilations[0] > 0, compilations
    assert compilations[2] > 0, compilations
    assert compilations[1] == compilations[3] == 0, f"L = 7 compiled again: {compilations}"
    associative_bucketed.run(make_case("scan", 1, 5, 3), tmp_path)  # a third shape: everything is dropped
    with counted_compilations() as past_bound:
        associative_bucketed.run(seven, tmp_path)
    assert past_bound[0] > 0
    monkeypatch.setattr(jax_framework, "compiled_mib", 0.0)
    associative_bucketed.run(seven, tmp_path)
    with counted_compilations() as over_memory:
        associative_bucketed.run(seven, tmp_path)
    assert over_memory[0] > 0
