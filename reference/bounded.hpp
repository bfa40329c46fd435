// SPDX-License-Identifier: Apache-2.0
//! @file
//! Bounded<T>: a scalar carrying the exact value (in T) and a first-order bound on the error with which a
//! float32 evaluation of the same expression computes it (running error analysis, docs/architecture.md).
//!
//! Each operation z = f(x, y) propagates  E(z) = |df/dx| E(x) + |df/dy| E(y) + c_f * ulp32(z) + flush32,
//! with ulp32(z) <= 2^-23 |z| + 2^-149 (the last term covers gradual underflow) and c_f the operation's
//! documented accuracy in ulps: 1/2 for the correctly rounded + - * / sqrt, and the CUDA C Programming
//! Guide's maximum errors for the float functions: expf 2, expm1f 1, log1pf 1, sinf 2, cosf 2 ulps.
//! flush32 is what flush-to-zero arithmetic (XLA on the CPU, CUDA's -ftz) adds: a result below 2^-126 may
//! be 0. It is 2^-126 in the bound verdicts judge with, which admits that arithmetic, and 0 in scancheck's
//! own (strict) bound, which underflows gradually: a flushing kernel passes, with a note where it loses
//! what gradual underflow keeps (docs/tolerance.md, "Accepted formulations").
//! Products also add E(x) E(y), so the bound stays safe when both operands are inexact.
//! Inputs enter exact (E = 0): references are functions of the inputs as given (recurrences.md §5).
//! The bound is stored as a double; it is a magnitude, needed to a few digits only.
//!
//! `Certifies` (T = double only) also bounds the error of the double evaluation itself, C(z), propagated
//! by the same rule with the double unit (ulp64(z) <= 2^-52 |z| + 2^-1074) and glibc's accuracy for the
//! double functions. Where C(z) is a small fraction of E(z) the double value is as good as the exact one
//! for judging a float32 result against E(z): the tiered reference (reference.hpp) keeps it and recomputes
//! in float128 only the blocks where it is not.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <utility>

#include "reference/complex.hpp"
#include "reference/scalar.hpp"

namespace scancheck::ref {

//! The accuracy of each operation in ulps of its result: a float32 kernel's (CUDA's documented maxima) and,
//! for a certifying Bounded, the double evaluation's (glibc documents at most 1 ulp for these functions on
//! x86_64, "Known Maximum Errors in Math Functions"; 2 keeps a margin).
struct OperationUlps {
  double single, working;
};
namespace ulps {
inline constexpr OperationUlps correctly_rounded{0.5, 0.5};
inline constexpr OperationUlps exp{2.0, 2.0};
inline constexpr OperationUlps expm1{1.0, 2.0};
inline constexpr OperationUlps log1p{1.0, 2.0};
inline constexpr OperationUlps sin{2.0, 2.0};
inline constexpr OperationUlps cos{2.0, 2.0};
}  // namespace ulps

//! ulp(z) <= relative |z| + smallest: the spacing of a binary format at z, gradual underflow included;
//! `flushed`: what an arithmetic that flushes results below the normal range to zero adds to a rounding.
struct FloatUnit {
  double relative, smallest, flushed = 0;
  constexpr double ulp(double z) const { return relative * std::fabs(z) + smallest; }
  //! The error of an operation accurate to `ulps` ulps whose result is z.
  constexpr double rounding(double ulps, double z) const { return ulps * ulp(z) + flushed; }
};
inline constexpr FloatUnit float32_unit{0x1p-23, 0x1p-149};
inline constexpr FloatUnit float32_flushing_unit{0x1p-23, 0x1p-149, 0x1p-126};
inline constexpr FloatUnit float64_unit{0x1p-52, 0x1p-1074};

//! The norm of a 2-vector (|a|, |b|), for bounds: never below the exact norm. In [2^-500, 2^500] it is
//! sqrt(a^2 + b^2), whose roundings (under 2 ulps together) the factor 1 + 2^-50 covers; outside, where
//! the squares could overflow or lose their digits to underflow, glibc's hypot. std::hypot everywhere took
//! a fifth of the complex reference's time.
inline double norm_bound(double a, double b) {
  const double m = std::max(std::fabs(a), std::fabs(b));
  if (m >= 0x1p-500 && m <= 0x1p500) return std::sqrt(a * a + b * b) * (1 + 0x1p-50);
  return std::hypot(a, b);
}

//! What a float32 bound covers beyond scancheck's own evaluation. every_order (the default, what verdicts
//! judge with): the accepted formulations (admit_absolute_error) in every evaluation order of the scans
//! (order_free_bound.hpp); own_formulation: scancheck's formulation alone, in every order: the "strict"
//! bounds that notes compare against (a kernel's order is not known, so a note is about its formulation);
//! sequential_order: the accepted formulations in scancheck's sequential order alone, the bound before
//! 2026-12, kept to measure what the order-free one costs (tests/bench/bound_cost.cpp).
enum class BoundScope { own_formulation, sequential_order, every_order };

//! The float32 unit of a scope's bounds: the accepted formulations include flush-to-zero arithmetic.
template <BoundScope Scope>
inline constexpr FloatUnit float32_unit_of =
    Scope == BoundScope::own_formulation ? float32_unit : float32_flushing_unit;

template <class T, BoundScope Scope = BoundScope::every_order, bool Certifies = false>
class Bounded {
  static_assert(!Certifies || std::is_same_v<T, double>, "only a double evaluation certifies its own value");

