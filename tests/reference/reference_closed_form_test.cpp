// SPDX-License-Identifier: Apache-2.0
//! @file
//! Closed forms of the recurrences (recurrences.md §1-§3, §5) on hand-built cases: the reference must
//! reproduce them to 1e-30 relative in float128 (or bitwise, where the closed form is exact in float128).
//! Degenerate decays first (a = 0, a = 1, |a| = 1, constant a), then resets and L = 1.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "core/architectures.hpp"
#include "reference_test_support.hpp"

namespace scancheck::reftest {
namespace {

constexpr double tight = 1e-30;  // float128 has ~34 digits; sums of <= 40 terms lose at most ~2

template <class S>
S mag(const S& x) {
  using std::abs;
  return abs(x);
}
template <class S>
S mag(const Complex<S>& x) {
  using std::sqrt;
  return sqrt(x.re * x.re + x.im * x.im);
}

//! Complex conjugate (identity for real fields). Not ref::conj: qualified lookup of that name finds only the
//! identity template, the Complex overload being a hidden friend.
template <class S>
S cj(const S& x) {
  return x;
}
template <class S>
Complex<S> cj(const Complex<S>& x) {
  return {x.re, -x.im};
}

//! Max over the real components of |x - y|.
template <class S>
S component_diff(const S& x, const S& y) {
  using std::abs;
  return abs(x - y);
}
template <class S>
S component_diff(const Complex<S>& x, const Complex<S>& y) {
  using std::abs;
  return std::max(abs(x.re - y.re), abs(x.im - y.im));
}

template <class F>
bool same(const F& x, const F& y) {
  if constexpr (ref::is_complex_v<F>) return x.re == y.re && x.im == y.im;
  else return x == y;
}

//! Reads element (row, channel) of a [rows, W] case tensor as a field value (merged layout for complex).
template <class F>
F element(const Case& c, const std::string& name, std::int64_t row, std::int64_t channel) {
  const std::int64_t Wc = describe(c.architecture).complex ? c.shape.width / 2 : 0;
  return ref::read_channel<F>(c.at(name).data() + row * c.shape.width, channel, Wc);
}

//! Expects compute_reference's double value at merged index `at` (and at + Wc) to equal `v` rounded.
template <class F>
void expect_rounded(const Tensor<double>& t, std::int64_t at, std::int64_t Wc, const F& v, const char* what) {
  if constexpr (ref::is_complex_v<F>) {
    EXPECT_EQ(t[at], static_cast<double>(v.re)) << what << " re at " << index_string(t.dims(), at);
    EXPECT_EQ(t[at + Wc], static_cast<double>(v.im)) << what << " im at " << index_string(t.dims(), at);
  } else {
    EXPECT_EQ(t[at], static_cast<double>(v)) << what << " at " << index_string(t.dims(), at);
  }
}

template <class F>
class ScanClosedForm : public ::testing::Test {
 protected:
  static constexpr Architecture arch = ref::is_complex_v<F> ? Architecture::complex_scan : Architecture::scan;
  static constexpr std::int64_t Wc(const Shape& s) { return ref::is_complex_v<F> ? s.width / 2 : 0; }

  //! A scan case with random b, h0, dh, dh_last and a = `decay` on every element.
  static Case constant_decay_case(Shape s, float decay_re, float decay_im, std::uint64_t seed) {
    Case c = blank_case(arch, s);
    fill_normal(c, "b", seed, 2);
    fill_normal(c, "h0", seed, 3);
    fill_normal(c, "dh", seed, 4);
    fill_normal(c, "dh_last", seed, 5);
    const std::int64_t channels = state_channels(arch, s);
    Tensor<float>& a = c.at("a");
    for (std::int64_t row = 0; row < s.batch * s.length; ++row)
      for (std::int64_t k = 0; k < channels; ++k) {
        a[row * s.width + k] = decay_re;
        if constexpr (ref::is_complex_v<F>) a[row * s.width + channels + k] = decay_im;
      }
    return c;
  }

