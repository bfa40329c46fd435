// SPDX-License-Identifier: Apache-2.0
//! @file
//! The reference values evaluated in mpfr50 (the bounds come from reference_working.cpp).
#define SCANCHECK_REFERENCE_EVALUATE_INTERNAL
#include "reference/evaluate.hpp"
#include "reference/evaluators.hpp"

namespace scancheck::ref {

ReferenceResult evaluate_mpfr50(const Case& c, const ReferenceOptions& options) {
  return Evaluator<mpfr50>(c, options).run();
}

}  // namespace scancheck::ref