 public:
  Bounded() = default;
  //! An exact constant or input (its error bound is zero).
  template <class U>
  requires std::is_arithmetic_v<U> Bounded(U c) : Bounded(T(c), 0.0, exact_tag{}) {}
  //! A value known to `e` (and, certifying, computed to `working`).
  static Bounded with_bound(const T& v, double e, double working = 0) {
    Bounded z(v, e, exact_tag{});
    z.w_ = working;
    return z;
  }

  const T& value() const { return v_; }
  double approx() const { return d_; }  //!< the value rounded to double, for derivative factors
  double bound() const { return e_; }
  //! Certifying: a bound on |value() - exact|, the double evaluation's own error; 0 otherwise.
  double working_bound() const { return w_; }

  //! The result of an operation with value v whose error bounds propagate by `carry` (applied to the
  //! operands' float32 bounds, and to their working bounds when certifying), plus its own rounding.
  template <class Carry>
  static Bounded rounded(const T& v, OperationUlps u, Carry&& carry) {
    Bounded z(v, 0.0, exact_tag{});
    z.e_ = guarded(carry(&Bounded::e_) + float32_unit_of<Scope>.rounding(u.single, z.d_));
    if constexpr (Certifies) z.w_ = guarded(carry(&Bounded::w_) + float64_unit.rounding(u.working, z.d_));
    return z;
  }

  friend Bounded operator-(const Bounded& x) { return with_bound(-x.v_, x.e_, x.w_); }
  friend Bounded operator+(const Bounded& x, const Bounded& y) {
    return rounded(x.v_ + y.v_, ulps::correctly_rounded, [&](double Bounded::*e) { return x.*e + y.*e; });
  }
  friend Bounded operator-(const Bounded& x, const Bounded& y) {
    return rounded(x.v_ - y.v_, ulps::correctly_rounded, [&](double Bounded::*e) { return x.*e + y.*e; });
  }
  friend Bounded operator*(const Bounded& x, const Bounded& y) {
    return rounded(x.v_ * y.v_, ulps::correctly_rounded,
                   [&](double Bounded::*e) { return std::fabs(y.d_) * x.*e + std::fabs(x.d_) * y.*e + x.*e * y.*e; });
  }
  friend Bounded operator/(const Bounded& x, const Bounded& y) {
    // |x'/y' - x/y| <= (E(x) + |x/y| E(y)) / (|y| - E(y)) while E(y) < |y|. Once E(y) reaches |y| the
    // float32 denominator may be zero (e.g. sqrt(q) with q underflowing to 0 in the exact sqrt-gradient
    // convention): the quotient is unbounded.
    const double ay = std::fabs(y.d_);
    return rounded(x.v_ / y.v_, ulps::correctly_rounded, [&](double Bounded::*e) {
      return y.*e < ay ? (x.*e + std::fabs(x.d_ / y.d_) * y.*e) / (ay - y.*e) : std::numeric_limits<double>::infinity();
    });
  }

