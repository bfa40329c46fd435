// SPDX-License-Identifier: Apache-2.0
//! @file
//! The two operations the recurrence formulas need beyond arithmetic and the elementary functions:
//! `value_of` (the value a branch is decided on; the wrapper scalars overload it) and `maximum`; and
//! `admit_absolute_error`, through which an error bound admits another accepted formulation.
//! Boost-free C++17, so the formulas also compile for the device (reference/gate_math.hpp).
#pragma once

#include "core/host_device.hpp"

namespace scancheck::ref {

template <class S>
SC_HD const S& value_of(const S& s) {
  return s;
}

//! max(a, b) as a function of two arguments; the wrappers override it to propagate their extra part.
template <class S>
SC_HD S maximum(const S& a, const S& b) {
  return value_of(a) >= value_of(b) ? a : b;
}

//! `x`, whose float32 error bound (reference/bounded.hpp overloads this) also admits `amount` more in
//! absolute terms: what another accepted formulation of the same quantity may lose (docs/tolerance.md,
//! "Accepted formulations"). For every other scalar it is `x` itself.
template <class S>
SC_HD S admit_absolute_error(const S& x, double /*amount*/) {
  return x;
}

}  // namespace scancheck::ref
