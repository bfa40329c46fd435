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
//! gated_detail::Passes holds these phases apart (upload, forward, backward, download) for the device
//! timing (cuda/gated_timing.hpp); run_gated runs them once, in order.
//! C++17.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "backends/gemm.hpp"
#include "backends/kernels/gated/elementwise.hpp"
#include "backends/variant_flags.hpp"

namespace scancheck::backends {

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
  const float* dy = nullptr;       // [B, L, W]
  const float* dh_last = nullptr;  // [B, W]
  float* y = nullptr;              // outputs
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
      : B(io.geometry.batch),
        L(io.geometry.length),
        N(B * L),
        W(io.geometry.width),
        Wc(io.geometry.channels),
        H(io.heads),
        K_in(W / H),
        K_out(Wc / H) {}
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
  return {d.N, d.K_in, d.K_out, d.H, {dz, d.Wc, d.K_out, false}, {w, d.K_out, d.K_in * d.K_out, true},
          dx,  d.W,    d.K_in,  1.0f};
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

//! One case with field F (float or cfloat) and io storage IO on an executor, in the phases of the launch
//! sequence above: the constructor uploads the inputs and allocates the outputs, then forward(),
//! backward() (which launches everything after the forward's last kernel, replay included), download()
//! (after ex.synchronize()). run() calls them once in that order. A timing (cuda/gated_timing.cu) may
//! instead take ex.mark() after the constructor and repeat ex.rewind(mark), forward(), backward(): the
//! phases allocate their scratch in the same order every time, so repetitions reuse it.
template <class F, class IO, class Exec>
class Passes {
 public:
  Passes(Exec& ex, const GatedArrays& io, const VariantFlags& flags, const kernels::Schedule& schedule)
      : ex_(ex),
        io_(io),
        flags_(flags),
        schedule_(schedule),
        d(io),
        g(io.geometry),
        per_element{(d.Wc + V - 1) / V, d.N, 1},
        merged(io.complex ? ChannelLayout::merged(d.W) : ChannelLayout::real(d.W)),
        relayout(io.complex && !flags.fused_output),
        scan_layout(relayout ? ChannelLayout::interleaved(d.W) : merged) {
    if (flags.fused_write && schedule.kind == kernels::Schedule::Kind::sequential)
      throw std::invalid_argument("fused_write needs a chunked schedule: there are no chunk-entry states to replay");
    // Inputs and outputs.
    x = ex.template upload<IO>(io.x, act);
    x32 = ex.template upload<float>(io.x, act);  // the GEMMs' operand: io values are exact in float32
    segment_pos = ex.copy_in(io.segment_pos, d.N);
    h0 = io.h0 ? ex.template upload<float>(io.h0, state) : nullptr;
    a_param = ex.template upload<float>(io.a_param, d.Wc);
    a_imag = io.complex ? ex.template upload<float>(io.a_imag_param, d.Wc) : nullptr;
    wx = ex.template upload<float>(io.input_gate_w, weights);
    bx = ex.template upload<float>(io.input_gate_b, d.Wc);
    wa = ex.template upload<float>(io.a_gate_w, weights);
    ba = ex.template upload<float>(io.a_gate_b, d.Wc);
    dy = ex.template upload<IO>(io.dy, act);
    dh_last = io.dh_last ? ex.template upload<float>(io.dh_last, state) : nullptr;
    y = ex.template output<IO>(act);
    dx = ex.template output<IO>(act);
    h_last = ex.template output<float>(state);
    dh0 = ex.template output<float>(state);
    d_a_param = ex.template output<float>(d.Wc);
    d_a_imag = io.complex ? ex.template output<float>(d.Wc) : nullptr;
    dwx = ex.template output<float>(weights);
    dbx = ex.template output<float>(d.Wc);
    dwa = ex.template output<float>(weights);
    dba = ex.template output<float>(d.Wc);
  }

