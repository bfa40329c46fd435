"""Kernels compiled per shape under torch.compile: with bucketed shapes every shape of the set runs compiled.

torch.compile keeps one compiled graph per shape (dynamic=False) and, past its recompile limit of 8, runs the
function uncompiled without a word; scancheck would then judge the eager code, not the kernel its users run.
"""

import pytest

import scancheck

torch = pytest.importorskip("torch")
from torch._dynamo.testing import CompileCounter  # noqa: E402

SCANCHECK_PROVIDER = "compiled"
compilations = CompileCounter()


@torch.compile(backend=compilations, dynamic=False)
def _compiled_loop(a, b, h0):
    h, states = h0, []
    for t in range(a.shape[1]):
        h = a[:, t] * h + b[:, t]
        states.append(h)
    return torch.stack(states, dim=1)


@scancheck.backend("scan", variant="compiled_loop", shapes="bucketed", constraints={"max_length": 40})
def compiled_loop(a, b, h0):
    return _compiled_loop(a, b, h0)


def test_every_shape_of_a_bucketed_kernel_runs_compiled(make_case, tmp_path, monkeypatch):
    monkeypatch.setattr(torch._dynamo.config, "recompile_limit", 8)  # torch's default, restored afterwards
    torch._dynamo.reset()
    compilations.clear()
    for length in range(1, 13):
        compiled_loop.run(make_case("scan", 1, length, 2), tmp_path)
    assert compilations.frame_count == 12, "some shapes ran uncompiled"
