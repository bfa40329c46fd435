// SPDX-License-Identifier: Apache-2.0
//! @file
//! Dual<T>: forward-mode automatic differentiation along one direction (value and directional derivative).
//! Instantiating the forward recurrences with Dual<float128> gives d(loss)/d(epsilon) for inputs moved
//! along a direction, which must equal the backward pass's gradient dotted with that direction.
//! (Boost.Math's autodiff does not compile over float128 in Boost 1.81.)
#pragma once

#include <cmath>

#include "reference/scalar.hpp"

namespace scancheck::ref {

template <class T>
struct Dual {
  T v{0};  //!< value
  T d{0};  //!< derivative along the direction

  Dual() = default;
  Dual(int c) : v(c) {}
  Dual(double c) : v(c) {}
  Dual(float c) : v(c) {}
  Dual(const T& value, const T& derivative) : v(value), d(derivative) {}

  friend Dual operator-(const Dual& x) { return {-x.v, -x.d}; }
  friend Dual operator+(const Dual& x, const Dual& y) { return {x.v + y.v, x.d + y.d}; }
  friend Dual operator-(const Dual& x, const Dual& y) { return {x.v - y.v, x.d - y.d}; }
  friend Dual operator*(const Dual& x, const Dual& y) { return {x.v * y.v, x.d * y.v + x.v * y.d}; }
  friend Dual operator/(const Dual& x, const Dual& y) {
    const T q = x.v / y.v;
    return {q, (x.d - q * y.d) / y.v};
  }
  friend Dual exp(const Dual& x) {
    using std::exp;
    const T e = exp(x.v);
    return {e, e * x.d};
  }
  friend Dual expm1(const Dual& x) {
    using std::exp;
    using std::expm1;
    return {expm1(x.v), exp(x.v) * x.d};
  }
  friend Dual log1p(const Dual& x) {
    using std::log1p;
    return {log1p(x.v), x.d / (T(1) + x.v)};
  }
  friend Dual sqrt(const Dual& x) {
    using std::sqrt;
    const T r = sqrt(x.v);
    return {r, x.d / (T(2) * r)};
  }
  friend Dual sin(const Dual& x) {
    using std::cos;
    using std::sin;
    return {sin(x.v), cos(x.v) * x.d};
  }
  friend Dual cos(const Dual& x) {
    using std::cos;
    using std::sin;
    return {cos(x.v), -sin(x.v) * x.d};
  }
  friend const T& value_of(const Dual& x) { return x.v; }
  friend double to_double(const Dual& x) { return static_cast<double>(x.v); }
};

}  // namespace scancheck::ref
