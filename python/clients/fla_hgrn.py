"""flash-linear-attention's HGRN (`fla.ops.hgrn`, package fla-core): h_t = exp(g_t) h_{t-1} + x_t, as scancheck
backends of the plain scan with decays in log space (g = log a, x = b): adapters only.

The Triton kernels (chunked, chunks of 128 steps; fused recurrent) and the naive PyTorch loop take [B, T, D]
(layout "B L W") and float32 state. `chunk_hgrn`'s backward returns no gradient for the initial state and
ignores the final state's cotangent (ChunkHGRNFunction.backward), so it is declared with `omits=("dh0",)`
and its h_last is read from o's last step; `chunk_hgrn_final_state` below takes the kernel's own final state
and is kept private, as a known failure (docs/public-kernels.md). Triton runs under its interpreter without a
GPU, so interpreted cases stay small (a length up to 300 still crosses two chunk boundaries); interpreted,
the autotuners keep their first config (BD = 32: width 40 crosses a tile of channels).
"""

import torch
from fla.ops.hgrn import chunk_hgrn, fused_recurrent_hgrn
from fla.ops.hgrn.naive import naive_recurrent_hgrn

import scancheck

SCANCHECK_PROVIDER = "fla_hgrn"
SCANCHECK_PROVENANCE: scancheck.Provenance = {"package": "fla", "commit": ""}  # fla-core's wheel, not this repo
INTERPRETER = {} if torch.cuda.is_available() else {"max_length": 300, "max_width": 40, "max_batch": 2}


@scancheck.backend("scan", variant="chunk", decays="log", constraints=INTERPRETER, omits=("dh0",))
def chunk(log_a, b, h0):
    return chunk_hgrn(b, log_a, initial_state=h0)[0]


@scancheck.backend("scan", variant="fused_recurrent", decays="log", constraints=INTERPRETER)
def fused_recurrent(log_a, b, h0):
    return fused_recurrent_hgrn(b, log_a, initial_state=h0, output_final_state=True)


@scancheck.backend("scan", variant="naive", decays="log")
def naive(log_a, b, h0):
    return naive_recurrent_hgrn(b, log_a, initial_state=h0, output_final_state=True)


@scancheck.backend("scan", variant="chunk_final_state", decays="log", constraints=INTERPRETER, omits=("dh0",))
def _chunk_final_state(log_a, b, h0):
    return chunk_hgrn(b, log_a, initial_state=h0, output_final_state=True)
