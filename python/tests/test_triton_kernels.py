"""A Triton kernel written here, checked as its author would: `pytest --scancheck` fuzzes these backends.

kernels/triton_scan.py is a chunked scan with `tl.associative_scan` (chunk-local scans plus the carry times
the cumulative decay, forward and backward); here it is declared as a scan backend, with two planted bugs
(h_last detached from the graph, so dh_last is lost; the backward kernel dropping the last step's
cotangent), and inside the RG-LRU layer of
examples/torch_worker.py. Without a GPU the kernels run under Triton's interpreter (the library sets
TRITON_INTERPRET=1), whose Python loop over every element of a tile is slow: the constraints keep cases small.
"""

import pytest

import scancheck

torch = pytest.importorskip("torch")
pytest.importorskip("triton")

from .kernels.examples import only_failure, torch_worker  # noqa: E402
from .kernels.triton_scan import chunked_scan  # noqa: E402

SCANCHECK_PROVIDER = "tritonscan"
# What the interpreter gets through in about a second a run; a GPU takes every shape.
INTERPRETER_BUDGET = {"max_length": 80, "max_width": 16, "max_batch": 2}


@scancheck.backend("scan", variant="triton_chunk16", constraints=INTERPRETER_BUDGET)
def triton_chunk16(a, b, h0):
    return chunked_scan(a, b, h0, chunk=16)


@scancheck.backend("scan", variant="triton_chunk16_log", decays="log", constraints=INTERPRETER_BUDGET)
def triton_chunk16_log(log_a, b, h0):
    return chunked_scan(torch.exp(log_a), b, h0, chunk=16)  # log-space decays, as Mamba's and FLA's take them


@scancheck.backend("scan", variant="triton_chunk16_drops_dh_last", constraints=INTERPRETER_BUDGET)
def _triton_chunk16_drops_dh_last(a, b, h0):
    h = chunked_scan(a, b, h0, chunk=16)
    return h, h[:, -1].detach()  # the bug: h_last is cut from the graph, so dh_last never reaches the scan


@scancheck.backend("scan", variant="triton_chunk16_drops_last_step", constraints=INTERPRETER_BUDGET)
def _triton_chunk16_drops_last_step(a, b, h0):
    return chunked_scan(a, b, h0, chunk=16, drop_last_cotangent=True)  # the backward loses dh at t = L-1


@scancheck.backend("rglru", variant="triton_chunk16_layer", constraints=INTERPRETER_BUDGET)
def triton_chunk16_layer(
    x, segment_pos, h0, a_param, input_gate_w, input_gate_b, a_gate_w, a_gate_b, heads, sqrt_gradient
):
    return torch_worker().rg_lru(
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
        scan=lambda at, u, state: chunked_scan(at, u, state, chunk=16),
    )


def test_a_dropped_dh_last_is_caught_with_its_cause(scancheck_fuzz, tmp_path):
    result = scancheck_fuzz(_triton_chunk16_drops_dh_last, cases=40, findings=tmp_path)
    failure = only_failure(result, where="only where dh_last matters: the run passes without it", shape="1,1,1,1")
    assert failure.repro


def test_a_lost_last_step_is_caught_in_the_backward(scancheck_fuzz, tmp_path):
    result = scancheck_fuzz(_triton_chunk16_drops_last_step, cases=40, findings=tmp_path)
    assert not result.passed
    assert any(d.startswith("where: backward only") for d in result.failures[0].details)
