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

template <class S>
SC_HD SigmoidPair<S> sigmoid_pair(const S& z) {
  using std::exp;
  if (value_of(z) >= 0) {
    const S e = exp(-z);
    const S d = S(1) + e;
    return {S(1) / d, e / d};
  }
  const S e = exp(z);
  const S d = S(1) + e;
  return {e / d, S(1) / d};
}

template <class S>
SC_HD S sigmoid(const S& z) { return sigmoid_pair(z).of_z; }

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
  S gx, ga;                    // sigma(zx), sigma(za)
  S gx_minus, ga_minus;        // sigma(-zx), sigma(-za): sigma'(z) = sigma(z) sigma(-z)
  S log_a, r, q, m;            // r = |a| = exp(log_a)
  F a;
};

template <class S, class F>
SC_HD GateTerms<S, F> gate_terms(const S& zx, const S& za, const S& s, const S* a_imag, bool reset) {
  using std::cos;
  using std::exp;
  using std::expm1;
  using std::sin;
  using std::sqrt;
  GateTerms<S, F> g;
  const auto sx = sigmoid_pair(zx), sa = sigmoid_pair(za);
  g.gx = sx.of_z;
  g.gx_minus = sx.of_minus_z;
  g.ga = sa.of_z;
  g.ga_minus = sa.of_minus_z;
  g.log_a = S(-8) * g.ga * s;
  g.r = exp(g.log_a);
  if constexpr (has_imaginary_v<F>) {
    const S phi = *a_imag * g.ga;
    g.a = F{g.r * cos(phi), g.r * sin(phi)};
  } else {
    g.a = g.r;
  }
  g.q = -expm1(S(2) * g.log_a);
  g.m = reset ? S(1) : sqrt(g.q);
  return g;
}

}  // namespace scancheck::ref
