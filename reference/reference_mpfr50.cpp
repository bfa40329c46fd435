// SPDX-License-Identifier: Apache-2.0
//! @file
//! The reference evaluated in mpfr50, with (Bounded<mpfr50>) or without float32 error bounds.
#define SCANCHECK_REFERENCE_EVALUATE_INTERNAL
#include "reference/evaluate.hpp"
#include "reference/evaluators.hpp"

namespace scancheck::ref {

ReferenceResult evaluate_mpfr50(const Case& c, const ReferenceOptions& options) {
  if (options.bounds) return Evaluator<Bounded<mpfr50>>(c, options).run();
  return Evaluator<mpfr50>(c, options).run();
}

}  // namespace scancheck::ref
