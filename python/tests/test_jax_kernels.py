"""JAX kernels as scancheck backends: plain functions with jax.vjp for the backward, and a Pallas kernel
under `interpret=True` on the CPU (forward only: pallas_call has no autodiff rule of its own).

`jax.lax.associative_scan` is a tree scan, one of the evaluation orders scancheck's bound admits; the
complex one takes native complex64 tensors, whose gradients JAX gives in the conjugate convention (the
library converts them).
"""

import numpy as np
import pytest

import scancheck

jax = pytest.importorskip("jax")
jnp = jax.numpy
jax.config.update("jax_enable_x64", False)

SCANCHECK_PROVIDER = "jaxscans"


def _combine(left, right):
    a1, b1 = left
    a2, b2 = right
    return a2 * a1, a2 * b1 + b2


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


@scancheck.backend("scan", variant="pallas_loop", framework="jax", passes=("forward",),
                   constraints={"max_length": 256, "max_width": 64, "max_batch": 4})
def pallas_loop(a, b, h0):
    from jax.experimental import pallas as pl

    return pl.pallas_call(_pallas_scan_kernel, out_shape=jax.ShapeDtypeStruct(b.shape, b.dtype),
                          interpret=True)(a, b, h0)


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