  friend Bounded exp(const Bounded& x) {
    using std::exp;
    const T z = exp(x.v_);
    return rounded(z, ulps::exp, [&](double Bounded::*e) { return static_cast<double>(z) * x.*e; });
  }
  friend Bounded expm1(const Bounded& x) {
    using std::expm1;
    const double slope = std::exp(x.d_);
    return rounded(expm1(x.v_), ulps::expm1, [&](double Bounded::*e) { return slope * x.*e; });
  }
  friend Bounded log1p(const Bounded& x) {
    using std::log1p;
    return rounded(log1p(x.v_), ulps::log1p, [&](double Bounded::*e) { return x.*e / std::fabs(1 + x.d_); });
  }
  friend Bounded sqrt(const Bounded& x) {
    using std::sqrt;
    const T z = sqrt(x.v_);
    const double dz = static_cast<double>(z);
    // At z = 0 the derivative is infinite; sqrt(E) bounds |sqrt(x + E) - sqrt(x)| for any x >= 0.
    return rounded(z, ulps::correctly_rounded, [&](double Bounded::*e) {
      return dz > 0 ? std::min(x.*e / (2 * dz), std::sqrt(x.*e)) : std::sqrt(x.*e);
    });
  }
  friend Bounded sin(const Bounded& x) {
    using std::sin;
    const double slope = std::fabs(std::cos(x.d_));
    return rounded(sin(x.v_), ulps::sin,
                   [&](double Bounded::*e) { return std::min(slope * x.*e + 0.5 * x.*e * x.*e, 2.0); });
  }
  friend Bounded cos(const Bounded& x) {
    using std::cos;
    const double slope = std::fabs(std::sin(x.d_));
    return rounded(cos(x.v_), ulps::cos,
                   [&](double Bounded::*e) { return std::min(slope * x.*e + 0.5 * x.*e * x.*e, 2.0); });
  }
  //! max is 1-Lipschitz in each argument jointly: |max(x',y') - max(x,y)| <= max(|x'-x|, |y'-y|).
  friend Bounded maximum(const Bounded& x, const Bounded& y) {
    Bounded z = x.v_ >= y.v_ ? x : y;
    z.e_ = std::max(x.e_, y.e_);
    z.w_ = std::max(x.w_, y.w_);
    return z;
  }
  friend const T& value_of(const Bounded& x) { return x.v_; }
  //! Widens the float32 bound only: another formulation's loss says nothing about this evaluation's value.
  friend Bounded admit_absolute_error(const Bounded& x, double amount) {
    return Scope != BoundScope::own_formulation ? with_bound(x.v_, x.e_ + amount, x.w_) : x;
  }
  friend double to_double(const Bounded& x) { return x.d_; }

 private:
  struct exact_tag {};
  Bounded(const T& v, double e, exact_tag) : v_(v), d_(static_cast<double>(v)), e_(e) {}
  // NaN comes only from inf * 0 or 0 / 0 in the propagation (an unbounded operand meeting a zero factor)
  // or from a NaN value: no bound, which is +inf (a NaN bound would make every comparison false).
  static double guarded(double e) { return std::isnan(e) ? std::numeric_limits<double>::infinity() : e; }

  T v_{0};
  double d_ = 0;
  double e_ = 0;
  double w_ = 0;  // Certifies only
};

//! Complex<Bounded<T>>: the error of a complex value is bounded as a vector, |z' - z| <= norm, besides
//! the components' own bounds. Component-wise propagation through a product grows the bound by
//! |Re a| + |Im a| (up to sqrt(2) |a|) at every step of a recurrence, exponentially in L for decays near
//! the unit circle; the norm grows by |a|, as the error itself does: |d(x y)| <= |x| |dy| + |y| |dx| + |dx| |dy|.
//! Each component keeps the smaller of its own bound and the norm (both are valid). A certifying scalar's
//! working bounds get the same treatment, with the double unit.
template <class T, BoundScope Scope, bool Certifies>
struct Complex<Bounded<T, Scope, Certifies>> {
  using B = Bounded<T, Scope, Certifies>;
  B re{0};
  B im{0};
  double norm = 0;
  double working_norm = 0;  // Certifies only

