// SPDX-License-Identifier: Apache-2.0
//! @file
//! Forward then backward of a gated layer (`rglru`, `complex_rglru`) on any executor. One template for
//! both executors, instantiated in host/gated_host.cpp and cuda/gated_cuda.cu. The launch sequence:
//!
//!   forward   gate GEMMs zx = X Wx, za = X Wa (per head) -> softplus(a_param)
//!             [-> interleave x]            without fused_output (complex)
//!             [-> gates: at, u]            without fused
//!             -> the scan's kernels (schedule), saving chunk-entry states with fused_write
//!             [-> merge y]                 without fused_output (complex)
//!   backward  [-> interleave dy]  [-> replay of the forward's chunks into float32 states]  fused_write
//!             -> the reverse scan's kernels, computing local gradients in place when fused
//!             [-> gate gradients from g]   without fused
//!             -> GEMMs dWx = X^T dZx, dWa = X^T dZa, dx += dZx Wx^T + dZa Wa^T
//!             -> fixed-order column sums (biases, a_param, a_imag_param) -> dx rounded to io
//! C++17.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "backends/gemm.hpp"
#include "backends/kernels/gated/elementwise.hpp"

namespace scancheck::backends {

//! The variant flags of harness.md that change what the gated layers launch.
struct GatedFlags {
  bool fused = false;         //!< gates computed inside the scan kernels
  bool fused_output = false;  //!< the merged complex layout read and written by the scan kernels
  bool fused_write = false;   //!< the backward replays h from the forward's chunk-entry states
  bool shared_sfu = false;    //!< one expm1 for |a| and q
};

//! The host-side arrays of one gated case (io tensors hold io-dtype values as float); optional inputs
//! and the complex-only arrays are nullptr when absent.
struct GatedArrays {
  kernels::ScanGeometry geometry;  //!< channels = Wc
  std::int64_t heads = 1;
  bool complex = false;
  bool bf16_io = false;
  bool exact_sqrt_gradient = false;
  const float* x = nullptr;                   // [B, L, W]
  const std::int32_t* segment_pos = nullptr;  // [B, L]
  const float* h0 = nullptr;                  // [B, W]
  const float* a_param = nullptr;             // [Wc]
  const float* a_imag_param = nullptr;        // [Wc]
  const float* input_gate_w = nullptr;        // [H, K_in, K_out]
  const float* input_gate_b = nullptr;        // [H, K_out]
  const float* a_gate_w = nullptr;
  const float* a_gate_b = nullptr;
  const float* dy = nullptr;                  // [B, L, W]
  const float* dh_last = nullptr;             // [B, W]
  float* y = nullptr;                         // outputs
  float* h_last = nullptr;
  float* dx = nullptr;
  float* dh0 = nullptr;
  float* d_a_param = nullptr;
  float* d_a_imag_param = nullptr;
  float* d_input_gate_w = nullptr;
  float* d_input_gate_b = nullptr;
  float* d_a_gate_w = nullptr;
  float* d_a_gate_b = nullptr;
};

namespace gated_detail {

using kernels::ActivationView;
using kernels::ChannelLayout;
using kernels::Grid;

//! Sizes of one case: N = B L rows, W stored width, Wc state channels, per head K_in inputs, K_out channels.
struct Dims {
  std::int64_t B, L, N, W, Wc, H, K_in, K_out;
  explicit Dims(const GatedArrays& io)
      : B(io.geometry.batch), L(io.geometry.length), N(B * L), W(io.geometry.width), Wc(io.geometry.channels),
        H(io.heads), K_in(W / H), K_out(Wc / H) {}
};

//! Per head h: C_h = X_h W_h with X_h the head's K_in columns of x and W_h [K_in, K_out].
inline StridedBatchedGemm projection(const Dims& d, const float* x, const float* w, float* z) {
  return {d.N, d.K_out, d.K_in, d.H, {x, d.W, d.K_in, false}, {w, d.K_out, d.K_in * d.K_out, false}, z, d.Wc, d.K_out};
}
//! dW_h = X_h^T dZ_h.
inline StridedBatchedGemm weight_gradient(const Dims& d, const float* x, const float* dz, float* dw) {
  return {d.K_in, d.K_out, d.N, d.H, {x, d.W, d.K_in, true}, {dz, d.Wc, d.K_out, false}, dw, d.K_out, d.K_in * d.K_out};
}
//! dX_h += dZ_h W_h^T.
inline StridedBatchedGemm back_projection(const Dims& d, const float* dz, const float* w, float* dx) {
  return {d.N, d.K_in, d.K_out, d.H, {dz, d.Wc, d.K_out, false}, {w, d.K_out, d.K_in * d.K_out, true}, dx, d.W,
          d.K_in, 1.0f};
}

//! Rows summed by one program of the first column-sum pass.
inline constexpr std::int64_t column_block_rows = 256;

template <class Exec>
void column_sum(Exec& ex, const char* what, std::int64_t rows, std::int64_t channels, const float* values,
                const float* sigmoid_of, float* total) {
  constexpr int V = Exec::lanes;
  const std::int64_t tiles = (channels + V - 1) / V, blocks = (rows + column_block_rows - 1) / column_block_rows;
  float* partial = ex.template scratch<float>(blocks * channels);
  ex.launch(std::string(what) + " block sums", Grid{tiles, blocks, 1},
            kernels::ColumnBlockSums<V>{rows, channels, column_block_rows, values, partial});
  ex.launch(std::string(what) + " totals", Grid{tiles, 1, 1},
            kernels::ColumnTotals<V>{blocks, channels, partial, sigmoid_of, total});
}

//! Runs one case with field F (float or cfloat) and io storage IO.
template <class F, class IO, class Exec>
void run(Exec& ex, const GatedArrays& io, const GatedFlags& flags, const kernels::Schedule& schedule) {
  constexpr int V = Exec::lanes;
  if (flags.fused_write && schedule.kind == kernels::Schedule::Kind::sequential)
    throw std::invalid_argument("fused_write needs a chunked schedule: there are no chunk-entry states to replay");
  const Dims d(io);
  const kernels::ScanGeometry& g = io.geometry;
  const Grid per_element{(d.Wc + V - 1) / V, d.N, 1};
  const ChannelLayout merged = io.complex ? ChannelLayout::merged(d.W) : ChannelLayout::real(d.W);
  const bool relayout = io.complex && !flags.fused_output;
  const ChannelLayout scan_layout = relayout ? ChannelLayout::interleaved(d.W) : merged;

  // Inputs and outputs.
  const std::int64_t act = d.N * d.W, state = d.B * d.W, weights = d.H * d.K_in * d.K_out;
  const IO* x = ex.template upload<IO>(io.x, act);
  const float* x32 = ex.template upload<float>(io.x, act);  // the GEMMs' operand: io values are exact in float32
  const std::int32_t* segment_pos = ex.copy_in(io.segment_pos, d.N);
  const float* h0 = io.h0 ? ex.template upload<float>(io.h0, state) : nullptr;
  const float* a_param = ex.template upload<float>(io.a_param, d.Wc);
  const float* a_imag = io.complex ? ex.template upload<float>(io.a_imag_param, d.Wc) : nullptr;
  const float* wx = ex.template upload<float>(io.input_gate_w, weights);
  const float* bx = ex.template upload<float>(io.input_gate_b, d.Wc);
  const float* wa = ex.template upload<float>(io.a_gate_w, weights);
  const float* ba = ex.template upload<float>(io.a_gate_b, d.Wc);
  const IO* dy = ex.template upload<IO>(io.dy, act);
  const float* dh_last = io.dh_last ? ex.template upload<float>(io.dh_last, state) : nullptr;
  IO* y = ex.template output<IO>(act);
  IO* dx = ex.template output<IO>(act);
  float* h_last = ex.template output<float>(state);
  float* dh0 = ex.template output<float>(state);
  float* d_a_param = ex.template output<float>(d.Wc);
  float* d_a_imag = io.complex ? ex.template output<float>(d.Wc) : nullptr;
  float* dwx = ex.template output<float>(weights);
  float* dbx = ex.template output<float>(d.Wc);
  float* dwa = ex.template output<float>(weights);
  float* dba = ex.template output<float>(d.Wc);

  // Forward.
  float* zx = ex.template scratch<float>(d.N * d.Wc);
  float* za = ex.template scratch<float>(d.N * d.Wc);
  ex.gemm("input gate projection", projection(d, x32, wx, zx));
  ex.gemm("a gate projection", projection(d, x32, wa, za));
  float* s = ex.template scratch<float>(d.Wc);
  ex.launch("softplus(a_param)", Grid{(d.Wc + V - 1) / V, 1, 1}, kernels::SoftplusParameters<V>{d.Wc, a_param, s});
  const kernels::GateInputs<F> gates{zx, za, bx, ba, s, a_imag, segment_pos, d.Wc, flags.shared_sfu};

  const auto to_scan_layout = [&](const char* name, const IO* merged_values) -> ActivationView<const IO> {
    if (!relayout) return {merged_values, merged};
    IO* out = ex.template scratch<IO>(act);
    ex.launch(name, per_element, kernels::Relayout<F, IO, V>{d.Wc, {merged_values, merged}, {out, scan_layout}});
    return {out, scan_layout};
  };
  const ActivationView<const IO> x_scan = to_scan_layout("interleave x", x);
  F* at = nullptr;
  F* u = nullptr;
  if (!flags.fused) {
    at = ex.template scratch<F>(d.N * d.Wc);
    u = ex.template scratch<F>(d.N * d.Wc);
    ex.launch("gates", per_element, kernels::GateElementwise<F, IO, V>{gates, x_scan, at, u});
  }
  IO* y_scan = relayout ? ex.template scratch<IO>(act) : y;
  const kernels::GatedForward<F, IO> forward{
      g, gates, flags.fused, at, u, x_scan, {h0, merged}, {y_scan, scan_layout}, {h_last, merged}, nullptr};
  F* chunk_states = flags.fused_write ? ex.template scratch<F>(kernels::chunk_state_count(g, schedule)) : nullptr;
  kernels::run_affine_scan(ex, forward, schedule, chunk_states);
  if (relayout)
    ex.launch("merge y", per_element, kernels::Relayout<F, IO, V>{d.Wc, {y_scan, scan_layout}, {y, merged}});

  // Backward.
  const ActivationView<const IO> dy_scan = to_scan_layout("interleave dy", dy);
  F* states = nullptr;
  if (flags.fused_write) {
    states = ex.template scratch<F>(d.N * d.Wc);
    kernels::GatedForward<F, IO> replay = forward;
    replay.states = states;
    kernels::replay_chunks(ex, replay, schedule, chunk_states);
  }
  float* dx_acc = ex.template scratch<float>(act);
  float* dzx = ex.template scratch<float>(d.N * d.Wc);
  float* dza = ex.template scratch<float>(d.N * d.Wc);
  float* a_param_term = ex.template scratch<float>(d.N * d.Wc);
  float* a_imag_term = io.complex ? ex.template scratch<float>(d.N * d.Wc) : nullptr;
  const kernels::GradientElement<F, IO> element{g,        gates,        io.exact_sqrt_gradient,
                                                x_scan,   {y_scan, scan_layout}, states,
                                                {h0, merged}, {dx_acc, merged}, dzx,
                                                dza,      a_param_term, a_imag_term,
                                                {dh0, merged}};
  F* g_out = flags.fused ? nullptr : ex.template scratch<F>(d.N * d.Wc);
  const kernels::GatedBackward<F, IO> backward{g, gates, flags.fused, at, dy_scan, {dh_last, merged}, element, g_out};
  kernels::run_affine_scan(ex, backward, schedule);
  if (!flags.fused) ex.launch("gate gradients", per_element, kernels::GateGradients<F, IO, V>{element, g_out});

  ex.gemm("input gate weight gradient", weight_gradient(d, x32, dzx, dwx));
  ex.gemm("a gate weight gradient", weight_gradient(d, x32, dza, dwa));
  ex.gemm("input gate back-projection", back_projection(d, dzx, wx, dx_acc));
  ex.gemm("a gate back-projection", back_projection(d, dza, wa, dx_acc));
  column_sum(ex, "input gate bias gradient", d.N, d.Wc, dzx, nullptr, dbx);
  column_sum(ex, "a gate bias gradient", d.N, d.Wc, dza, nullptr, dba);
  column_sum(ex, "a_param gradient", d.N, d.Wc, a_param_term, a_param, d_a_param);
  if (io.complex) column_sum(ex, "a_imag_param gradient", d.N, d.Wc, a_imag_term, nullptr, d_a_imag);
  ex.launch("store dx", Grid{(d.W + V - 1) / V, d.N, 1}, kernels::StoreActivation<IO, V>{d.W, dx_acc, dx});
  ex.synchronize();

  ex.download(y, act, io.y, "y");
  ex.download(h_last, state, io.h_last, "h_last");
  ex.download(dx, act, io.dx, "dx");
  ex.download(dh0, state, io.dh0, "dh0");
  ex.download(d_a_param, d.Wc, io.d_a_param, "d_a_param");
  if (io.complex) ex.download(d_a_imag, d.Wc, io.d_a_imag_param, "d_a_imag_param");
  ex.download(dwx, weights, io.d_input_gate_w, "d_input_gate_w");
  ex.download(dbx, d.Wc, io.d_input_gate_b, "d_input_gate_b");
  ex.download(dwa, weights, io.d_a_gate_w, "d_a_gate_w");
  ex.download(dba, d.Wc, io.d_a_gate_b, "d_a_gate_b");
}

}  // namespace gated_detail

template <class Exec>
void run_gated(Exec& ex, const GatedArrays& io, const GatedFlags& flags, const kernels::Schedule& schedule) {
  using kernels::bf16;
  using kernels::cfloat;
  if (io.complex)
    io.bf16_io ? gated_detail::run<cfloat, bf16>(ex, io, flags, schedule)
               : gated_detail::run<cfloat, float>(ex, io, flags, schedule);
  else
    io.bf16_io ? gated_detail::run<float, bf16>(ex, io, flags, schedule)
               : gated_detail::run<float, float>(ex, io, flags, schedule);
}

//! Entry points per executor (host/gated_host.cpp, cuda/gated_cuda.cu).
void run_gated_host(const GatedArrays&, const GatedFlags&, const kernels::Schedule&, int threads = 0);
void run_gated_cuda(const GatedArrays&, const GatedFlags&, const kernels::Schedule&);

}  // namespace scancheck::backends
