// SPDX-License-Identifier: Apache-2.0
//! @file
//! The gated layers (recurrences.md §2 `rglru`, §3 `complex_rglru`) as affine sequences for the schedules
//! of affine_scan/: the forward h_t = at_t h_{t-1} + u_t and the backward's reverse scan of g with decay
//! conj(at_{t+1}), plus the per-element gradient stage that the backward emits into.
//!
//! Per element the gate terms come from ref::gate_terms (reference/gate_math.hpp, the reference's own
//! formula) applied to the projections zx, za (GEMM outputs, bias added here as in the reference). A
//! `fused` backend evaluates them inside the scan kernels, so no decay or input ever reaches memory; an
//! unfused one materialises at and u (forward) and g (backward) in elementwise kernels (elementwise.hpp)
//! that call the same functions, so both give the same bits. Rows are n * L + t; [N, Wc] buffers are
//! row-major with N = B * L rows and Wc state channels. C++17.
#pragma once

#include <cstdint>

#include "backends/kernels/affine_scan/sequence.hpp"
#include "backends/kernels/gated/activation_view.hpp"
#include "reference/gate_math.hpp"

namespace scancheck::kernels {

//! What the gate terms of element (row, c) are computed from.
template <class F>
struct GateInputs {
  const float* zx;  // [N, Wc] input-gate projection, bias not yet added
  const float* za;  // [N, Wc] a-gate projection
  const float* bx;  // [Wc]: [H, K_out] flattened, channel c = h K_out + j
  const float* ba;
  const float* softplus_a;          // [Wc] softplus(a_param)
  const float* a_imag;              // [Wc] a_imag_param, nullptr for the real layer
  const std::int32_t* segment_pos;  // [N]: a reset where 0
  std::int64_t channels;
  bool shared_sfu;  // one expm1 for |a| and q (ref::DecayForm::shared_sfu)

  SC_HD bool reset(std::int64_t row) const { return segment_pos[row] == 0; }
  SC_HD ref::GateTerms<float, F> terms(std::int64_t row, std::int64_t c) const {
    const std::int64_t i = row * channels + c;
    const float x = zx[i] + bx[c], a = za[i] + ba[c];
    const float* imag = a_imag ? a_imag + c : nullptr;
    if (shared_sfu) return ref::gate_terms<float, F, ref::DecayForm::shared_sfu>(x, a, softplus_a[c], imag, reset(row));
    return ref::gate_terms<float, F>(x, a, softplus_a[c], imag, reset(row));
  }
  //! The decay actually used: zero at a reset. Bitwise terms(row, c).a, at a third of the cost.
  SC_HD F decay(std::int64_t row, std::int64_t c) const {
    if (reset(row)) return zero<F>();
    const float a = za[row * channels + c] + ba[c];
    const float* imag = a_imag ? a_imag + c : nullptr;
    if (shared_sfu) return ref::gate_decay<float, F, ref::DecayForm::shared_sfu>(a, softplus_a[c], imag);
    return ref::gate_decay<float, F>(a, softplus_a[c], imag);
  }
};

//! u = x gx m, in the reference's order.
template <class F>
SC_HD F gated_input(const ref::GateTerms<float, F>& gt, const F& x) {
  return ref::scaled(ref::scaled(x, gt.gx), gt.m);
}

//! Forward: decay at, input u; emits y (io) and h_last, or, when `states` is set (the replay of a
//! `fused_write` backward), only the float32 states.
template <class F, class IO>
struct GatedForward {
  using field = F;
  static constexpr bool reverse = false;
  ScanGeometry g;  // channels = Wc
  GateInputs<F> gates;
  bool fused;
  const F* at;  // [N, Wc] when not fused
  const F* u;
  ActivationView<const IO> x;
  ActivationView<const float> h0;  // [B, W]; data nullptr when absent
  ActivationView<IO> y;
  ActivationView<float> h_last;
  F* states;  // [N, Wc] or nullptr

