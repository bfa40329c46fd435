// SPDX-License-Identifier: Apache-2.0
//! @file
//! The reference's modes: the two sqrt-gradient conventions (recurrences.md §2: "exact" 1/(2 sqrt q) and
//! RecurrentGemma's "bounded" 1/max(2 sqrt q, 1/1000)), sampled runs (whole (batch, head) blocks, with
//! coverage masks) and the thread count, which must never change a bit of the result.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "core/architectures.hpp"
#include "core/error.hpp"
#include "reference_test_support.hpp"

namespace scancheck::reftest {
namespace {

bool bitwise_equal(double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; }

//! Expects every element of every tensor of `a` and `b` to be bitwise equal.
void expect_all_bitwise_equal(const std::map<std::string, Tensor<double>>& a,
                              const std::map<std::string, Tensor<double>>& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (const auto& [name, t] : a) {
    const Tensor<double>& u = b.at(name);
    ASSERT_EQ(t.dims(), u.dims()) << what << " " << name;
    for (std::int64_t i = 0; i < t.size(); ++i)
      if (!bitwise_equal(t[i], u[i])) {
        ADD_FAILURE() << what << ": " << name << " at " << index_string(t.dims(), i) << ": " << t[i] << " vs " << u[i];
        break;
      }
  }
}

//! (b, t, c) of every non-reset element of an rglru case where 2 sqrt(q) < 1/1000 (clip active).
std::set<std::tuple<std::int64_t, std::int64_t, std::int64_t>> clipped_elements(const Case& c) {
  std::set<std::tuple<std::int64_t, std::int64_t, std::int64_t>> out;
  const std::int64_t K = head_channels(c.architecture, c.shape);
  for (std::int64_t b = 0; b < c.shape.batch; ++b)
    for (std::int64_t h = 0; h < c.shape.heads; ++h) {
      const auto in = ref::gather_gated_block<float128, float128>(c, b, h);
      const auto fw = ref::gated_forward(in);
      for (std::int64_t t = 0; t < in.length; ++t) {
        if (in.reset[t]) continue;
        for (std::int64_t j = 0; j < K; ++j) {
          const std::int64_t i = t * K + j;
          const auto g =
              ref::gate_terms<float128, float128>(fw.zx[i], fw.za[i], ref::softplus(in.a_param[j]), nullptr, false);
          if (2 * g.m < float128(1) / 1000) out.insert({b, t, h * K + j});
        }
      }
    }
  return out;
}

// Proves: on a clip-regime rglru case the clip is active somewhere, and switching the convention changes
// exactly what depends on dq there: d_a_param of the clipped channels, the a-gate gradients of their
// columns and dx of the (batch, step, head) rows holding one; forward outputs, dh0, the input-gate
// gradients and every unclipped element are bitwise unchanged.
TEST(SqrtGradientConvention, ClipChangesOnlyTheClippedGradients) {
  Case c = make_case(request(Architecture::rglru, {2, 24, 8, 2}, 61, Regime::clip));
  const auto clipped = clipped_elements(c);
  ASSERT_FALSE(clipped.empty()) << "clip regime without an element where 2 sqrt(q) < 1/1000";
  c.sqrt_gradient = SqrtGradient::bounded;
  const ReferenceResult bounded = compute_reference(c, options(Precision::float128, false));
  c.sqrt_gradient = SqrtGradient::exact;
  const ReferenceResult exact = compute_reference(c, options(Precision::float128, false));
  const auto& vb = bounded.values;
  const auto& ve = exact.values;

  for (const char* name : {"y", "h_last", "dh0", "d_input_gate_w", "d_input_gate_b"})
    for (std::int64_t i = 0; i < vb.at(name).size(); ++i)
      EXPECT_TRUE(bitwise_equal(vb.at(name)[i], ve.at(name)[i])) << name << " at " << i << " depends on the convention";

  const std::int64_t K = 4, L = 24, W = 8;
  std::set<std::int64_t> clipped_channels;
  std::set<std::tuple<std::int64_t, std::int64_t, std::int64_t>> clipped_rows;  // (b, t, head)
  for (const auto& [b, t, ch] : clipped) {
    clipped_channels.insert(ch);
    clipped_rows.insert({b, t, ch / K});
  }
  for (std::int64_t ch = 0; ch < W; ++ch) {
    const bool hit = clipped_channels.count(ch) != 0;
    EXPECT_EQ(!bitwise_equal(vb.at("d_a_param")[ch], ve.at("d_a_param")[ch]), hit)
        << "d_a_param[" << ch << "]: " << vb.at("d_a_param")[ch] << " (bounded) vs " << ve.at("d_a_param")[ch]
        << " (exact), clip " << (hit ? "active" : "inactive") << " on this channel";
    EXPECT_EQ(!bitwise_equal(vb.at("d_a_gate_b")[ch], ve.at("d_a_gate_b")[ch]), hit) << "d_a_gate_b[" << ch << "]";
  }
  std::int64_t dx_changed = 0;
  for (std::int64_t b = 0; b < 2; ++b)
    for (std::int64_t t = 0; t < L; ++t)
      for (std::int64_t p = 0; p < W; ++p) {
        const std::int64_t i = (b * L + t) * W + p;
        const bool changed = !bitwise_equal(vb.at("dx")[i], ve.at("dx")[i]);
        dx_changed += changed;
        if (!clipped_rows.count({b, t, p / K})) {
          EXPECT_FALSE(changed) << "dx at " << index_string(vb.at("dx").dims(), i) << " changed without a clip";
        }
      }
  EXPECT_GT(dx_changed, 0) << "the clip changed no dx";
}

// Proves: where 2 sqrt(q) > 1/1000 everywhere (default regime), the two conventions give bitwise-identical
// outputs, for both gated kinds.
TEST(SqrtGradientConvention, InactiveClipGivesIdenticalResults) {
  for (const Architecture arch : {Architecture::rglru, Architecture::complex_rglru}) {
    Case c = make_case(request(arch, {2, 24, 8, 2}, 62, Regime::default_));
    SCOPED_TRACE(trace_of(c));
    ASSERT_GT(min_two_sqrt_q(c), 1e-3);
    c.sqrt_gradient = SqrtGradient::bounded;
    const ReferenceResult bounded = compute_reference(c, options(Precision::float128, false));
    c.sqrt_gradient = SqrtGradient::exact;
    const ReferenceResult exact = compute_reference(c, options(Precision::float128, false));
    expect_all_bitwise_equal(bounded.values, exact.values, "bounded vs exact");
  }
}

// ---------------------------------------------------------------------------------------------------
// Sampling and threads

//! The coverage a sampled run must report, derived from the channel maps of reference/gather.hpp: block
//! (b, h) determines the state channels of head h (y, h, da, db, h_last, dh0 at merged positions c and
//! Wc + c); dx at position p needs both the gate head p / K_in and the head owning the direct term
//! (channel p, or p mod Wc); a head's parameter gradients need all of its batch entries.
std::map<std::string, Tensor<std::uint8_t>> expected_coverage(const Case& c, const std::vector<Block>& sample) {
  const Shape& s = c.shape;
  const std::int64_t L = s.length, W = s.width, H = s.heads;
  const std::int64_t Wc = describe(c.architecture).complex ? W / 2 : 0;
  const std::int64_t K = state_channels(c.architecture, s) / H;  // state channels per head
  const std::int64_t Ki = W / H;                                 // gate inputs per head
  std::vector<std::vector<bool>> on(s.batch, std::vector<bool>(H, false));
  for (const Block& b : sample) on[b.batch][b.head] = true;
  const auto head_of_position = [&](std::int64_t p) { return (Wc ? p % Wc : p) / K; };
  std::map<std::string, Tensor<std::uint8_t>> cov;
  for (const TensorSpec& spec : tensor_layout(c.architecture, s, TensorRole::output)) {
    Tensor<std::uint8_t> t(spec.dims, 0);
    const std::string& n = spec.name;
    if (spec.precision == TensorPrecision::io) {  // activations [B, L, W]
      for (std::int64_t b = 0; b < s.batch; ++b)
        for (std::int64_t u = 0; u < L; ++u)
          for (std::int64_t p = 0; p < W; ++p) {
            bool covered = on[b][head_of_position(p)];
            if (n == "dx") covered = covered && on[b][p / Ki];
            t(b, u, p) = covered;
          }
    } else if (spec.dims == Dims{s.batch, W}) {  // states
      for (std::int64_t b = 0; b < s.batch; ++b)
        for (std::int64_t p = 0; p < W; ++p) t(b, p) = on[b][head_of_position(p)];
    } else {  // parameter gradients: [H, ...] or [channels]
      const bool per_head = spec.dims[0] == H && spec.dims.size() > 1;
      for (std::int64_t i = 0; i < t.size(); ++i) {
        const std::int64_t h = per_head ? i / (t.size() / H) : i / K;
        bool all = true;
        for (std::int64_t b = 0; b < s.batch; ++b) all = all && on[b][h];
        t[i] = all;
      }
    }
    cov.emplace(n, std::move(t));
  }
  return cov;
}

class SampledAndThreaded : public ::testing::TestWithParam<Architecture> {};

// Proves: a run sampling some blocks reports blocks_computed/total and exactly the expected coverage
// (state outputs per block, dx needing both heads, parameter gradients only for fully sampled heads), and
// on covered elements its values and bounds are bitwise those of the full run.
TEST_P(SampledAndThreaded, SampledRunEqualsFullRunWhereCovered) {
  const Case c = make_case(request(GetParam(), {3, 12, 8, 2}, 71, Regime::resets));
  SCOPED_TRACE(trace_of(c));
  const ReferenceResult full = compute_reference(c, options(Precision::float128, true));
  // Head 0 in every batch entry (its parameter gradients covered); head 1 only in batch entry 1.
  const std::vector<Block> sample{{2, 0}, {0, 0}, {1, 1}, {1, 0}};
  ReferenceOptions o = options(Precision::float128, true);
  o.sample = sample;
  const ReferenceResult part = compute_reference(c, o);
  EXPECT_EQ(part.blocks_computed, 4);
  EXPECT_EQ(part.blocks_total, 6);
  EXPECT_EQ(full.blocks_computed, 6);
  const auto expected = expected_coverage(c, sample);
  ASSERT_EQ(part.covered.size(), expected.size());
  std::int64_t covered_elements = 0, uncovered_elements = 0;
  for (const auto& [name, want] : expected) {
    const Tensor<std::uint8_t>& got = part.covered.at(name);
    ASSERT_EQ(got.dims(), want.dims()) << name;
    for (std::int64_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i], want[i]) << name << " coverage at " << index_string(got.dims(), i);
      if (!got[i]) {
        ++uncovered_elements;
        continue;
      }
      ++covered_elements;
      EXPECT_TRUE(bitwise_equal(part.values.at(name)[i], full.values.at(name)[i]))
          << name << " at " << index_string(got.dims(), i) << ": sampled " << part.values.at(name)[i] << " vs full "
          << full.values.at(name)[i];
      EXPECT_TRUE(bitwise_equal(part.bounds.at(name)[i], full.bounds.at(name)[i])) << name << " bound at " << i;
    }
  }
  EXPECT_GT(covered_elements, 0);
  EXPECT_GT(uncovered_elements, 0);
}

