// SPDX-License-Identifier: Apache-2.0
//! @file
//! A complex number over any reference scalar (std::complex is specified only for float, double and long
//! double). Operations are written out in the order a float32 kernel evaluates them, so the error bounds
//! propagated through Bounded<T> describe that evaluation: (a+ib)(c+id) = (ac - bd) + i(ad + bc).
#pragma once

#include <type_traits>
#include <utility>

namespace scancheck::ref {

template <class S>
struct Complex {
  S re{0};
  S im{0};

  Complex() = default;
  Complex(int c) : re(c), im(0) {}
  Complex(S r, S i) : re(std::move(r)), im(std::move(i)) {}

  friend Complex operator+(const Complex& x, const Complex& y) { return {x.re + y.re, x.im + y.im}; }
  friend Complex operator-(const Complex& x, const Complex& y) { return {x.re - y.re, x.im - y.im}; }
  friend Complex operator*(const Complex& x, const Complex& y) {
    return {x.re * y.re - x.im * y.im, x.re * y.im + x.im * y.re};
  }
  friend Complex operator*(const Complex& x, const S& s) { return {x.re * s, x.im * s}; }
  friend Complex conj(const Complex& x) { return {x.re, -x.im}; }
};

//! The real-field counterparts, so one scan body serves both the real and the complex recurrences.
template <class T>
inline constexpr bool is_complex_v = false;
template <class S>
inline constexpr bool is_complex_v<Complex<S>> = true;

//! The real scalar under a field: S for S, S for Complex<S>.
template <class F>
struct scalar_of {
  using type = F;
};
template <class S>
struct scalar_of<Complex<S>> {
  using type = S;
};
template <class F>
using scalar_of_t = typename scalar_of<F>::type;

template <class S>
S conj(const S& x) {
  return x;
}
template <class S>
const S& real_part(const S& x) {
  return x;
}
template <class S>
const S& real_part(const Complex<S>& x) {
  return x.re;
}

}  // namespace scancheck::ref
