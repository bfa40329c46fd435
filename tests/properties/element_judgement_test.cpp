// SPDX-License-Identifier: Apache-2.0
//! @file
//! One element judgement (properties/element_judgement.hpp): the comparison that gives the verdict
//! (compare_tensor), the diagnosis (worst_bound_ratio, the failing elements) and the strip report.html draws
//! (error_strip) agree on the same outputs of a sampled reference: an element the reference did not compute
//! is ignored by all three, however wrong; a NaN where the exact value is finite fails in all three; the
//! worst error in bounds is the same number in each.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "backends/backend.hpp"
#include "core/generate.hpp"
#include "properties/compare.hpp"
#include "properties/diagnosis.hpp"
#include "properties/differential.hpp"
#include "properties/element_judgement.hpp"

namespace scancheck {
namespace {

constexpr std::int64_t B = 2, L = 40, W = 8, H = 2;

struct SampledRun {
  Case c;
  ReferenceResult reference;
  Outputs got;
};

//! The sequential backend's outputs on an rglru case whose reference computed batch entry 0 alone.
SampledRun sampled_run() {
  CaseRequest r;
  r.architecture = Architecture::rglru;
  r.shape = {B, L, W, H};
  r.seed = 5;
  SampledRun run{make_case(r), {}, {}};
  ReferenceOptions options = reference_options_with_bounds(1);
  options.sample = std::vector<Block>{{0, 0}, {0, 1}};
  run.reference = compute_reference(run.c, options);
  run.got = run_backend(baseline_backend(run.c), run.c, Executor::host);
  return run;
}

std::int64_t at(std::int64_t b, std::int64_t t, std::int64_t w) { return (b * L + t) * W + w; }

//! y at (b, t, w) set `bounds` times its bound away from the exact value (of batch entry 0's bound where the
//! reference did not compute the element: any large error).
void nudge(SampledRun& run, std::int64_t i, double bounds) {
  const double bound = run.reference.bounds.at("y")[i % (L * W)];
  run.got.at("y")[i] = static_cast<float>(run.reference.values.at("y")[i % (L * W)] + bounds * bound);
}

TensorMetrics metrics_of_y(const SampledRun& run) {
  TensorComparison in;
  in.name = "y";
  in.got = &run.got.at("y");
  in.exact = &run.reference.values.at("y");
  in.bound = &run.reference.bounds.at("y");
  in.covered = &run.reference.covered.at("y");
  return compare_tensor(in);
}

TEST(ElementJudgement, UncoveredElementsAreIgnoredAndTheWorstErrorIsOneNumber) {
  SampledRun run = sampled_run();
  ASSERT_EQ(run.reference.covered.at("y")[at(1, 0, 0)], 0) << "batch entry 1 must not be computed";
  nudge(run, at(0, 17, 3), 100);  // judged: fails by about 100 bounds
  nudge(run, at(1, 30, 5), 1e6);  // not computed by the reference: must be ignored by every reader
  const TolerancePolicy policy;

  const TensorMetrics m = metrics_of_y(run);
  ASSERT_TRUE(m.bound_ratio);
  EXPECT_EQ(m.worst.index, at(0, 17, 3));
  EXPECT_EQ(m.compared, L * W);
  EXPECT_NEAR(*m.bound_ratio, 100, 1);

  EXPECT_EQ(worst_bound_ratio(run.c, run.got, run.reference, policy), *m.bound_ratio);

  const std::optional<ErrorStrip> strip = error_strip(run.c, run.got, run.reference, policy, std::nullopt);
  ASSERT_TRUE(strip);
  EXPECT_EQ(strip->tensor, "y");
  EXPECT_EQ(strip->batch, 0);
  EXPECT_EQ(*std::max_element(strip->ratios.begin(), strip->ratios.end()), *m.bound_ratio);

  const BackendResult judged = judge_outputs("nudged", run.c, run.got, run.reference, nullptr, policy);
  EXPECT_FALSE(judged.pass);
  const auto& y = *std::find_if(judged.tensors.begin(), judged.tensors.end(),
                                [](const TensorResult& t) { return t.metrics.name == "y"; });
  EXPECT_EQ(y.metrics.bound_ratio, m.bound_ratio);
}

TEST(ElementJudgement, ANaNFailsEverywhereAtInfiniteBounds) {
  SampledRun run = sampled_run();
  run.got.at("y")[at(0, 9, 1)] = std::numeric_limits<float>::quiet_NaN();
  run.got.at("y")[at(1, 9, 1)] = std::numeric_limits<float>::infinity();  // uncovered: ignored
  const TolerancePolicy policy;

  const TensorMetrics m = metrics_of_y(run);
  EXPECT_EQ(m.nonfinite_mismatches, 1);
  EXPECT_EQ(m.first_nonfinite, at(0, 9, 1));
  EXPECT_EQ(worst_bound_ratio(run.c, run.got, run.reference, policy), std::numeric_limits<double>::infinity());
  const std::optional<ErrorStrip> strip = error_strip(run.c, run.got, run.reference, policy, std::nullopt);
  ASSERT_TRUE(strip);
  EXPECT_EQ(strip->batch, 0);
  EXPECT_EQ(*std::max_element(strip->ratios.begin(), strip->ratios.end()), std::numeric_limits<double>::infinity());
}

TEST(ElementJudgement, KindsOfOneElement) {
  const Tensor<float> got({4}, {1.0f, std::nanf(""), 2.0f, 5.0f});
  const Tensor<double> exact({4}, {1.5, std::nan(""), 2.0, 4.0});
  const Tensor<double> bound({4}, {0.25, 1.0, std::numeric_limits<double>::infinity(), 0.0});
  const ElementSource elements{&got, &exact, &bound, nullptr};
  EXPECT_EQ(elements(0).kind, ElementKind::finite);
  EXPECT_EQ(elements(0).ratio, 2);
  EXPECT_EQ(elements(1).kind, ElementKind::nonfinite);
  EXPECT_EQ(elements(2).kind, ElementKind::unbounded);
  EXPECT_FALSE(elements(2).fails(0));
  EXPECT_EQ(elements(3).ratio, std::numeric_limits<double>::infinity());  // no rounding reaches it
  EXPECT_TRUE(elements(3).fails(1e300));
}

}  // namespace
}  // namespace scancheck
