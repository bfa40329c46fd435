"""The conventions real kernels bring for decays and resets: log a (Mamba- and FLA-style scans), per-step reset
flags, and packed variable-length sequences with their offsets (`cu_seqlens`).

A log-decay backend gets its cases with log a exactly (case.json "decays": "log") and is judged on the
gradient with respect to log a; one that returns da for dlog_a is caught. The packed RG-LRU passes when every
sequence start is a reset in the backward too, and is caught when the decay's gradient leaks across a start.
"""

import numpy as np
import pytest

import scancheck
from scancheck.conventions import PackedSequences

torch = pytest.importorskip("torch")

from .kernels.examples import only_failure, torch_worker  # noqa: E402
from .kernels.packed_rglru import packed_rglru  # noqa: E402

SCANCHECK_PROVIDER = "decaysresets"
SMALL = {"max_length": 48, "max_width": 16, "max_batch": 3}


@scancheck.backend("scan", variant="log_loop", decays="log", constraints=SMALL)
def log_loop(log_a, b, h0):
    return torch_worker().sequential_scan(torch.exp(log_a), b, h0)


@scancheck.backend("scan", variant="log_loop_returns_da", decays="log", constraints=SMALL)
def _log_loop_returns_da(log_a, b, h0):
    a = torch.exp(log_a).detach() + (log_a - log_a.detach())  # the bug: d a / d log a taken as 1, not a
    return torch_worker().sequential_scan(a, b, h0)


@scancheck.backend("rglru", variant="packed", resets="cu_seqlens", constraints={**SMALL, "sqrt_gradient": ["bounded"]})
def packed(x, cu_seqlens, a_param, input_gate_w, input_gate_b, a_gate_w, a_gate_b, heads):
    return packed_rglru(x, cu_seqlens, a_param, input_gate_w, input_gate_b, a_gate_w, a_gate_b, heads=heads)


@scancheck.backend(
    "rglru",
    variant="packed_leaks_start_gradient",
    resets="cu_seqlens",
    constraints={**SMALL, "sqrt_gradient": ["bounded"]},
)
def _packed_leaks_start_gradient(x, cu_seqlens, a_param, input_gate_w, input_gate_b, a_gate_w, a_gate_b, heads):
    return packed_rglru(
        x, cu_seqlens, a_param, input_gate_w, input_gate_b, a_gate_w, a_gate_b, heads=heads, leak_start_gradient=True
    )


@scancheck.backend(
    "rglru", variant="flags_only_y", resets="flags", layout="L B W", constraints={**SMALL, "sqrt_gradient": ["bounded"]}
)
def flags_only_y(x, reset, h0, a_param, input_gate_w, input_gate_b, a_gate_w, a_gate_b, heads):
    segment_pos = (~reset.T).to(torch.int32)  # [L, B] flags back to positions: 0 where a step resets
    y, _ = torch_worker().rg_lru(
        x.transpose(0, 1),
        segment_pos,
        h0,
        a_param,
        input_gate_w,
        input_gate_b,
        a_gate_w,
        a_gate_b,
        heads=heads,
        sqrt_gradient="bounded",
    )
    return y.transpose(0, 1)


def test_packing_cuts_at_every_reset_and_finds_each_entrys_last_sequence():
    p = PackedSequences.of(np.array([[0, 1, 2, 0], [0, 0, 1, 2]], np.int32))
    assert p.cu_seqlens.tolist() == [0, 3, 4, 5, 8]
    assert p.last_of_batch.tolist() == [1, 3]
    assert p.last_steps.tolist() == [3, 7]
    x = np.arange(2 * 4 * 3).reshape(2, 4, 3)
    assert np.array_equal(p.unpack(p.pack(x)), x)


def test_packing_refuses_a_batch_entry_that_continues():
    with pytest.raises(ValueError, match="resets_at_start"):
        PackedSequences.of(np.array([[0, 1], [5, 6]], np.int32))


def test_declarations_say_the_forms():
    assert log_loop.declaration()["decays"] == "log"
    assert "dlog_a" in {t.gradient for t in log_loop.spec.differentiable}
    assert packed.declaration()["constraints"]["resets_at_start"] is True
    assert packed.declaration()["omits"] == ["dh0"]
    with pytest.raises(ValueError, match="only the real scan"):
        scancheck.backend("rglru", decays="log")(lambda x, segment_pos: x)
    with pytest.raises(ValueError, match="RG-LRU layers"):
        scancheck.backend("scan", resets="flags")(lambda a, b: a)
    with pytest.raises(ValueError, match="drop its h0"):
        scancheck.backend("rglru", resets="cu_seqlens")(lambda x, cu_seqlens, h0: x)


def test_log_decays_judge_the_gradient_with_respect_to_log_a(scancheck_fuzz, tmp_path):
    result = scancheck_fuzz(_log_loop_returns_da, cases=30, findings=tmp_path)
    failure = only_failure(result)
    assert "--decays log" in failure.summary
    assert any("dlog_a" in d for d in failure.details), failure.details


def test_a_gradient_leaking_across_a_sequence_start_is_caught(scancheck_fuzz, tmp_path):
    result = scancheck_fuzz(_packed_leaks_start_gradient, cases=25, findings=tmp_path)
    failure = only_failure(result)
    assert "--resets-at-start" in failure.summary
    assert failure.repro


@pytest.mark.parametrize("correct", [log_loop, packed, flags_only_y], ids=lambda b: b.variant)
def test_correct_kernels_pass_in_every_convention(scancheck_fuzz, tmp_path, correct):
    result = scancheck_fuzz(correct, cases=25, findings=tmp_path)
    assert result.passed, result.output
