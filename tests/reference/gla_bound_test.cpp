// SPDX-License-Identifier: Apache-2.0
//! @file
//! The gated linear attention bounds (gla_bounds, docs/reference.md "Gated linear attention") hold for the
//! evaluation orders kernels use, evaluated here in float32 against the float128 reference:
//! - the recurrent order (gla_reference at Precision::float32, and the built-in recurrent kernel: fla's
//!   fused_recurrent);
//! - fla's chunked structure (the built-in chunked kernel, backends/kernels/gla/chunked.hpp) with chunks of 7,
//!   16 and 64.
//! Every element of every output must lie within its bound, over regimes that stress each term of it; the
//! looseness (error / bound) is printed. With bfloat16 io, the same orders with bfloat16 operands and stored
//! outputs, as fla's kernels have them, against the bfloat16-io bound. The bounds are not vacuous: a chunked
//! kernel that forgets to decay the carried state, and a recurrent one that reads its gate a step late,
//! exceed them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "backends/gla_problem.hpp"
#include "backends/mutants/gla_mutations.hpp"
#include "reference/gla.hpp"
#include "tests/reference/gla_problems.hpp"

namespace scancheck {
namespace {

struct Looseness {
  double worst = 0;  // max error / bound
  std::string where;
};

//! The largest error / bound over every output, and where.
Looseness looseness(const std::map<std::string, Tensor<double>>& got,
                    const std::map<std::string, Tensor<double>>& exact,
                    const std::map<std::string, Tensor<double>>& bound) {
  Looseness l;
  for (const auto& [name, e] : exact)
    for (std::int64_t n = 0; n < e.size(); ++n) {
      const double ratio = std::fabs(got.at(name)[n] - e[n]) / bound.at(name)[n];
      if (!(ratio <= l.worst)) l = {ratio, name + index_string(e.dims(), n)};
    }
  return l;
}

//! A built-in kernel's outputs (host executor) as doubles: recurrent (chunk 0) or chunked.
std::map<std::string, Tensor<double>> builtin(const GlaProblem& p, std::int64_t chunk, DType io = DType::float32) {
  std::map<std::string, Tensor<double>> out;
  for (const auto& [name, t] : run_gla_builtin(p, io, {chunk}))
    out.emplace(name, Tensor<double>(t.dims(), std::vector<double>(t.values().begin(), t.values().end())));
  return out;
}

struct BoundCase {
  std::string regime;
  GateForm gates;
  std::int64_t T, K, V;
};

const std::vector<BoundCase> bound_cases{
    {"default", GateForm::vector, 150, 8, 6},      {"default", GateForm::scalar, 130, 6, 8},
    {"long_memory", GateForm::vector, 300, 4, 4},  {"long_memory", GateForm::scalar, 257, 16, 16},
    {"strong_decay", GateForm::vector, 100, 5, 3}, {"extreme", GateForm::vector, 97, 7, 5},
    {"extreme", GateForm::scalar, 80, 3, 9},
};

TEST(GlaBounds, HoldForTheRecurrentAndChunkedOrdersInFloat32) {
  std::uint64_t seed = 100;
  for (const BoundCase& c : bound_cases) {
    const GlaProblem p = draw(++seed, c.regime, c.gates, 2, c.T, 2, c.K, c.V);
    const std::string name = c.regime + (c.gates == GateForm::vector ? " gla" : " simple_gla");
    SCOPED_TRACE(name);
    const auto exact = gla_reference(p, Precision::float128), bound = gla_bounds(p);
    std::cout << name << " T " << c.T << " K " << c.K << " V " << c.V << ":";
    const auto judge = [&](const char* order, const std::map<std::string, Tensor<double>>& got) {
      const Looseness l = looseness(got, exact, bound);
      EXPECT_LE(l.worst, 1.0) << order << " exceeds its bound at " << l.where;
      std::cout << " " << order << " " << l.worst << " (" << l.where << ")";
    };
    const auto recurrent = gla_reference(p, Precision::float32);
    judge("recurrent", recurrent);
    judge("builtin-recurrent", builtin(p, 0));
    // What admitting chunks costs: the recurrent order against the bound of chunk 1 (no cumulative gates).
    std::cout << " recurrent/chunk1-bound " << looseness(recurrent, exact, gla_bounds(p, {.chunk = 1})).worst;
    for (const std::int64_t C : {7, 16, 64}) judge(("chunk" + std::to_string(C)).c_str(), builtin(p, C));
    std::cout << "\n";
  }
}

TEST(GlaBounds, HoldForBfloat16IoOrders) {
  // bfloat16 io (GlaBoundOptions::io): the built-in recurrent kernel, its outputs stored in bfloat16 (fla's
  // fused_recurrent), and the chunked one with bfloat16 operands in every product (fla's chunk kernels),
  // within the bfloat16-io bound; and not within the float32-io one, which is therefore strict enough to
  // tell a float32 kernel that rounds like a bfloat16 one.
  std::uint64_t seed = 400;
  int beyond_float32_bound = 0;
  for (const BoundCase& c : bound_cases) {
    const GlaProblem p = in_bf16(draw(++seed, c.regime, c.gates, 2, c.T, 2, c.K, c.V));
    const std::string name = c.regime + (c.gates == GateForm::vector ? " gla" : " simple_gla");
    SCOPED_TRACE(name);
    const auto exact = gla_reference(p, Precision::float128);
    const auto bound = gla_bounds(p, {.io = DType::bfloat16}), float32_bound = gla_bounds(p);
    std::cout << name << " bfloat16 io, T " << c.T << ":";
    const auto judge = [&](const std::string& order, const std::map<std::string, Tensor<double>>& got) {
      const Looseness l = looseness(got, exact, bound);
      EXPECT_LE(l.worst, 1.0) << order << " exceeds its bound at " << l.where;
      beyond_float32_bound += looseness(got, exact, float32_bound).worst > 1.0;
      std::cout << " " << order << " " << l.worst << " (" << l.where << ")";
    };
    judge("recurrent", builtin(p, 0, DType::bfloat16));
    for (const std::int64_t C : {16, 64}) judge("chunk" + std::to_string(C), builtin(p, C, DType::bfloat16));
    std::cout << "\n";
  }
  EXPECT_EQ(beyond_float32_bound, 3 * static_cast<int>(bound_cases.size()));  // every order, every case
}

TEST(GlaBounds, ChunkedFloat32IsTheSameFunction) {
  // The chunked kernel agrees with the reference to float32 accuracy on a benign case, so the bound test
  // above measures rounding, not a different function.
  const GlaProblem p = draw(7, "default", GateForm::vector, 1, 40, 1, 4, 4);
  const auto exact = gla_reference(p, Precision::float128), got = builtin(p, 16);
  for (const auto& [name, e] : exact)
    for (std::int64_t n = 0; n < e.size(); ++n)
      EXPECT_NEAR(got.at(name)[n], e[n], 1e-4 * (1 + std::fabs(e[n]))) << name;
}

TEST(GlaBounds, AreExceededByWrongKernels) {
  // A chunked kernel whose carried state is not decayed by its chunk's last gate, and a recurrent one that
  // reads each step's gate one step late, differ from the exact values by far more than the bound.
  const GlaProblem p = draw(9, "default", GateForm::vector, 1, 100, 1, 4, 4);
  const auto exact = gla_reference(p, Precision::float128), bound = gla_bounds(p);
  // The built-in chunked kernel's mutant that leaves its carried state undecayed (backends/mutants).
  const auto mutants = mutation::gla_mutants();
  const auto mutant = std::find_if(mutants.begin(), mutants.end(),
                                   [](const mutation::GlaMutant& m) { return m.name == "carried_state_undecayed"; });
  ASSERT_NE(mutant, mutants.end());
  std::map<std::string, Tensor<double>> undecayed;
  for (const auto& [name, t] :
       run_gla_problem(p, DType::float32, [&](const backends::GlaArrays& io) { mutant->run(io, {.chunk = 16}); }))
    undecayed[name] = Tensor<double>(t.dims(), std::vector<double>(t.values().begin(), t.values().end()));
  EXPECT_GT(looseness(undecayed, exact, bound).worst, 100.0);
  // The bfloat16-io bound, 256 times looser per rounding, still leaves it far out (362 bounds).
  EXPECT_GT(looseness(undecayed, exact, gla_bounds(p, {.io = DType::bfloat16})).worst, 100.0);
  GlaProblem late = p;
  for (std::int64_t t = late.g.dim(1) - 1; t > 0; --t)
    for (std::int64_t i = 0; i < 4; ++i) late.g(0, t, 0, i) = p.g(0, t - 1, 0, i);
  EXPECT_GT(looseness(gla_reference(late, Precision::float32), exact, bound).worst, 100.0);
}

TEST(GlaTiered, DoubleCertifiedAgreesWithFloat128WithinAThousandthOfTheBound) {
  // Every regime: tiered values within 1/1000 of the bound of float128's (plus float128's own rounding to
  // double), bounds bit for bit gla_bounds'; the benign regimes need no float128.
  std::uint64_t seed = 300;
  for (const BoundCase& c : bound_cases) {
    GlaProblem p = draw(++seed, c.regime, c.gates, 1, c.T / 2, 2, c.K, c.V);
    SCOPED_TRACE(c.regime);
    const GlaEvaluation tiered = gla_evaluate(p), exact = gla_evaluate(p, Precision::float128);
    for (const auto& [name, e] : exact.values) {
      EXPECT_EQ(tiered.bounds.at(name).values(), exact.bounds.at(name).values()) << name;
      for (std::int64_t n = 0; n < e.size(); ++n)
        EXPECT_LE(std::fabs(tiered.values.at(name)[n] - e[n]),
                  1e-3 * exact.bounds.at(name)[n] + 0x1p-52 * std::fabs(e[n]))
            << name << index_string(e.dims(), n);
    }
    if (c.regime != "extreme") {
      EXPECT_TRUE(tiered.float128_blocks.empty()) << tiered.float128_blocks.size();
    }
  }
}

TEST(GlaTiered, ValuesDoubleCannotHoldAreRecomputedInFloat128BlockByBlock) {
  // A gate of +750 overflows double's exp (e^750 = 1e325): its (sequence, head) block, and only it, is
  // recomputed in float128, whose values it then holds.
  GlaProblem p = draw(5, "default", GateForm::vector, 2, 9, 2, 3, 2);
  p.g(1, 4, 0, 2) = 750;
  const GlaEvaluation tiered = gla_evaluate(p);
  ASSERT_EQ(tiered.float128_blocks.size(), 1u);
  EXPECT_EQ(tiered.float128_blocks[0], (std::array<std::int64_t, 2>{1, 0}));
  EXPECT_GT(tiered.uncertified_elements, 0);
  const auto exact = gla_reference(p, Precision::float128);
  for (const auto& [name, e] : exact)
    for (std::int64_t n = 0; n < e.size(); ++n)
      if (std::isfinite(e[n])) {
        EXPECT_NEAR(tiered.values.at(name)[n], e[n], 1e-12 * std::fabs(e[n])) << name << n;
      }
}

}  // namespace
}  // namespace scancheck
