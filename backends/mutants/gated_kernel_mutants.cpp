// SPDX-License-Identifier: Apache-2.0
//! @file
//! Catalogue part: the gated layers' parameter kernels and GEMMs replaced (gated_kernel_mutations.hpp).
//! Bases: unfused and fused gated backends of both architectures and io dtypes.
#include "backends/mutants/catalogue.hpp"
#include "backends/mutants/gated_kernel_mutations.hpp"

namespace scancheck::mutation {

std::vector<Mutant> gated_kernel_mutants() {
  std::vector<Mutant> all;
  all.push_back(make_mutant<Architecture::complex_rglru, DType::float32>(
      "softplus_naive",
      "softplus(z) evaluated as log(1 + exp(z)) in float32: exp overflows to inf above z = 88.7 (NaN gradients) and "
      "log(1 + tiny) rounds to 0 below z = -16.6 (no input at all).",
      "complex_rglru/chunk32@fp32", [] { return NaiveSoftplus{}; }));
  all.push_back(make_mutant<Architecture::rglru, DType::float32>(
      "parameter_sums_run_dependent",
      "The parameter-gradient column sums add their block partials in an order that changes from run to run (as "
      "with atomics or a work queue): results are not reproducible bit for bit.",
      "rglru/chunk32@fp32", [] { return RunDependentColumnSums{}; }));
  all.push_back(make_mutant<Architecture::complex_rglru, DType::bfloat16>(
      "parameter_sums_drop_tail_block",
      "The parameter-gradient column sums launch floor(B L / 256) row blocks, so the rows of the partial last block "
      "never reach the bias and a_param gradients.",
      "complex_rglru/fused_chunk16@bf16", [] { return ColumnSumsDropTailBlock{}; }));
  all.push_back(make_mutant<Architecture::rglru, DType::float32>(
      "dx_misses_a_gate_path",
      "dx omits the a-gate back-projection dZa Wa^T: the gradient through the decay's gate never reaches the input.",
      "rglru/fused_sequential@fp32", [] {
        return GemmSkipped{{}, "a gate back-projection"};
      }));
  return all;
}

}  // namespace scancheck::mutation
