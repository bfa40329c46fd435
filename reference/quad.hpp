// SPDX-License-Identifier: Apache-2.0
//! @file
//! Quad: the scalar of the float128 reference (Precision::float128). A float128 whose + - * / and
//! comparisons are float128's (libgcc's, correctly rounded), and whose exp, expm1, log1p, sqrt, sin and cos
//! are double-double evaluations rounded once to float128 (reference/double_double.hpp), 3 to 8 times
//! faster than libquadmath's, which were half of the reference's time.
//!
//! Why a type: the recurrence code (gate_math.hpp, gated_block.hpp) calls these functions unqualified after
//! `using std::exp;`, so for boost's float128 argument-dependent lookup finds Boost's (libquadmath). Quad's
//! hidden friends are found instead, for Quad and for Complex<Quad> and Dual<Quad> built on it, without
//! overloads in namespace boost and without touching the formulas. GateProjection's double-double path
//! takes Quad as it takes float128. The raw float128 stays what it was: tests use it as an independent
//! libquadmath evaluation.
//!
//! Contract. Each function is the exact function of the float128 argument within 2^-109 relative (sin and
//! cos: or 2^-140 absolute near their zeros), against float128's own 2^-113: double_double.hpp's
//! float128-valued variants, and for log1p the double-double log1p with one float128 Newton step on them.
//! The argument enters whole (its last 7 bits as a third part). Where double-double cannot hold the argument
//! (|x| outside [2^-900, 2^1000], |x| > 1400 for exp and expm1, |x| > 1.6e6 for sin and cos, 0, inf, nan)
//! the function is libquadmath's, so every float128 argument has a float128-accurate result. Why not
//! 2^-100: a sigmoid's exp(-|z|) enters gradients that cancel by 2^10, and tests/reference/
//! reference_precision_test.cpp's 28 digits then fail (dx_gate 27.6 digits with double-double results).
#pragma once

#include <cmath>
#include <ostream>

#include <quadmath.h>

#include "reference/double_double.hpp"
#include "reference/scalar.hpp"

namespace scancheck::ref {

class Quad {
 public:
  // Conversions on the bits (exact: every double is a float128), not libgcc's: the formulas' constants S(1),
  // S(-8) and comparisons with 0 convert an int per use.
  Quad() = default;
  Quad(int v) : Quad(static_cast<double>(v)) {}
  Quad(float v) : Quad(static_cast<double>(v)) {}
  Quad(double v) : v_(dd::to_float128({v, 0})) {}
  explicit Quad(const float128& v) : v_(v) {}

  const float128& value() const { return v_; }
  explicit operator double() const { return dd::nearest_double(v_); }
  explicit operator float() const { return static_cast<float>(raw()); }

  // On the raw __float128: Boost's comparisons also test both sides for nan and inf (four libquadmath calls).
  friend Quad operator-(const Quad& x) { return of(-x.raw()); }
  friend Quad operator+(const Quad& x, const Quad& y) { return of(x.raw() + y.raw()); }
  friend Quad operator-(const Quad& x, const Quad& y) { return of(x.raw() - y.raw()); }
  friend Quad operator*(const Quad& x, const Quad& y) { return of(x.raw() * y.raw()); }
  friend Quad operator/(const Quad& x, const Quad& y) { return of(x.raw() / y.raw()); }
  Quad& operator+=(const Quad& y) { return *this = *this + y; }
  Quad& operator-=(const Quad& y) { return *this = *this - y; }
  Quad& operator*=(const Quad& y) { return *this = *this * y; }
  Quad& operator/=(const Quad& y) { return *this = *this / y; }

  friend bool operator==(const Quad& x, const Quad& y) { return x.raw() == y.raw(); }
  friend bool operator!=(const Quad& x, const Quad& y) { return x.raw() != y.raw(); }
  friend bool operator<(const Quad& x, const Quad& y) { return x.raw() < y.raw(); }
  friend bool operator<=(const Quad& x, const Quad& y) { return x.raw() <= y.raw(); }
  friend bool operator>(const Quad& x, const Quad& y) { return x.raw() > y.raw(); }
  friend bool operator>=(const Quad& x, const Quad& y) { return x.raw() >= y.raw(); }

  friend Quad abs(const Quad& x) { return of(fabsq(x.raw())); }

  friend Quad exp(const Quad& x) {
    const dd::Parts p = dd::parts_of(x.v_);
    if (dd::splits_exactly(p.head.hi) && std::fabs(p.head.hi) <= dd::exp_float128_argument_max)
      return Quad(dd::exp_float128(p.head, p.tail));
    return of(expq(x.raw()));
  }
  friend Quad expm1(const Quad& x) {
    const dd::Parts p = dd::parts_of(x.v_);
    if (dd::splits_exactly(p.head.hi) && p.head.hi <= dd::exp_float128_argument_max)
      return Quad(dd::expm1_float128(p.head, p.tail));
    return of(expm1q(x.raw()));
  }
  //! The double-double log1p (2^-103) and one Newton step in float128 on expm1 (near 0) or exp (elsewhere,
  //! with w = 1 + x: exact below -1/2, rounded by 2^-113 above 1/2), both good to 2^-109.
  friend Quad log1p(const Quad& x) {
    const dd::Parts p = dd::parts_of(x.v_);
    if (dd::splits_exactly(p.head.hi)) {
      const dd::Number one_plus_x = dd::two_sum(1, p.head.hi) + p.head.lo;
      if (one_plus_x.hi > 0 && dd::splits_exactly(one_plus_x.hi)) {
        const dd::Number y = dd::log1p(p.head, p.tail);
        const __float128 y0 = raw(dd::to_float128(y));
        if (std::fabs(p.head.hi) <= 0.5) {
          const __float128 e = raw(dd::expm1_float128(y));
          return of(y0 + (x.raw() - e) / (1 + e));
        }
        const __float128 w = 1 + x.raw();
        return of(y0 + (w * raw(dd::exp_float128(-y)) - 1));
      }
    }
    return of(log1pq(x.raw()));
  }
  friend Quad sqrt(const Quad& x) {
    const dd::Parts p = dd::parts_of(x.v_);
    if (dd::splits_exactly(p.head.hi) && p.head.hi > 0) return Quad(dd::sqrt_float128(p.head, p.tail));
    return of(sqrtq(x.raw()));
  }
  friend Quad sin(const Quad& x) {
    const dd::Parts p = dd::parts_of(x.v_);
    if (dd::splits_exactly(p.head.hi) && std::fabs(p.head.hi) <= dd::trig_argument_max)
      return Quad(dd::sin_float128(p.head, p.tail));
    return of(sinq(x.raw()));
  }
  friend Quad cos(const Quad& x) {
    const dd::Parts p = dd::parts_of(x.v_);
    if (dd::splits_exactly(p.head.hi) && std::fabs(p.head.hi) <= dd::trig_argument_max)
      return Quad(dd::cos_float128(p.head, p.tail));
    return of(cosq(x.raw()));
  }

  friend std::ostream& operator<<(std::ostream& os, const Quad& x) { return os << x.v_; }

 private:
  static Quad of(__float128 v) { return Quad(float128(v)); }
  __float128 raw() const { return v_.backend().value(); }
  static __float128 raw(const float128& v) { return v.backend().value(); }

  float128 v_{};
};

}  // namespace scancheck::ref
