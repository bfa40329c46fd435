// SPDX-License-Identifier: Apache-2.0
//! @file
//! Internal: one entry point per precision, each compiled in its own translation unit.
#pragma once

#include "reference/reference.hpp"

namespace scancheck::ref {
ReferenceResult evaluate_float128(const Case&, const ReferenceOptions&);
ReferenceResult evaluate_mpfr50(const Case&, const ReferenceOptions&);
ReferenceResult evaluate_float64(const Case&, const ReferenceOptions&);
//! The bounds of scancheck's own formulation alone (Bounded<double, false>): no accepted formulation admitted.
ReferenceResult evaluate_float64_strict(const Case&, const ReferenceOptions&);
//! The bounds of the accepted formulations in the sequential order alone (BoundScope::sequential_order).
ReferenceResult evaluate_float64_sequential_order(const Case&, const ReferenceOptions&);
ReferenceResult evaluate_float32(const Case&, const ReferenceOptions&);
//! The tiered reference's double pass: values, bounds and which blocks need float128 (ReferenceResult::tiers).
//! `strict`: the strict bounds the certification also answers to, or nullptr.
ReferenceResult evaluate_certified_float64(const Case&, const ReferenceOptions&,
                                           const std::map<std::string, Tensor<double>>* strict);
}  // namespace scancheck::ref
