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

}  // namespace scancheck
