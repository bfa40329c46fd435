"""RecurrentGemma's PyTorch RG-LRU (`recurrentgemma.torch.layers.RGLRU`) as a scancheck backend: adapters only.

The module is built on the meta device and called with the case's parameters by `torch.func.functional_call`,
so its own forward (gates, the literal q = 1 - exp(2 log a), SqrtBoundDerivative, rnn_scan) runs unchanged
and autograd gives the backward. It takes x and its parameters in one dtype (its einsum refuses bfloat16 x
with float32 parameters), so only float32 is declared; its sqrt gradient is bounded (SqrtBoundDerivative).
"""

import torch
from recurrentgemma.torch import layers

import scancheck

SCANCHECK_PROVIDER = "recurrentgemma_torch"
SCANCHECK_PROVENANCE: scancheck.Provenance = {"package": "recurrentgemma", "commit": ""}  # the wheel, not this repo


@scancheck.backend("rglru", variant="rglru", constraints={"sqrt_gradient": ["bounded"]})
def rglru(x, segment_pos, h0, a_param, input_gate_w, input_gate_b, a_gate_w, a_gate_b, heads):
    module = layers.RGLRU(width=x.shape[-1], num_heads=heads, device="meta")
    parameters = {
        "a_param": a_param,
        "input_gate.w": input_gate_w,
        "input_gate.b": input_gate_b,
        "a_gate.w": a_gate_w,
        "a_gate.b": a_gate_b,
    }
    return torch.func.functional_call(module, parameters, (x, segment_pos, h0))  # (y, last_h)
