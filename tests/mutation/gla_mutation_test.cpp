// SPDX-License-Identifier: Apache-2.0
//! @file
//! Every mutant of the built-in chunked gated linear attention kernel (backends/mutants/gla_mutations.hpp: a
//! gate read a step late, the carried state not decayed, a dropped tail chunk, dg without the final state's
//! cotangent, dq from the wrong chunk's state, a missing scale in the backward, a dropped diagonal, dh0 not
//! decayed) is caught by judge_gla (`scancheck gla verify`'s rules) on drawn problems of 40 steps in chunks
//! of 16, and shrunk by length: the shortest failing problem of the same seed has at most two chunks. The
//! correct chunked kernel passes the same problems. Prints the kill table.
#include <gtest/gtest.h>

#include <cstdint>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "backends/gla_problem.hpp"
#include "backends/mutants/gla_mutations.hpp"
#include "properties/gla_judgement.hpp"
#include "tests/reference/gla_problems.hpp"

namespace scancheck {
namespace {

constexpr std::int64_t chunk = 16;

//! The built-in chunked kernel's outputs, or a mutant's.
std::map<std::string, Tensor<float>> run_chunked(const GlaProblem& p, const mutation::GlaMutant* mutant) {
  return run_gla_problem(p, DType::float32, [&](const backends::GlaArrays& io) {
    if (mutant) mutant->run(io, {.chunk = chunk});
    else backends::run_gla_host(io, {.chunk = chunk}, 1);
  });
}

GlaProblem problem(std::uint64_t seed, std::int64_t length) {
  return draw(seed, seed % 2 ? "default" : "long_memory", seed % 3 ? GateForm::vector : GateForm::scalar, 1, length, 1,
              4, 4);
}

bool caught(const GlaProblem& p, const mutation::GlaMutant& mutant) {
  return !judge_gla(p, run_chunked(p, &mutant), TolerancePolicy{}, {}, 1).pass;
}

TEST(GlaMutation, EveryMutantIsCaughtAndShrunkToTwoChunks) {
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const GlaProblem p = problem(seed, 40);
    EXPECT_TRUE(judge_gla(p, run_chunked(p, nullptr), TolerancePolicy{}, {}, 1).pass)
        << "the correct chunked kernel fails seed " << seed;
  }
  const std::vector<mutation::GlaMutant> mutants = mutation::gla_mutants();
  ASSERT_GE(mutants.size(), 8u);
  for (const mutation::GlaMutant& mutant : mutants) {
    SCOPED_TRACE(mutant.name);
    std::uint64_t seed = 1;
    while (seed <= 6 && !caught(problem(seed, 40), mutant)) ++seed;
    ASSERT_LE(seed, 6u) << "not caught on 6 problems of 40 steps";
    std::int64_t shortest = 1;  // shrinking by length: the first failing length of the same seed
    while (shortest < 40 && !caught(problem(seed, shortest), mutant)) ++shortest;
    EXPECT_LE(shortest, 2 * chunk) << "shrinks to " << shortest << " steps";
    std::cout << mutant.name << ": caught at seed " << seed << ", shortest failing length " << shortest
              << " (chunks of " << chunk << ")\n";
  }
}

}  // namespace
}  // namespace scancheck
