// SPDX-License-Identifier: Apache-2.0
//! @file
//! `fuzz` (properties/fuzz.hpp) counts cases per group of architecture, io dtype and constraints: every
//! backend is judged on `cases` cases, whatever the other groups do (a group whose backends all failed
//! stops early and leaves the others their count); keep_going judges a failing backend on every case of
//! its group, shrinks its first failure only and counts the rest. The failing backends are a built-in's
//! run with one output element wrong, registered in this test process only, like a worker's.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <string>

#include "backends/backend.hpp"
#include "properties/fuzz.hpp"

namespace {

using namespace scancheck;

constexpr const char* correct_fp32 = "scan/sequential@fp32";
constexpr const char* correct_bf16 = "scan/sequential@bf16";

//! `base`'s run as provider "fuzztest", variant `variant`, with the last step of h[0, :, 0] NaN where `wrong`
//! holds: a failure under any policy and at any magnitude.
const BackendInfo& wrong_where(const std::string& base, const std::string& variant,
                               std::function<bool(const Case&)> wrong) {
  const std::string name = "fuzztest:scan/" + variant + base.substr(base.find('@'));
  if (const BackendInfo* known = registry().find(name)) return *known;
  BackendInfo b = find_backend(base);
  b.name.clear();
  b.provider = "fuzztest";
  b.variant = variant;
  b.builtin.reset();
  b.time = nullptr;
  b.run = [run = b.run, wrong = std::move(wrong)](const Case& c, Executor e) {
    Outputs out = run(c, e);
    if (wrong(c)) out.at("h")(0, c.shape.length - 1, 0) = std::numeric_limits<float>::quiet_NaN();
    return out;
  };
  return registry().add(std::move(b));
}

//! Wrong from the third time step on: the cases with L >= 3 fail, and shrinking ends at L = 3.
const BackendInfo& wrong_when_long() {
  return wrong_where(correct_fp32, "wrong_when_long", [](const Case& c) { return c.shape.length >= 3; });
}

FuzzOptions options(std::vector<const BackendInfo*> backends, std::int64_t cases) {
  FuzzOptions o;
  o.backends = std::move(backends);
  o.cases = cases;
  o.seed = 7;
  o.reference_threads = 1;
  return o;
}

const BackendTally& tally(const FuzzProgress& p, const std::string& backend) {
  const auto it =
      std::find_if(p.tallies.begin(), p.tallies.end(), [&](const BackendTally& t) { return t.backend == backend; });
  EXPECT_NE(it, p.tallies.end()) << backend;
  return *it;
}

// Two groups (fp32 and bf16), 6 cases each: 12 in all, and each backend judged on its group's 6.
TEST(Fuzz, CasesArePerGroup) {
  const FuzzProgress p = fuzz(options({&find_backend(correct_fp32), &find_backend(correct_bf16)}, 6));
  EXPECT_EQ(p.groups, 2);
  EXPECT_EQ(p.cases, 12);
  EXPECT_EQ(p.planned, 12);
  EXPECT_EQ(p.fewest, 6);
  EXPECT_EQ(p.most, 6);
  EXPECT_EQ(p.checks, 12);
  EXPECT_TRUE(p.findings.empty());
  EXPECT_EQ(tally(p, correct_fp32).judged, 6);
  EXPECT_EQ(tally(p, correct_bf16).judged, 6);
}

// A group whose only backend failed on its first case stops there; the other group still gets all its
// cases (before, a finished group's turns counted against a total shared by all groups).
TEST(Fuzz, AGroupThatStopsEarlyLeavesTheOthersTheirCases) {
  const BackendInfo& always = wrong_where(correct_bf16, "always_wrong", [](const Case&) { return true; });
  const FuzzProgress p = fuzz(options({&always, &find_backend(correct_fp32)}, 30));
  ASSERT_EQ(p.findings.size(), 1u);
  EXPECT_EQ(p.findings.front().cases_until_failure, 1);  // of its own group's cases
  EXPECT_EQ(p.cases, 31);
  EXPECT_EQ(p.planned, 31);
  EXPECT_EQ(p.fewest, 1);
  EXPECT_EQ(p.most, 30);
  EXPECT_EQ(tally(p, correct_fp32).judged, 30);
  EXPECT_EQ(tally(p, always.name).judged, 1);
  EXPECT_EQ(tally(p, always.name).failed, 1);
}

// The same backend, default and keep_going: one finding either way, at the same case and shrunk to L = 3;
// keep_going judges it on all 40 cases and counts exactly the cases with L >= 3 (the group's stream is
// fuzz_case's, which does not depend on the other backends).
TEST(Fuzz, KeepGoingCountsEveryFailureAndShrinksTheFirst) {
  const BackendInfo& wrong = wrong_when_long();
  FuzzOptions o = options({&wrong, &find_backend(correct_fp32)}, 40);
  const FuzzProgress first_only = fuzz(o);
  o.keep_going = true;
  const FuzzProgress every = fuzz(o);

  std::int64_t long_cases = 0, first_long = 0;
  for (std::int64_t i = 0; i < 40; ++i)
    if (fuzz_case(o.seed, 0, i, Architecture::scan, DType::float32).shape.length >= 3) {
      ++long_cases;
      if (first_long == 0) first_long = i + 1;
    }
  ASSERT_GT(long_cases, 1);
  ASSERT_LT(long_cases, 40);

  ASSERT_EQ(first_only.findings.size(), 1u);
  ASSERT_EQ(every.findings.size(), 1u);
  for (const FuzzProgress* p : {&first_only, &every}) {
    EXPECT_EQ(p->findings.front().backend, wrong.name);
    EXPECT_EQ(p->findings.front().cases_until_failure, first_long);
    EXPECT_EQ(p->findings.front().request.shape.length, 3);
    EXPECT_EQ(p->cases, 40);
  }
  EXPECT_EQ(tally(first_only, wrong.name).judged, first_long);
  EXPECT_EQ(tally(first_only, wrong.name).failed, 1);
  EXPECT_EQ(tally(every, wrong.name).judged, 40);
  EXPECT_EQ(tally(every, wrong.name).failed, long_cases);
  EXPECT_EQ(tally(every, correct_fp32).failed, 0);
  EXPECT_EQ(every.checks, 80);
}

}  // namespace
