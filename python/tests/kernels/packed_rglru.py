"""A packed variable-length RG-LRU in PyTorch, as FLA-style kernels take their batch: x [1, T, W] holds N
sequences at the offsets cu_seqlens, and every sequence starts afresh (a reset: no decay, no normalisation).

`leak_start_gradient` plants the bug such kernels are prone to: the forward masks the decay at each
sequence start, the backward does not, so the decay's gradient there is computed from the previous
sequence's final state.
"""

import torch

from .examples import torch_worker


def sequence_starts(cu_seqlens: torch.Tensor, steps: int) -> torch.Tensor:
    """[T, 1] booleans: where a packed sequence starts."""
    start = torch.zeros(steps, dtype=torch.bool, device=cu_seqlens.device)
    start[cu_seqlens[:-1].long()] = True
    return start.unsqueeze(-1)


def packed_rglru(
    x, cu_seqlens, a_param, input_gate_w, input_gate_b, a_gate_w, a_gate_b, *, heads, leak_start_gradient=False
):
    """(y [1, T, W], final states [N, W]) of the RG-LRU over the packed sequences."""
    steps, width = x.shape[1], x.shape[2]
    xs = x[0].float()
    xh = xs.view(steps, heads, width // heads)
    gx = torch.sigmoid(torch.einsum("thi,hij->thj", xh, input_gate_w) + input_gate_b).reshape(steps, width)
    ga = torch.sigmoid(torch.einsum("thi,hij->thj", xh, a_gate_w) + a_gate_b).reshape(steps, width)
    log_a = -8.0 * ga * torch.nn.functional.softplus(a_param)
    a = torch.exp(log_a)
    start = sequence_starts(cu_seqlens, steps)
    q = torch.where(start, torch.ones_like(log_a), -torch.expm1(2 * log_a))
    m = torch.where(start, torch.ones_like(q), torch_worker().SqrtBoundedGradient.apply(q))
    at = torch.where(start, torch.zeros_like(a), a)
    if leak_start_gradient:
        at = at + start * (a - a.detach())  # the forward is unchanged; the backward reaches a at the starts
    u = xs * gx * m
    h, states = torch.zeros_like(u[0]), []
    for t in range(steps):
        h = at[t] * h + u[t]
        states.append(h)
    y = torch.stack(states).unsqueeze(0)
    return y.to(x.dtype), y[0, cu_seqlens[1:].long() - 1]
