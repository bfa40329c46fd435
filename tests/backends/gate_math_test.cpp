// SPDX-License-Identifier: Apache-2.0
//! @file
//! One formula for the reference and the kernels: reference/gate_math.hpp instantiated with the kernels'
//! complex type (kernels::cfloat) gives bitwise the values of the reference's own float32 instantiation
//! (ref::Complex<float>), across both sigmoid tails, both softplus branches, resets and long memory.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>

#include "backends/kernels/numeric.hpp"
#include "core/rng.hpp"
#include "reference/complex.hpp"
#include "reference/gate_math.hpp"

namespace scancheck {
namespace {

bool same(float x, float y) { return std::bit_cast<std::uint32_t>(x) == std::bit_cast<std::uint32_t>(y); }

TEST(GateMath, KernelFieldTypeGivesTheReferenceFloat32ValuesBitwise) {
  const CounterRng rng(3);
  for (std::uint64_t i = 0; i < 20000; ++i) {
    const float zx = static_cast<float>(rng.normal(1, i) * 12), za = static_cast<float>(rng.normal(2, i) * 12);
    const float s = ref::softplus(static_cast<float>(rng.uniform(3, i, -25, 25)));
    const float imag = static_cast<float>(rng.uniform(4, i, 0, 3.14159));
    const bool reset = rng.uniform(5, i) < 0.1;
    const auto k = ref::gate_terms<float, kernels::cfloat>(zx, za, s, &imag, reset);
    const auto r = ref::gate_terms<float, ref::Complex<float>>(zx, za, s, &imag, reset);
    ASSERT_TRUE(same(k.gx, r.gx) && same(k.ga, r.ga) && same(k.gx_minus, r.gx_minus) && same(k.ga_minus, r.ga_minus))
        << "zx " << zx << " za " << za;
    ASSERT_TRUE(same(k.log_a, r.log_a) && same(k.r, r.r) && same(k.q, r.q) && same(k.m, r.m)) << "za " << za;
    ASSERT_TRUE(same(k.a.re, r.a.re) && same(k.a.im, r.a.im)) << "za " << za << " imag " << imag;
  }
}

TEST(GateMath, DecayAloneIsTheDecayOfTheFullTermsBitwise) {
  // The reverse scans take at_{t+1} from gate_decay; it must be the forward's decay to the bit.
  const CounterRng rng(4);
  for (std::uint64_t i = 0; i < 20000; ++i) {
    const float za = static_cast<float>(rng.normal(1, i) * 12);
    const float s = ref::softplus(static_cast<float>(rng.uniform(2, i, -25, 25)));
    const float imag = static_cast<float>(rng.uniform(3, i, 0, 3.14159));
    const auto full = ref::gate_terms<float, kernels::cfloat>(0.5f, za, s, &imag, false);
    const auto alone = ref::gate_decay<float, kernels::cfloat>(za, s, &imag);
    ASSERT_TRUE(same(full.a.re, alone.re) && same(full.a.im, alone.im)) << "za " << za;
    const auto full_sfu =
        ref::gate_terms<float, kernels::cfloat, ref::DecayForm::shared_sfu>(0.5f, za, s, &imag, false);
    const auto alone_sfu = ref::gate_decay<float, kernels::cfloat, ref::DecayForm::shared_sfu>(za, s, &imag);
    ASSERT_TRUE(same(full_sfu.a.re, alone_sfu.re) && same(full_sfu.a.im, alone_sfu.im)) << "za " << za;
    ASSERT_TRUE(same(ref::gate_decay<float, float>(za, s, nullptr),
                     ref::gate_terms<float, float>(0.5f, za, s, nullptr, false).a));
  }
}

TEST(GateMath, SharedSfuFormIsAsAccurateAsTheSeparateOne) {
  // |a| and q = -e (2 + e) against the double evaluation: a few float32 ulps, relative, in every regime of
  // l: decays within 1e-8 of 1 (where 1 - |a|^2 would cancel) and fast decays (where 1 + expm1(l) alone
  // would round |a| to 0: the tolerance policy caught y = 0 for an exact 1e-13 in the extreme regime).
  const CounterRng rng(5);
  for (std::uint64_t i = 0; i < 20000; ++i) {
    const float za = static_cast<float>(rng.normal(1, i) * 8);
    const float s = ref::softplus(static_cast<float>(rng.uniform(2, i, -30, 10)));
    const auto sfu = ref::gate_terms<float, float, ref::DecayForm::shared_sfu>(0.0f, za, s, nullptr, false);
    const auto separate = ref::gate_terms<float, float>(0.0f, za, s, nullptr, false);
    const auto exact = ref::gate_terms<double, double>(0.0, za, s, nullptr, false);
    // Within twice the separate form's error plus 2 ulps: exp amplifies log_a's own rounding by |log_a|, so
    // neither form is a fixed number of ulps from exact for fast decays.
    const auto within = [&](float got, float sep, double want) {
      return std::abs(got - want) <= 2 * std::abs(sep - want) + 2 * 0x1p-24 * std::abs(want);
    };
    ASSERT_TRUE(within(sfu.r, separate.r, exact.r)) << "za " << za << " s " << s << " r " << sfu.r << " vs " << exact.r;
    ASSERT_TRUE(within(sfu.q, separate.q, exact.q)) << "za " << za << " s " << s << " q " << sfu.q << " vs " << exact.q;
  }
}

TEST(GateMath, NormalisationKeepsLongMemory) {
  // Decays within 6e-8 of 1: the literal 1 - exp(2 log_a) gives q = 0 in float32; -expm1 must not.
  const float s = 1e-9f;
  const auto g = ref::gate_terms<float, float>(0.0f, 0.0f, s, nullptr, false);
  EXPECT_GT(g.q, 0.0f);
  EXPECT_NEAR(g.q, 8e-9f, 1e-12f);  // q = -expm1(-8 * 0.5 * 2 * s) = 8e-9 to first order
  EXPECT_EQ(1.0f - g.r * g.r, 0.0f) << "the literal form would have cancelled";
}

}  // namespace
}  // namespace scancheck
