// SPDX-License-Identifier: Apache-2.0
//! @file
//! Bounded<T>: a scalar carrying the exact value (in T) and a first-order bound on the error with which a
//! float32 evaluation of the same expression computes it (running error analysis, harness.md).
//!
//! Each operation z = f(x, y) propagates  E(z) = |df/dx| E(x) + |df/dy| E(y) + c_f * ulp32(z),
//! with ulp32(z) <= 2^-23 |z| + 2^-149 (the last term covers gradual underflow) and c_f the operation's
//! documented accuracy in ulps: 1/2 for the correctly rounded + - * / sqrt, and the CUDA C Programming
//! Guide's maximum errors for the float functions: expf 2, expm1f 1, log1pf 1, sinf 2, cosf 2 ulps.
//! Products also add E(x) E(y), so the bound stays safe when both operands are inexact.
//! Inputs enter exact (E = 0): references are functions of the inputs as given (recurrences.md §5).
//! The bound is stored as a double; it is a magnitude, needed to a few digits only.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <utility>

#include "reference/complex.hpp"
#include "reference/scalar.hpp"

namespace scancheck::ref {

namespace ulps {
inline constexpr double correctly_rounded = 0.5;
inline constexpr double exp = 2.0;
inline constexpr double expm1 = 1.0;
inline constexpr double log1p = 1.0;
inline constexpr double sin = 2.0;
inline constexpr double cos = 2.0;
}  // namespace ulps

//! `Admits` (the default) makes the bound cover the accepted formulations (admit_absolute_error); without,
//! it describes scancheck's own formulation alone: the "strict" bounds that notes compare against.
template <class T, bool Admits = true>
class Bounded {
 public:
  Bounded() = default;
  //! An exact constant or input (its error bound is zero).
  template <class U>
    requires std::is_arithmetic_v<U>
  Bounded(U c) : Bounded(T(c), 0.0, exact_tag{}) {}
  //! A value known to `e`.
  static Bounded with_bound(const T& v, double e) { return Bounded(v, e, exact_tag{}); }

  const T& value() const { return v_; }
  double approx() const { return d_; }  //!< the value rounded to double, for derivative factors
  double bound() const { return e_; }

  //! The result of an operation with value v, propagated error `carried` and rounding of `ulps` ulps.
  static Bounded rounded(const T& v, double carried, double ulps) {
    Bounded z(v, 0.0, exact_tag{});
    z.e_ = carried + ulps * (0x1p-23 * std::fabs(z.d_) + 0x1p-149);
    // NaN comes only from inf * 0 or 0 / 0 in the propagation (an unbounded operand meeting a zero factor)
    // or from a NaN value: no bound, which is +inf (a NaN bound would make every comparison false).
    if (std::isnan(z.e_)) z.e_ = std::numeric_limits<double>::infinity();
    return z;
  }

  friend Bounded operator-(const Bounded& x) { return with_bound(-x.v_, x.e_); }
  friend Bounded operator+(const Bounded& x, const Bounded& y) {
    return rounded(x.v_ + y.v_, x.e_ + y.e_, ulps::correctly_rounded);
  }
  friend Bounded operator-(const Bounded& x, const Bounded& y) {
    return rounded(x.v_ - y.v_, x.e_ + y.e_, ulps::correctly_rounded);
  }
  friend Bounded operator*(const Bounded& x, const Bounded& y) {
    const double carried = std::fabs(y.d_) * x.e_ + std::fabs(x.d_) * y.e_ + x.e_ * y.e_;
    return rounded(x.v_ * y.v_, carried, ulps::correctly_rounded);
  }
  friend Bounded operator/(const Bounded& x, const Bounded& y) {
    // |x'/y' - x/y| <= (E(x) + |x/y| E(y)) / (|y| - E(y)) while E(y) < |y|. Once E(y) reaches |y| the
    // float32 denominator may be zero (e.g. sqrt(q) with q underflowing to 0 in the exact sqrt-gradient
    // convention): the quotient is unbounded.
    const double ay = std::fabs(y.d_);
    const double carried = y.e_ < ay ? (x.e_ + std::fabs(x.d_ / y.d_) * y.e_) / (ay - y.e_)
                                     : std::numeric_limits<double>::infinity();
    return rounded(x.v_ / y.v_, carried, ulps::correctly_rounded);
  }

