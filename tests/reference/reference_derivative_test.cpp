// SPDX-License-Identifier: Apache-2.0
//! @file
//! The backward pass of the reference is the gradient of L = sum(y dy) + sum(h_last dh_last)
//! (recurrences.md §1-§3): checked against forward-mode AD in Dual<float128> (every architecture; libquadmath's
//! functions, independent of the double-double ones of the reference's Quad) and
//! against central finite differences in mpfr50 (the gated layers), along random directions that move
//! every input and parameter at once.
//!
//! The bounded sqrt-gradient convention is the true derivative only where its clip is inactive
//! (2 sqrt(q) > 1/1000 everywhere): cases run with it assert that first; the clip regime is differentiated
//! with the exact convention.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include "core/architectures.hpp"
#include "reference_test_support.hpp"

namespace scancheck::reftest {
namespace {

//! One derivative check: a case and the seed of its direction.
struct DerivativeCase {
  CaseRequest request;
  std::uint64_t direction_seed;
};

//! Every combination the identity must hold on for one architecture: regimes default, resets, long_memory
//! with both conventions (the gated kinds; the plain scans have none) and with/without h0 and dh_last, plus
//! the clip regime with the exact convention; two seeds each; lengths 7..20 vary with the combination.
std::vector<DerivativeCase> derivative_cases(Architecture arch, bool with_clip = true) {
  std::vector<DerivativeCase> cases;
  std::uint64_t seed = 1000 * static_cast<std::uint64_t>(arch);
  const std::vector<SqrtGradient> conventions =
      (describe(arch).family == Family::gated_layer)
          ? std::vector<SqrtGradient>{SqrtGradient::bounded, SqrtGradient::exact}
          : std::vector<SqrtGradient>{SqrtGradient::bounded};
  for (int repeat = 0; repeat < 2; ++repeat)
    for (const Regime regime : {Regime::default_, Regime::resets, Regime::long_memory})
      for (const SqrtGradient sqrt : conventions)
        for (const bool h0 : {true, false})
          for (const bool dh_last : {true, false}) {
            ++seed;
            const Shape shape{2, 7 + static_cast<std::int64_t>(seed % 14), 8, 2};
            cases.push_back({request(arch, shape, seed, regime, DType::float32, sqrt, h0, dh_last), seed + 77});
          }
  if (with_clip)
    for (const bool h0 : {true, false}) {
      ++seed;
      cases.push_back(
          {request(arch, {2, 16, 8, 2}, seed, Regime::clip, DType::float32, SqrtGradient::exact, h0, true), seed + 77});
    }
  return cases;
}

//! The bounded convention differentiates only where its clip is inactive.
void expect_clip_inactive_if_bounded(const Case& c) {
  if (!(describe(c.architecture).family == Family::gated_layer) || c.sqrt_gradient != SqrtGradient::bounded) return;
  ASSERT_GT(min_two_sqrt_q(c), 1e-3) << "the bounded convention's clip is active: not a true derivative";
}

class ForwardModeDerivative : public ::testing::TestWithParam<Architecture> {};

// Proves: for every architecture, convention, regime and optional tensor, the reference's gradients (all of
// them, assembled as compute_reference assembles them, in Quad) dotted with a random direction equal the
// forward-mode AD derivative of the loss along it (Dual<float128>) to >= 25 significant digits of the sum of
// |terms|; and the assembly equals compute_reference(float128) bitwise after rounding to double.
TEST_P(ForwardModeDerivative, BackwardIsTheGradient) {
  double worst_digits = 60;
  for (const DerivativeCase& dc : derivative_cases(GetParam())) {
    const Case c = make_case(dc.request);
    SCOPED_TRACE(trace_of(c));
    expect_clip_inactive_if_bounded(c);
    const Case dir = direction_case(c, dc.direction_seed);

    const auto grads = assemble_outputs<Quad>(c);
    const auto [backward_quad, scale_quad] = gradient_dot(c, grads, dir);
    const float128 backward = backward_quad.value(), scale = scale_quad.value();
    const auto [forward, forward_scale] = forward_mode_derivative<float128>(c, dir);
    const float128 tolerance = 1e-25 * std::max(scale, forward_scale);
    EXPECT_LE(abs(forward - backward), tolerance)
        << "forward-mode " << forward << " vs backward " << backward << " (scale " << scale << ")";
    worst_digits = std::min(worst_digits, digits(to_mpfr(forward - backward), to_mpfr(scale)));

    // Negative control: where the clip is active, the bounded convention's gradient is not the derivative,
    // and the identity must say so (the check has the power to see a wrong d_a_param / dx).
    if (c.provenance.regime == "clip" && (describe(c.architecture).family == Family::gated_layer)) {
      Case bounded = c;
      bounded.sqrt_gradient = SqrtGradient::bounded;
      const auto [wrong, wrong_scale] = gradient_dot(bounded, assemble_outputs<Quad>(bounded), dir);
      EXPECT_GT(abs(forward - wrong.value()), 1e-10 * wrong_scale.value())
          << "the clipped gradient passed as the derivative";
    }

    // The driver computes the same numbers: compute_reference(float128) is the assembly rounded once.
    const ReferenceResult r = compute_reference(c, options(Precision::float128, false));
    for (const auto& [name, values] : grads) {
      const Tensor<double>& got = r.values.at(name);
      for (std::int64_t i = 0; i < got.size(); ++i)
        if (got[i] != static_cast<double>(values[static_cast<std::size_t>(i)])) {
          ADD_FAILURE() << name << " at " << index_string(got.dims(), i) << ": compute_reference " << got[i]
                        << " vs assembled " << values[static_cast<std::size_t>(i)];
          break;
        }
    }
  }
  std::cout << "[ derivative ] " << to_string(GetParam()) << ": forward-mode vs backward, worst agreement "
            << worst_digits << " digits of the sum of |terms|\n";
  RecordProperty("worst_digits", std::to_string(worst_digits));
}

INSTANTIATE_TEST_SUITE_P(AllArchitectures, ForwardModeDerivative, ::testing::ValuesIn(all_architectures),
                         [](const auto& info) { return std::string(to_string(info.param)); });

// ---------------------------------------------------------------------------------------------------
// Central finite differences in mpfr50

//! v <- v + eps * d, element by element; an empty v (absent h0) starts from zero.
template <class V, class S>
void axpy(V& v, const V& d, const S& eps) {
  if (v.empty()) v.assign(d.size(), typename V::value_type(0));
  for (std::size_t i = 0; i < d.size(); ++i) v[i] = v[i] + d[i] * eps;
}

template <class S, class F>
void perturb(ref::GatedBlockInputs<S, F>& in, const ref::GatedBlockInputs<S, F>& d, const S& eps) {
  axpy(in.x_gate, d.x_gate, eps);
  axpy(in.x_direct, d.x_direct, eps);
  axpy(in.h0, d.h0, eps);
  axpy(in.a_param, d.a_param, eps);
  if (!d.a_imag_param.empty()) axpy(in.a_imag_param, d.a_imag_param, eps);
  axpy(in.wx, d.wx, eps);
  axpy(in.wa, d.wa, eps);
  axpy(in.bx, d.bx, eps);
  axpy(in.ba, d.ba, eps);
}

//! L of one block: sum(y dy) + sum(h_last dh_last).
template <class S, class F>
S block_loss(const ref::GatedBlockInputs<S, F>& in) {
  const auto fw = ref::gated_forward(in);
  S sum(0), scale(0);
  accumulate_dot(fw.h, in.dy, sum, scale);
  if (!in.dh_last.empty()) {
    const std::vector<F> last(fw.h.end() - in.channels, fw.h.end());
    accumulate_dot(last, in.dh_last, sum, scale);
  }
  return sum;
}

//! The block's gradients dotted with the block's direction: (dot, sum of |terms|).
template <class S, class F>
std::pair<S, S> block_gradient_dot(const ref::GatedBlockInputs<S, F>& in, const ref::GatedBlockInputs<S, F>& d) {
  const auto g = ref::gated_backward(in, ref::gated_forward(in));
  S sum(0), scale(0);
  accumulate_dot(g.dx_gate, d.x_gate, sum, scale);
  accumulate_dot(g.dx_direct, d.x_direct, sum, scale);
  accumulate_dot(g.dh0, d.h0, sum, scale);
  accumulate_dot(g.dwx, d.wx, sum, scale);
  accumulate_dot(g.dwa, d.wa, sum, scale);
  accumulate_dot(g.dbx, d.bx, sum, scale);
  accumulate_dot(g.dba, d.ba, sum, scale);
  std::vector<S> d_a_param(in.channels);  // dL/da_param = sigma(a_param) dL/ds
  for (std::int64_t j = 0; j < in.channels; ++j) d_a_param[j] = ref::sigmoid(in.a_param[j]) * g.a_param_sum[j];
  accumulate_dot(d_a_param, d.a_param, sum, scale);
  if (!d.a_imag_param.empty()) accumulate_dot(g.a_imag_sum, d.a_imag_param, sum, scale);
  return {sum, scale};
}

class FiniteDifferenceDerivative : public ::testing::TestWithParam<Architecture> {};

// Proves: in mpfr50 (50 digits), the central difference (L(p + h d) - L(p - h d)) / 2h with h = 1e-15 of
// every (batch, head) block (truncation ~h^2 = 1e-30, cancellation ~1e-50/h = 1e-35) equals the mpfr50
// backward dotted with d to >= 20 digits of the sum of |terms|: an independent check of the derivative
// that does not share the AD type's code.
TEST_P(FiniteDifferenceDerivative, BackwardMatchesCentralDifferences) {
  const mpfr50 h("1e-15");
  double worst_digits = 60;
  for (const DerivativeCase& dc : derivative_cases(GetParam())) {
    // Half of the combinations keep the run short: both conventions and regimes still appear.
    if (dc.request.seed % 2 == 1 && dc.request.regime != Regime::clip) continue;
    const Case c = make_case(dc.request);
    SCOPED_TRACE(trace_of(c));
    expect_clip_inactive_if_bounded(c);
    const Case dir = direction_case(c, dc.direction_seed);
    with_field<mpfr50>(c.architecture, [&]<class F>(std::type_identity<F>) {
      for (std::int64_t b = 0; b < c.shape.batch; ++b)
        for (std::int64_t hd = 0; hd < c.shape.heads; ++hd) {
          const auto in = ref::gather_gated_block<mpfr50, F>(c, b, hd);
          const auto d = ref::gather_gated_block<mpfr50, F>(dir, b, hd);
          auto plus = in, minus = in;
          perturb(plus, d, h);
          perturb(minus, d, mpfr50(-h));
          const mpfr50 central = (block_loss(plus) - block_loss(minus)) / (2 * h);
          const auto [backward, scale] = block_gradient_dot(in, d);
          EXPECT_LE(abs(central - backward), mpfr50("1e-20") * scale)
              << "block b=" << b << " h=" << hd << ": central " << central << " vs backward " << backward;
          worst_digits = std::min(worst_digits, digits(central - backward, scale));
        }
    });
  }
  std::cout << "[ derivative ] " << to_string(GetParam()) << ": central differences vs backward (mpfr50), worst "
            << worst_digits << " digits of the sum of |terms|\n";
  RecordProperty("worst_digits", std::to_string(worst_digits));
}

INSTANTIATE_TEST_SUITE_P(Gated, FiniteDifferenceDerivative,
                         ::testing::Values(Architecture::rglru, Architecture::complex_rglru),
                         [](const auto& info) { return std::string(to_string(info.param)); });

}  // namespace
}  // namespace scancheck::reftest
