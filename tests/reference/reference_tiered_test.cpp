// SPDX-License-Identifier: Apache-2.0
//! @file
//! The tiered reference (Precision::tiered): double values certified by their own error bound, float128
//! where they are not. On every architecture, regime and io dtype its values agree with the float128
//! reference within the certified fraction of the float32 bound, its bounds are the float128 mode's bit for
//! bit, and the float128 fallback runs where double cannot certify (and only there).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "core/architectures.hpp"
#include "reference_test_support.hpp"

namespace scancheck::reftest {
namespace {

ReferenceOptions options_of(Precision precision, bool strict) {
  ReferenceOptions o;
  o.precision = precision;
  o.threads = 2;
  o.strict_bounds = strict;
  return o;
}

//! |tiered - float128| <= 1/1000 of the bound the element is judged by, plus float128's own rounding to
//! double; elements of recomputed blocks are float128's exactly.
void expect_within_certified_bound(const ReferenceResult& tiered, const ReferenceResult& exact,
                                   const std::string& what) {
  for (const auto& [name, values] : exact.values) {
    const Tensor<double>& got = tiered.values.at(name);
    const Tensor<double>& bound = exact.bounds.at(name);
    const Tensor<double>* strict = exact.strict_bounds.empty() ? nullptr : &exact.strict_bounds.at(name);
    for (std::int64_t i = 0; i < values.size(); ++i) {
      if (std::isnan(values[i]) && std::isnan(got[i])) continue;
      const double judged_by = strict ? std::min(bound[i], (*strict)[i]) : bound[i];
      const double allowed = 1e-3 * judged_by + 0x1p-52 * std::fabs(values[i]);
      if (!(std::fabs(got[i] - values[i]) <= allowed)) {
        ADD_FAILURE() << what << ": " << name << " at " << index_string(values.dims(), i) << ": tiered " << got[i]
                      << ", float128 " << values[i] << ", bound " << judged_by;
        return;
      }
    }
  }
}

void expect_bitwise_equal(const std::map<std::string, Tensor<double>>& a,
                          const std::map<std::string, Tensor<double>>& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (const auto& [name, t] : a)
    for (std::int64_t i = 0; i < t.size(); ++i)
      if (std::memcmp(&t[i], &b.at(name)[i], sizeof(double)) != 0) {
        ADD_FAILURE() << what << ": " << name << " bound at " << i << ": " << t[i] << " vs " << b.at(name)[i];
        return;
      }
}

struct TierCounts {
  std::int64_t cases = 0, with_fallback = 0;
};

TEST(TieredReference, AgreesWithFloat128WithinTheCertifiedBoundOnEveryRegime) {
  TierCounts counts;
  std::uint64_t seed = 11;
  for (Architecture arch : all_architectures)
    for (Regime regime : {Regime::default_, Regime::long_memory, Regime::resets, Regime::extreme, Regime::clip})
      for (DType dtype : {DType::float32, DType::bfloat16}) {
        if (regime == Regime::clip && !describe(arch).production_layer) continue;
        const Case c = make_case(request(arch, {2, 67, 16, 2}, ++seed, regime, dtype));
        const std::string what = fmt::format("{} {} {}", to_string(arch), to_string(regime), to_string(dtype));
        const ReferenceResult exact = compute_reference(c, options_of(Precision::float128, true));
        const ReferenceResult tiered = compute_reference(c, options_of(Precision::tiered, true));
        ASSERT_TRUE(tiered.tiers) << what;
        expect_within_certified_bound(tiered, exact, what);
        expect_bitwise_equal(tiered.bounds, exact.bounds, what + " (bounds)");
        expect_bitwise_equal(tiered.strict_bounds, exact.strict_bounds, what + " (strict bounds)");
        ++counts.cases;
        counts.with_fallback += !tiered.tiers->float128_blocks.empty();
      }
  std::cout << "[ tiered ] " << counts.with_fallback << " of " << counts.cases << " cases needed float128 somewhere\n";
}

TEST(TieredReference, CertifiesTheDefaultRegimeWithoutFloat128) {
  for (Architecture arch : all_architectures) {
    const Case c = make_case(request(arch, {2, 300, 32, 2}, 5));
    const ReferenceResult tiered = compute_reference(c, options_of(Precision::tiered, true));
    EXPECT_EQ(tiered.tiers->uncertified_elements, 0) << to_string(arch);
    EXPECT_TRUE(tiered.tiers->float128_blocks.empty()) << to_string(arch);
  }
}

//! A value double cannot hold is not certified; its blocks, and only those, come from float128. Here
//! softplus(a_param) = e^-800 underflows double (not float128), so q = 1 - |a|^2 is 0 in double and the exact
//! sqrt-gradient 1/(2 sqrt q) infinite, where float128 keeps q ~ 1e-347 and a finite gradient.
TEST(TieredReference, RecomputesInFloat128ExactlyTheBlocksDoubleCannotCertify) {
  Case c =
      make_case(request(Architecture::rglru, {2, 40, 8, 2}, 3, Regime::default_, DType::float32, SqrtGradient::exact));
  c.at("a_param")[1] = -800.0f;  // channel 1: head 0
  const ReferenceResult exact = compute_reference(c, options_of(Precision::float128, false));
  const ReferenceResult tiered = compute_reference(c, options_of(Precision::tiered, false));
  ASSERT_TRUE(tiered.tiers);
  EXPECT_GT(tiered.tiers->uncertified_elements, 0);
  ASSERT_EQ(tiered.tiers->float128_blocks.size(), 2u);  // head 0 of both batch entries (d_a_param sums them)
  for (const Block& b : tiered.tiers->float128_blocks) EXPECT_EQ(b.head, 0) << b.batch;
  expect_within_certified_bound(tiered, exact, "underflowing decay");
  const Tensor<double>& d_a_param = tiered.values.at("d_a_param");
  EXPECT_TRUE(std::isfinite(d_a_param[1])) << d_a_param[1];
}

}  // namespace
}  // namespace scancheck::reftest
