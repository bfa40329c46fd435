// SPDX-License-Identifier: Apache-2.0
//! @file
//! The built-in gated linear attention kernels (backends/gla_run.hpp: the recurrent schedule of fla's
//! fused_recurrent, the chunked one of its chunk kernels) under the host executor: judged by judge_gla (the
//! bound for their io, the recurrent float32 baseline, the ensemble of correct orders) over every regime, both
//! gate forms, with and without states, packed sequences (an empty one among them), float32 and bfloat16 io;
//! results do not depend on the executor's threads; a late gate fails. Runs without a GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "backends/gla_problem.hpp"
#include "backends/gla_run.hpp"
#include "core/dtype.hpp"
#include "properties/gla_judgement.hpp"
#include "reference/gla.hpp"
#include "tests/reference/gla_problems.hpp"

namespace scancheck {
namespace {

//! A built-in kernel on the host executor (`threads`): recurrent (chunk 0) or chunked.
std::map<std::string, Tensor<float>> run_builtin(const GlaProblem& p, DType io, std::int64_t chunk = 0,
                                                 int threads = 0) {
  return run_gla_builtin(p, io, {chunk}, threads);
}

struct BuiltinCase {
  std::string regime;
  GateForm gates;
  std::int64_t B, T, H, K, V;
  bool states = true;
  std::vector<std::int64_t> cu_seqlens = {};
};

const std::vector<BuiltinCase> builtin_cases{
    {"default", GateForm::vector, 2, 70, 2, 8, 6},
    {"default", GateForm::scalar, 1, 90, 3, 6, 8, false},
    {"long_memory", GateForm::vector, 1, 200, 1, 16, 16},
    {"long_memory", GateForm::scalar, 2, 130, 2, 4, 12},
    {"strong_decay", GateForm::vector, 2, 40, 2, 5, 3, false},
    {"extreme", GateForm::vector, 2, 97, 1, 7, 5},
    {"extreme", GateForm::scalar, 1, 64, 2, 3, 9},
    {"default", GateForm::vector, 1, 50, 2, 4, 4, true, {0, 20, 20, 21, 50}},  // an empty sequence among them
};

//! A drawn problem of `c` (packed sequences with their own states).
GlaProblem problem_of(const BuiltinCase& c, std::uint64_t seed) {
  GlaProblem p = draw(seed, c.regime, c.gates, c.B, c.T, c.H, c.K, c.V);
  if (!c.states) p.h0.reset(), p.dht.reset();
  if (!c.cu_seqlens.empty()) {
    p.cu_seqlens = c.cu_seqlens;
    const std::int64_t N = static_cast<std::int64_t>(c.cu_seqlens.size()) - 1;
    p.h0 = draw(seed, c.regime, c.gates, N, 1, c.H, c.K, c.V).h0;
    p.dht = draw(seed + 1000, c.regime, c.gates, N, 1, c.H, c.K, c.V).dht;
  }
  return p;
}

TEST(GlaBuiltin, EverySchedulePassesEveryRegimeInBothIoDtypes) {
  std::uint64_t seed = 500;
  for (const BuiltinCase& c : builtin_cases) {
    const GlaProblem p = problem_of(c, ++seed);
    for (const DType io : {DType::float32, DType::bfloat16})
      for (const std::int64_t chunk : {0, 16, 64}) {
        const GlaProblem problem = io == DType::bfloat16 ? in_bf16(p) : p;
        SCOPED_TRACE(c.regime + (c.gates == GateForm::vector ? " gla " : " simple_gla ") + std::string(to_string(io)) +
                     " chunk " + std::to_string(chunk));
        const GlaJudgement j = judge_gla(problem, run_builtin(problem, io, chunk), TolerancePolicy{}, {.io = io});
        EXPECT_TRUE(j.pass);
        for (const GlaTensorJudgement& t : j.tensors)
          for (const std::string& reason : t.verdict.reasons) ADD_FAILURE() << t.metrics.name << ": " << reason;
      }
  }
}

TEST(GlaBuiltin, ThreadsChangeNoBit) {
  const GlaProblem p = draw(77, "default", GateForm::vector, 2, 33, 3, 5, 4);
  for (const std::int64_t chunk : {0, 16}) {
    const auto one = run_builtin(p, DType::float32, chunk, 1), two = run_builtin(p, DType::float32, chunk, 2);
    for (const auto& [name, t] : one) EXPECT_EQ(t.values(), two.at(name).values()) << name << " chunk " << chunk;
  }
}

TEST(GlaBuiltin, AWrongGateFails) {
  // The same kernel given each step's gate a step late (the late-gate mutant of the reference tests) fails:
  // the judgement is not vacuous for the built-in's outputs.
  const GlaProblem p = draw(78, "default", GateForm::vector, 1, 60, 1, 4, 4);
  GlaProblem late = p;
  for (std::int64_t t = p.g.dim(1) - 1; t > 0; --t)
    for (std::int64_t i = 0; i < 4; ++i) late.g(0, t, 0, i) = p.g(0, t - 1, 0, i);
  for (const std::int64_t chunk : {0, 64})
    EXPECT_FALSE(judge_gla(p, run_builtin(late, DType::float32, chunk), TolerancePolicy{}).pass);
}

}  // namespace
}  // namespace scancheck
