// SPDX-License-Identifier: Apache-2.0
//! @file
//! Forward and backward of the gated layers (architectures `rglru`, `complex_rglru`) on one
//! (batch, head) block at full length. Contract: recurrences.md §2 (real, F = S) and §3 (complex,
//! F = Complex<S>), with the numerical notes of §5 (the per-element formulas are in gate_math.hpp,
//! shared with the backends' kernels).
//!
//! Shapes, per block: gate inputs x_gate [L, K_in] (the head's slice of x, merged layout for complex),
//! direct inputs x_direct [L, K_out] (x itself for rglru, x_t[c] + i x_t[Wc + c] for complex_rglru),
//! weights [K_in, K_out], per-channel vectors [K_out].
//! Summation order (what a float32 evaluation of the same code does, and what the bounds describe):
//! projections sum i = 0..K_in-1 then add the bias; back-projections sum j = 0..K_out-1, the input gate's
//! term first; parameter-gradient sums run over t = L-1..0 within the block (gate_projection.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/architecture.hpp"
#include "reference/affine_scan.hpp"
#include "reference/bounded_projection.hpp"
#include "reference/complex.hpp"
#include "reference/gate_math.hpp"
#include "reference/gate_projection.hpp"
#include "reference/io_storage.hpp"
#include "reference/order_free_bound.hpp"
#include "reference/scalar.hpp"

namespace scancheck::ref {

template <class S, class F>
struct GatedBlockInputs {
  std::int64_t length = 0, inputs = 0, channels = 0;  // L, K_in, K_out
  SqrtGradient sqrt_gradient = SqrtGradient::bounded;
  std::vector<S> x_gate;            // [L, K_in]
  std::vector<F> x_direct;          // [L, K_out]
  std::vector<std::uint8_t> reset;  // [L]: segment_pos == 0
  std::vector<F> h0;                // [K_out], empty when absent
  std::vector<S> a_param;           // [K_out]
  std::vector<S> a_imag_param;      // [K_out], complex only
  std::vector<S> wx, wa;            // [K_in, K_out]
  std::vector<S> bx, ba;            // [K_out]
  std::vector<F> dy;                // [L, K_out]
  std::vector<F> dh_last;           // [K_out], empty when absent
  bool bf16_storage = false;        // y is stored in bfloat16: the backward reads h_{t-1} rounded
};

template <class S, class F>
struct GatedBlockForward {
  std::vector<S> zx, za;  // [L, K_out] gate pre-activations, kept for the backward
  std::vector<F> at;      // [L, K_out] the decay actually used (0 at a reset)
  std::vector<F> h;       // [L, K_out] = y
  //! [L, K_out] the gate terms, kept for blocks of at most `cached_terms_limit` elements; larger blocks
  //! recompute them from zx, za in the backward (same operations, same values, less memory).
  std::vector<GateTerms<S, F>> terms;
  //! [L, K_out] bounded fields only: h's TermSums, for the order-free bound of G (order_free_bound.hpp).
  std::vector<TermSums> h_sums;
};

inline constexpr std::int64_t cached_terms_limit = std::int64_t{1} << 20;

template <class S, class F>
struct GatedBlockGrads {
  std::vector<S> dx_gate;      // [L, K_in]: both gates' back-projections, input gate first
  std::vector<F> dx_direct;    // [L, K_out]: through u = x gx m
  std::vector<F> dh0;          // [K_out]
  std::vector<S> dwx, dwa;     // [K_in, K_out]
  std::vector<S> dbx, dba;     // [K_out]
  std::vector<S> a_param_sum;  // [K_out]: sum_t (-8 ga dlog_a), before the factor sigma(a_param)
  std::vector<S> a_imag_sum;   // [K_out]: sum_t ga dphi (complex only)

  //! The parameter gradients: what sums over batch entries.
  static constexpr auto parameters() {
    return std::array{&GatedBlockGrads::dwx, &GatedBlockGrads::dwa,         &GatedBlockGrads::dbx,
                      &GatedBlockGrads::dba, &GatedBlockGrads::a_param_sum, &GatedBlockGrads::a_imag_sum};
  }

