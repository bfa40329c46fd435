// SPDX-License-Identifier: Apache-2.0
//! @file
//! The reference values evaluated in float128 (the bounds come from reference_working.cpp): in Quad, float128
//! arithmetic with double-double elementary functions (reference/quad.hpp).
#define SCANCHECK_REFERENCE_EVALUATE_INTERNAL
#include "reference/evaluate.hpp"
#include "reference/evaluators.hpp"
#include "reference/quad.hpp"

namespace scancheck::ref {

ReferenceResult evaluate_float128(const Case& c, const ReferenceOptions& options) {
  return Evaluator<Quad>(c, options).run();
}

}  // namespace scancheck::ref
