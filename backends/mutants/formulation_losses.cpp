// SPDX-License-Identifier: Apache-2.0
//! @file
//! The zoo of subtle formulation losses (mutants.hpp, formulation_losses()): six textbook rewritings of the gated
//! layers' per-element math, each on a float32 base of its own (three rglru, three complex_rglru; a `fused` one
//! where the rule recomputes the gate terms inside the scan), and their controls. The mechanisms are in
//! formulation_mutations.hpp; softplus_naive is the catalogue's own mutant (gated_kernel_mutants.cpp).
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "backends/mutants/catalogue.hpp"
#include "backends/mutants/formulation_mutations.hpp"

namespace scancheck {
namespace {

using mutation::make_mutant;
using mutation::recompute_gate_terms;

constexpr const char* q_base = "rglru/fused_grouped_prefix32_hierarchical_chunk16@fp32";
constexpr const char* sigma_base = "complex_rglru/fused_shared_sfu_chunk64@fp32";
constexpr const char* gate_base = "complex_rglru/fused_fused_output_fused_write_chunk32@fp32";
constexpr const char* cumulative_base = "rglru/fused_local_chunk64@fp32";

std::vector<Mutant> zoo() {
  std::vector<Mutant> all;
  // The catalogue's mutant, its sentence about the loss rather than the overflow the mutation test finds first.
  Mutant softplus = find_mutant("softplus_naive");
  softplus.bug =
      "softplus(z) evaluated as log(1 + exp(z)) in float32: 1 + exp(z) rounds by up to 2^-24 absolute, so s = "
      "softplus(a_param) errs by up to 2^-24 / s relative (s is 1e-5 .. 1e-3 for long-memory decays), is 0 below z = "
      "-16.6 and overflows above z = 88.7.";
  all.push_back(std::move(softplus));
  all.push_back(make_mutant<Architecture::rglru, DType::float32>(
      "log_sigmoid_naive",
      "The decay's log from the log of a float32 sigmoid, log a = 8 r log(sigma(-a_param)) (torch.log(torch.sigmoid(x))"
      " where logsigmoid belongs): sigma rounds by up to 2^-24 absolute towards 1 for decays near 1, so s = "
      "-log(sigma(-a_param)) errs by up to 2^-24 / s relative, and is 0 below a_param = -16.6.",
      "rglru/chunk64@fp32", [] { return mutation::LogOfSigmoid{}; }));
  all.push_back(make_mutant<Architecture::rglru, DType::float32>(
      "q_one_minus_a_squared",
      "q = 1 - a^2 in float32 from a = exp(log_a), in the forward and in the backward's m: a and a^2 round by about "
      "2^-24 absolute, so q errs by about 2^-23 / q relative (q is 1e-4 .. 1e-2 for long-memory decays) where "
      "-expm1(2 log_a) keeps a few ulps, and is 0 for decays within 3e-8 of 1.",
      q_base, [] { return recompute_gate_terms(mutation::QFromSquare{}, "q_one_minus_a_squared"); }));
  all.push_back(make_mutant<Architecture::complex_rglru, DType::float32>(
      "sigmoid_derivative_one_minus",
      "sigma'(z) evaluated as sigma (1 - sigma) for both gates (PyTorch autograd, most Triton kernels): 1 - sigma "
      "cancels once sigma rounds towards 1, so a saturated gate's derivative keeps only sigma's rounding and is 0 "
      "above z = 16.6; an accepted formulation whose loss the bound admits.",
      sigma_base,
      [] { return recompute_gate_terms(mutation::SigmoidDerivativeOneMinus{}, "sigmoid_derivative_one_minus"); }));
  all.push_back(make_mutant<Architecture::complex_rglru, DType::float32>(
      "recurrence_gate_in_bf16",
      "The recurrence gate r = sigma(x Wa + ba) is rounded to bfloat16 before the float32 kernel uses it (a gate "
      "projection under autocast): log a = -8 r s, q and every gradient through r carry r's relative error of up "
      "to 2^-8.",
      gate_base, [] { return recompute_gate_terms(mutation::RecurrenceGateInBf16{}, "recurrence_gate_in_bf16"); }));
  all.push_back(make_mutant<Architecture::rglru, DType::float32>(
      "decays_from_cumulative_log",
      "The step decays formed as exp(G_t - G_{t-1}) from G, the float32 cumulative sum of log a over the whole "
      "sequence (a kernel working from cumulative log decays): G_t rounds to about u |G_t|, so every decay errs by "
      "about u |sum log a| relative, growing along the sequence.",
      cumulative_base,
      [] { return recompute_gate_terms(mutation::CumulativeLogDecay{}, "decays_from_cumulative_log"); }));
  std::set<std::string> names;
  for (const Mutant& m : all)
    if (!names.insert(m.name).second) throw std::logic_error("two formulation losses are named " + m.name);
  return all;
}

std::vector<Mutant> controls() {
  const auto control = [](const char* name) { return recompute_gate_terms(mutation::AsProduction{}, name); };
  std::vector<Mutant> all;
  all.push_back(make_mutant<Architecture::rglru, DType::float32>(
      "q_one_minus_a_squared", "control", q_base, [control] { return control("q_one_minus_a_squared"); }));
  all.push_back(make_mutant<Architecture::complex_rglru, DType::float32>(
      "sigmoid_derivative_one_minus", "control", sigma_base,
      [control] { return control("sigmoid_derivative_one_minus"); }));
  all.push_back(make_mutant<Architecture::complex_rglru, DType::float32>(
      "recurrence_gate_in_bf16", "control", gate_base, [control] { return control("recurrence_gate_in_bf16"); }));
  all.push_back(
      make_mutant<Architecture::rglru, DType::float32>("decays_from_cumulative_log", "control", cumulative_base,
                                                       [control] { return control("decays_from_cumulative_log"); }));
  return all;
}

}  // namespace

const std::vector<Mutant>& formulation_losses() {
  static const std::vector<Mutant> all = zoo();
  return all;
}

const std::vector<Mutant>& formulation_loss_controls() {
  static const std::vector<Mutant> all = controls();
  return all;
}

}  // namespace scancheck
