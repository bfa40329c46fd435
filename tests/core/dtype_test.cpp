// SPDX-License-Identifier: Apache-2.0
// bf16 rounding (dtype.hpp's contract) and the names of the small enums.
#include "core/dtype.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>

#include "core/architecture.hpp"
#include "core/generate.hpp"
#include "tests/test_support.hpp"

namespace scancheck {
namespace {

using test::contains;
using test::input_error;

float from_bits(std::uint32_t bits) { return std::bit_cast<float>(bits); }
std::uint32_t bits_of(float x) { return std::bit_cast<std::uint32_t>(x); }

TEST(Bf16, ExactValuesStay) {
  for (float x : {0.0f, 1.0f, -2.5f, 0.5f, 1000.0f, 0x1.fep127f, -0x1p-126f})
    EXPECT_EQ(bits_of(round_to_bf16(x)), bits_of(x)) << x;
  EXPECT_EQ(bits_of(round_to_bf16(-0.0f)), bits_of(-0.0f));
}

TEST(Bf16, TiesGoToEvenBothWays) {
  // 1 + 2^-8 lies halfway between 1 (even) and 1 + 2^-7 (odd): down.
  EXPECT_EQ(round_to_bf16(1.0f + 0x1p-8f), 1.0f);
  // 1 + 3 * 2^-8 lies halfway between 1 + 2^-7 (odd) and 1 + 2^-6 (even): up.
  EXPECT_EQ(round_to_bf16(1.0f + 3 * 0x1p-8f), 1.0f + 0x1p-6f);
  EXPECT_EQ(round_to_bf16(-(1.0f + 0x1p-8f)), -1.0f);
  EXPECT_EQ(round_to_bf16(-(1.0f + 3 * 0x1p-8f)), -(1.0f + 0x1p-6f));
  // Just past the tie rounds to nearest.
  EXPECT_EQ(round_to_bf16(1.0f + 0x1p-8f + 0x1p-20f), 1.0f + 0x1p-7f);
  EXPECT_EQ(round_to_bf16(1.0f + 0x1p-8f - 0x1p-20f), 1.0f);
}

TEST(Bf16, NanStaysNanWithItsSign) {
  // A signalling NaN whose payload lies in the dropped bits must not turn into Inf.
  for (std::uint32_t bits : {0x7fc00000u, 0x7f800001u, 0xff800001u, 0x7fffffffu}) {
    const float r = round_to_bf16(from_bits(bits));
    EXPECT_TRUE(std::isnan(r)) << std::hex << bits;
    EXPECT_EQ(std::signbit(r), (bits >> 31) != 0) << std::hex << bits;
  }
}

TEST(Bf16, InfinitiesAndOverflow) {
  constexpr float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(round_to_bf16(inf), inf);
  EXPECT_EQ(round_to_bf16(-inf), -inf);
  EXPECT_EQ(round_to_bf16(3.4e38f), inf);
  EXPECT_EQ(round_to_bf16(std::numeric_limits<float>::max()), inf);
  EXPECT_EQ(round_to_bf16(-std::numeric_limits<float>::max()), -inf);
  EXPECT_EQ(round_to_bf16(0x1.fep127f), 0x1.fep127f);  // the largest finite bf16
  EXPECT_EQ(round_to_bf16(0x1.fefffep127f), 0x1.fep127f);
}

TEST(Bf16, Subnormals) {
  EXPECT_EQ(bits_of(round_to_bf16(0x1p-149f)), 0u);            // far below half the smallest bf16 step
  EXPECT_EQ(round_to_bf16(0x1p-133f), 0x1p-133f);              // smallest bf16 subnormal
  EXPECT_EQ(round_to_bf16(0x1p-133f + 0x1p-134f), 0x1p-132f);  // tie, odd below: up to even
  EXPECT_EQ(round_to_bf16(0x1p-132f + 0x1p-134f), 0x1p-132f);  // tie, even below: down
  EXPECT_EQ(bits_of(round_to_bf16(-0x1p-149f)), 0x80000000u);  // keeps the sign of zero
  EXPECT_EQ(round_to_bf16(0x1.fffffcp-127f), 0x1p-126f);       // largest subnormal rounds up to normal
}

TEST(Bf16, RoundToDependsOnDtype) {
  EXPECT_EQ(round_to(DType::float32, 0.1f), 0.1f);
  EXPECT_EQ(round_to(DType::bfloat16, 0.1f), round_to_bf16(0.1f));
  EXPECT_NE(round_to_bf16(0.1f), 0.1f);
}

TEST(Names, RoundTrip) {
  for (Architecture a : all_architectures) EXPECT_EQ(parse_architecture(to_string(a)), a);
  for (DType d : {DType::float32, DType::bfloat16}) EXPECT_EQ(parse_dtype(to_string(d)), d);
  for (SqrtGradient g : {SqrtGradient::bounded, SqrtGradient::exact}) EXPECT_EQ(parse_sqrt_gradient(to_string(g)), g);
  for (Regime r : {Regime::default_, Regime::long_memory, Regime::resets, Regime::extreme, Regime::clip})
    EXPECT_EQ(parse_regime(to_string(r)), r);
  EXPECT_EQ(to_string(Regime::default_), "default");
  EXPECT_EQ(to_string(Architecture::complex_rglru), "complex_rglru");
  EXPECT_EQ(to_string(DType::bfloat16), "bfloat16");
}

TEST(Names, UnknownNamesListTheAcceptedOnes) {
  EXPECT_EQ(input_error([] { parse_architecture("foo"); }),
            "unknown architecture 'foo' (expected one of: scan, complex_scan, rglru, complex_rglru)");
  EXPECT_EQ(input_error([] { parse_dtype("bf16"); }), "unknown dtype 'bf16' (expected one of: float32, bfloat16)");
  EXPECT_TRUE(contains(input_error([] { parse_dtype("fp32"); }), "'fp32'"));
  EXPECT_TRUE(contains(input_error([] { parse_sqrt_gradient("Exact"); }), "bounded, exact"));
  EXPECT_TRUE(contains(input_error([] { parse_regime("default_"); }),
                       "(expected one of: default, long_memory, resets, extreme, clip)"));
}

}  // namespace
}  // namespace scancheck