// Proves: 1 and 4 threads give bitwise-identical values and bounds (blocks are independent and the
// cross-block sums run in a fixed order), for the float128 and the tiered reference. The case has
// 3 x 684 x 8 = 16,416 element-steps: below 16,384 the reference runs on one thread whatever it is given.
TEST_P(SampledAndThreaded, ThreadCountChangesNothing) {
  const Case c = make_case(request(GetParam(), {3, 684, 8, 2}, 72, Regime::default_));
  SCOPED_TRACE(trace_of(c));
  for (const Precision precision : {Precision::float128, Precision::tiered}) {
    const ReferenceResult one = compute_reference(c, options(precision, true, 1));
    const ReferenceResult four = compute_reference(c, options(precision, true, 4));
    expect_all_bitwise_equal(one.values, four.values, "values, 1 vs 4 threads");
    expect_all_bitwise_equal(one.bounds, four.bounds, "bounds, 1 vs 4 threads");
  }
}

// Proves: a sampled block outside the shape is rejected with InputError.
TEST_P(SampledAndThreaded, OutOfRangeSampleIsRejected) {
  const Case c = make_case(request(GetParam(), {2, 4, 8, 2}, 73));
  for (const Block bad : {Block{2, 0}, Block{0, 2}, Block{-1, 0}}) {
    ReferenceOptions o = options(Precision::float128, false);
    o.sample = std::vector<Block>{bad};
    EXPECT_THROW(compute_reference(c, o), InputError) << "block (" << bad.batch << ", " << bad.head << ")";
  }
}

