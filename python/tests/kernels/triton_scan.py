"""Chunked Triton kernel of the first-order linear recurrence, a test kernel for scancheck.

    forward:   h_t = a_t * h_{t-1} + b_t,  t = 0..L-1,  h_{-1} = h0 (zero when None)
    backward:  g_{L-1} = dh_{L-1},  g_t = dh_t + a_{t+1} * g_{t+1}
               db_t = g_t,  da_t = g_t * h_{t-1},  dh0 = a_0 * g_0

All tensors are [B, L, W], contiguous, float32. The kernels have the structure of production
linear-recurrence kernels (RG-LRU, Mamba-style scans): time is cut into chunks of CHUNK steps; inside a
chunk ``tl.associative_scan`` computes the chunk-local scan from a zero state together with the cumulative
decay product P_t, and the state carried in from the previous chunk is added afterwards as P_t * carry.
That chunk-local-plus-carry split is what scancheck's tests fuzz (shapes, chunk sizes, zero decays, h0
present or not) under Triton's CPU interpreter (TRITON_INTERPRET=1); the same module runs compiled on a GPU.

``chunked_scan(..., drop_last_cotangent=True)`` plants a known bug for those tests: the backward ignores the
last step's cotangent dh_{L-1}, so the cotangent of h_last = h[:, -1] is lost.
"""

from typing import Any

import torch
import triton
import triton.language as tl

__all__ = ["ChunkedScan", "chunked_scan"]

# Widest feature tile per program. The tile is [CHUNK, BLOCK_W]; 32 keeps it small enough for registers at
# CHUNK=64 while still giving coalesced rows.
_MAX_BLOCK_W = 32


@triton.jit
def _affine_combine(a1, b1, a2, b2):
    # Compose x -> a1 * x + b1 (earlier) with x -> a2 * x + b2 (later). Associative, not commutative.
    return a2 * a1, a2 * b1 + b2


