"""scancheck.gla: gated linear attention problems drawn, run through PyTorch autograd and judged by
`scancheck gla verify`; fla's kernels (fused recurrent under Triton's interpreter, the naive recurrences)
pass in float32 and bfloat16 io and in either layout, kernels with a known mistake fail, and bad input is an
error naming it."""

from __future__ import annotations

import numpy as np
import pytest

from scancheck import gla

torch = pytest.importorskip("torch")
pytest.importorskip("fla")

from scancheck.protocol import interpret_triton_without_gpu  # noqa: E402

interpret_triton_without_gpu()

from fla.ops.gla import fused_recurrent_gla  # noqa: E402
from fla.ops.simple_gla import fused_recurrent_simple_gla  # noqa: E402
from fla.ops.simple_gla.naive import naive_recurrent_simple_gla  # noqa: E402


def naive_simple(q, k, v, g, scale=None, initial_state=None, output_final_state=True, cu_seqlens=None):
    assert cu_seqlens is None
    return naive_recurrent_simple_gla(q, k, v, g, scale=scale, initial_state=initial_state)


@pytest.mark.parametrize("regime", gla.REGIMES)
@pytest.mark.parametrize(
    ("architecture", "kernel"), [("gla", fused_recurrent_gla), ("simple_gla", fused_recurrent_simple_gla)]
)
def test_fla_fused_recurrent_kernels_pass(architecture, kernel, regime):
    problem = gla.draw(architecture, batch=2, length=37, heads=2, keys=16, values=12, seed=5, regime=regime)
    verdict = gla.verify(problem, gla.run_torch(kernel, problem))
    assert verdict.passed, verdict.report
    assert verdict.report.count("pass") == len(gla.OUTPUTS)


def test_packed_sequences_pass_and_are_judged_per_sequence():
    problem = gla.draw("gla", batch=1, length=50, heads=1, keys=8, values=8, seed=9, cu_seqlens=[0, 20, 21, 50])
    assert problem.h0.shape == (3, 1, 8, 8)
    verdict = gla.verify(problem, gla.run_torch(fused_recurrent_gla, problem))
    assert verdict.passed, verdict.report


def test_a_kernel_reading_its_gate_a_step_late_fails():
    def late(q, k, v, g, **kwargs):
        return naive_simple(q, k, v, torch.cat([g[:, :1] * 0, g[:, :-1]], dim=1), **kwargs)

    problem = gla.draw("simple_gla", batch=1, length=30, heads=2, keys=4, values=4, seed=3)
    assert gla.verify(problem, gla.run_torch(naive_simple, problem)).passed
    verdict = gla.verify(problem, gla.run_torch(late, problem))
    assert not verdict.passed
    assert "FAIL" in verdict.report


def test_a_kernel_losing_accuracy_everywhere_fails_by_its_distribution():
    # o rounded through bfloat16's 8 bits on every element: each within a few bounds of the worst case's
    # reach, far beyond what any correct float32 order loses.
    def rounded(*args, **kwargs):
        o, ht = fused_recurrent_simple_gla(*args, **kwargs)
        return o.to(torch.bfloat16).to(torch.float32), ht

    problem = gla.draw("simple_gla", batch=1, length=40, heads=2, keys=8, values=8, seed=4)
    verdict = gla.verify(problem, gla.run_torch(rounded, problem))
    assert not verdict.passed
    assert any(line.startswith("o ") and line.endswith("FAIL") for line in verdict.report.splitlines())


@pytest.mark.parametrize("regime", gla.REGIMES)
@pytest.mark.parametrize(
    ("architecture", "kernel"), [("gla", fused_recurrent_gla), ("simple_gla", fused_recurrent_simple_gla)]
)
def test_fla_fused_recurrent_kernels_pass_in_bfloat16(architecture, kernel, regime):
    problem = gla.draw(
        architecture, batch=1, length=45, heads=2, keys=8, values=8, seed=6, regime=regime, io_dtype="bfloat16"
    )
    assert np.array_equal(gla.round_to_bfloat16(problem.q), problem.q)
    verdict = gla.verify(problem, gla.run_torch(kernel, problem))
    assert verdict.passed, verdict.report


def test_a_state_kept_in_bfloat16_fails_on_the_states_it_returns():
    # The recurrence with its state kept in bfloat16 (rounded at every step, where fla carries and returns
    # float32): its final state and dh0 lose accuracy on every element, many times what any correct order
    # loses; its o, dq, dk, dv stay within what bfloat16 operands in a chunked kernel lose, and pass.
    def bf16_state(q, k, v, g, scale=None, initial_state=None, output_final_state=True, cu_seqlens=None):
        state = initial_state.to(torch.bfloat16)
        outputs = []
        for t in range(q.shape[1]):
            decay = g[:, t].exp()[..., None, None]
            state = decay * state + k[:, t, :, :, None] * v[:, t, :, None, :]
            outputs.append(torch.einsum("bhk,bhkv->bhv", q[:, t] * scale, state))
        return torch.stack(outputs, dim=1), state

    problem = gla.draw(
        "simple_gla",
        batch=1,
        length=200,
        heads=1,
        keys=8,
        values=8,
        seed=8,
        regime="long_memory",
        io_dtype="bfloat16",
        scale=0.5,
    )
    assert gla.verify(problem, gla.run_torch(fused_recurrent_simple_gla, problem)).passed
    verdict = gla.verify(problem, gla.run_torch(bf16_state, problem))
    assert not verdict.passed
    failing = {line.split()[0] for line in verdict.report.splitlines()[1:-1] if line.endswith("FAIL")}
    assert failing == {"ht", "dh0"}, verdict.report
    assert "accuracy lost on every element" in verdict.report


def test_head_first_kernels_are_called_in_their_layout():
    def head_first(q, k, v, g, **kwargs):
        assert q.shape == (2, 3, 7, 4)  # [B, H, T, K]
        o, ht = fused_recurrent_gla(*(x.transpose(1, 2) for x in (q, k, v, g)), **kwargs)
        return o.transpose(1, 2), ht

    problem = gla.draw("gla", batch=2, length=7, heads=3, keys=4, values=5, seed=2)
    outputs = gla.run_torch(head_first, problem, head_first=True)
    assert outputs["o"].shape == (2, 7, 3, 5)
    assert gla.verify(problem, outputs).passed


def test_outputs_in_any_memory_order_are_judged():
    # A kernel's outputs may be views (a transpose back to fla's layout): they are judged as values.
    problem = gla.draw("gla", batch=2, length=6, heads=3, keys=4, values=5, seed=2)
    outputs = gla.run_torch(fused_recurrent_gla, problem)
    outputs["o"] = np.asfortranarray(outputs["o"])
    assert gla.verify(problem, outputs).passed


def test_bad_input_is_an_error_naming_it(tmp_path):
    problem = gla.draw("gla", batch=1, length=5, heads=1, keys=2, values=3, seed=1)
    with pytest.raises(ValueError, match="not outputs of gla"):
        gla.verify(problem, {"y": np.zeros(3, np.float32)})
    with pytest.raises(ValueError, match=r"o\.npy is \[1, 5, 1, 2\], expected \[1, 5, 1, 3\]"):
        gla.verify(problem, {"o": np.zeros((1, 5, 1, 2), np.float32)})
    with pytest.raises(ValueError, match="regime"):
        gla.draw("gla", batch=1, length=5, heads=1, keys=2, values=3, seed=1, regime="clip")
    folder = gla.write(problem, tmp_path / "problem")
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        ["case.json", "q.npy", "k.npy", "v.npy", "g.npy", "do.npy", "h0.npy", "dht.npy"]
    )