INSTANTIATE_TEST_SUITE_P(AllArchitectures, SampledAndThreaded, ::testing::ValuesIn(all_architectures),
                         [](const auto& info) { return std::string(to_string(info.param)); });

//! Log-form decays: the reference takes log a exactly, a = exp(log a) never rounded, and gives dlog_a = a da.
//! Checked against the recurrence evaluated by hand in long double on one channel of three steps.
TEST(LogDecays, ReferenceExponentiatesLogAExactly) {
  const std::vector<float> log_a{-0.1f, -1e-9f, -2.0f}, b{1.0f, 2.0f, 3.0f}, dh{1.0f, -1.0f, 0.5f};
  const float h0 = 0.5f, dh_last = 0.25f;
  Case c;
  c.architecture = Architecture::scan;
  c.shape = {1, 3, 1, 1};
  c.decays = DecaySpace::log;
  c.tensors.emplace("log_a", Tensor<float>({1, 3, 1}, log_a));
  c.tensors.emplace("b", Tensor<float>({1, 3, 1}, b));
  c.tensors.emplace("dh", Tensor<float>({1, 3, 1}, dh));
  c.tensors.emplace("h0", Tensor<float>({1, 1}, std::vector<float>{h0}));
  c.tensors.emplace("dh_last", Tensor<float>({1, 1}, std::vector<float>{dh_last}));

  long double a[3], h[3], g[3];
  for (int t = 0; t < 3; ++t) a[t] = std::exp(static_cast<long double>(log_a[t]));
  for (int t = 0; t < 3; ++t) h[t] = a[t] * (t ? h[t - 1] : h0) + b[t];
  for (int t = 2; t >= 0; --t) g[t] = dh[t] + (t == 2 ? static_cast<long double>(dh_last) : a[t + 1] * g[t + 1]);

  for (Precision p : {Precision::float128, Precision::tiered}) {
    SCOPED_TRACE(std::string(to_string(p)));
    ReferenceOptions options;
    options.precision = p;
    const ReferenceResult r = compute_reference(c, options);
    ASSERT_TRUE(r.values.count("dlog_a") && !r.values.count("da"));
    for (int t = 0; t < 3; ++t) {
      const long double dlog_a = g[t] * (t ? h[t - 1] : h0) * a[t];
      EXPECT_NEAR(r.values.at("h")[t], static_cast<double>(h[t]), 1e-15 * std::fabs(static_cast<double>(h[t])));
      EXPECT_NEAR(r.values.at("db")[t], static_cast<double>(g[t]), 1e-15 * std::fabs(static_cast<double>(g[t])));
      EXPECT_NEAR(r.values.at("dlog_a")[t], static_cast<double>(dlog_a),
                  1e-15 * std::fabs(static_cast<double>(dlog_a)));
      EXPECT_GT(r.bounds.at("dlog_a")[t], 0.0);  // the kernel's own float32 exp is admitted
    }
    EXPECT_NEAR(r.values.at("dh0")[0], static_cast<double>(a[0] * g[0]), 1e-15);
  }
}

}  // namespace
}  // namespace scancheck::reftest
