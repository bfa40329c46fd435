// SPDX-License-Identifier: Apache-2.0
//! @file
//! The parts of the mutant catalogue (mutants.cpp joins them), one translation unit per kind of mechanism,
//! and the helper that makes an entry. Internal to backends/mutants/.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "backends/mutants/mutant_run.hpp"
#include "backends/mutants/mutants.hpp"

namespace scancheck::mutation {

//! Schedule passes replaced (schedule_mutants.cpp): schedule_mutations.hpp.
std::vector<Mutant> schedule_mutants();
//! Sequences decorated (sequence_mutants.cpp): sequence_mutations.hpp.
std::vector<Mutant> sequence_mutants();
//! Gated parameter kernels and GEMMs replaced (gated_kernel_mutants.cpp): gated_kernel_mutations.hpp.
std::vector<Mutant> gated_kernel_mutants();

//! A catalogue entry whose runs each get a fresh mutation from make(). The template arguments repeat the
//! base's architecture and io dtype, so that only its launch sequence is instantiated; a base that does
//! not match them is a logic_error when the catalogue is built.
template <Architecture architecture, DType io_dtype, class Make>
Mutant make_mutant(std::string name, std::string bug, std::string base, Make make) {
  const BackendInfo& info = find_backend(base);  // every base is registered: throws otherwise
  if (info.architecture != architecture || info.io_dtype != io_dtype)
    throw std::logic_error("mutant " + name + ": base " + base +
                           " is not the architecture and io dtype it was built for");
  return {std::move(name), std::move(bug), std::move(base),
          [&info, make](const Case& c) { return run_mutated<architecture, io_dtype>(info, c, make()); }};
}

}  // namespace scancheck::mutation
