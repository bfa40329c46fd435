// SPDX-License-Identifier: Apache-2.0
//! @file
//! What the templated reference needs of a scalar type S, and the scalar types it is instantiated with.
//!
//! S is any of: float, double, boost float128, Quad (float128 with double-double elementary functions: the
//! float128 reference's, quad.hpp), mpfr_float_50 (expression templates off), Bounded<T> (value plus float32
//! error bound) and Dual<T> (value plus directional derivative). The recurrence code
//! uses only: construction from int or double, + - * / and unary -, and the functions exp, expm1, log1p,
//! sqrt, sin, cos found by ADL (or std:: for the builtin types), `value_of` (the value to branch on) and
//! `maximum`. Branches are taken on the exact value, so every instantiation follows the same path.
#pragma once

#include <cmath>

#include <boost/multiprecision/float128.hpp>
#include <boost/multiprecision/mpfr.hpp>

#include "reference/scalar_ops.hpp"

namespace scancheck::ref {

using float128 = boost::multiprecision::float128;
//! 50 decimal digits; expression templates off so generic code may bind intermediates to `auto`.
using mpfr50 =
    boost::multiprecision::number<boost::multiprecision::mpfr_float_backend<50>, boost::multiprecision::et_off>;

template <class S>
double to_double(const S& s) {
  return static_cast<double>(s);
}

}  // namespace scancheck::ref
