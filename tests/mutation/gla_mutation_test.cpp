// SPDX-License-Identifier: Apache-2.0
//! @file
//! Every mutation of the chunked gated linear attention kernel (ref::GlaChunkedMutation: a gate read a step
//! late, the carried state not decayed, a dropped tail chunk, dg without the final state's cotangent, dq from
//! the wrong chunk's state, a missing scale in the backward, a dropped diagonal, dh0 not decayed) is caught
//! by judge_gla (`scancheck gla verify`'s rules) on drawn problems of 40 steps in chunks of 16, and shrunk
//! by length: the shortest failing problem of the same seed has at most two chunks. The correct chunked
//! kernel passes the same problems. Prints the kill table.
#include <gtest/gtest.h>

#include <cstdint>
#include <iostream>
#include <map>
#include <string>

#include "properties/gla_judgement.hpp"
#include "reference/gla_chunked.hpp"
#include "reference/gla_driver.hpp"
#include "tests/reference/gla_problems.hpp"

namespace scancheck {
namespace {

constexpr std::int64_t chunk = 16;

//! The chunked kernel with `mutation`, as a kernel's outputs.
std::map<std::string, Tensor<float>> run_chunked(const GlaProblem& p, ref::GlaChunkedMutation mutation) {
  using namespace gla_driver;
  auto out = output_tensors(p, static_cast<std::int64_t>(gla_sequences(p).size()));
  const Sink<float> sink{&out, [](float x) { return static_cast<double>(x); }};
  for_each_sequence(p, 1, [&](const GlaSequenceSpan& s, std::int64_t n, std::int64_t h) {
    scatter_sequence(ref::gla_chunked_sequence(gather_sequence<float>(p, s, n, h), {chunk, mutation}), sink, s, n, h);
  });
  std::map<std::string, Tensor<float>> got;
  for (const auto& [name, t] : out)
    got.emplace(name, Tensor<float>(t.dims(), std::vector<float>(t.values().begin(), t.values().end())));
  return got;
}

GlaProblem problem(std::uint64_t seed, std::int64_t length) {
  return draw(seed, seed % 2 ? "default" : "long_memory", seed % 3 ? GateForm::vector : GateForm::scalar, 1, length, 1,
              4, 4);
}

bool caught(const GlaProblem& p, ref::GlaChunkedMutation mutation) {
  return !judge_gla(p, run_chunked(p, mutation), TolerancePolicy{}, {}, 1).pass;
}

TEST(GlaMutation, EveryMutantIsCaughtAndShrunkToTwoChunks) {
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const GlaProblem p = problem(seed, 40);
    EXPECT_TRUE(judge_gla(p, run_chunked(p, ref::GlaChunkedMutation::none), TolerancePolicy{}, {}, 1).pass)
        << "the correct chunked kernel fails seed " << seed;
  }
  for (const ref::GlaChunkedMutation mutation : ref::gla_chunked_mutations) {
    SCOPED_TRACE(to_string(mutation));
    std::uint64_t seed = 1;
    while (seed <= 6 && !caught(problem(seed, 40), mutation)) ++seed;
    ASSERT_LE(seed, 6u) << "not caught on 6 problems of 40 steps";
    std::int64_t shortest = 1;  // shrinking by length: the first failing length of the same seed
    while (shortest < 40 && !caught(problem(seed, shortest), mutation)) ++shortest;
    EXPECT_LE(shortest, 2 * chunk) << "shrinks to " << shortest << " steps";
    std::cout << to_string(mutation) << ": caught at seed " << seed << ", shortest failing length " << shortest
              << " (chunks of " << chunk << ")\n";
  }
}

}  // namespace
}  // namespace scancheck
