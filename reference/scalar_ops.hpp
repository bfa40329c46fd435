// SPDX-License-Identifier: Apache-2.0
//! @file
//! The two operations the recurrence formulas need beyond arithmetic and the elementary functions:
//! `value_of` (the value a branch is decided on; the wrapper scalars overload it) and `maximum`.
//! Boost-free C++17, so the formulas also compile for the device (reference/gate_math.hpp).
#pragma once

#include "core/host_device.hpp"

namespace scancheck::ref {

template <class S>
SC_HD const S& value_of(const S& s) { return s; }

//! max(a, b) as a function of two arguments; the wrappers override it to propagate their extra part.
template <class S>
SC_HD S maximum(const S& a, const S& b) { return value_of(a) >= value_of(b) ? a : b; }

}  // namespace scancheck::ref
