// SPDX-License-Identifier: Apache-2.0
//! @file
//! The tolerance policy: turns a tensor's metrics (compare.hpp) into a verdict. A tensor passes when
//!   1. no element disagrees with the reference on being NaN or infinite (where the reference's bound is
//!      finite: elsewhere float32 cannot be judged and the element is not compared);
//!   2. every element is within bound_factor times its own error bound (the reference's first-order bound
//!      on a float32 sequential evaluation; schedules, GEMMs and io-dtype state reads round differently,
//!      so the bound is a scale and the factor is measured: docs/tolerance.md);
//!   3. its largest error is at most baseline_factor times the same-precision `sequential` backend's on
//!      the same case, plus a slack: the larger of baseline_slack_ulps ulps of the tensor's dtype at the
//!      tensor's scale and baseline_slack_bound times the tensor's largest error bound (FlashAttention's
//!      rule; the slack keeps a baseline that is exact, or luckily accurate through cancelling errors in a
//!      long sum, from failing errors far inside what float32 allows).
//! A run passes when every tensor does. Beside the verdict, a passing tensor whose elements exceed
//! bound_factor times the bound of scancheck's own formulation (but not of the accepted family's) gets a note
//! (differential.hpp); `strict` turns notes into failures. Policies are JSON files; every field is optional
//! and defaults to the constants below.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "properties/compare.hpp"

namespace scancheck {

struct TolerancePolicy {
  double bound_factor = 4;
  double baseline_factor = 2;
  double baseline_slack_ulps = 8;
  double baseline_slack_bound = 1;  // docs/tolerance.md: accepted formulations lose up to 0.5 of it
  //! Notes (accuracy an accepted formulation loses and a better one keeps) fail the run too.
  bool strict = false;

  nlohmann::json to_json() const;
  //! Throws InputError naming the field for unknown keys, wrong types, negative or non-finite values.
  static TolerancePolicy from_json(const nlohmann::json&, const std::string& source);
  static TolerancePolicy load(const std::filesystem::path&);
};

struct TensorVerdict {
  bool pass = true;
  std::vector<std::string> reasons;  //!< one line per failed rule, with the numbers
};

TensorVerdict judge(const TensorMetrics&, const TolerancePolicy&);

}  // namespace scancheck
