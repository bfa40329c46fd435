// SPDX-License-Identifier: Apache-2.0
//! @file
//! The reference evaluated in float128, with (Bounded<float128>) or without float32 error bounds.
#define SCANCHECK_REFERENCE_EVALUATE_INTERNAL
#include "reference/evaluate.hpp"
#include "reference/evaluators.hpp"

namespace scancheck::ref {

ReferenceResult evaluate_float128(const Case& c, const ReferenceOptions& options) {
  if (options.bounds) return Evaluator<Bounded<float128>>(c, options).run();
  return Evaluator<float128>(c, options).run();
}

}  // namespace scancheck::ref
