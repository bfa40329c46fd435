// SPDX-License-Identifier: Apache-2.0
//! @file
//! A state read back from the io dtype: the backward of every recurrence uses h_{t-1}, which a backend
//! reads from its own output h (or y), stored in the io dtype. For a bfloat16 case that value is rounded,
//! so the float32 evaluation the bounds describe reads the rounded state: the float32 scalar rounds it,
//! Bounded<T> keeps its value and adds the rounding to its bound, and the exact scalars (float128, mpfr50,
//! float64, Dual) are unchanged, since the reference is the exact function of the inputs.
#pragma once

#include <cmath>

#include "core/dtype.hpp"
#include "reference/bounded.hpp"
#include "reference/complex.hpp"

namespace scancheck::ref {

template <class S>
S stored_in_bf16(const S& x) {
  return x;
}

inline float stored_in_bf16(float x) { return round_to_bf16(x); }

template <class T, BoundScope Scope, bool Certifies>
Bounded<T, Scope, Certifies> stored_in_bf16(const Bounded<T, Scope, Certifies>& x) {
  // As for io outputs (evaluate.hpp): u_bf16 |f| in the normal range, half the subnormal spacing below. The
  // value itself (and so its working bound) is the exact h: only the float32 evaluation reads it rounded.
  return Bounded<T, Scope, Certifies>::with_bound(
      x.value(), x.bound() + unit_roundoff(DType::bfloat16) * (std::fabs(x.approx()) + x.bound()) + 0x1p-134,
      x.working_bound());
}

template <class S>
Complex<S> stored_in_bf16(const Complex<S>& z) {
  return {stored_in_bf16(z.re), stored_in_bf16(z.im)};
}

//! h as the backward reads it back from io storage.
template <class F>
F read_back(const F& h, bool bf16_storage) {
  return bf16_storage ? stored_in_bf16(h) : h;
}

}  // namespace scancheck::ref
