// SPDX-License-Identifier: Apache-2.0
//! @file
//! What a failure's message and diagnosis say (properties/policy.hpp, properties/diagnosis.hpp) where a
//! wrong word costs trust:
//!   1. an element whose bound is zero is named as exact, never "inf bounds";
//!   2. a run off by a few bounds is diagnosed as rounding: no counterfactual (no "passes without dh_last",
//!      no "a shift in t") even where removing an input would make it pass;
//!   3. a gross error keeps its counterfactual diagnosis;
//!   4. log-space products (tests/zoo, rejected) fail, and the diagnosis names their signature, the error
//!      growing with the summed log decay, instead of a bug class.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "backends/backend.hpp"
#include "core/generate.hpp"
#include "properties/differential.hpp"
#include "properties/policy.hpp"
#include "tests/zoo/order_zoo.hpp"

namespace scancheck {
namespace {

bool mentions(const std::vector<std::string>& lines, const std::string& text) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.find(text) != std::string::npos; });
}

TEST(Diagnosis, AZeroBoundIsNamedAsAnExactElement) {
  TensorMetrics m;
  m.name = "dh0";
  m.bound_ratio = std::numeric_limits<double>::infinity();
  m.worst.at = "[0, 3]";
  m.worst.got = 1e-9;
  const TensorVerdict v = judge(m, TolerancePolicy{});
  ASSERT_FALSE(v.pass);
  ASSERT_EQ(v.reasons.size(), 1u);
  EXPECT_NE(v.reasons[0].find("must be exactly 0"), std::string::npos) << v.reasons[0];
  EXPECT_EQ(v.reasons[0].find("inf"), std::string::npos) << v.reasons[0];
}

//! The sequential backend with db (and so da) nudged by `bounds` times the reference's bound where the case
//! has dh_last: without dh_last the run is exact again, so a counterfactual would say "only where dh_last
//! matters".
BackendInfo nudged(double bounds) {
  BackendInfo b;
  b.provider = "test";
  b.architecture = Architecture::scan;
  b.variant = fmt::format("nudged_{}", bounds);
  b.run = [bounds](const Case& c, Executor e) {
    Outputs out = run_backend(baseline_backend(c), c, e);
    if (!c.has("dh_last")) return out;
    const ReferenceResult ref = reference_with_bounds(c, 1);
    Tensor<float>& db = out.at("db");
    for (std::int64_t i = 0; i < db.size(); ++i)
      db[i] = static_cast<float>(ref.values.at("db")[i] + bounds * ref.bounds.at("db")[i]);
    return out;
  };
  return b;
}

BackendResult checked(const BackendInfo& backend, const Case& c) {
  const ReferenceResult ref = reference_with_bounds(c, 1, /*strict=*/true);
  return check_backends(c, {&backend}, Executor::host, ref, TolerancePolicy{}, {}, /*diagnose=*/true).front();
}

Case scan_case(std::int64_t length, std::uint64_t seed) {
  CaseRequest r;
  r.architecture = Architecture::scan;
  r.shape = {1, length, 4, 1};
  r.seed = seed;
  r.io_dtype = DType::float32;
  return make_case(r);
}

TEST(Diagnosis, AFewBoundsAreRoundingNotABugClass) {
  BackendRegistry r;
  const BackendInfo& b = r.add(nudged(6));
  const BackendResult result = checked(b, scan_case(40, 3));
  ASSERT_FALSE(result.pass);
  EXPECT_TRUE(mentions(result.diagnosis, "no bug class is inferred"))
      << fmt::format("{}", fmt::join(result.diagnosis, "\n"));
  EXPECT_FALSE(mentions(result.diagnosis, "dh_last matters")) << fmt::format("{}", fmt::join(result.diagnosis, "\n"));
  EXPECT_FALSE(mentions(result.diagnosis, "a shift in t"));
}

TEST(Diagnosis, AGrossErrorKeepsItsCounterfactual) {
  BackendRegistry r;
  const BackendInfo& b = r.add(nudged(1e4));
  const BackendResult result = checked(b, scan_case(40, 3));
  ASSERT_FALSE(result.pass);
  EXPECT_TRUE(mentions(result.diagnosis, "only where dh_last matters"))
      << fmt::format("{}", fmt::join(result.diagnosis, "\n"));
  EXPECT_FALSE(mentions(result.diagnosis, "no bug class is inferred"));
}

TEST(Diagnosis, LogSpaceProductsFailAndAreNamed) {
  BackendRegistry r;
  const BackendInfo& log_space = r.add(zoo::rejected_formulations().front());
  Case c = scan_case(1500, 11);
  Tensor<float>& a = c.at("a");
  for (std::int64_t i = 0; i < a.size(); ++i) a[i] = 0.35f + 0.5f * std::fabs(std::sin(0.37f * static_cast<float>(i)));
  const BackendResult result = checked(log_space, c);
  ASSERT_FALSE(result.pass);
  EXPECT_TRUE(mentions(result.diagnosis, "grows with the summed log decay"))
      << fmt::format("{}\n{}", fmt::join(result.reasons(), "\n"), fmt::join(result.diagnosis, "\n"));
  EXPECT_FALSE(mentions(result.diagnosis, "a shift in t"));
  // The same case through the order-free bound's own orders passes.
  for (const char* order : {"scan/sequential@fp32", "scan/tree_chunk32@fp32", "scan/local_chunk64@fp32"})
    EXPECT_TRUE(checked(find_backend(order), c).pass) << order;
}

}  // namespace
}  // namespace scancheck
