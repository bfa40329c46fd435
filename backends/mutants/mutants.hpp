// SPDX-License-Identifier: Apache-2.0
//! @file
//! Mutants: deliberately broken variants of registered backends, each a bug real scan kernels have had,
//! for mutation testing (docs/architecture.md: the tolerance policy "must catch every mutant in the suite"). Test-only:
//! the library scancheck_mutants is built with the tests and nothing in production links it.
//!
//! A mutant runs its base backend's production launch sequence (scan_run.hpp, gated_run.hpp) on the host
//! executor through a MutantExecutor (mutant_executor.hpp) that breaks one thing: it replaces the launches
//! of one kind of program body (a schedule pass, a parameter kernel) or decorates the affine sequence the
//! schedule bodies run (one of step, initial, emit), or skips one GEMM. Production code carries no hook and
//! no cost for it. The catalogue is in schedule_mutants.cpp, sequence_mutants.cpp and gated_kernel_mutants.cpp
//! (one part per kind of mechanism), the mechanisms in the headers they include.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "core/case.hpp"

namespace scancheck {

struct Mutant {
  std::string name;  //!< e.g. "dh_last_ignored"
  std::string bug;   //!< one sentence: what real kernels got wrong
  std::string base;  //!< the registered backend it mutates, e.g. "rglru/fused_chunk16@fp32"
  //! Forward and backward of the mutant on a case of its base's architecture and io dtype, on the host
  //! executor. Throws InputError for a case the base cannot run, BackendError when the run fails.
  std::function<Outputs(const Case&)> run;
};

//! Every mutant, names unique, each base a registered backend.
const std::vector<Mutant>& mutants();

//! Throws InputError naming the unknown mutant.
const Mutant& find_mutant(const std::string& name);

//! A zoo of subtle formulation losses (formulation_losses.cpp, formulation_mutations.hpp): correct kernels but
//! for one textbook rewriting that rounds more than the recurrence needs (naive softplus and log-sigmoid, q as
//! 1 - a^2, sigma' as sigma (1 - sigma), a gate in bfloat16, decays from a cumulative sum of log decays), on
//! float32 gated bases. Apart from mutants(): a loss may be within what some correct order makes, or show only
//! on long or saturated cases, so it need not be caught within the mutation test's budget nor shrink to a
//! short case; tests/mutation/formulation_loss_test.cpp says which rule catches each, with the numbers.
const std::vector<Mutant>& formulation_losses();

//! For each loss that recomputes the gate terms (GateTermsRecomputed), the same mechanism on the same base with a
//! rule that changes nothing, under the loss's name: it must reproduce the base bit for bit, so that what a loss
//! changes is its rule and nothing in the decorators.
const std::vector<Mutant>& formulation_loss_controls();

}  // namespace scancheck