  Complex() = default;
  Complex(int c) : re(c), im(0) {}
  Complex(B r, B i)
      : re(std::move(r)),
        im(std::move(i)),
        norm(norm_bound(re.bound(), im.bound())),
        working_norm(Certifies ? norm_bound(re.working_bound(), im.working_bound()) : 0.0) {}

  friend Complex operator+(const Complex& x, const Complex& y) { return summed(x.re + y.re, x.im + y.im, x, y); }
  friend Complex operator-(const Complex& x, const Complex& y) { return summed(x.re - y.re, x.im - y.im, x, y); }
  friend Complex operator*(const Complex& x, const Complex& y) {
    // Each component is two correctly rounded products and a correctly rounded sum.
    const B re = x.re * y.re - x.im * y.im, im = x.re * y.im + x.im * y.re;
    const auto rounding = [&](FloatUnit unit) {
      return norm_bound(half_ulp(unit, to_double(x.re) * to_double(y.re)) +
                            half_ulp(unit, to_double(x.im) * to_double(y.im)) + half_ulp(unit, to_double(re)),
                        half_ulp(unit, to_double(x.re) * to_double(y.im)) +
                            half_ulp(unit, to_double(x.im) * to_double(y.re)) + half_ulp(unit, to_double(im)));
    };
    const auto carried = [&](double Complex::*n) { return magnitude(x) * y.*n + magnitude(y) * x.*n + x.*n * y.*n; };
    return tightened(re, im, carried(&Complex::norm) + rounding(float32_unit_of<Scope>),
                     Certifies ? carried(&Complex::working_norm) + rounding(float64_unit) : 0.0);
  }
  friend Complex operator*(const Complex& x, const B& s) {
    const B re = x.re * s, im = x.im * s;
    const auto norm_of = [&](double Complex::*n, double s_bound, FloatUnit unit) {
      return std::fabs(to_double(s)) * x.*n + magnitude(x) * s_bound + x.*n * s_bound +
             norm_bound(half_ulp(unit, to_double(re)), half_ulp(unit, to_double(im)));
    };
    return tightened(re, im, norm_of(&Complex::norm, s.bound(), float32_unit_of<Scope>),
                     Certifies ? norm_of(&Complex::working_norm, s.working_bound(), float64_unit) : 0.0);
  }
  friend Complex conj(const Complex& x) {
    Complex z = x;
    z.im = -x.im;
    return z;
  }

 private:
  static double half_ulp(FloatUnit unit, double v) { return unit.rounding(ulps::correctly_rounded.single, v); }
  static double magnitude(const Complex& x) { return norm_bound(to_double(x.re), to_double(x.im)); }
  static Complex summed(const B& re, const B& im, const Complex& x, const Complex& y) {
    const auto rounding = [&](FloatUnit unit) {
      return norm_bound(half_ulp(unit, to_double(re)), half_ulp(unit, to_double(im)));
    };
    return tightened(re, im, x.norm + y.norm + rounding(float32_unit_of<Scope>),
                     Certifies ? x.working_norm + y.working_norm + rounding(float64_unit) : 0.0);
  }
  //! Components from their own propagation, norms from the vector one; each bound is the tighter valid one.
  static Complex tightened(const B& re, const B& im, double norm, double working_norm) {
    const auto guarded = [](double n) { return std::isnan(n) ? std::numeric_limits<double>::infinity() : n; };
    Complex z;
    z.norm = std::min(guarded(norm), norm_bound(re.bound(), im.bound()));
    z.working_norm =
        Certifies ? std::min(guarded(working_norm), norm_bound(re.working_bound(), im.working_bound())) : 0;
    z.re = B::with_bound(re.value(), std::min(re.bound(), z.norm), std::min(re.working_bound(), z.working_norm));
    z.im = B::with_bound(im.value(), std::min(im.bound(), z.norm), std::min(im.working_bound(), z.working_norm));
    return z;
  }
};

}  // namespace scancheck::ref
