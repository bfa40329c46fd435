// SPDX-License-Identifier: Apache-2.0
//! @file
//! The reference values evaluated in float128 (the bounds come from reference_working.cpp).
#define SCANCHECK_REFERENCE_EVALUATE_INTERNAL
#include "reference/evaluate.hpp"
#include "reference/evaluators.hpp"

namespace scancheck::ref {

ReferenceResult evaluate_float128(const Case& c, const ReferenceOptions& options) {
  return Evaluator<float128>(c, options).run();
}

}  // namespace scancheck::ref
