// SPDX-License-Identifier: Apache-2.0
//! @file
//! Backends: the registry (the one place that knows every backend and its name tokens) and running a
//! backend on a case under an executor.
//!
//! A backend is named `architecture/variant@dtype`, e.g. `scan/grouped_prefix32_hierarchical_chunk16@bf16`.
//! Variant = [flags_]schedule, schedule = sequential | chunk{C} | grouped_prefix{G}_hierarchical_chunk{C};
//! dtype = fp32 | bf16 (the io dtype; compute and states are float32).
#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "backends/kernels/affine_scan/schedules.hpp"
#include "core/case.hpp"

namespace scancheck {

enum class Executor { host, cuda };
std::string_view to_string(Executor);
Executor parse_executor(std::string_view);

struct BackendInfo {
  std::string name;       //!< architecture/variant@dtype
  Architecture architecture;
  std::string variant;    //!< e.g. "chunk16"
  std::string schedule;   //!< the schedule token, e.g. "grouped_prefix32_hierarchical_chunk16"
  kernels::Schedule plan;
  std::vector<std::string> flags;
  DType io_dtype;
};

//! The io dtype token of backend names: fp32 or bf16.
std::string_view dtype_token(DType);

//! Every registered backend, grouped by architecture, then schedule, then dtype.
const std::vector<BackendInfo>& registry();
//! Throws InputError naming the unknown backend.
const BackendInfo& find_backend(std::string_view name);

//! The executors this build can run: host always, cuda when built with nvcc.
std::vector<Executor> built_executors();

//! Raised when a backend fails while running (kernel fault, out of memory, unwritten output, guard
//! overwritten); the message names the backend, the shape and what failed.
struct BackendError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

using Outputs = std::map<std::string, Tensor<float>>;

//! Forward and backward of `backend` on `c`. Throws InputError when the case does not fit the backend
//! (architecture, io dtype) or the executor is unavailable, BackendError when the run fails.
Outputs run_backend(const BackendInfo& backend, const Case& c, Executor executor);

//! Device time of one pass: CUDA events around each of its launches, summed per run, over warmed runs.
struct PassTiming {
  double median_ms = 0, min_ms = 0, max_ms = 0;
};
struct BackendTiming {
  PassTiming forward, backward;
  int repeats = 0;
};

//! Times the forward and the backward of `backend` on `c` with the cuda executor: inputs uploaded once,
//! `warmup` runs, then `repeats` timed runs (backends/cuda/{scan,gated}_timing.hpp). Throws InputError
//! without a device or a cuda build, BackendError when a run fails.
BackendTiming time_backend(const BackendInfo& backend, const Case& c, int warmup, int repeats);

//! The name of the CUDA device the cuda executor would use, or nothing without one.
std::optional<std::string> cuda_device_name();

}  // namespace scancheck
