// SPDX-License-Identifier: Apache-2.0
//! @file
//! The per-element formulas of the gated layers (recurrences.md §2, §3 and the numerical notes of §5),
//! written once over the scalar S and the field F (S, or a complex type with members re and im):
//! the reference instantiates them in float128, mpfr50, Bounded<T> and Dual<T>; the backends' kernels in
//! float on the host and the device. q = -expm1(2 log_a) (never 1 - exp(2 log_a)), softplus and sigmoid in
//! their stable forms, sigma'(z) = sigma(z) sigma(-z). Boost-free C++17.
#pragma once

#include <cmath>
#include <type_traits>
#include <utility>

#include "core/host_device.hpp"
#include "reference/scalar_ops.hpp"

namespace scancheck::ref {

//! Whether the field F is complex: it has an imaginary part.
template <class F, class = void>
inline constexpr bool has_imaginary_v = false;
template <class F>
inline constexpr bool has_imaginary_v<F, std::void_t<decltype(std::declval<F&>().im)>> = true;

//! sigma(z) and sigma(-z) from one exponential e = exp(-|z|): the larger is 1/(1+e), the smaller e/(1+e).
//! Both are accurate to a few ulps in either tail (1 - sigma(z) would cancel).
template <class S>
struct SigmoidPair {
  S of_z, of_minus_z;
};

//! The smaller member's bound also admits 2^-126 (FLT_MIN): the accepted 1/(1+exp(-z)) gives 0 once exp(-z)
//! overflows (z < -88.7, where sigma(z) < 2^-128), and flush-to-zero arithmetic (CUDA's -ftz) gives 0 for
//! any subnormal result.
template <class S>
SC_HD SigmoidPair<S> sigmoid_pair(const S& z) {
  using std::exp;
  constexpr double flushed = 0x1p-126;
  if (value_of(z) >= 0) {
    const S e = exp(-z);
    const S d = S(1) + e;
    return {S(1) / d, admit_absolute_error(e / d, flushed)};
  }
  const S e = exp(z);
  const S d = S(1) + e;
  return {admit_absolute_error(e / d, flushed), S(1) / d};
}

//! sigma'(z) = sigma(z) sigma(-z), accurate in both tails. Its bound also admits the literal
//! sigma (1 - sigma) of recurrences.md sections 2 and 3 (PyTorch autograd, most Triton kernels): once sigma
//! rounds towards 1, 1 - sigma cancels and keeps only sigma's rounding, up to 2 ulps of 1 times sigma, so
//! the derivative of a saturated gate is lost (recurrences.md section 5: correct, to be noted, never failed).
template <class S>
SC_HD S sigmoid_derivative(const S& sigma, const S& sigma_minus) {
  const double larger = static_cast<double>(value_of(value_of(sigma) >= value_of(sigma_minus) ? sigma : sigma_minus));
  return admit_absolute_error(sigma * sigma_minus, 0x1p-23 * larger * larger);
}

template <class S>
SC_HD S sigmoid(const S& z) {
  return sigmoid_pair(z).of_z;
}

//! softplus(z) = max(z, 0) + log1p(exp(-|z|)).
template <class S>
SC_HD S softplus(const S& z) {
  using std::exp;
  using std::log1p;
  if (value_of(z) > 0) return z + log1p(exp(-z));
  return log1p(exp(z));
}

//! Everything the decay and normalisation derive from the two gate pre-activations of one element.
template <class S, class F>
struct GateTerms {
  S gx, ga;              // sigma(zx), sigma(za)
  S gx_minus, ga_minus;  // sigma(-zx), sigma(-za): sigma'(z) = sigma(z) sigma(-z)
  S log_a, r, q, m;      // r = |a| = exp(log_a)
  F a;
};

//! How |a| and q are derived from log_a. `separate` is the spec's: r = exp(log_a), q = -expm1(2 log_a).
//! `shared_sfu` is the kernels' variant that spends one special-function evaluation on both: e = |a| - 1
//! from expm1 or exp (whichever keeps its accuracy), q = -e (2 + e) (= 1 - |a|^2 without its cancellation).
enum class DecayForm { separate, shared_sfu };

//! The decay a = exp(log_a) e^{i phi} and q from the a-gate's sigma(za) = ga, under either form.
template <class S, class F>
struct DecayTerms {
  S log_a, r, q;
  F a;
};

template <class S, class F, DecayForm form = DecayForm::separate>
SC_HD DecayTerms<S, F> decay_terms(const S& ga, const S& s, const S* a_imag) {
  using std::cos;
  using std::exp;
  using std::expm1;
  using std::sin;
  DecayTerms<S, F> d;
  d.log_a = S(-8) * ga * s;
  if constexpr (form == DecayForm::shared_sfu) {
    // One exponential either way: near |a| = 1 from expm1 (|a| = 1 + e >= 1/2 is then accurate), below
    // 1/2 from exp (e = |a| - 1 <= -1/2 is then accurate), so both |a| and q keep their relative accuracy.
    // 1 + expm1(l) alone would round |a| to 0 for l below about -17 (a y of 0 where 1e-13 is exact).
    S e;
    if (value_of(d.log_a) > -0.6931471805599453) {
      e = expm1(d.log_a);
      d.r = S(1) + e;
    } else {
      d.r = exp(d.log_a);
      e = d.r - S(1);
    }
    d.q = -(e * (S(2) + e));
  } else {
    d.r = exp(d.log_a);
    d.q = -expm1(S(2) * d.log_a);
  }
  if constexpr (has_imaginary_v<F>) {
    const S phi = *a_imag * ga;
    d.a = F{d.r * cos(phi), d.r * sin(phi)};
  } else {
    d.a = d.r;
  }
  return d;
}

//! The decay alone (what a reverse scan needs of step t + 1): the same operations as gate_terms' a.
template <class S, class F, DecayForm form = DecayForm::separate>
SC_HD F gate_decay(const S& za, const S& s, const S* a_imag) {
  return decay_terms<S, F, form>(sigmoid(za), s, a_imag).a;
}

template <class S, class F, DecayForm form = DecayForm::separate>
SC_HD GateTerms<S, F> gate_terms(const S& zx, const S& za, const S& s, const S* a_imag, bool reset) {
  using std::sqrt;
  GateTerms<S, F> g;
  const auto sx = sigmoid_pair(zx), sa = sigmoid_pair(za);
  g.gx = sx.of_z;
  g.gx_minus = sx.of_minus_z;
  g.ga = sa.of_z;
  g.ga_minus = sa.of_minus_z;
  const DecayTerms<S, F> d = decay_terms<S, F, form>(g.ga, s, a_imag);
  g.log_a = d.log_a;
  g.r = d.r;
  g.q = d.q;
  g.a = d.a;
  g.m = reset ? S(1) : sqrt(g.q);
  return g;
}

//! Field helpers that need no overloads from the field's namespace (F may be a builtin float).
template <class F>
SC_HD F conjugate(const F& x) {
  if constexpr (has_imaginary_v<F>) return F{x.re, -x.im};
  else return x;
}
template <class S, class F>
SC_HD F scaled(const F& x, const S& k) {
  if constexpr (has_imaginary_v<F>) return F{x.re * k, x.im * k};
  else return x * k;
}
template <class S, class F>
SC_HD F field_zero() {
  if constexpr (has_imaginary_v<F>) return F{S(0), S(0)};
  else return S(0);
}
template <class S, class F>
SC_HD S real_of(const F& x) {
  if constexpr (has_imaginary_v<F>) return x.re;
  else return x;
}

//! The gradients one element contributes in the backward (recurrences.md §2, §3), from the reverse-scan
//! state g_t and the element's gate terms.
template <class S, class F>
struct LocalGradients {
  F dx_direct;     // through u = x gx m
  S dzx, dza;      // of the gate pre-activations
  S a_param_term;  // -8 ga dlog_a: summed over (b, t) and times sigma(a_param) it is d_a_param
  S a_imag_term;   // ga dphi: summed over (b, t) it is d_a_imag_param (0 for the real layer)
};

//! G_t = g_t conj(h_{t-1}): the product of the reverse scan's state and the forward's previous one, which
//! d(at) is made of (da of the plain scans). Computed apart so that the reference can bound it for every
//! evaluation order of the two scans (reference/order_free_bound.hpp).
template <class F>
SC_HD F scan_product(const F& g, const F& prev) {
  return g * conjugate(prev);
}

//! x: the element's direct input; scan_product: G_t = scan_product(g, h_{t-1}), or nullptr where there is no
//! previous state (t = 0 without h0); s = softplus(a_param); exact_sqrt_gradient selects D(q) = 1/(2 sqrt q)
//! over the bounded convention 1 / max(2 sqrt q, 1/1000).
template <class S, class F>
SC_HD LocalGradients<S, F> local_gradients(const GateTerms<S, F>& gt, const F& g, const F& x, const F* scan_product,
                                           const S& s, const S* a_imag, bool reset, bool exact_sqrt_gradient) {
  LocalGradients<S, F> out;
  const S r = real_of<S>(g * conjugate(x));  // Re(g conj(x)): g x for real channels
  const S dgx = r * gt.m;
  const S dm = r * gt.gx;
  out.dx_direct = scaled(scaled(g, gt.gx), gt.m);
  S dl(0), dphi(0);
  if (!reset) {
    const S two_sqrt_q = S(2) * gt.m;  // m = sqrt(q) away from resets
    const S dq = exact_sqrt_gradient ? dm / two_sqrt_q : dm / maximum(two_sqrt_q, S(1) / S(1000));
    // G conj(a) with G = g conj(h_{t-1}); without a previous state G = 0.
    F p = field_zero<S, F>();
    if (scan_product) p = *scan_product * conjugate(gt.a);
    // exp(2 log_a) = |a|^2. Its bound also admits PyTorch autograd's derivative of q = -expm1(2 log_a),
    // which recovers exp(2 log_a) as 1 + expm1(2 log_a): absolute error up to 2 ulps of 1 where |a| is tiny.
    const S a_squared = admit_absolute_error(gt.r * gt.r, 0x1p-22);
    dl = real_of<S>(p) - S(2) * a_squared * dq;
    if constexpr (has_imaginary_v<F>) dphi = p.im;
  }
  S dga = S(-8) * s * dl;
  out.a_imag_term = S(0);
  if constexpr (has_imaginary_v<F>) {
    dga = dga + *a_imag * dphi;
    out.a_imag_term = gt.ga * dphi;
  }
  out.a_param_term = S(-8) * gt.ga * dl;
  out.dzx = dgx * sigmoid_derivative(gt.gx, gt.gx_minus);
  out.dza = dga * sigmoid_derivative(gt.ga, gt.ga_minus);
  return out;
}

}  // namespace scancheck::ref
