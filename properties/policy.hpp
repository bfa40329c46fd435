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
//!   4. its error distribution (compare.hpp, ErrorProfile: the typical element, p50, and the tail, p90, in
//!      units of each element's bound) is at most ensemble_factor times the largest that scancheck's own
//!      correct float32 evaluations in the orders production kernels use make on the same case (the
//!      ensemble, differential.hpp), plus ensemble_floor bounds: the worst-case bound of rule 2 must admit
//!      a tree's long chains of roundings on its worst element, and so also admits a kernel that loses
//!      accuracy a little on every element; the orders' actual errors do not. A distribution needs elements:
//!      a tensor with fewer than distribution_min_elements judged elements is judged by rules 1-3 alone.
//! A run passes when every tensor does. Beside the verdict, a passing tensor whose elements exceed
//! bound_factor times the bound of scancheck's own formulation (but not of the accepted family's) gets a note
//! (differential.hpp); `strict` turns notes into failures. Policies are JSON files; every field is optional
//! and defaults to the constants below.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "properties/compare.hpp"

namespace scancheck {

//! What the bound of rules 2 and 3 is, in the words reports print (their method section, report.md's legend,
//! the heat map's note): one text, so that it cannot fall behind the rule again.
inline constexpr const char* bound_description =
    "the reference's first-order bound on the rounding error of a float32 evaluation of the same case in any "
    "evaluation order of the scans, admitting every accepted formulation (running error analysis with the "
    "order-free bound: reference/bounded.hpp, reference/order_free_bound.hpp)";

//! Rule 4 judges a tensor's error distribution from this many elements on (a p90 of 8 elements is a maximum).
inline constexpr std::int64_t distribution_min_elements = 32;

struct TolerancePolicy {
  double bound_factor = 4;
  double baseline_factor = 2;
  double baseline_slack_ulps = 8;
  double baseline_slack_bound = 1;  // docs/tolerance.md: accepted formulations lose up to 0.5 of it
  double ensemble_factor = 4;       // docs/tolerance.md, "The ensemble rule": the evidence for both
  double ensemble_floor = 0.01;
  //! Notes (accuracy an accepted formulation loses and a better one keeps) fail the run too.
  bool strict = false;

  nlohmann::json to_json() const;
  //! Throws InputError naming the field for unknown keys, wrong types, negative or non-finite values.
  static TolerancePolicy from_json(const nlohmann::json&, const std::string& source);
  static TolerancePolicy load(const std::filesystem::path&);
};

//! How a tensor's error distribution breaks rule 4: the statistic of ErrorProfile it breaks first (the typical
//! element, p50, then the tail, p90), its value and the worst correct order's, in bounds.
struct DistributionExcess {
  bool typical = true;  //!< p50; false: p90
  double got = 0, orders = 0;
};
std::optional<DistributionExcess> distribution_excess(const TensorMetrics&, const TolerancePolicy&);

//! What a verdict could have seen: the smallest error of a tensor that would have failed, at its typical judged
//! element (BoundScale), in ulps of the stored dtype and relative to |exact|, for the two rules that judge
//! errors in bounds.
struct DetectionLevel {
  double bounds = 0;    //!< in units of each element's own bound
  double ulps = 0;      //!< at the typical element, in ulps of the stored dtype
  double relative = 0;  //!< at the typical element, relative to |exact|
};
struct DetectionThreshold {
  //! Rule 2: an error above bound_factor bounds on any one element fails.
  DetectionLevel certainty;
  //! Rule 4: an error above ensemble_factor times the worst correct order's typical error, plus the floor, on
  //! half of the judged elements fails. Absent where the rule does not judge the tensor (too few elements) or
  //! the ensemble was not run in full (a fuzz run asks only the sequential order unless a run comes near).
  std::optional<DetectionLevel> distribution;
};
//! Absent without bounds.
std::optional<DetectionThreshold> detection_threshold(const TensorMetrics&, const TolerancePolicy&);

struct TensorVerdict {
  bool pass = true;
  std::vector<std::string> reasons;  //!< one line per failed rule, with the numbers
  std::optional<DetectionThreshold> detection;
};

TensorVerdict judge(const TensorMetrics&, const TolerancePolicy&);

}  // namespace scancheck
