// SPDX-License-Identifier: Apache-2.0
// Philox-4x32-10 against Random123's known answers, and the derived variates: reproducible from any thread
// in any order, pinned across machines, and close to libm's Box-Muller.
#include "core/rng.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <numbers>
#include <numeric>
#include <random>
#include <thread>

namespace scancheck {
namespace {

using Words = std::array<std::uint32_t, 4>;

TEST(Philox, KnownAnswersOfRandom123) {
  EXPECT_EQ(philox4x32_10({0, 0, 0, 0}, {0, 0}), (Words{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(philox4x32_10({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}),
            (Words{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(philox4x32_10({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}),
            (Words{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

TEST(CounterRng, MapsSeedStreamAndIndexOntoKeyAndCounter) {
  const CounterRng rng(0x0123456789abcdefull);
  EXPECT_EQ(rng.bits(0xfedcba9876543210ull, 0x1122334455667788ull),
            philox4x32_10({0x55667788, 0x11223344, 0x76543210, 0xfedcba98}, {0x89abcdef, 0x01234567}));
}

// Every variate at (stream, index) for a few streams, as bits, computed in the order given.
std::vector<std::uint64_t> variates(const CounterRng& rng, const std::vector<std::uint64_t>& order) {
  std::vector<std::uint64_t> out(order.size() * 2);
  for (std::uint64_t k : order) {
    const std::uint64_t stream = k % 4, index = k / 4;
    out[2 * k] = std::bit_cast<std::uint64_t>(rng.normal(stream, index));
    out[2 * k + 1] = std::bit_cast<std::uint64_t>(rng.uniform(stream, index));
  }
  return out;
}

TEST(CounterRng, SameBitsFromAnyThreadInAnyOrder) {
  const CounterRng rng(2024);
  std::vector<std::uint64_t> forward(4000);
  std::iota(forward.begin(), forward.end(), 0);
  const std::vector<std::uint64_t> expected = variates(rng, forward);

  std::vector<std::vector<std::uint64_t>> orders(4, forward);
  std::reverse(orders[1].begin(), orders[1].end());
  std::shuffle(orders[2].begin(), orders[2].end(), std::mt19937(7));
  std::stable_partition(orders[3].begin(), orders[3].end(), [](std::uint64_t k) { return k % 2 == 1; });
  std::vector<std::vector<std::uint64_t>> results(4);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < 4; ++t) threads.emplace_back([&, t] { results[t] = variates(rng, orders[t]); });
  for (std::thread& t : threads) t.join();
  for (const auto& r : results) EXPECT_EQ(r, expected);
}

TEST(CounterRng, PinnedNormalsAcrossMachines) {
  // Computed once on x86-64 with -ffp-contract=off; any IEEE machine must reproduce the bits.
  const CounterRng rng(42);
  const std::pair<std::uint64_t, std::uint64_t> at[] = {{0, 0}, {7, 1}, {7, 1000}, {3, 1ull << 40}, {~0ull, ~0ull}};
  const double pinned[] = {-0x1.54ac03c1a032ap-1, 0x1.493e12d59bbacp-1, 0x1.75021cdc7439p-1, 0x1.cc906b290e6e3p-2,
                           -0x1.2b9ae6a9876b3p+0};
  for (std::size_t k = 0; k < std::size(at); ++k)
    EXPECT_EQ(std::bit_cast<std::uint64_t>(rng.normal(at[k].first, at[k].second)),
              std::bit_cast<std::uint64_t>(pinned[k]))
        << std::hexfloat << rng.normal(at[k].first, at[k].second);
}

TEST(CounterRng, NormalAgreesWithLibmBoxMuller) {
  // The own log and cos are accurate to about 1e-16; libm's to an ulp.
  const CounterRng rng(99);
  for (std::uint64_t i = 0; i < 100000; ++i) {
    const Words w = rng.bits(5, i);
    const auto top53 = [](std::uint32_t lo, std::uint32_t hi) { return ((std::uint64_t{hi} << 32) | lo) >> 11; };
    const double u1 = static_cast<double>(top53(w[0], w[1]) + 1) * 0x1p-53;
    const double u2 = static_cast<double>(top53(w[2], w[3])) * 0x1p-53;
    const double libm = std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
    ASSERT_NEAR(rng.normal(5, i), libm, 1e-14 * (1 + std::abs(libm))) << i;
  }
}

TEST(CounterRng, MomentsAndRanges) {
  const CounterRng rng(1);
  constexpr int n = 200000;
  double sum = 0, sum_sq = 0, uniform_sum = 0;
  for (int i = 0; i < n; ++i) {
    const double z = rng.normal(0, static_cast<std::uint64_t>(i));
    sum += z;
    sum_sq += z * z;
    const double u = rng.uniform(1, static_cast<std::uint64_t>(i));
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    uniform_sum += u;
    const double v = rng.uniform(2, static_cast<std::uint64_t>(i), -3.0, 5.0);
    ASSERT_GE(v, -3.0);
    ASSERT_LT(v, 5.0);
  }
  EXPECT_NEAR(sum / n, 0.0, 0.01);
  EXPECT_NEAR(sum_sq / n, 1.0, 0.01);
  EXPECT_NEAR(uniform_sum / n, 0.5, 0.005);
}

TEST(CounterRng, SeedsAndStreamsAreIndependent) {
  EXPECT_NE(CounterRng(1).bits(0, 0), CounterRng(2).bits(0, 0));
  EXPECT_NE(CounterRng(1).bits(0, 0), CounterRng(1).bits(1, 0));
  EXPECT_NE(CounterRng(1).bits(0, 0), CounterRng(1).bits(0, 1));
  EXPECT_NE(CounterRng(1).bits(0, 0), CounterRng(1ull << 32).bits(0, 0));
}

}  // namespace
}  // namespace scancheck