  friend Bounded exp(const Bounded& x) {
    using std::exp;
    const T z = exp(x.v_);
    return rounded(z, static_cast<double>(z) * x.e_, ulps::exp);
  }
  friend Bounded expm1(const Bounded& x) {
    using std::expm1;
    using std::exp;
    return rounded(expm1(x.v_), std::exp(x.d_) * x.e_, ulps::expm1);
  }
  friend Bounded log1p(const Bounded& x) {
    using std::log1p;
    return rounded(log1p(x.v_), x.e_ / std::fabs(1 + x.d_), ulps::log1p);
  }
  friend Bounded sqrt(const Bounded& x) {
    using std::sqrt;
    const T z = sqrt(x.v_);
    const double dz = static_cast<double>(z);
    // At z = 0 the derivative is infinite; sqrt(E) bounds |sqrt(x + E) - sqrt(x)| for any x >= 0.
    const double carried = dz > 0 ? std::min(x.e_ / (2 * dz), std::sqrt(x.e_)) : std::sqrt(x.e_);
    return rounded(z, carried, ulps::correctly_rounded);
  }
  friend Bounded sin(const Bounded& x) {
    using std::sin;
    return rounded(sin(x.v_), std::min(std::fabs(std::cos(x.d_)) * x.e_ + 0.5 * x.e_ * x.e_, 2.0),
                   ulps::sin);
  }
  friend Bounded cos(const Bounded& x) {
    using std::cos;
    return rounded(cos(x.v_), std::min(std::fabs(std::sin(x.d_)) * x.e_ + 0.5 * x.e_ * x.e_, 2.0),
                   ulps::cos);
  }
  //! max is 1-Lipschitz in each argument jointly: |max(x',y') - max(x,y)| <= max(|x'-x|, |y'-y|).
  friend Bounded maximum(const Bounded& x, const Bounded& y) {
    Bounded z = x.v_ >= y.v_ ? x : y;
    z.e_ = std::max(x.e_, y.e_);
    return z;
  }
  friend const T& value_of(const Bounded& x) { return x.v_; }
  friend Bounded admit_absolute_error(const Bounded& x, double amount) {
    return Admits ? with_bound(x.v_, x.e_ + amount) : x;
  }
  friend double to_double(const Bounded& x) { return x.d_; }

 private:
  struct exact_tag {};
  Bounded(const T& v, double e, exact_tag) : v_(v), d_(static_cast<double>(v)), e_(e) {}

  T v_{0};
  double d_ = 0;
  double e_ = 0;
};

//! Complex<Bounded<T>>: the error of a complex value is bounded as a vector, |z' - z| <= norm, besides
//! the components' own bounds. Component-wise propagation through a product grows the bound by
//! |Re a| + |Im a| (up to sqrt(2) |a|) at every step of a recurrence, exponentially in L for decays near
//! the unit circle; the norm grows by |a|, as the error itself does: |d(x y)| <= |x| |dy| + |y| |dx| + |dx| |dy|.
//! Each component keeps the smaller of its own bound and the norm (both are valid).
template <class T, bool Admits>
struct Complex<Bounded<T, Admits>> {
  using B = Bounded<T, Admits>;
  B re{0};
  B im{0};
  double norm = 0;

  Complex() = default;
  Complex(int c) : re(c), im(0) {}
  Complex(B r, B i) : re(std::move(r)), im(std::move(i)), norm(std::hypot(re.bound(), im.bound())) {}

  friend Complex operator+(const Complex& x, const Complex& y) { return summed(x.re + y.re, x.im + y.im, x, y); }
  friend Complex operator-(const Complex& x, const Complex& y) { return summed(x.re - y.re, x.im - y.im, x, y); }
  friend Complex operator*(const Complex& x, const Complex& y) {
    // Each component is two correctly rounded products and a correctly rounded sum.
    const B re = x.re * y.re - x.im * y.im, im = x.re * y.im + x.im * y.re;
    const double rounding_re = half_ulp(to_double(x.re) * to_double(y.re)) +
                               half_ulp(to_double(x.im) * to_double(y.im)) + half_ulp(to_double(re));
    const double rounding_im = half_ulp(to_double(x.re) * to_double(y.im)) +
                               half_ulp(to_double(x.im) * to_double(y.re)) + half_ulp(to_double(im));
    const double carried = magnitude(x) * y.norm + magnitude(y) * x.norm + x.norm * y.norm;
    return tightened(re, im, carried + std::hypot(rounding_re, rounding_im));
  }
  friend Complex operator*(const Complex& x, const B& s) {
    const B re = x.re * s, im = x.im * s;
    const double carried = std::fabs(to_double(s)) * x.norm + magnitude(x) * s.bound() + x.norm * s.bound();
    return tightened(re, im, carried + std::hypot(half_ulp(to_double(re)), half_ulp(to_double(im))));
  }
  friend Complex conj(const Complex& x) {
    Complex z = x;
    z.im = -x.im;
    return z;
  }

 private:
  static double half_ulp(double v) { return ulps::correctly_rounded * (0x1p-23 * std::fabs(v) + 0x1p-149); }
  static double magnitude(const Complex& x) { return std::hypot(to_double(x.re), to_double(x.im)); }
  static Complex summed(const B& re, const B& im, const Complex& x, const Complex& y) {
    return tightened(re, im, x.norm + y.norm + std::hypot(half_ulp(to_double(re)), half_ulp(to_double(im))));
  }
  //! Components from their own propagation, norm from the vector one; each bound is the tighter valid one.
  static Complex tightened(const B& re, const B& im, double norm) {
    if (std::isnan(norm)) norm = std::numeric_limits<double>::infinity();
    Complex z;
    z.norm = std::min(norm, std::hypot(re.bound(), im.bound()));
    z.re = B::with_bound(re.value(), std::min(re.bound(), z.norm));
    z.im = B::with_bound(im.value(), std::min(im.bound(), z.norm));
    return z;
  }
};

}  // namespace scancheck::ref
