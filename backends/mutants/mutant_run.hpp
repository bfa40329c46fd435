// SPDX-License-Identifier: Apache-2.0
//! @file
//! Running a registered backend's launch sequence with a mutation (mutant_executor.hpp): the case is laid
//! out exactly as run_backend lays it out for the host executor (backends/backend.cpp), then the production
//! launch sequence (gated_detail::run, or run_scan's body) runs it on a MutantExecutor. run_unmutated does the same
//! with no mutation: the mutant sanity test checks it equals run_backend bit for bit, so what a mutant changes is the
//! mutation and nothing in this glue.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "backends/backend.hpp"
#include "backends/gated_run.hpp"
#include "backends/mutants/mutant_executor.hpp"
#include "backends/scan_run.hpp"
#include "core/architectures.hpp"
#include "core/case.hpp"
#include "core/dtype.hpp"

namespace scancheck::mutation {

//! A case's inputs and output arrays for the launch sequence of `base`, pointing into `outputs` (which
//! stays where it is: the object is neither copied nor moved). Throws InputError, as run_backend does, when
//! the case does not fit the backend.
class PreparedRun {
 public:
  PreparedRun(const BackendInfo& base, const Case& c);
  PreparedRun(const PreparedRun&) = delete;
  PreparedRun& operator=(const PreparedRun&) = delete;

  const BackendInfo& base;
  Outputs outputs;
  bool gated = false;
  backends::ScanArrays scan;
  backends::GatedArrays gates;
  backends::VariantFlags flags;
};

//! The field (float, or cfloat for the complex kinds) and io storage (float or bf16) of a backend.
template <Architecture architecture, DType io_dtype>
struct BackendTypes {
  using field = std::conditional_t<describe(architecture).complex, kernels::cfloat, float>;
  using storage = std::conditional_t<io_dtype == DType::float32, float, kernels::bf16>;
};

//! Forward and backward of `base` (whose architecture and io dtype are the template arguments: only that
//! launch sequence is instantiated) on `c` through `mutation`. A failure while running is a BackendError
//! naming the base backend, as run_backend's are.
template <Architecture architecture, DType io_dtype, class Mutation>
Outputs run_mutated(const BackendInfo& base, const Case& c, Mutation mutation) {
  if (base.architecture != architecture || base.io_dtype != io_dtype)
    throw std::logic_error("run_mutated<" + std::string(to_string(architecture)) + ", " +
                           std::string(to_string(io_dtype)) + "> called for " + base.name);
  using F = typename BackendTypes<architecture, io_dtype>::field;
  using IO = typename BackendTypes<architecture, io_dtype>::storage;
  auto run = std::make_unique<PreparedRun>(base, c);
  MutantExecutor<Mutation> ex(std::move(mutation));
  try {
    const Schedule& schedule = base.builtin->schedule;
    if constexpr (describe(architecture).family == Family::gated_layer) {
      backends::gated_detail::run<F, IO>(ex, run->gates, run->flags, schedule);
    } else {
      // backends::run_scan for one (F, IO): its body, without the dispatch over all four.
      const auto on = backends::ScanOnExecutor<F, IO>::upload(ex, run->scan);
      kernels::run_affine_scan(ex, on.forward, schedule);
      kernels::run_affine_scan(ex, on.backward, schedule);
      ex.synchronize();
      on.download(ex, run->scan);
    }
  } catch (const std::runtime_error& e) {
    throw BackendError("mutant of " + base.name + " (host executor) on " + to_string(c.shape) + ": " + e.what());
  }
  return std::move(run->outputs);
}

//! run_mutated with the mutation that changes nothing: bitwise run_backend(base, c, Executor::host), which the
//! mutant sanity test checks for every mutant's base.
Outputs run_unmutated(const BackendInfo& base, const Case& c);

}  // namespace scancheck::mutation