@triton.jit
def _scan_fwd_kernel(
    a_ptr,
    b_ptr,
    h0_ptr,
    h_ptr,
    L,
    W,
    HAS_H0: tl.constexpr,
    CHUNK: tl.constexpr,
    BLOCK_W: tl.constexpr,
):
    pid_b = tl.program_id(0)
    pid_w = tl.program_id(1)
    offs_t = tl.arange(0, CHUNK)
    offs_w = pid_w * BLOCK_W + tl.arange(0, BLOCK_W)
    mask_w = offs_w < W
    # int64 base so that B * L * W past 2**31 does not wrap.
    base = pid_b.to(tl.int64) * L * W

    # carry: the state entering the current chunk (h_{start-1}).
    if HAS_H0:
        carry = tl.load(h0_ptr + pid_b.to(tl.int64) * W + offs_w, mask=mask_w, other=0.0).to(tl.float32)
    else:
        carry = tl.zeros([BLOCK_W], dtype=tl.float32)

    for start in range(0, L, CHUNK):
        t = start + offs_t
        mask = (t < L)[:, None] & mask_w[None, :]
        offs = base + t[:, None] * W + offs_w[None, :]
        # Rows past L are padded with the identity map (a=1, b=0), so the last row stays h_{L-1}.
        a = tl.load(a_ptr + offs, mask=mask, other=1.0).to(tl.float32)
        b = tl.load(b_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        # Chunk-local scan from a zero state: p_t = a_t * ... * a_start, y_t = h_t if h_{start-1} were 0.
        p, y = tl.associative_scan((a, b), axis=0, combine_fn=_affine_combine)
        # The carried state enters only here, through the cumulative decay.
        h = y + p * carry[None, :]
        tl.store(h_ptr + offs, h, mask=mask)
        # Next carry is the chunk's last row (extracted in registers: no store/load round trip through memory).
        carry = tl.sum(tl.where(offs_t[:, None] == CHUNK - 1, h, 0.0), axis=0)


@triton.jit
def _scan_bwd_kernel(
    a_ptr,
    h_ptr,
    h0_ptr,
    dh_ptr,
    da_ptr,
    db_ptr,
    dh0_ptr,
    L,
    W,
    HAS_H0: tl.constexpr,
    CHUNK: tl.constexpr,
    BLOCK_W: tl.constexpr,
):
    pid_b = tl.program_id(0)
    pid_w = tl.program_id(1)
    offs_t = tl.arange(0, CHUNK)
    offs_w = pid_w * BLOCK_W + tl.arange(0, BLOCK_W)
    mask_w = offs_w < W
    base = pid_b.to(tl.int64) * L * W

    if HAS_H0:
        h0 = tl.load(h0_ptr + pid_b.to(tl.int64) * W + offs_w, mask=mask_w, other=0.0).to(tl.float32)
    else:
        h0 = tl.zeros([BLOCK_W], dtype=tl.float32)

    # carry: the cotangent entering the current chunk from the later one (g_{start+CHUNK}); none past the end.
    carry = tl.zeros([BLOCK_W], dtype=tl.float32)
    n_chunks = tl.cdiv(L, CHUNK)
    for i in range(n_chunks):
        start = (n_chunks - 1 - i) * CHUNK
        t = start + offs_t
        mask = (t < L)[:, None] & mask_w[None, :]
        offs = base + t[:, None] * W + offs_w[None, :]
        dh = tl.load(dh_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        # g_t needs a_{t+1}: load the decays shifted one step. The last row of a chunk reads the next chunk's
        # first decay; t = L-1 has no later state, so its decay is 0 (as are the padded rows past L).
        mask_next = (t + 1 < L)[:, None] & mask_w[None, :]
        a_next = tl.load(a_ptr + offs + W, mask=mask_next, other=0.0).to(tl.float32)
        # Reverse chunk-local scan from a zero cotangent after the chunk, then add the carry through the decay.
        p, y = tl.associative_scan((a_next, dh), axis=0, combine_fn=_affine_combine, reverse=True)
        g = y + p * carry[None, :]
        # da_t = g_t * h_{t-1}: h shifted one step back, h0 (or 0) at t = 0. Keep the t < L part of the mask:
        # padded rows past L would otherwise read h beyond the end of the tensor.
        mask_prev = mask & (t >= 1)[:, None]
        h_prev = tl.load(h_ptr + offs - W, mask=mask_prev, other=0.0).to(tl.float32)
        h_prev = tl.where((t == 0)[:, None], h0[None, :], h_prev)
        tl.store(db_ptr + offs, g, mask=mask)
        tl.store(da_ptr + offs, g * h_prev, mask=mask)
        # Next carry (going back in time) is the chunk's first row.
        carry = tl.sum(tl.where(offs_t[:, None] == 0, g, 0.0), axis=0)

    if HAS_H0:
        # After the loop carry is g_0 (the launcher guarantees L >= 1).
        a0 = tl.load(a_ptr + base + offs_w, mask=mask_w, other=0.0).to(tl.float32)
        tl.store(dh0_ptr + pid_b.to(tl.int64) * W + offs_w, a0 * carry, mask=mask_w)


def _as_f32(x: torch.Tensor) -> torch.Tensor:
    return x.to(torch.float32).contiguous()


def _block_w(width: int) -> int:
    return min(_MAX_BLOCK_W, triton.next_power_of_2(max(width, 1)))


def _check_chunk(chunk: int) -> None:
    if chunk < 1 or chunk & (chunk - 1):
        raise ValueError(f"chunk must be a positive power of two (tl.arange needs one), got {chunk}")


class ChunkedScan(torch.autograd.Function):
    """h = scan(a, b, h0) with the chunked Triton kernels in both directions."""

    @staticmethod
    def forward(
        ctx: Any,
        a: torch.Tensor,
        b: torch.Tensor,
        h0: torch.Tensor | None,
        chunk: int,
        drop_last_cotangent: bool = False,
    ) -> torch.Tensor:
        _check_chunk(chunk)
        if a.dim() != 3 or a.shape != b.shape:
            raise ValueError(f"a and b must both be [B, L, W], got {tuple(a.shape)} and {tuple(b.shape)}")
        batch, length, width = a.shape
        if h0 is not None and h0.shape != (batch, width):
            raise ValueError(f"h0 must be [B, W] = {(batch, width)}, got {tuple(h0.shape)}")
        a, b = _as_f32(a), _as_f32(b)
        h0 = None if h0 is None else _as_f32(h0)

        h = torch.empty_like(a)
        block_w = _block_w(width)
        if h.numel() > 0:
            grid = (batch, triton.cdiv(width, block_w))
            _scan_fwd_kernel[grid](
                a, b, h0 if h0 is not None else a, h, length, width,
                HAS_H0=h0 is not None, CHUNK=chunk, BLOCK_W=block_w,
            )  # fmt: skip
        ctx.save_for_backward(a, h, h0)
        ctx.chunk = chunk
        ctx.block_w = block_w
        ctx.drop_last_cotangent = drop_last_cotangent
        return h

    @staticmethod
    def backward(ctx: Any, dh: torch.Tensor) -> tuple[torch.Tensor | None, ...]:
        a, h, h0 = ctx.saved_tensors
        batch, length, width = a.shape
        dh = _as_f32(dh)
        if ctx.drop_last_cotangent and length > 0:
            # Planted bug: lose dh_{L-1}, which is where autograd put the cotangent of h_last = h[:, -1].
            dh = dh.clone()
            dh[:, -1] = 0.0

        da = torch.empty_like(a)
        db = torch.empty_like(a)
        dh0 = None if h0 is None else torch.zeros_like(h0)
        if a.numel() > 0:
            grid = (batch, triton.cdiv(width, ctx.block_w))
            _scan_bwd_kernel[grid](
                a, h, h0 if h0 is not None else a, dh, da, db, dh0 if dh0 is not None else a, length, width,
                HAS_H0=h0 is not None, CHUNK=ctx.chunk, BLOCK_W=ctx.block_w,
            )  # fmt: skip
        return da, db, dh0, None, None


def chunked_scan(
    a: torch.Tensor,
    b: torch.Tensor,
    h0: torch.Tensor | None = None,
    chunk: int = 64,
    drop_last_cotangent: bool = False,
) -> torch.Tensor:
    """All states h [B, L, W] of h_t = a_t * h_{t-1} + b_t (float32), differentiable in a, b and h0.

    ``chunk`` is the number of time steps per associative scan (a power of two). ``drop_last_cotangent``
    plants a bug for tests: the backward ignores dh_{L-1}.
    """
    a, b = _as_f32(a), _as_f32(b)
    h0 = None if h0 is None else _as_f32(h0)
    return ChunkedScan.apply(a, b, h0, chunk, drop_last_cotangent)
