// SPDX-License-Identifier: Apache-2.0
//! @file
//! The same templated code at working precision: float64 (a baseline for benchmarks) and float32 (the
//! plain float32 sequential evaluation whose error the bounds describe). Not references.
#define SCANCHECK_REFERENCE_EVALUATE_INTERNAL
#include "reference/evaluate.hpp"
#include "reference/evaluators.hpp"

namespace scancheck::ref {

ReferenceResult evaluate_float64(const Case& c, const ReferenceOptions& options) {
  if (options.bounds) return Evaluator<Bounded<double>>(c, options).run();
  return Evaluator<double>(c, options).run();
}

ReferenceResult evaluate_float64_strict(const Case& c, const ReferenceOptions& options) {
  return Evaluator<Bounded<double, BoundScope::own_formulation>>(c, options).run();
}

ReferenceResult evaluate_float64_sequential_order(const Case& c, const ReferenceOptions& options) {
  return Evaluator<Bounded<double, BoundScope::sequential_order>>(c, options).run();
}

ReferenceResult evaluate_float32(const Case& c, const ReferenceOptions& options) {
  ReferenceOptions no_bounds = options;
  no_bounds.bounds = false;  // the bound describes this very evaluation; it has none of its own
  return Evaluator<float>(c, no_bounds).run();
}

}  // namespace scancheck::ref