  void forward() {
    float* zx = ex_.template scratch<float>(d.N * d.Wc);
    float* za = ex_.template scratch<float>(d.N * d.Wc);
    ex_.gemm("input gate projection", projection(d, x32, wx, zx));
    ex_.gemm("a gate projection", projection(d, x32, wa, za));
    float* s = ex_.template scratch<float>(d.Wc);
    ex_.launch("softplus(a_param)", Grid{(d.Wc + V - 1) / V, 1, 1}, kernels::SoftplusParameters<V>{d.Wc, a_param, s});
    gates = {zx, za, bx, ba, s, a_imag, segment_pos, d.Wc, flags_.shared_sfu};

    x_scan = to_scan_layout("interleave x", x);
    at = nullptr;
    u = nullptr;
    if (!flags_.fused) {
      at = ex_.template scratch<F>(d.N * d.Wc);
      u = ex_.template scratch<F>(d.N * d.Wc);
      ex_.launch("gates", per_element, kernels::GateElementwise<F, IO, V>{gates, x_scan, at, u});
    }
    y_scan = relayout ? ex_.template scratch<IO>(act) : y;
    forward_ = {g, gates, flags_.fused, at, u, x_scan, {h0, merged}, {y_scan, scan_layout}, {h_last, merged}, nullptr};
    chunk_states = flags_.fused_write ? ex_.template scratch<F>(kernels::chunk_state_count(g, schedule_)) : nullptr;
    kernels::run_affine_scan(ex_, forward_, schedule_, chunk_states);
    if (relayout)
      ex_.launch("merge y", per_element, kernels::Relayout<F, IO, V>{d.Wc, {y_scan, scan_layout}, {y, merged}});
  }

  void backward() {
    const ActivationView<const IO> dy_scan = to_scan_layout("interleave dy", dy);
    F* states = nullptr;
    if (flags_.fused_write) {
      states = ex_.template scratch<F>(d.N * d.Wc);
      kernels::GatedForward<F, IO> replay = forward_;
      replay.states = states;
      kernels::replay_chunks(ex_, replay, schedule_, chunk_states);
    }
    float* dx_acc = ex_.template scratch<float>(act);
    float* dzx = ex_.template scratch<float>(d.N * d.Wc);
    float* dza = ex_.template scratch<float>(d.N * d.Wc);
    float* a_param_term = ex_.template scratch<float>(d.N * d.Wc);
    float* a_imag_term = io_.complex ? ex_.template scratch<float>(d.N * d.Wc) : nullptr;
    const kernels::GradientElement<F, IO> element{g,
                                                  gates,
                                                  io_.exact_sqrt_gradient,
                                                  x_scan,
                                                  {y_scan, scan_layout},
                                                  states,
                                                  {h0, merged},
                                                  {dx_acc, merged},
                                                  dzx,
                                                  dza,
                                                  a_param_term,
                                                  a_imag_term,
                                                  {dh0, merged}};
    F* g_out = flags_.fused ? nullptr : ex_.template scratch<F>(d.N * d.Wc);
    const kernels::GatedBackward<F, IO> backward{g,       gates, flags_.fused, at, dy_scan, {dh_last, merged},
                                                 element, g_out};
    kernels::run_affine_scan(ex_, backward, schedule_);
    if (!flags_.fused) ex_.launch("gate gradients", per_element, kernels::GateGradients<F, IO, V>{element, g_out});

    ex_.gemm("input gate weight gradient", weight_gradient(d, x32, dzx, dwx));
    ex_.gemm("a gate weight gradient", weight_gradient(d, x32, dza, dwa));
    ex_.gemm("input gate back-projection", back_projection(d, dzx, wx, dx_acc));
    ex_.gemm("a gate back-projection", back_projection(d, dza, wa, dx_acc));
    column_sum(ex_, "input gate bias gradient", d.N, d.Wc, dzx, nullptr, dbx);
    column_sum(ex_, "a gate bias gradient", d.N, d.Wc, dza, nullptr, dba);
    column_sum(ex_, "a_param gradient", d.N, d.Wc, a_param_term, a_param, d_a_param);
    if (io_.complex) column_sum(ex_, "a_imag_param gradient", d.N, d.Wc, a_imag_term, nullptr, d_a_imag);
    ex_.launch("store dx", Grid{(d.W + V - 1) / V, d.N, 1}, kernels::StoreActivation<IO, V>{d.W, dx_acc, dx});
  }