  //! Checks the whole reference (through compute_reference, rounded to double) against closed forms h, g
  //! that are exact in float128: h == h_closed, db == g, da_t == g_t conj(h_{t-1}) (0 at t = 0 without
  //! h0), dh0 == conj(a_0) g_0, h_last == h_{L-1}.
  template <class HClosed, class GClosed>
  static void expect_exact(const Case& c, const F& a0, HClosed h_closed, GClosed g_closed) {
    const Shape& s = c.shape;
    const std::int64_t channels = state_channels(arch, s), W = s.width, L = s.length;
    const ReferenceResult r = compute_reference(c, options(Precision::float128, false));
    for (std::int64_t b = 0; b < s.batch; ++b)
      for (std::int64_t k = 0; k < channels; ++k) {
        for (std::int64_t t = 0; t < L; ++t) {
          const std::int64_t at = (b * L + t) * W + k;
          const F h = h_closed(b, t, k), g = g_closed(b, t, k);
          expect_rounded(r.values.at("h"), at, Wc(s), h, "h");
          expect_rounded(r.values.at("db"), at, Wc(s), g, "db");
          const F prev = t > 0 ? h_closed(b, t - 1, k) : c.has("h0") ? element<F>(c, "h0", b, k) : F(0);
          expect_rounded(r.values.at("da"), at, Wc(s), F(g * cj(prev)), "da");
        }
        expect_rounded(r.values.at("h_last"), b * W + k, Wc(s), h_closed(b, L - 1, k), "h_last");
        expect_rounded(r.values.at("dh0"), b * W + k, Wc(s), F(cj(a0) * g_closed(b, 0, k)), "dh0");
      }
  }
};

using ScanFields = ::testing::Types<float128, Complex<float128>>;
TYPED_TEST_SUITE(ScanClosedForm, ScanFields);

// Proves: a constant decay gives the geometric series h_t = a^{t+1} h0 + sum_k a^{t-k} b_k and its
// adjoint g_t = sum_{s>=t} conj(a)^{s-t} dh_s + conj(a)^{L-1-t} dh_last, db = g, da_t = g_t conj(h_{t-1}),
// dh0 = conj(a) g_0, to 1e-30 relative to the sum of |terms| (float128 block code, no rounding to double).
TYPED_TEST(ScanClosedForm, ConstantDecayIsGeometricSeries) {
  using F = TypeParam;
  const Shape s{2, 24, 4, 2};
  // Decays per case: contracting, negative/rotating, and near 1 (long memory).
  const std::vector<std::pair<float, float>> decays =
      ref::is_complex_v<F> ? std::vector<std::pair<float, float>>{{0.6f, 0.7f}, {-0.5f, 0.25f}, {0.999f, -0.03f}}
                           : std::vector<std::pair<float, float>>{{0.75f, 0.0f}, {-0.5f, 0.0f}, {0.999f, 0.0f}};
  for (const auto& [re, im] : decays) {
    SCOPED_TRACE("a = " + std::to_string(re) + (ref::is_complex_v<F> ? " + i " + std::to_string(im) : ""));
    const Case c = TestFixture::constant_decay_case(s, re, im, 11);
    const std::int64_t L = s.length, K = state_channels(TestFixture::arch, s) / s.heads;
    F a;
    if constexpr (ref::is_complex_v<F>) a = F(float128(re), float128(im));
    else a = F(re);
    std::vector<F> pow_a(L + 1, F(1)), pow_conj(L + 1, F(1));  // a^n, conj(a)^n
    for (std::int64_t n = 1; n <= L; ++n) {
      pow_a[n] = pow_a[n - 1] * a;
      pow_conj[n] = pow_conj[n - 1] * cj(a);
    }
    const float128 abs_a = mag(a);
    std::vector<float128> pow_abs(L + 1, float128(1));  // |a|^n, for the scales
    for (std::int64_t n = 1; n <= L; ++n) pow_abs[n] = pow_abs[n - 1] * abs_a;
    for (std::int64_t b = 0; b < s.batch; ++b)
      for (std::int64_t hd = 0; hd < s.heads; ++hd) {
        const auto in = ref::gather_scan_block<F>(c, b, hd);
        const auto out = ref::scan_block(in);
        for (std::int64_t k = 0; k < K; ++k) {
          std::vector<F> h(L), g(L);
          std::vector<float128> h_scale(L), g_scale(L);
          for (std::int64_t t = 0; t < L; ++t) {
            h[t] = pow_a[t + 1] * in.h0[k];
            h_scale[t] = pow_abs[t + 1] * mag(in.h0[k]);
            for (std::int64_t j = 0; j <= t; ++j) {
              h[t] = h[t] + pow_a[t - j] * in.b[j * K + k];
              h_scale[t] += pow_abs[t - j] * mag(in.b[j * K + k]);
            }
            g[t] = pow_conj[L - 1 - t] * in.dh_last[k];
            g_scale[t] = pow_abs[L - 1 - t] * mag(in.dh_last[k]);
            for (std::int64_t j = t; j < L; ++j) {
              g[t] = g[t] + pow_conj[j - t] * in.dh[j * K + k];
              g_scale[t] += pow_abs[j - t] * mag(in.dh[j * K + k]);
            }
          }
          for (std::int64_t t = 0; t < L; ++t) {
            const std::int64_t i = t * K + k;
            const F prev = t > 0 ? h[t - 1] : in.h0[k];
            const float128 prev_scale = t > 0 ? h_scale[t - 1] : mag(in.h0[k]);
            EXPECT_LE(component_diff(out.h[i], h[t]), tight * h_scale[t]) << "h t=" << t << " k=" << k;
            EXPECT_LE(component_diff(out.db[i], g[t]), tight * g_scale[t]) << "db t=" << t << " k=" << k;
            EXPECT_LE(component_diff(out.da[i], F(g[t] * cj(prev))), 2 * tight * g_scale[t] * prev_scale)
                << "da t=" << t << " k=" << k;
          }
          EXPECT_LE(component_diff(out.dh0[k], F(cj(a) * g[0])), tight * abs_a * g_scale[0]) << "dh0 k=" << k;
        }
      }
  }
}

// Proves: a = 0 cuts every step from the past: h = b, h_last = b_{L-1}, db = dh (+ dh_last at L-1),
// da_t = db_t conj(b_{t-1}) (conj(h0) at t = 0), dh0 = 0 -- exactly (bitwise after rounding to double).
TYPED_TEST(ScanClosedForm, ZeroDecayPassesInputsThrough) {
  using F = TypeParam;
  const Shape s{2, 9, 6, 3};
  const Case c = TestFixture::constant_decay_case(s, 0.0f, 0.0f, 12);
  const auto h = [&](std::int64_t b, std::int64_t t, std::int64_t k) {
    return element<F>(c, "b", b * s.length + t, k);
  };
  const auto g = [&](std::int64_t b, std::int64_t t, std::int64_t k) {
    const F dh = element<F>(c, "dh", b * s.length + t, k);
    return t == s.length - 1 ? F(dh + element<F>(c, "dh_last", b, k)) : dh;
  };
  TestFixture::expect_exact(c, F(0), h, g);
}

// Proves: a = 1 turns the scan into prefix sums h_t = h0 + sum_{k<=t} b_k and the backward into suffix
// sums db_t = sum_{s>=t} dh_s + dh_last, dh0 = db_0 (exact in float128: sums of <= 9 floats).
TYPED_TEST(ScanClosedForm, UnitDecayGivesPrefixAndSuffixSums) {
  using F = TypeParam;
  const Shape s{2, 9, 6, 1};
  const Case c = TestFixture::constant_decay_case(s, 1.0f, 0.0f, 13);
  const auto h = [&](std::int64_t b, std::int64_t t, std::int64_t k) {
    F sum = element<F>(c, "h0", b, k);
    for (std::int64_t j = 0; j <= t; ++j) sum = sum + element<F>(c, "b", b * s.length + j, k);
    return sum;
  };
  const auto g = [&](std::int64_t b, std::int64_t t, std::int64_t k) {
    F sum = element<F>(c, "dh_last", b, k);
    for (std::int64_t j = t; j < s.length; ++j) sum = sum + element<F>(c, "dh", b * s.length + j, k);
    return sum;
  };
  TestFixture::expect_exact(c, F(1), h, g);
}

// Proves: with b = 0 and |a_t| = 1 (a = e^{i theta_t}), |h_t| = |h0| prod_{s<=t} |a_s| to 1e-30 (the
// float32-stored a has |a| = 1 within 2^-23, so |h_t| stays within (t+1) 2^-23 of |h0|); a = i exactly
// rotates h0 by a quarter turn per step, bitwise.
TEST(ComplexScanClosedForm, UnitModulusDecayPreservesModulus) {
  const Shape s{2, 32, 8, 1};
  Case c = blank_case(Architecture::complex_scan, s);
  fill_normal(c, "h0", 21, 3);
  fill_normal(c, "dh", 21, 4);
  const CounterRng rng(21);
  const std::int64_t Wc = 4;
  Tensor<float>& a = c.at("a");
  for (std::int64_t row = 0; row < s.batch * s.length; ++row)
    for (std::int64_t k = 0; k < Wc; ++k) {
      const double theta = rng.uniform(1, static_cast<std::uint64_t>(row * Wc + k), -M_PI, M_PI);
      // Channel 3 of batch entry 1: a = i exactly.
      const bool quarter = row >= s.length && k == 3;
      a[row * s.width + k] = quarter ? 0.0f : static_cast<float>(std::cos(theta));
      a[row * s.width + Wc + k] = quarter ? 1.0f : static_cast<float>(std::sin(theta));
    }
  using F = Complex<float128>;
  for (std::int64_t b = 0; b < s.batch; ++b) {
    const auto in = ref::gather_scan_block<F>(c, b, 0);
    const auto out = ref::scan_block(in);
    for (std::int64_t k = 0; k < Wc; ++k) {
      const float128 h0_sq = in.h0[k].re * in.h0[k].re + in.h0[k].im * in.h0[k].im;
      float128 product = 1;
      F rotated = in.h0[k];
      for (std::int64_t t = 0; t < s.length; ++t) {
        const F& at = in.a[t * Wc + k];
        const F& h = out.h[t * Wc + k];
        product *= at.re * at.re + at.im * at.im;
        const float128 h_sq = h.re * h.re + h.im * h.im;
        EXPECT_LE(abs(h_sq - h0_sq * product), tight * h0_sq * product) << "b=" << b << " t=" << t << " k=" << k;
        EXPECT_LE(abs(sqrt(h_sq / h0_sq) - 1), (t + 1) * 0x1p-23) << "b=" << b << " t=" << t << " k=" << k;
        if (b == 1 && k == 3) {
          rotated = F(-rotated.im, rotated.re);  // times i
          EXPECT_TRUE(same(h, rotated)) << "a = i: t=" << t;
        }
      }
    }
  }
}

//! The case restricted to t >= k: every [B, L, W] tensor and segment_pos sliced (positions after a reset
//! at k are already counted from it, so the slice starts with segment_pos = 0).
Case slice_from(const Case& c, std::int64_t k) {
  Case d = c;
  const Shape& s = c.shape;
  d.shape.length = s.length - k;
  for (auto& [name, t] : d.tensors) {
    if (t.dims() != Dims{s.batch, s.length, s.width}) continue;
    Tensor<float> sliced({s.batch, s.length - k, s.width});
    for (std::int64_t b = 0; b < s.batch; ++b)
      for (std::int64_t u = k; u < s.length; ++u)
        for (std::int64_t w = 0; w < s.width; ++w) sliced(b, u - k, w) = c.at(name)(b, u, w);
    t = std::move(sliced);
  }
  d.segment_pos = Tensor<std::int32_t>({s.batch, s.length - k});
  for (std::int64_t b = 0; b < s.batch; ++b)
    for (std::int64_t u = k; u < s.length; ++u) d.segment_pos(b, u - k) = c.segment_pos(b, u);
  return d;
}

template <class V>
void expect_same_from(const V& full, const V& part, std::int64_t offset, const char* what) {
  ASSERT_EQ(full.size(), part.size() + static_cast<std::size_t>(offset)) << what;
  for (std::size_t i = 0; i < part.size(); ++i)
    if (!same(full[i + static_cast<std::size_t>(offset)], part[i])) {
      ADD_FAILURE() << what << ": first difference at flat index " << i << " of the slice";
      return;
    }
}

class GatedResetSplit : public ::testing::TestWithParam<Architecture> {};

// Proves: a reset at t = k makes t >= k an independent sequence: y, dx (both terms), h_last are bitwise
// those of the case truncated to t >= k (whose dh0 is exactly 0, as it resets at t = 0); with dy = 0 before
// the reset the parameter gradients and dh0 (= 0) also agree bitwise (the earlier steps add exact zeros).
TEST_P(GatedResetSplit, ResetSplitsTheSequence) {
  const Architecture arch = GetParam();
  const std::int64_t k = 8;
  for (const bool zero_dy_before : {false, true}) {
    SCOPED_TRACE(zero_dy_before ? "dy = 0 before the reset" : "random dy before the reset");
    Case full = make_case(request(arch, {2, 20, 8, 2}, 31, Regime::default_, DType::float32, SqrtGradient::exact));
    for (std::int64_t b = 0; b < 2; ++b)
      for (std::int64_t t = 0; t < 20; ++t) {
        full.segment_pos(b, t) = static_cast<std::int32_t>(t < k ? t + 5 : t - k);
        if (zero_dy_before && t < k)
          for (std::int64_t w = 0; w < 8; ++w) full.at("dy")(b, t, w) = 0.0f;
      }
    const Case part = slice_from(full, k);
    with_field<float128>(arch, [&]<class F>(std::type_identity<F>) {
      for (std::int64_t b = 0; b < 2; ++b)
        for (std::int64_t h = 0; h < 2; ++h) {
          SCOPED_TRACE("block b=" + std::to_string(b) + " h=" + std::to_string(h));
          const auto in_full = ref::gather_gated_block<float128, F>(full, b, h);
          const auto in_part = ref::gather_gated_block<float128, F>(part, b, h);
          const auto fw_full = ref::gated_forward(in_full);
          const auto fw_part = ref::gated_forward(in_part);
          const auto gr_full = ref::gated_backward(in_full, fw_full);
          const auto gr_part = ref::gated_backward(in_part, fw_part);
          expect_same_from(fw_full.h, fw_part.h, k * in_full.channels, "y");
          expect_same_from(gr_full.dx_direct, gr_part.dx_direct, k * in_full.channels, "dx_direct");
          expect_same_from(gr_full.dx_gate, gr_part.dx_gate, k * in_full.inputs, "dx_gate");
          for (const F& d : gr_part.dh0) EXPECT_TRUE(same(d, F(0))) << "dh0 after a reset at t = 0";
          if (zero_dy_before) {
            expect_same_from(gr_full.dwx, gr_part.dwx, 0, "dwx");
            expect_same_from(gr_full.dwa, gr_part.dwa, 0, "dwa");
            expect_same_from(gr_full.dbx, gr_part.dbx, 0, "dbx");
            expect_same_from(gr_full.dba, gr_part.dba, 0, "dba");
            expect_same_from(gr_full.a_param_sum, gr_part.a_param_sum, 0, "a_param_sum");
            expect_same_from(gr_full.a_imag_sum, gr_part.a_imag_sum, 0, "a_imag_sum");
            for (const F& d : gr_full.dh0) EXPECT_TRUE(same(d, F(0))) << "dh0 with no cotangent before the reset";
          }
        }
    });
    // Through the driver too: dh0 of the truncated case is exactly 0.0.
    const ReferenceResult r = compute_reference(part, options(Precision::float128, false));
    for (double v : r.values.at("dh0").values()) EXPECT_EQ(v, 0.0);
  }
}

INSTANTIATE_TEST_SUITE_P(Gated, GatedResetSplit, ::testing::Values(Architecture::rglru, Architecture::complex_rglru),
                         [](const auto& info) { return std::string(to_string(info.param)); });

// Proves: for L = 1, h_0 = at_0 h0 + u_0 with every gate term written out independently in float128
// (sigma, softplus = log1p(exp), a = exp(-8 ga s) [times e^{i a_imag ga}], m = sqrt(1 - |a|^2), u = x gx m;
// libquadmath's functions), and dh0 = conj(at_0) (dy_0 + dh_last); batch entry 1 resets at t = 0: h_0 = x gx,
// dh0 = 0. The driver's y and h_last are the block's in Quad (its scalar) rounded to double.
TEST_P(GatedResetSplit, LengthOneIsOneStep) {
  const Architecture arch = GetParam();
  const bool complex = describe(arch).complex;
  const Shape s{2, 1, 8, 1};
  Case c = blank_case(arch, s);
  std::uint64_t stream = 1;
  for (const char* name : {"x", "h0", "dy", "dh_last", "input_gate_b", "a_gate_b"}) fill_normal(c, name, 41, stream++);
  fill_normal(c, "input_gate_w", 41, 100, 1 / std::sqrt(8.0));
  fill_normal(c, "a_gate_w", 41, 101, 1 / std::sqrt(8.0));
  fill_normal(c, "a_param", 41, 102);
  if (complex) fill_normal(c, "a_imag_param", 41, 103);
  c.segment_pos(1, 0) = 0;
  const std::int64_t W = 8, Wc = complex ? 4 : 0, K = complex ? 4 : 8;
  const ReferenceResult r = compute_reference(c, options(Precision::float128, false));
  with_field<float128>(arch, [&]<class F>(std::type_identity<F>) {
    for (std::int64_t b = 0; b < 2; ++b) {
      const auto in = ref::gather_gated_block<float128, F>(c, b, 0);
      const auto fw = ref::gated_forward(in);
      const auto gr = ref::gated_backward(in, fw);
      using QuadField = std::conditional_t<ref::is_complex_v<F>, Complex<Quad>, Quad>;
      const auto quad_fw = ref::gated_forward(ref::gather_gated_block<Quad, QuadField>(c, b, 0));
      const bool reset = b == 1;
      for (std::int64_t j = 0; j < K; ++j) {
        float128 zx = c.at("input_gate_b")[j], za = c.at("a_gate_b")[j];
        for (std::int64_t i = 0; i < W; ++i) {
          zx += float128(c.at("x")(b, 0, i)) * float128(c.at("input_gate_w")(0, i, j));
          za += float128(c.at("x")(b, 0, i)) * float128(c.at("a_gate_w")(0, i, j));
        }
        const float128 gx = 1 / (1 + exp(-zx)), ga = 1 / (1 + exp(-za));
        const float128 sp = log1p(exp(float128(c.at("a_param")[j])));
        const float128 r_a = exp(-8 * ga * sp);
        const float128 m = reset ? float128(1) : sqrt(1 - r_a * r_a);
        F a, x, h0, cot;
        if constexpr (ref::is_complex_v<F>) {
          const float128 phi = float128(c.at("a_imag_param")[j]) * ga;
          a = F(r_a * cos(phi), r_a * sin(phi));
        } else {
          a = F(r_a);
        }
        x = element<F>(c, "x", b, j);
        h0 = element<F>(c, "h0", b, j);
        cot = element<F>(c, "dy", b, j) + element<F>(c, "dh_last", b, j);
        const F at = reset ? F(0) : a;
        const F expected = at * h0 + x * (gx * m);
        const float128 scale = mag(at) * mag(h0) + mag(x) * gx * m;
        EXPECT_LE(component_diff(fw.h[j], expected), tight * scale) << "b=" << b << " j=" << j;
        const F dh0 = cj(at) * cot;
        EXPECT_LE(component_diff(gr.dh0[j], dh0), tight * mag(at) * mag(cot)) << "dh0 b=" << b << " j=" << j;
        if (reset) {
          EXPECT_TRUE(same(gr.dh0[j], F(0)));
        }
        // The driver's h_last is y at t = 0.
        expect_rounded(r.values.at("h_last"), b * W + j, Wc, quad_fw.h[j], "h_last");
        expect_rounded(r.values.at("y"), b * W + j, Wc, quad_fw.h[j], "y");
      }
    }
  });
}

// Proves: for the plain scans with L = 1, h_0 = a_0 h0 + b_0, dh0 = conj(a_0) (dh_0 + dh_last), db_0 =
// dh_0 + dh_last, da_0 = db_0 conj(h0), exactly; and without h0, h_0 = b_0 and da_0 = 0.
TEST(ScanClosedFormLengthOne, OneStep) {
  for (const Architecture arch : {Architecture::scan, Architecture::complex_scan})
    for (const bool with_h0 : {true, false}) {
      SCOPED_TRACE(std::string(to_string(arch)) + (with_h0 ? " h0" : " no h0"));
      const Shape s{3, 1, 4, 1};
      Case c = blank_case(arch, s, with_h0);
      std::uint64_t stream = 1;
      for (const char* name : {"a", "b", "dh", "dh_last"}) fill_normal(c, name, 51, stream++);
      if (with_h0) fill_normal(c, "h0", 51, 9);
      const ReferenceResult r = compute_reference(c, options(Precision::float128, false));
      with_field<float128>(arch, [&]<class F>(std::type_identity<F>) {
        const std::int64_t Wc = ref::is_complex_v<F> ? 2 : 0, K = ref::is_complex_v<F> ? 2 : 4;
        for (std::int64_t b = 0; b < 3; ++b)
          for (std::int64_t k = 0; k < K; ++k) {
            const F a = element<F>(c, "a", b, k), bb = element<F>(c, "b", b, k);
            const F h0 = with_h0 ? element<F>(c, "h0", b, k) : F(0);
            const F g = element<F>(c, "dh", b, k) + element<F>(c, "dh_last", b, k);
            const std::int64_t at = b * 4 + k;
            expect_rounded(r.values.at("h"), at, Wc, with_h0 ? F(a * h0 + bb) : bb, "h");
            expect_rounded(r.values.at("h_last"), at, Wc, with_h0 ? F(a * h0 + bb) : bb, "h_last");
            expect_rounded(r.values.at("db"), at, Wc, g, "db");
            expect_rounded(r.values.at("da"), at, Wc, F(g * cj(h0)), "da");
            expect_rounded(r.values.at("dh0"), at, Wc, F(cj(a) * g), "dh0");
          }
      });
    }
}

}  // namespace
}  // namespace scancheck::reftest
