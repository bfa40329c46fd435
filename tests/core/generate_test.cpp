// SPDX-License-Identifier: Apache-2.0
// Case generation: deterministic, valid, and each regime has the property it exists for.
#include "core/generate.hpp"
#include "core/rng.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "tests/test_support.hpp"

namespace scancheck {
namespace {

using test::bitwise_equal;
using test::contains;
using test::input_error;

const Regime all_regimes[] = {Regime::default_, Regime::long_memory, Regime::resets, Regime::extreme, Regime::clip};

Case generate(Architecture arch, Regime regime, Shape shape = {3, 40, 16, 2}, std::uint64_t seed = 11,
              DType dtype = DType::float32) {
  return make_case({arch, shape, seed, regime, dtype});
}

double softplus(double z) { return std::max(z, 0.0) + std::log1p(std::exp(-std::abs(z))); }

bool same(const Case& a, const Case& b) {
  if (a.tensors.size() != b.tensors.size() || !bitwise_equal(a.segment_pos, b.segment_pos)) return false;
  for (const auto& [name, t] : a.tensors)
    if (!b.has(name) || !bitwise_equal(t, b.at(name))) return false;
  return true;
}

TEST(Generate, DeterministicValidAndSeedDependent) {
  for (Architecture arch : all_architectures) {
    for (Regime regime : all_regimes) {
      for (DType dtype : {DType::float32, DType::bfloat16}) {
        SCOPED_TRACE(std::string(to_string(arch)) + " " + std::string(to_string(regime)) + " " +
                     std::string(to_string(dtype)));
        const Case c = generate(arch, regime, {2, 17, 12, 3}, 5, dtype);
        EXPECT_NO_THROW(validate(c));
        EXPECT_TRUE(same(c, generate(arch, regime, {2, 17, 12, 3}, 5, dtype)));
        EXPECT_FALSE(same(c, generate(arch, regime, {2, 17, 12, 3}, 6, dtype)));
        EXPECT_EQ(c.provenance.seed, 5u);
        EXPECT_EQ(c.provenance.regime, to_string(regime));
        EXPECT_EQ(c.io_dtype, dtype);
      }
    }
  }
}

TEST(Generate, ElementsArePureFunctionsOfSeedStreamAndIndex) {
  // Large enough to be filled by several threads; x is stream 6 * 8 (tensor id 6, purpose 0) for ever.
  const Case c = generate(Architecture::rglru, Regime::default_, {2, 256, 512, 4}, 123);
  const CounterRng rng(123);
  const Tensor<float>& x = c.at("x");
  for (std::int64_t i = 0; i < x.size(); ++i)
    ASSERT_EQ(x[i], static_cast<float>(rng.normal(48, static_cast<std::uint64_t>(i)))) << i;
}

TEST(Generate, OptionalTensorsFollowTheRequest) {
  CaseRequest req{Architecture::complex_rglru, Shape{1, 3, 8, 2}, 1};
  req.with_h0 = false;
  Case c = make_case(req);
  EXPECT_FALSE(c.has("h0"));
  EXPECT_TRUE(c.has("dh_last"));
  req.with_h0 = true;
  req.with_dh_last = false;
  c = make_case(req);
  EXPECT_TRUE(c.has("h0"));
  EXPECT_FALSE(c.has("dh_last"));
  EXPECT_TRUE(contains(input_error([] { make_case({Architecture::rglru, Shape{1, 3, 7, 2}, 1}); }), "not divisible"));
}

TEST(Generate, DefaultIsRecurrentGemmaInitialisation) {
  const Case c = generate(Architecture::rglru, Regime::default_, {4, 64, 32, 4});
  for (float a : c.at("a_param").values()) {
    const double decay = std::exp(-softplus(a));
    EXPECT_GE(decay, 0.9 - 1e-6);
    EXPECT_LE(decay, 0.999 + 1e-6);
  }
  for (const char* bias : {"input_gate_b", "a_gate_b"})
    for (float b : c.at(bias).values()) EXPECT_EQ(b, 0.0f);
  double sum_sq = 0;
  for (float w : c.at("a_gate_w").values()) sum_sq += w * w;
  EXPECT_NEAR(sum_sq / static_cast<double>(c.at("a_gate_w").size()), 1.0 / 8, 0.02);  // N(0, 1/K)
  double x_sum = 0, x_sq = 0;
  for (float x : c.at("x").values()) x_sum += x, x_sq += x * x;
  const double n = static_cast<double>(c.at("x").size());
  EXPECT_NEAR(x_sum / n, 0.0, 0.05);
  EXPECT_NEAR(x_sq / n, 1.0, 0.05);
  // No resets: positions count up from a random offset in [1, 100].
  for (std::int64_t b = 0; b < 4; ++b) {
    const std::int32_t start = c.segment_pos(b, 0);
    EXPECT_GE(start, 1);
    EXPECT_LE(start, 100);
    for (std::int64_t t = 0; t < 64; ++t) EXPECT_EQ(c.segment_pos(b, t), start + t);
  }
}

TEST(Generate, ComplexKindsDrawPhases) {
  const Case g = generate(Architecture::complex_rglru, Regime::default_);
  for (float p : g.at("a_imag_param").values()) {
    EXPECT_GE(p, 0.0f);
    EXPECT_LE(p, static_cast<float>(std::numbers::pi));
  }
  const Case s = generate(Architecture::complex_scan, Regime::default_);
  const Tensor<float>& a = s.at("a");
  bool negative_real = false;
  for (std::int64_t row = 0; row < 3 * 40; ++row) {
    for (std::int64_t c = 0; c < 8; ++c) {
      const double re = a[row * 16 + c], im = a[row * 16 + 8 + c];
      EXPECT_GE(std::hypot(re, im), 0.9 - 1e-6);
      EXPECT_LE(std::hypot(re, im), 0.999 + 1e-6);
      negative_real |= re < 0;
    }
  }
  EXPECT_TRUE(negative_real);
}

// Every batch entry of a resets case: a pair of consecutive resets, and positions that count from the last.
void expect_reset_positions(const Case& c) {
  const std::int64_t length = c.shape.length;
  EXPECT_EQ(c.segment_pos(0, 0), 0);
  for (std::int64_t b = 0; b < c.shape.batch; ++b) {
    bool pair = false;
    for (std::int64_t t = 1; t < length; ++t) {
      const std::int32_t p = c.segment_pos(b, t), prev = c.segment_pos(b, t - 1);
      pair |= p == 0 && prev == 0;
      if (p > 0 && prev >= 0) {
        EXPECT_EQ(p, prev + 1) << b << " " << t;
      }
    }
    EXPECT_TRUE(pair) << "batch entry " << b;
  }
}

TEST(Generate, ResetsRegime) {
  const Case c = generate(Architecture::rglru, Regime::resets);
  expect_reset_positions(c);
  std::int64_t zeros = std::count(c.segment_pos.values().begin(), c.segment_pos.values().end(), 0);
  EXPECT_GT(zeros, 3 * 3);
  EXPECT_LT(zeros, 3 * 40 / 2);

  // The plain scans reset through a = 0 on every channel.
  for (Architecture arch : {Architecture::scan, Architecture::complex_scan}) {
    const Case s = generate(arch, Regime::resets);
    const Tensor<float>& a = s.at("a");
    const auto reset = [&](std::int64_t b, std::int64_t t) {
      for (std::int64_t w = 0; w < 16; ++w)
        if (a(b, t, w) != 0.0f) return false;
      return true;
    };
    EXPECT_TRUE(reset(0, 0));
    for (std::int64_t b = 0; b < 3; ++b) {
      bool pair = false;
      for (std::int64_t t = 1; t < 40; ++t) pair |= reset(b, t) && reset(b, t - 1);
      EXPECT_TRUE(pair);
    }
  }
}

TEST(Generate, LongMemoryRegime) {
  const Case c = generate(Architecture::rglru, Regime::long_memory);
  for (float a : c.at("a_param").values()) {
    const double decay = std::exp(-softplus(a));
    EXPECT_GE(decay, 0.999 - 1e-7);
    EXPECT_LE(decay, 0.99999 + 1e-7);
  }
  const Case s = generate(Architecture::scan, Regime::long_memory);
  for (float a : s.at("a").values()) {
    EXPECT_GE(a, 0.999f - 1e-7f);
    EXPECT_LE(a, 0.99999f + 1e-7f);
  }
}

TEST(Generate, ExtremeRegime) {
  for (Architecture arch : {Architecture::rglru, Architecture::complex_rglru}) {
    const Case c = generate(arch, Regime::extreme);
    float max_x = 0;
    for (float x : c.at("x").values()) max_x = std::max(max_x, std::abs(x));
    EXPECT_GT(max_x, 100.0f);
    EXPECT_LE(max_x, 1000.0f);
    for (const char* bias : {"input_gate_b", "a_gate_b"}) {
      bool negative = false, positive = false;
      for (float b : c.at(bias).values()) {
        EXPECT_GE(std::abs(b), 10.0f);
        EXPECT_LE(std::abs(b), 40.0f);
        (b < 0 ? negative : positive) = true;
      }
      EXPECT_TRUE(negative && positive) << bias;
    }
    for (float a : c.at("a_param").values()) EXPECT_LE(std::abs(a), 40.0f);
    const auto& pos = c.segment_pos.values();
    const auto negatives = std::count_if(pos.begin(), pos.end(), [](std::int32_t p) { return p < 0; });
    EXPECT_GT(negatives, 0);
    EXPECT_LT(negatives, static_cast<std::ptrdiff_t>(pos.size() / 5));
    EXPECT_EQ(c.segment_pos(0, 0), 0);
  }
  const Case s = generate(Architecture::scan, Regime::extreme);
  const auto& a = s.at("a").values();
  EXPECT_GT(std::count(a.begin(), a.end(), 0.0f), 0);
  EXPECT_GT(std::count_if(a.begin(), a.end(), [](float v) { return std::abs(v) == 1.0f; }), 0);
  EXPECT_GT(std::count_if(a.begin(), a.end(), [](float v) { return v < 0; }), 0);
  for (float v : a) EXPECT_LE(std::abs(v), 1.0f);
  float max_b = 0;
  for (float b : s.at("b").values()) max_b = std::max(max_b, std::abs(b));
  EXPECT_GT(max_b, 100.0f);
}

TEST(Generate, ClipRegime) {
  for (Architecture arch : {Architecture::rglru, Architecture::complex_rglru}) {
    const Case c = generate(arch, Regime::clip);
    const auto& params = c.at("a_param").values();
    const auto tiny = std::count_if(params.begin(), params.end(), [](float a) { return softplus(a) < 1e-8; });
    EXPECT_EQ(tiny, static_cast<std::ptrdiff_t>(params.size() / 4));
  }
  // One channel is enough to get one clipped channel.
  const Case one = generate(Architecture::rglru, Regime::clip, {1, 2, 1, 1});
  EXPECT_LT(softplus(one.at("a_param")[0]), 1e-8);

  const Case s = generate(Architecture::scan, Regime::clip);
  int prefix_sum_channels = 0;
  for (std::int64_t w = 0; w < 16; ++w) {
    bool all_one = true;
    for (std::int64_t b = 0; b < 3; ++b)
      for (std::int64_t t = 0; t < 40; ++t) all_one &= s.at("a")(b, t, w) == 1.0f;
    prefix_sum_channels += all_one;
  }
  EXPECT_EQ(prefix_sum_channels, 4);
}

TEST(Generate, Bf16RoundsOnlyIoTensors) {
  const Case c = generate(Architecture::rglru, Regime::default_, {3, 40, 16, 2}, 11, DType::bfloat16);
  const Case f = generate(Architecture::rglru, Regime::default_, {3, 40, 16, 2}, 11, DType::float32);
  for (const char* io : {"x", "dy"})
    for (std::int64_t i = 0; i < c.at(io).size(); ++i) EXPECT_EQ(c.at(io)[i], round_to_bf16(f.at(io)[i]));
  for (const char* param : {"a_param", "input_gate_w", "h0", "dh_last"})
    EXPECT_TRUE(bitwise_equal(c.at(param), f.at(param))) << param;
  const auto& params = c.at("a_param").values();
  EXPECT_TRUE(std::any_of(params.begin(), params.end(), [](float a) { return round_to_bf16(a) != a; }));
}

TEST(Generate, LogDecaysAreTheLogarithmsOfTheSameDraws) {
  for (Regime regime : {Regime::default_, Regime::long_memory, Regime::clip}) {
    SCOPED_TRACE(std::string(to_string(regime)));
    CaseRequest req{Architecture::scan, Shape{2, 30, 8, 1}, 9, regime};
    const Case linear = make_case(req);
    req.decays = DecaySpace::log;
    const Case log = make_case(req);
    EXPECT_NO_THROW(validate(log));
    EXPECT_FALSE(log.has("a"));
    EXPECT_TRUE(bitwise_equal(log.at("b"), linear.at("b")));
    const auto& a = linear.at("a").values();
    const auto& log_a = log.at("log_a").values();
    for (std::size_t i = 0; i < a.size(); ++i) {
      ASSERT_LT(log_a[i], 0.0f) << i;  // a drawn in (0, 1): no float32 a of 1 becomes a log a of 0
      ASSERT_NEAR(std::exp(static_cast<double>(log_a[i])), a[i], 1e-7) << i;
    }
  }
  // The clip regime's decays 1 - 1e-9 are 1.0f as a, and log a keeps them.
  CaseRequest clip{Architecture::scan, Shape{1, 8, 8, 1}, 3, Regime::clip};
  clip.decays = DecaySpace::log;
  const Case clipped = make_case(clip);
  const auto& log_a = clipped.at("log_a").values();
  EXPECT_TRUE(std::any_of(log_a.begin(), log_a.end(), [](float v) { return v < 0 && v > -1e-8f; }));
}

TEST(Generate, LogDecaysRefuseWhatHasNoLogarithm) {
  for (Regime regime : {Regime::resets, Regime::extreme}) {
    CaseRequest req{Architecture::scan, Shape{1, 8, 4, 1}, 1, regime};
    req.decays = DecaySpace::log;
    EXPECT_TRUE(contains(input_error([&] { make_case(req); }), "no logarithm"));
  }
  CaseRequest gated{Architecture::rglru, Shape{1, 8, 4, 1}, 1};
  gated.decays = DecaySpace::log;
  EXPECT_TRUE(contains(input_error([&] { make_case(gated); }), "no decays a kernel can take in log space"));
}

TEST(Generate, ResetsAtStartResetEveryBatchEntryAndChangeNothingElse) {
  CaseRequest req{Architecture::rglru, Shape{3, 20, 8, 2}, 4, Regime::default_};
  const Case plain = make_case(req);
  req.resets_at_start = true;
  const Case reset = make_case(req);
  for (std::int64_t i = 0; i < plain.segment_pos.size(); ++i)
    EXPECT_EQ(reset.segment_pos[i], i % 20 == 0 ? 0 : plain.segment_pos[i]) << i;
  EXPECT_TRUE(bitwise_equal(reset.at("x"), plain.at("x")));
  CaseRequest scan{Architecture::scan, Shape{1, 8, 4, 1}, 1};
  scan.resets_at_start = true;
  EXPECT_TRUE(contains(input_error([&] { make_case(scan); }), "no segment positions"));
}

}  // namespace
}  // namespace scancheck
