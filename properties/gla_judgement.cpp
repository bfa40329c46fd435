// SPDX-License-Identifier: Apache-2.0
//! @file
//! judge_gla: the tiered evaluation, the correct float32 orders, and one verdict per output.
#include "properties/gla_judgement.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "backends/gla_problem.hpp"
#include "core/error.hpp"

namespace scancheck {

GlaJudgement judge_gla(const GlaProblem& p, const std::map<std::string, Tensor<float>>& got,
                       const TolerancePolicy& policy, const GlaBoundOptions& options, int threads) {
  for (const auto& [name, tensor] : got)
    if (std::find(std::begin(gla_output_names), std::end(gla_output_names), name) == std::end(gla_output_names))
      throw InputError(fmt::format("{}: not an output of gla (o, ht, dq, dk, dv, dg, dh0)", name));
  const GlaEvaluation exact = gla_evaluate(p, Precision::tiered, options, threads);
  // The correct float32 orders with the problem's io, the built-in kernels on the host: the recurrent one
  // (rule 3's baseline) and fla's chunked one at chunks of 16 and 64; rule 4 compares the run's error
  // distribution with the worst of theirs.
  std::vector<std::map<std::string, Tensor<float>>> orders;
  for (const std::int64_t chunk : {0, 16, 64}) orders.push_back(run_gla_builtin(p, options.io, {chunk}, threads));
  GlaJudgement result;
  for (std::string_view n : gla_output_names) {
    const std::string name(n);
    if (!got.count(name)) continue;
    if (got.at(name).dims() != exact.values.at(name).dims())
      throw InputError(fmt::format("{} is {}, expected {}", name, to_string(got.at(name).dims()),
                                   to_string(exact.values.at(name).dims())));
    const Tensor<float>& baseline = orders.front().at(name);
    TensorComparison in;
    in.name = name;
    in.dtype = name == "ht" || name == "dh0" ? DType::float32 : options.io;  // as fla stores them
    in.got = &got.at(name);
    in.exact = &exact.values.at(name);
    in.bound = &exact.bounds.at(name);
    in.baseline = &baseline;
    ErrorProfile worst;
    for (const auto& order : orders) {
      const ErrorProfile e = error_profile(in, order.at(name));
      worst = {e.elements, std::max(worst.p50, e.p50), std::max(worst.p90, e.p90), std::max(worst.rms, e.rms)};
    }
    in.ensemble_profile = worst;
    in.ensemble_orders = static_cast<std::int64_t>(orders.size());
    GlaTensorJudgement j{compare_tensor(in), {}};
    j.verdict = judge(j.metrics, policy);
    result.pass = result.pass && j.verdict.pass;
    result.tensors.push_back(std::move(j));
  }
  return result;
}

}  // namespace scancheck
