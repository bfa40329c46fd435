// SPDX-License-Identifier: Apache-2.0
//! @file
//! The tiered reference's double pass: values with their float32 bounds and the bound of their own error
//! (Bounded<double, Scope, Certifies>); reference.cpp recomputes in float128 what it does not certify.
//! A translation unit of its own so that it compiles beside the other precisions.
#define SCANCHECK_REFERENCE_EVALUATE_INTERNAL
#include "reference/evaluate.hpp"
#include "reference/evaluators.hpp"

namespace scancheck::ref {

ReferenceResult evaluate_certified_float64(const Case& c, const ReferenceOptions& options,
                                           const std::map<std::string, Tensor<double>>* strict) {
  ReferenceOptions with_bounds = options;
  with_bounds.bounds = true;  // certification compares against them
  return Evaluator<Bounded<double, BoundScope::every_order, /*Certifies=*/true>>(c, with_bounds, strict).run();
}

}  // namespace scancheck::ref
