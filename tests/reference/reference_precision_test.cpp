// SPDX-License-Identifier: Apache-2.0
//! @file
//! float128 (the reference's default precision, 113-bit significand, ~34 digits; evaluated in Quad: float128
//! arithmetic, double-double elementary functions good to 2^-100) against mpfr50 (50 digits) on every value a
//! (batch, head) block determines, for every architecture and regime: the float128 reference is right to
//! >= 28 significant digits. Compared per block in the scalars themselves, not
//! through compute_reference, whose float64 rounding would hide everything past 16 digits.
#include <gtest/gtest.h>

#include <cmath>
#include <iomanip>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "core/architectures.hpp"
#include "reference_test_support.hpp"

namespace scancheck::reftest {
namespace {

//! Agreement required, in significant digits of max(|value|, floor_fraction * max |tensor|). float128 rounds
//! at 2^-113 (1e-34), but the gate projections take a double-double fast path (reference/gate_projection.hpp)
//! accurate to about 2^-104 (5e-32) of the sum of |terms|, and Quad's elementary functions are good to
//! 2^-109 (reference/quad.hpp); 28 digits leaves ~3.5 digits for cancellation in the back-projection and
//! weight-gradient sums (the fewest seen here: 28.6, dx_gate in the clip regime; 27.6 when the functions were
//! double-double, 2^-104, which is why they are rounded once to float128 instead).
constexpr double required_digits = 28;
//! Relative floor: an element 1e-20 below its tensor's largest is judged against 1e-20 * that maximum.
//! Elements that small are where the computed value is a cancellation residue (e.g. a weight-gradient sum
//! over t whose terms nearly cancel): float128 then resolves it to ~1e-34 of the terms, not of the
//! residue, and no reference precision claim is made below that.
constexpr double floor_fraction = 1e-20;

class Float128AgainstMpfr : public ::testing::TestWithParam<Architecture> {};

// Proves: for all regimes (default, long_memory, resets, extreme, clip), both conventions, with and
// without h0/dh_last, every per-block value of the float128 reference (gate pre-activations, decays, y/h,
// every gradient before the cross-block sums) agrees with mpfr50 to >= 28 significant digits.
TEST_P(Float128AgainstMpfr, AgreesToTwentyEightDigits) {
  const Architecture arch = GetParam();
  std::map<std::string, double> worst;  // tensor -> fewest digits seen
  std::map<std::string, std::string> worst_where;
  std::uint64_t seed = 500 * static_cast<std::uint64_t>(arch);
  for (int repeat = 0; repeat < 2; ++repeat)
    for (const Regime regime : {Regime::default_, Regime::long_memory, Regime::resets, Regime::extreme, Regime::clip})
      for (const SqrtGradient sqrt : {SqrtGradient::bounded, SqrtGradient::exact})
        for (const bool optional_tensors : {true, false}) {
          if (!(describe(arch).family == Family::gated_layer) && sqrt == SqrtGradient::exact)
            continue;  // no convention for the plain scans
          ++seed;
          const Shape shape{2, 9 + static_cast<std::int64_t>(seed % 12), 8, 2};
          const Case c =
              make_case(request(arch, shape, seed, regime, DType::float32, sqrt, optional_tensors, optional_tensors));
          SCOPED_TRACE(trace_of(c));
          for (std::int64_t b = 0; b < shape.batch; ++b)
            for (std::int64_t h = 0; h < shape.heads; ++h) {
              const auto quad = block_values<Quad>(c, b, h);
              const auto wide = block_values<mpfr50>(c, b, h);
              ASSERT_EQ(quad.size(), wide.size());
              for (std::size_t n = 0; n < quad.size(); ++n) {
                const auto& [name, q] = quad[n];
                const std::vector<mpfr50>& m = wide[n].second;
                mpfr50 tensor_max = 0;
                for (const mpfr50& v : m) tensor_max = std::max(tensor_max, mpfr50(abs(v)));
                for (std::size_t i = 0; i < m.size(); ++i) {
                  const mpfr50 scale = std::max(mpfr50(abs(m[i])), mpfr50(floor_fraction * tensor_max));
                  const mpfr50 diff = to_mpfr(q[i]) - m[i];
                  const double d = digits(diff, scale);
                  if (d < worst.try_emplace(name, 60.0).first->second) {
                    worst[name] = d;
                    worst_where[name] = trace_of(c) + " block (" + std::to_string(b) + ", " + std::to_string(h) +
                                        ") element " + std::to_string(i);
                  }
                  EXPECT_GE(d, required_digits) << name << " element " << i << " of block (" << b << ", " << h
                                                << "): float128 " << q[i] << " vs mpfr50 " << m[i];
                }
              }
            }
        }
  std::cout << "[ precision ] " << to_string(arch) << ": fewest significant digits of float128 vs mpfr50\n";
  for (const auto& [name, d] : worst)
    std::cout << "    " << std::left << std::setw(12) << name << std::fixed << std::setprecision(1) << d << "   ("
              << worst_where[name] << ")\n";
  std::cout << std::defaultfloat;
}

INSTANTIATE_TEST_SUITE_P(AllArchitectures, Float128AgainstMpfr, ::testing::ValuesIn(all_architectures),
                         [](const auto& info) { return std::string(to_string(info.param)); });

}  // namespace
}  // namespace scancheck::reftest
