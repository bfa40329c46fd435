// SPDX-License-Identifier: Apache-2.0
//! @file
//! What the mutation tests read of the ensemble rule beside the verdict: one output tensor's comparison as
//! judge_outputs builds it (properties/differential.cpp), so that a test can ask CorrectOrders::profile for the
//! worst correct order's error profile over every order of the ensemble, which judge_outputs asks only for a run
//! that comes near the rule.
#pragma once

#include <string>

#include "backends/backend.hpp"
#include "core/case.hpp"
#include "properties/compare.hpp"
#include "properties/differential.hpp"
#include "reference/reference.hpp"

namespace scancheck::test {

//! Output `name` of `got` under the reference's bounds and, where it has them (reference_with_bounds(c, threads,
//! true)), its strict bounds: the elements the profile leaves out are then those judge_outputs leaves out.
inline TensorComparison comparison_of(const Case& c, const std::string& name, const Outputs& got,
                                      const ReferenceResult& reference) {
  TensorComparison in;
  in.name = name;
  in.dtype = stored_dtype(c, name);
  in.got = &got.at(name);
  in.exact = &reference.values.at(name);
  if (const auto b = reference.bounds.find(name); b != reference.bounds.end()) in.bound = &b->second;
  if (const auto cv = reference.covered.find(name); cv != reference.covered.end()) in.covered = &cv->second;
  if (const auto s = reference.strict_bounds.find(name); s != reference.strict_bounds.end())
    in.strict_bound = &s->second;
  return in;
}

//! A run's error profile on one tensor and the largest of every correct order's on the same elements.
struct ProfilePair {
  ErrorProfile run, orders;
};
inline ProfilePair profiles_of(const Case& c, const std::string& name, const Outputs& got,
                               const ReferenceResult& reference, const CorrectOrders& orders) {
  const TensorComparison in = comparison_of(c, name, got, reference);
  return {error_profile(in, *in.got), orders.profile(c, in, /*every_order=*/true)};
}

}  // namespace scancheck::test