  SC_HD Step<F> step(std::int64_t n, std::int64_t s, std::int64_t c) const {
    const std::int64_t row = n * g.length + s;
    if (!fused) return {at[row * g.channels + c], u[row * g.channels + c]};
    const auto gt = gates.terms(row, c);
    return {gates.reset(row) ? zero<F>() : gt.a, gated_input(gt, x.template load<F>(row, c))};
  }
  SC_HD F initial(std::int64_t n, std::int64_t c) const { return h0.data ? h0.template load<F>(n, c) : zero<F>(); }
  SC_HD void emit(std::int64_t n, std::int64_t s, std::int64_t c, F state) const {
    const std::int64_t row = n * g.length + s;
    if (states) {
      states[row * g.channels + c] = state;
      return;
    }
    y.store(row, c, state);
    if (s == g.length - 1) h_last.store(n, c, state);
  }
};

//! The backward of one element given g_t (recurrences.md §2, §3 via ref::local_gradients): writes the
//! direct part of dx, the gate pre-activations' gradients, the per-element terms of the parameter
//! gradients (summed later in a fixed order), and dh0 at t = 0.
template <class F, class IO>
struct GradientElement {
  ScanGeometry g;
  GateInputs<F> gates;
  bool exact_sqrt_gradient;
  ActivationView<const IO> x;
  ActivationView<const IO> y;  // h_{t-1} from the forward's output ...
  const F* states;             // ... or from float32 states replayed from chunk-entry states
  ActivationView<const float> h0;
  ActivationView<float> dx;  // [N, W] float32, merged: the back-projection GEMMs add to it
  float* dzx;                // [N, Wc]
  float* dza;
  float* a_param_term;
  float* a_imag_term;  // nullptr for the real layer
  ActivationView<float> dh0;

  SC_HD F previous_state(std::int64_t n, std::int64_t t, std::int64_t c, bool& present) const {
    const std::int64_t row = n * g.length + t;
    present = t > 0 || h0.data;
    if (t > 0) return states ? states[(row - 1) * g.channels + c] : y.template load<F>(row - 1, c);
    return h0.data ? h0.template load<F>(n, c) : zero<F>();
  }

  SC_HD void operator()(std::int64_t n, std::int64_t t, std::int64_t c, F grad) const {
    const std::int64_t row = n * g.length + t, i = row * g.channels + c;
    const bool reset = gates.reset(row);
    const auto gt = gates.terms(row, c);
    bool present = false;
    const F product = ref::scan_product(grad, previous_state(n, t, c, present));
    const float* imag = gates.a_imag ? gates.a_imag + c : nullptr;
    const auto lg = ref::local_gradients<float, F>(gt, grad, x.template load<F>(row, c), present ? &product : nullptr,
                                                   gates.softplus_a[c], imag, reset, exact_sqrt_gradient);
    dx.store(row, c, lg.dx_direct);
    dzx[i] = lg.dzx;
    dza[i] = lg.dza;
    a_param_term[i] = lg.a_param_term;
    if (a_imag_term) a_imag_term[i] = lg.a_imag_term;
    if (t == 0) dh0.store(n, c, reset ? zero<F>() : conj(gt.a) * grad);
  }
};

//! Backward: the reverse scan g_t = dy_t + conj(at_{t+1}) g_{t+1} from dh_last. A fused backend computes
//! the local gradients as each g_t is produced; an unfused one stores g for GateGradients.
template <class F, class IO>
struct GatedBackward {
  using field = F;
  static constexpr bool reverse = true;
  ScanGeometry g;
  GateInputs<F> gates;
  bool fused;
  const F* at;  // [N, Wc] when not fused
  ActivationView<const IO> dy;
  ActivationView<const float> dh_last;
  GradientElement<F, IO> element;  // when fused
  F* g_out;                        // [N, Wc] when not fused

  SC_HD std::int64_t time(std::int64_t s) const { return g.length - 1 - s; }
  SC_HD Step<F> step(std::int64_t n, std::int64_t s, std::int64_t c) const {
    const std::int64_t row = n * g.length + time(s);
    F next = one<F>();
    if (s > 0) next = conj(fused ? gates.decay(row + 1, c) : at[(row + 1) * g.channels + c]);
    return {next, dy.template load<F>(row, c)};
  }
  SC_HD F initial(std::int64_t n, std::int64_t c) const {
    return dh_last.data ? dh_last.template load<F>(n, c) : zero<F>();
  }
  SC_HD void emit(std::int64_t n, std::int64_t s, std::int64_t c, F grad) const {
    const std::int64_t t = time(s);
    if (fused) element(n, t, c, grad);
    else g_out[(n * g.length + t) * g.channels + c] = grad;
  }
};

}  // namespace scancheck::kernels