  //! The parameter gradients alone, without the [L, ..] arrays: copying those too cost the production
  //! shapes a GB of fresh pages per head.
  GatedBlockGrads parameters_only() const {
    GatedBlockGrads p;
    for (auto field : parameters()) p.*field = this->*field;
    return p;
  }
};

//! What one (batch, head) block's evaluation needs besides its gradients: the gathered inputs, the forward
//! and the scan buffer (the forward's input u, then the backward's g). A worker keeps one across its
//! blocks: at production lengths these are about a GB, and pages fresh from the kernel are zeroed one by
//! one (a fifth of the reference's time at L = 32768 when each block allocated its own).
template <class S, class F>
struct GatedBlockWorkspace {
  GatedBlockInputs<S, F> in;
  GatedBlockForward<S, F> fw;
  std::vector<F> scan;
};

//! The phase parameter of channel j, or nullptr for the real layer.
template <class S, class F>
const S* imag_param(const GatedBlockInputs<S, F>& in, std::int64_t j) {
  return in.a_imag_param.empty() ? nullptr : &in.a_imag_param[j];
}

//! The forward into `fw`, with `u` [L, K_out] as the scan's input: both are overwritten whole, so buffers
//! kept from an earlier block of the same size are reused as they are (see GatedBlockWorkspace).
template <class S, class F>
void gated_forward(const GatedBlockInputs<S, F>& in, GatedBlockForward<S, F>& fw, std::vector<F>& u) {
  const std::int64_t L = in.length, Ki = in.inputs, K = in.channels;
  fw.zx.resize(L * K);
  fw.za.resize(L * K);
  fw.at.resize(L * K);
  fw.h.resize(L * K);
  fw.terms.resize(L * K <= cached_terms_limit ? L * K : 0);
  std::vector<S> s(K);
  for (std::int64_t j = 0; j < K; ++j) s[j] = softplus(in.a_param[j]);
  u.resize(L * K);
  const GateProjection<S> input_gate(in.wx, in.bx, Ki, K), a_gate(in.wa, in.ba, Ki, K);
  for (std::int64_t t = 0; t < L; ++t) {
    input_gate.forward(&in.x_gate[t * Ki], &fw.zx[t * K]);
    a_gate.forward(&in.x_gate[t * Ki], &fw.za[t * K]);
    const bool reset = in.reset[t] != 0;
    for (std::int64_t j = 0; j < K; ++j) {
      const std::int64_t i = t * K + j;
      const auto g = gate_terms<S, F>(fw.zx[i], fw.za[i], s[j], imag_param(in, j), reset);
      fw.at[i] = reset ? F(0) : g.a;
      u[i] = in.x_direct[i] * g.gx * g.m;
      if (!fw.terms.empty()) fw.terms[i] = g;
    }
  }
  fw.h_sums.resize(admits_every_order_v<F> ? L * K : 0);
  for (std::int64_t j = 0; j < K; ++j) {
    const ChannelScan<F> channel{L, K, fw.at.data() + j, in.reset.data(), in.h0.empty() ? nullptr : &in.h0[j]};
    scan_forward(channel, u.data() + j, fw.h.data() + j, fw.h_sums.empty() ? nullptr : fw.h_sums.data() + j);
  }
}

template <class S, class F>
GatedBlockForward<S, F> gated_forward(const GatedBlockInputs<S, F>& in) {
  GatedBlockForward<S, F> fw;
  std::vector<F> u;
  gated_forward(in, fw, u);
  return fw;
}

//! G_t = g_t conj(h_{t-1}) as the float32 backward reads h_{t-1} (rounded to the io dtype when stored so),
//! with its order-free bound on bounded fields; t > 0, or t = 0 with h0.
template <class S, class F>
F scan_product_at(const GatedBlockInputs<S, F>& in, const GatedBlockForward<S, F>& fw, const std::vector<F>& g,
                  const std::vector<TermSums>& g_sums, std::int64_t t, std::int64_t j) {
  const std::int64_t K = in.channels, i = t * K + j;
  const F& h = t > 0 ? fw.h[i - K] : in.h0[j];
  const F stored = t > 0 ? read_back(h, in.bf16_storage) : h;
  const F product = scan_product(g[i], stored);
  if constexpr (admits_every_order_v<F>) {
    const TermSums hs = t > 0 ? fw.h_sums[i - K] : input_sums(h);
    const double read_back_extra = magnitude(g[i]) * (error_bound(stored) - error_bound(h));
    return widened(product, product_bound(g[i], g_sums[i], h, hs, in.length, read_back_extra));
  } else {
    return product;
  }
}

//! The backward, with `g` [L, K_out] as its reverse scan's buffer (overwritten whole, like gated_forward's).
template <class S, class F>
GatedBlockGrads<S, F> gated_backward(const GatedBlockInputs<S, F>& in, const GatedBlockForward<S, F>& fw,
                                     std::vector<F>& g) {
  const std::int64_t L = in.length, Ki = in.inputs, K = in.channels;
  GatedBlockGrads<S, F> gr;
  gr.dx_gate.resize(L * Ki);
  gr.dx_direct.resize(L * K);
  gr.dh0.resize(K);
  gr.dbx.assign(K, S(0));
  gr.dba.assign(K, S(0));
  gr.a_param_sum.assign(K, S(0));
  gr.a_imag_sum.assign(K, S(0));

  // g: the reverse scan with decay at and cotangent dy (plus dh_last at the end).
  g.resize(L * K);
  std::vector<TermSums> g_sums(admits_every_order_v<F> ? L * K : 0);
  for (std::int64_t j = 0; j < K; ++j) {
    const ChannelScan<F> channel{L, K, fw.at.data() + j, in.reset.data(), in.h0.empty() ? nullptr : &in.h0[j]};
    gr.dh0[j] = scan_backward(channel, in.dy.data() + j, in.dh_last.empty() ? nullptr : &in.dh_last[j], g.data() + j,
                              g_sums.empty() ? nullptr : g_sums.data() + j);
  }

  std::vector<S> s(K);
  for (std::int64_t j = 0; j < K; ++j) s[j] = softplus(in.a_param[j]);
  GateProjection<S> input_gate(in.wx, in.bx, Ki, K), a_gate(in.wa, in.ba, Ki, K);
  std::vector<S> dzx(K), dza(K), dx_x(Ki), dx_a(Ki);
  for (std::int64_t t = L - 1; t >= 0; --t) {
    const bool reset = in.reset[t] != 0;
    for (std::int64_t j = 0; j < K; ++j) {
      const std::int64_t i = t * K + j;
      const auto gt =
          fw.terms.empty() ? gate_terms<S, F>(fw.zx[i], fw.za[i], s[j], imag_param(in, j), reset) : fw.terms[i];
      const bool has_previous = t > 0 || !in.h0.empty();
      const F product = has_previous ? scan_product_at(in, fw, g, g_sums, t, j) : F(0);
      const auto lg = local_gradients<S, F>(gt, g[i], in.x_direct[i], has_previous ? &product : nullptr, s[j],
                                            imag_param(in, j), reset, in.sqrt_gradient == SqrtGradient::exact);
      gr.dx_direct[i] = lg.dx_direct;
      gr.a_param_sum[j] = gr.a_param_sum[j] + lg.a_param_term;
      if constexpr (is_complex_v<F>) gr.a_imag_sum[j] = gr.a_imag_sum[j] + lg.a_imag_term;
      dzx[j] = lg.dzx;
      dza[j] = lg.dza;
    }
    input_gate.accumulate_gradient(&in.x_gate[t * Ki], dzx.data());
    a_gate.accumulate_gradient(&in.x_gate[t * Ki], dza.data());
    input_gate.back_project(dzx.data(), dx_x.data());
    a_gate.back_project(dza.data(), dx_a.data());
    for (std::int64_t ii = 0; ii < Ki; ++ii) gr.dx_gate[t * Ki + ii] = dx_x[ii] + dx_a[ii];
    for (std::int64_t j = 0; j < K; ++j) {
      gr.dbx[j] = gr.dbx[j] + dzx[j];
      gr.dba[j] = gr.dba[j] + dza[j];
    }
  }
  gr.dwx = input_gate.weight_gradient();
  gr.dwa = a_gate.weight_gradient();
  return gr;
}

template <class S, class F>
GatedBlockGrads<S, F> gated_backward(const GatedBlockInputs<S, F>& in, const GatedBlockForward<S, F>& fw) {
  std::vector<F> g;
  return gated_backward(in, fw, g);
}

}  // namespace scancheck::ref
