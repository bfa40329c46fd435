// SPDX-License-Identifier: Apache-2.0
//! @file
//! Forward and backward of the gated layers (architectures `rglru`, `complex_rglru`) on one
//! (batch, head) block at full length. Contract: recurrences.md §2 (real, F = S) and §3 (complex,
//! F = Complex<S>), with the numerical notes of §5: q = -expm1(2 log_a), stable softplus and sigmoid,
//! sigma'(z) = sigma(z) sigma(-z).
//!
//! Shapes, per block: gate inputs x_gate [L, K_in] (the head's slice of x, merged layout for complex),
//! direct inputs x_direct [L, K_out] (x itself for rglru, x_t[c] + i x_t[Wc + c] for complex_rglru),
//! weights [K_in, K_out], per-channel vectors [K_out].
//! Summation order (what a float32 evaluation of the same code does, and what the bounds describe):
//! projections sum i = 0..K_in-1 then add the bias; back-projections sum j = 0..K_out-1, the input gate's
//! term first; parameter-gradient sums run over t = L-1..0 within the block.
#pragma once

#include <cstdint>
#include <vector>

#include "core/architecture.hpp"
#include "reference/affine_scan.hpp"
#include "reference/complex.hpp"
#include "reference/scalar.hpp"

namespace scancheck::ref {

template <class S>
S sigmoid(const S& z) {
  using std::exp;
  if (value_of(z) >= 0) return S(1) / (S(1) + exp(-z));
  const S e = exp(z);
  return e / (S(1) + e);
}

//! softplus(z) = max(z, 0) + log1p(exp(-|z|)).
template <class S>
S softplus(const S& z) {
  using std::exp;
  using std::log1p;
  if (value_of(z) > 0) return z + log1p(exp(-z));
  return log1p(exp(z));
}

template <class S, class F>
struct GatedBlockInputs {
  std::int64_t length = 0, inputs = 0, channels = 0;  // L, K_in, K_out
  SqrtGradient sqrt_gradient = SqrtGradient::bounded;
  std::vector<S> x_gate;             // [L, K_in]
  std::vector<F> x_direct;           // [L, K_out]
  std::vector<std::uint8_t> reset;   // [L]: segment_pos == 0
  std::vector<F> h0;                 // [K_out], empty when absent
  std::vector<S> a_param;            // [K_out]
  std::vector<S> a_imag_param;       // [K_out], complex only
  std::vector<S> wx, wa;             // [K_in, K_out]
  std::vector<S> bx, ba;             // [K_out]
  std::vector<F> dy;                 // [L, K_out]
  std::vector<F> dh_last;            // [K_out], empty when absent
};

template <class S, class F>
struct GatedBlockForward {
  std::vector<S> zx, za;  // [L, K_out] gate pre-activations, kept for the backward
  std::vector<F> at;      // [L, K_out] the decay actually used (0 at a reset)
  std::vector<F> h;       // [L, K_out] = y
};

template <class S, class F>
struct GatedBlockGrads {
  std::vector<S> dx_gate;     // [L, K_in]: both gates' back-projections, input gate first
  std::vector<F> dx_direct;   // [L, K_out]: through u = x gx m
  std::vector<F> dh0;         // [K_out]
  std::vector<S> dwx, dwa;    // [K_in, K_out]
  std::vector<S> dbx, dba;    // [K_out]
  std::vector<S> a_param_sum; // [K_out]: sum_t (-8 ga dlog_a), before the factor sigma(a_param)
  std::vector<S> a_imag_sum;  // [K_out]: sum_t ga dphi (complex only)
};

//! Everything the decay and normalisation derive from the two gate pre-activations of one element.
template <class S, class F>
struct GateTerms {
  S gx, ga, log_a, q, m;
  F a;
};

template <class S, class F>
GateTerms<S, F> gate_terms(const S& zx, const S& za, const S& s, const S* a_imag, bool reset) {
  using std::cos;
  using std::exp;
  using std::expm1;
  using std::sin;
  using std::sqrt;
  GateTerms<S, F> g;
  g.gx = sigmoid(zx);
  g.ga = sigmoid(za);
  g.log_a = S(-8) * g.ga * s;
  if constexpr (is_complex_v<F>) {
    const S phi = *a_imag * g.ga;
    const S r = exp(g.log_a);
    g.a = F(r * cos(phi), r * sin(phi));
  } else {
    g.a = exp(g.log_a);
  }
  g.q = -expm1(S(2) * g.log_a);
  g.m = reset ? S(1) : sqrt(g.q);
  return g;
}

//! z[j] = sum_i x[i] w[i, j] + bias[j], i ascending.
template <class S>
void project(const S* x, const S* w, const S* bias, std::int64_t k_in, std::int64_t k_out, S* z) {
  for (std::int64_t j = 0; j < k_out; ++j) z[j] = S(0);
  for (std::int64_t i = 0; i < k_in; ++i)
    for (std::int64_t j = 0; j < k_out; ++j) z[j] = z[j] + x[i] * w[i * k_out + j];
  for (std::int64_t j = 0; j < k_out; ++j) z[j] = z[j] + bias[j];
}

//! dx[i] = sum_j w[i, j] dz[j], j ascending.
template <class S>
S back_project(const S* w_row, const S* dz, std::int64_t k_out) {
  S acc(0);
  for (std::int64_t j = 0; j < k_out; ++j) acc = acc + w_row[j] * dz[j];
  return acc;
}

//! The phase parameter of channel j, or nullptr for the real layer.
template <class S, class F>
const S* imag_param(const GatedBlockInputs<S, F>& in, std::int64_t j) {
  return in.a_imag_param.empty() ? nullptr : &in.a_imag_param[j];
}

template <class S, class F>
GatedBlockForward<S, F> gated_forward(const GatedBlockInputs<S, F>& in) {
  const std::int64_t L = in.length, Ki = in.inputs, K = in.channels;
  GatedBlockForward<S, F> fw;
  fw.zx.resize(L * K);
  fw.za.resize(L * K);
  fw.at.resize(L * K);
  fw.h.resize(L * K);
  std::vector<S> s(K);
  for (std::int64_t j = 0; j < K; ++j) s[j] = softplus(in.a_param[j]);
  std::vector<F> u(L * K);
  for (std::int64_t t = 0; t < L; ++t) {
    project(&in.x_gate[t * Ki], in.wx.data(), in.bx.data(), Ki, K, &fw.zx[t * K]);
    project(&in.x_gate[t * Ki], in.wa.data(), in.ba.data(), Ki, K, &fw.za[t * K]);
    const bool reset = in.reset[t] != 0;
    for (std::int64_t j = 0; j < K; ++j) {
      const std::int64_t i = t * K + j;
      const auto g = gate_terms<S, F>(fw.zx[i], fw.za[i], s[j], imag_param(in, j), reset);
      fw.at[i] = reset ? F(0) : g.a;
      u[i] = in.x_direct[i] * g.gx * g.m;
    }
  }
  for (std::int64_t j = 0; j < K; ++j) {
    const ChannelScan<F> channel{L, K, fw.at.data() + j, in.reset.data(), in.h0.empty() ? nullptr : &in.h0[j]};
    scan_forward(channel, u.data() + j, fw.h.data() + j);
  }
  return fw;
}

template <class S, class F>
GatedBlockGrads<S, F> gated_backward(const GatedBlockInputs<S, F>& in, const GatedBlockForward<S, F>& fw) {
  using std::exp;
  const std::int64_t L = in.length, Ki = in.inputs, K = in.channels;
  GatedBlockGrads<S, F> gr;
  gr.dx_gate.resize(L * Ki);
  gr.dx_direct.resize(L * K);
  gr.dh0.resize(K);
  gr.dwx.assign(Ki * K, S(0));
  gr.dwa.assign(Ki * K, S(0));
  gr.dbx.assign(K, S(0));
  gr.dba.assign(K, S(0));
  gr.a_param_sum.assign(K, S(0));
  gr.a_imag_sum.assign(K, S(0));

  // g: the reverse scan with decay at and cotangent dy (plus dh_last at the end).
  std::vector<F> g(L * K);
  for (std::int64_t j = 0; j < K; ++j) {
    const ChannelScan<F> channel{L, K, fw.at.data() + j, in.reset.data(), in.h0.empty() ? nullptr : &in.h0[j]};
    gr.dh0[j] = scan_backward(channel, in.dy.data() + j, in.dh_last.empty() ? nullptr : &in.dh_last[j],
                              g.data() + j);
  }

  std::vector<S> s(K);
  for (std::int64_t j = 0; j < K; ++j) s[j] = softplus(in.a_param[j]);
  const S clip = S(1) / S(1000);
  std::vector<S> dzx(K), dza(K);
  for (std::int64_t t = L - 1; t >= 0; --t) {
    const bool reset = in.reset[t] != 0;
    for (std::int64_t j = 0; j < K; ++j) {
      const std::int64_t i = t * K + j;
      const auto gt = gate_terms<S, F>(fw.zx[i], fw.za[i], s[j], imag_param(in, j), reset);
      const F& gi = g[i];
      const S r = real_part(gi * conj(in.x_direct[i]));  // Re(g conj(x)): g x for real channels
      const S dgx = r * gt.m;
      const S dm = r * gt.gx;
      gr.dx_direct[i] = gi * gt.gx * gt.m;
      S dl(0), dphi(0);
      if (!reset) {
        const S two_sqrt_q = S(2) * gt.m;  // m = sqrt(q) away from resets
        const S dq = in.sqrt_gradient == SqrtGradient::exact ? dm / two_sqrt_q
                                                             : dm / maximum(two_sqrt_q, clip);
        // G conj(a) with G = g conj(h_{t-1}); without a previous state (t = 0, no h0) G = 0.
        F p(0);
        if (t > 0 || !in.h0.empty()) {
          const F& prev = t > 0 ? fw.h[i - K] : in.h0[j];
          p = gi * conj(prev) * conj(gt.a);
        }
        dl = real_part(p) - S(2) * exp(S(2) * gt.log_a) * dq;
        if constexpr (is_complex_v<F>) dphi = p.im;
      }
      S dga = S(-8) * s[j] * dl;
      if constexpr (is_complex_v<F>) {
        dga = dga + in.a_imag_param[j] * dphi;
        gr.a_imag_sum[j] = gr.a_imag_sum[j] + gt.ga * dphi;
      }
      gr.a_param_sum[j] = gr.a_param_sum[j] + S(-8) * gt.ga * dl;
      dzx[j] = dgx * (gt.gx * sigmoid(-fw.zx[i]));
      dza[j] = dga * (gt.ga * sigmoid(-fw.za[i]));
    }
    for (std::int64_t ii = 0; ii < Ki; ++ii) {
      const S& x = in.x_gate[t * Ki + ii];
      for (std::int64_t j = 0; j < K; ++j) {
        gr.dwx[ii * K + j] = gr.dwx[ii * K + j] + x * dzx[j];
        gr.dwa[ii * K + j] = gr.dwa[ii * K + j] + x * dza[j];
      }
      gr.dx_gate[t * Ki + ii] = back_project(&in.wx[ii * K], dzx.data(), K) +
                                back_project(&in.wa[ii * K], dza.data(), K);
    }
    for (std::int64_t j = 0; j < K; ++j) {
      gr.dbx[j] = gr.dbx[j] + dzx[j];
      gr.dba[j] = gr.dba[j] + dza[j];
    }
  }
  return gr;
}

}  // namespace scancheck::ref
