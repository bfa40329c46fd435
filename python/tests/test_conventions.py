"""Conventions: every conversion to a kernel's layout is exact and has an inverse."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from scancheck.conventions import COMPLEX_LAYOUTS, LAYOUTS, Conventions


@given(
    layout=st.sampled_from(LAYOUTS),
    complex_layout=st.sampled_from(COMPLEX_LAYOUTS),
    batch=st.integers(1, 3),
    length=st.integers(1, 5),
    heads=st.sampled_from([1, 2, 4]),
    seed=st.integers(0, 99),
)
def test_round_trip_is_exact(layout, complex_layout, batch, length, heads, seed):
    rng = np.random.default_rng(seed)
    width = 2 * heads * 2  # merged complex: two parts of heads * 2 channels
    c = Conventions(layout, complex_layout)
    activation = rng.standard_normal((batch, length, width)).astype(np.float32)
    state = rng.standard_normal((batch, width)).astype(np.float32)
    for x, role in ((activation, "activation"), (state, "state")):
        for is_complex in (False, True):
            kernel = c.to_kernel(x, role, heads, is_complex)
            np.testing.assert_array_equal(c.to_spec(kernel, role, is_complex), x)


def test_layouts_put_axes_where_they_say():
    x = np.arange(2 * 3 * 8, dtype=np.float32).reshape(2, 3, 8)  # [B, L, W]
    assert Conventions("L B W").to_kernel(x, "activation", 1)[2, 1, 5] == x[1, 2, 5]
    assert Conventions("B W L").to_kernel(x, "activation", 1)[1, 5, 2] == x[1, 2, 5]
    assert Conventions("B H L D").to_kernel(x, "activation", 2)[1, 1, 2, 1] == x[1, 2, 5]
    assert Conventions("B L H D").to_kernel(x, "activation", 2)[1, 2, 1, 1] == x[1, 2, 5]


def test_complex_layouts():
    merged = np.array([[1, 2, 10, 20]], dtype=np.float32)  # 1 + 10i, 2 + 20i
    np.testing.assert_array_equal(
        Conventions(complex_layout="interleaved").to_kernel(merged, "state", 1, True), [[1, 10, 2, 20]]
    )
    native = Conventions(complex_layout="native").to_kernel(merged, "state", 1, True)
    assert native.dtype == np.complex64
    np.testing.assert_array_equal(native, [[1 + 10j, 2 + 20j]])


@pytest.mark.parametrize(("field", "value"), [("layout", "W L B"), ("complex_layout", "polar")])
def test_unknown_conventions_are_refused_by_name(field, value):
    with pytest.raises(ValueError, match=value):
        Conventions(**{field: value})