  //! Copies the outputs to the host arrays; call after ex.synchronize().
  void download() {
    ex_.download(y, act, io_.y, "y");
    ex_.download(h_last, state, io_.h_last, "h_last");
    ex_.download(dx, act, io_.dx, "dx");
    ex_.download(dh0, state, io_.dh0, "dh0");
    ex_.download(d_a_param, d.Wc, io_.d_a_param, "d_a_param");
    if (io_.complex) ex_.download(d_a_imag, d.Wc, io_.d_a_imag_param, "d_a_imag_param");
    ex_.download(dwx, weights, io_.d_input_gate_w, "d_input_gate_w");
    ex_.download(dbx, d.Wc, io_.d_input_gate_b, "d_input_gate_b");
    ex_.download(dwa, weights, io_.d_a_gate_w, "d_a_gate_w");
    ex_.download(dba, d.Wc, io_.d_a_gate_b, "d_a_gate_b");
  }

 private:
  static constexpr int V = Exec::lanes;

  ActivationView<const IO> to_scan_layout(const char* name, const IO* merged_values) {
    if (!relayout) return {merged_values, merged};
    IO* out = ex_.template scratch<IO>(act);
    ex_.launch(name, per_element, kernels::Relayout<F, IO, V>{d.Wc, {merged_values, merged}, {out, scan_layout}});
    return {out, scan_layout};
  }

  // The run's context (trailing _), then the values the launch sequence uses, named as they were when
  // run() was one function.
  Exec& ex_;
  const GatedArrays& io_;
  const VariantFlags flags_;
  const kernels::Schedule schedule_;
  const Dims d;
  const kernels::ScanGeometry& g;
  const Grid per_element;
  const ChannelLayout merged;
  const bool relayout;
  const ChannelLayout scan_layout;
  const std::int64_t act = d.N * d.W, state = d.B * d.W, weights = d.H * d.K_in * d.K_out;

  // Inputs and outputs (executor memory), set by the constructor.
  const IO* x = nullptr;
  const float* x32 = nullptr;
  const std::int32_t* segment_pos = nullptr;
  const float *h0 = nullptr, *a_param = nullptr, *a_imag = nullptr, *wx = nullptr, *bx = nullptr, *wa = nullptr,
              *ba = nullptr;
  const IO* dy = nullptr;
  const float* dh_last = nullptr;
  IO *y = nullptr, *dx = nullptr;
  float *h_last = nullptr, *dh0 = nullptr, *d_a_param = nullptr, *d_a_imag = nullptr, *dwx = nullptr, *dbx = nullptr,
        *dwa = nullptr, *dba = nullptr;

  // What the forward leaves for the backward.
  kernels::GateInputs<F> gates{};
  ActivationView<const IO> x_scan{};
  F* at = nullptr;
  F* u = nullptr;
  IO* y_scan = nullptr;
  kernels::GatedForward<F, IO> forward_{};
  F* chunk_states = nullptr;
};

//! Runs one case with field F (float or cfloat) and io storage IO: upload, forward, backward, download.
template <class F, class IO, class Exec>
void run(Exec& ex, const GatedArrays& io, const VariantFlags& flags, const kernels::Schedule& schedule) {
  Passes<F, IO, Exec> passes(ex, io, flags, schedule);
  passes.forward();
  passes.backward();
  ex.synchronize();
  passes.download();
}

}  // namespace gated_detail

template <class Exec>
void run_gated(Exec& ex, const GatedArrays& io, const VariantFlags& flags, const kernels::Schedule& schedule) {
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
void run_gated_host(const GatedArrays&, const VariantFlags&, const kernels::Schedule&, int threads = 0,
                    GemmOrder gemm_order = GemmOrder::library);
void run_gated_cuda(const GatedArrays&, const VariantFlags&, const kernels::Schedule&);

}  // namespace scancheck::backends
