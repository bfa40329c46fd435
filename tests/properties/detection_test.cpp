// SPDX-License-Identifier: Apache-2.0
//! @file
//! The detection threshold (properties/policy.hpp) is what a verdict rules out: an error a little below it
//! passes, a little above it fails, for both rules, when the error is stated the way the report states it
//! (in ulps of the stored dtype at the typical element). And the bound's scale it is read in (BoundScale,
//! properties/compare.hpp) is the reference's alone: covered elements with a finite bound.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "properties/compare.hpp"
#include "properties/policy.hpp"

namespace scancheck {
namespace {

constexpr std::int64_t n = 256;
// Exact values are float32 numbers in [1, 2), where one float32 ulp is 2^-23; every bound is 2^-16 of them:
// 128 ulps. A run's errors are whole numbers of ulps, so the stored value is exactly what the test means.
constexpr double ulp = 0x1p-23, bound_in_ulps = 128;

struct Tensors {
  Tensor<double> exact{{n}}, bound{{n}};
  Tensor<float> got{{n}};
  Tensor<std::uint8_t> covered{{n}, 1};
};

Tensors tensors() {
  Tensors t;
  for (std::int64_t i = 0; i < n; ++i) {
    t.exact[i] = 1 + static_cast<double>((i * 7919) % 4096) * 0x1p-12;  // float32 numbers, spread over [1, 2)
    t.bound[i] = bound_in_ulps * ulp;
    t.got[i] = static_cast<float>(t.exact[i]);
  }
  return t;
}

//! The comparison against an ensemble whose worst order's typical error is `p50` bounds (and its tail 2 p50).
TensorComparison comparison(const Tensors& t, double p50) {
  TensorComparison in;
  in.name = std::string("y");  // not from a literal: GCC 12 warns falsely (-Wrestrict) on that assignment
  in.got = &t.got;
  in.exact = &t.exact;
  in.bound = &t.bound;
  in.covered = &t.covered;
  in.ensemble_profile = ErrorProfile{n, p50, 2 * p50, p50};
  in.ensemble_orders = 6;
  return in;
}

//! `t` with every element `ulps` ulps above the exact value, and element 0 `spike` ulps.
Tensors erring(double ulps, double spike = 0) {
  Tensors t = tensors();
  for (std::int64_t i = 0; i < n; ++i) t.got[i] = static_cast<float>(t.exact[i] + ulps * ulp);
  if (spike > 0) t.got[0] = static_cast<float>(t.exact[0] + spike * ulp);
  return t;
}

TEST(BoundScale, IsTheBoundInUlpsAndRelativeAtTheTypicalElement) {
  const Tensors t = tensors();
  const std::optional<BoundScale> s = bound_scale(comparison(t, 0.1));
  ASSERT_TRUE(s);
  EXPECT_EQ(s->ulps, bound_in_ulps);
  // Relative: 2^-16 over |exact|, at the median element (the smaller of the middle two, as every percentile here).
  std::vector<double> relative;
  for (std::int64_t i = 0; i < n; ++i) relative.push_back(0x1p-16 / t.exact[i]);
  std::sort(relative.begin(), relative.end());
  EXPECT_EQ(s->relative, relative[n / 2 - 1]);
}

TEST(BoundScale, LeavesOutUncoveredAndUnboundedElementsAndIgnoresTheRun) {
  Tensors t = tensors();
  for (std::int64_t i = 0; i < n; i += 2) {  // half not computed: their bounds say nothing
    t.covered[i] = 0;
    t.bound[i] = 1e9 * ulp;
  }
  for (std::int64_t i = 3; i < n; i += 4) t.bound[i] = std::numeric_limits<double>::infinity();
  const std::optional<BoundScale> before = bound_scale(comparison(t, 0.1));
  for (std::int64_t i = 0; i < n; ++i) t.got[i] = std::numeric_limits<float>::quiet_NaN();
  const std::optional<BoundScale> after = bound_scale(comparison(t, 0.1));
  ASSERT_TRUE(before && after);
  EXPECT_EQ(before->ulps, after->ulps);
  EXPECT_EQ(before->ulps, bound_in_ulps);  // the uncovered elements, half of them, would have made it 1e9
  for (std::int64_t i = 0; i < n; ++i) t.bound[i] = std::numeric_limits<double>::infinity();
  EXPECT_FALSE(bound_scale(comparison(t, 0.1)));
}

TEST(DetectionThreshold, AnErrorJustBelowItPassesAndJustAboveItFails) {
  const TolerancePolicy policy;
  const double p50 = 0.05;  // the worst correct order's typical error, in bounds
  const TensorMetrics clean = compare_tensor(comparison(tensors(), p50));
  const std::optional<DetectionThreshold> d = judge(clean, policy).detection;
  ASSERT_TRUE(d && d->distribution);
  EXPECT_DOUBLE_EQ(d->certainty.bounds, policy.bound_factor);
  EXPECT_DOUBLE_EQ(d->certainty.ulps, policy.bound_factor * bound_in_ulps);
  EXPECT_DOUBLE_EQ(d->distribution->bounds, policy.ensemble_factor * p50 + policy.ensemble_floor);
  EXPECT_DOUBLE_EQ(d->distribution->ulps, d->distribution->bounds * bound_in_ulps);

  // The ensemble rule: every element 5% below, then 5% above, the threshold it states in ulps.
  const double spread = d->distribution->ulps;
  const Tensors below = erring(std::floor(0.95 * spread)), above = erring(std::ceil(1.05 * spread));
  const TensorVerdict low = judge(compare_tensor(comparison(below, p50)), policy);
  const TensorVerdict high = judge(compare_tensor(comparison(above, p50)), policy);
  EXPECT_TRUE(low.pass) << ::testing::PrintToString(low.reasons);
  ASSERT_FALSE(high.pass);
  EXPECT_NE(high.reasons.front().find("accuracy lost on every element"), std::string::npos) << high.reasons.front();

  // The bound rule: one element 5% below, then 5% above, on a run otherwise exact.
  const double one = d->certainty.ulps;
  const TensorVerdict under = judge(compare_tensor(comparison(erring(0, std::floor(0.95 * one)), p50)), policy);
  const TensorVerdict over = judge(compare_tensor(comparison(erring(0, std::ceil(1.05 * one)), p50)), policy);
  EXPECT_TRUE(under.pass) << ::testing::PrintToString(under.reasons);
  ASSERT_FALSE(over.pass);
  EXPECT_NE(over.reasons.front().find("bounds at"), std::string::npos) << over.reasons.front();
}

TEST(DetectionThreshold, TheEnsembleRulesOnlyWhereItJudges) {
  const TolerancePolicy policy;
  const Tensors t = tensors();
  TensorComparison in = comparison(t, 0.05);
  in.ensemble_orders = 1;  // a fuzz run that asked the sequential order alone: not the rule's threshold
  EXPECT_FALSE(judge(compare_tensor(in), policy).detection->distribution);

  Tensors few = tensors();
  for (std::int64_t i = distribution_min_elements - 1; i < n; ++i) few.covered[i] = 0;
  const std::optional<DetectionThreshold> d = judge(compare_tensor(comparison(few, 0.05)), policy).detection;
  ASSERT_TRUE(d);  // rule 2 still judges the 31 elements
  EXPECT_FALSE(d->distribution);

  Tensors none = tensors();
  TensorComparison unbounded = comparison(none, 0.05);
  unbounded.bound = nullptr;
  EXPECT_FALSE(judge(compare_tensor(unbounded), policy).detection);
}

TEST(EnsembleRule, CountsOnlyTheErrorBeyondWhatAcceptedFormulationsAdd) {
  // Every bound 5% above its strict bound (an accepted formulation may lose 0.0476 bounds, 6.1 ulps, more
  // than scancheck's own): a run erring 6 ulps on every element is within what that formulation may lose,
  // and passes, though 6 ulps (0.047 bounds) is above the rule's 4 p50 + 0.01 = 0.03 bounds. Without the
  // strict bounds it fails; and 6.1 + 5 ulps, 0.039 bounds beyond the admitted loss, fails with them.
  const TolerancePolicy policy;
  const double p50 = 0.005;
  Tensor<double> strict({n});
  for (std::int64_t i = 0; i < n; ++i) strict[i] = bound_in_ulps * ulp / 1.05;
  const Tensors within = erring(6), beyond = erring(11);
  TensorComparison judged = comparison(within, p50);
  EXPECT_FALSE(judge(compare_tensor(judged), policy).pass);
  judged.strict_bound = &strict;
  const TensorVerdict admitted = judge(compare_tensor(judged), policy);
  EXPECT_TRUE(admitted.pass) << ::testing::PrintToString(admitted.reasons);
  TensorComparison more = comparison(beyond, p50);
  more.strict_bound = &strict;
  const TensorVerdict lost = judge(compare_tensor(more), policy);
  ASSERT_FALSE(lost.pass);
  EXPECT_NE(lost.reasons.front().find("accuracy lost on every element"), std::string::npos) << lost.reasons.front();
}

}  // namespace
}  // namespace scancheck
