// SPDX-License-Identifier: Apache-2.0
//! @file
//! Backends: the open registry and running a backend on a case under an executor.
//!
//! A backend is an info record (its name, architecture, io dtype and, for the built-ins, the typed
//! variant) plus the callable that runs it. The built-in backends register through the same interface
//! (`BackendRegistry::add`) that a worker or plugin uses (foreign-backends.md), so every later layer
//! (properties, fuzzing, shrinking, reports) sees one kind of backend. Names follow backends/variant.hpp.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "backends/gemm.hpp"
#include "backends/variant.hpp"
#include "core/case.hpp"

namespace scancheck {

enum class Executor { host, cuda };
std::string_view to_string(Executor);
Executor parse_executor(std::string_view);

//! Which shapes generated cases take (foreign-backends.md, "shapes"): any the generators draw, or only those
//! of a small fixed set (properties/generators.hpp, bucketed_shapes), so that a kernel compiled per shape
//! (jax.jit, torch.compile) compiles a few dozen times in a whole fuzzing run rather than once a case.
enum class ShapePlan { any, bucketed };
std::string_view to_string(ShapePlan);
ShapePlan parse_shape_plan(std::string_view);

using Outputs = std::map<std::string, Tensor<float>>;

//! Device time of one pass: CUDA events around each of its launches, summed per run, over warmed runs.
struct PassTiming {
  double median_ms = 0, min_ms = 0, max_ms = 0;
};
struct BackendTiming {
  PassTiming forward, backward;
  int repeats = 0;
};

//! What a backend accepts (foreign-backends.md, "constraints"). The built-ins accept every valid case.
//! Generated cases are drawn inside a backend's constraints and shrinking stays inside them.
struct BackendConstraints {
  std::int64_t width_multiple = 1;
  std::optional<std::int64_t> max_width, max_length, max_batch;
  std::vector<std::int64_t> heads;           //!< the head counts it takes; empty: any
  std::vector<SqrtGradient> sqrt_gradients;  //!< the conventions it implements; empty: both
  bool h0 = true, dh_last = true;            //!< whether it takes an initial state and a dh_last
  bool resets = true;                        //!< whether it takes segment resets (segment_pos == 0)
  std::int64_t min_length = 1;               //!< the shortest L it takes
  std::int64_t length_multiple = 1;          //!< L a multiple of this (a kernel's block of time steps)
  //! Plain scans: decays a > 0 only (kernels that take log a); no resets (a = 0) and no extreme regime.
  bool positive_decays = false;
  //! Every batch entry starts with a reset (segment_pos[b, 0] == 0): packed variable-length kernels, whose
  //! sequences all start afresh. Only where resets are segment positions.
  bool resets_at_start = false;
  //! How it takes a plain scan's decays: as a, or as log a (foreign-backends.md "decays"; implies positive ones).
  DecaySpace decays = DecaySpace::linear;
  //! Generated cases (and their shrinks) take their shapes from the bucketed set. A plan, not a limit: any
  //! case given by hand still runs.
  ShapePlan shapes = ShapePlan::any;

  //! The first constraint `c` breaks, as "W = 24 is not a multiple of width_multiple 16"; empty if none.
  std::string violated_by(const Case& c) const;
  bool operator==(const BackendConstraints&) const = default;
};

//! Where a foreign backend's code comes from, as its worker says (hello "provenance", foreign-backends.md);
//! each field empty when not said.
struct BackendProvenance {
  std::string package, version, commit;

  bool empty() const { return package.empty() && version.empty() && commit.empty(); }
  bool operator==(const BackendProvenance&) const = default;
};
//! "package mykernels, version 1.2.0, commit 0a1b2c3": the fields said, in that order; "" when none is.
std::string to_string(const BackendProvenance&);

struct BackendInfo {
  std::string name;      //!< [provider:]architecture/variant@dtype
  std::string provider;  //!< empty for the built-in backends
  Architecture architecture = Architecture::scan;
  std::string variant;  //!< the variant token, e.g. "fused_chunk16"
  DType io_dtype = DType::float32;
  std::optional<Variant> builtin;  //!< a built-in's schedule and flags; nothing for a foreign backend
  //! The passes it computes: a forward-only backend is judged on its forward outputs alone.
  std::vector<Direction> passes{Direction::forward, Direction::backward};
  bool deterministic = true;  //!< false exempts it from the bitwise-determinism property (atomics)
  //! Gradients it declares it does not compute (a worker's "omits": dh0 of a kernel that takes no h0); they
  //! are not judged, and its rows say so.
  std::vector<std::string> omits;
  BackendConstraints constraints;
  //! The command-line options that load it (`--worker 'COMMAND'`, `--plugin PATH`), for repro lines;
  //! empty for the built-ins.
  std::string loaded_by;
  //! A worker's word on what its kernels run on (hello "runtime", e.g. "python 3.11.7, torch 2.11.0 cpu") and
  //! where their code comes from, for reports; empty when it does not say (and for the built-ins).
  std::string runtime;
  BackendProvenance provenance;

  bool computes(Direction d) const;

  //! Runs forward and backward of a validated case that fits the backend; throws on failure (run_backend
  //! turns every failure into a BackendError naming backend and shape).
  std::function<Outputs(const Case&, Executor)> run;
  //! Device timing with the cuda executor (warmup, repeats); empty when the backend cannot be timed.
  std::function<BackendTiming(const Case&, int warmup, int repeats)> time;
};

//! Every backend scancheck can run in this process. Built-ins are registered on first use; workers and
//! plugins add theirs before any run. Entries never move, so `const BackendInfo*` stays valid.
class BackendRegistry {
 public:
  //! Registers `backend` under its name (formatted from its fields when empty). Throws InputError when the
  //! name is taken or does not follow the grammar, or when it has no run callable.
  const BackendInfo& add(BackendInfo backend);
  const BackendInfo* find(std::string_view name) const;

  auto begin() const { return backends_.cbegin(); }
  auto end() const { return backends_.cend(); }
  std::size_t size() const { return backends_.size(); }
  //! The registered providers (foreign ones; the built-ins have none), in registration order.
  std::vector<std::string> providers() const;

 private:
  std::deque<BackendInfo> backends_;
  std::unordered_map<std::string, const BackendInfo*> by_name_;
};

//! The process-wide registry: the built-ins (backends/builtin_backends.cpp) first, in architecture,
//! schedule, flags and dtype order, then whatever was added.
BackendRegistry& registry();

//! Registers the built-in backends (every schedule and flag combination of docs/backends/) into `r`.
void register_builtin_backends(BackendRegistry& r);

//! The schedules of the built-in backends, in registration order: the one list the registry, and the
//! generators' boundary lengths (properties/generators.hpp), are made from.
const std::vector<Schedule>& builtin_schedules();

//! The backend of any variant of the built-in grammar, registered or not (the registry holds a matrix of
//! them; tests also run schedules outside it, e.g. a tree over a whole sequence). `provider` qualifies its
//! name when not empty.
BackendInfo builtin_variant_backend(Architecture, const Variant&, DType io_dtype, std::string provider = {});

//! Throws InputError naming the unknown backend.
const BackendInfo& find_backend(std::string_view name);

//! The same-precision sequential built-in of the architecture: the baseline of the FlashAttention rule.
const BackendInfo& baseline_backend(Architecture, DType io_dtype);
inline const BackendInfo& baseline_backend(const Case& c) { return baseline_backend(c.architecture, c.io_dtype); }

//! The executors this build can run: host always, cuda when built with nvcc.
std::vector<Executor> built_executors();

//! How a run failed (foreign-backends.md, "Verdicts beyond pass and fail"): `error` the backend reported
//! a failure (a built-in's kernel fault, unwritten output or overwritten guard; a worker's `ok: false`);
//! `fault` a worker exited, crashed or answered outside the protocol; `timeout` no answer in time.
enum class RunFailure { error, fault, timeout };
std::string_view to_string(RunFailure);

//! Raised when a backend fails while running; the message names the backend, the shape and what failed,
//! `log` holds the last lines of a worker's stderr.
struct BackendError : std::runtime_error {
  explicit BackendError(const std::string& what, RunFailure kind_ = RunFailure::error, std::string log_ = {},
                        bool attempted_ = true)
      : std::runtime_error(what), kind(kind_), log(std::move(log_)), attempted(attempted_) {}
  RunFailure kind;
  std::string log;
  //! False when the run was not even tried (its worker was given up): it says nothing about the case.
  bool attempted;
};

//! Forward and backward of `backend` on `c`. Throws InputError when the case does not fit the backend
//! (architecture, io dtype) or the executor is unavailable, BackendError when the run fails.
Outputs run_backend(const BackendInfo& backend, const Case& c, Executor executor);

//! run_backend of a built-in on the host executor with its gate GEMMs (gated layers) summed in `gemm_order`
//! (backends/gemm.hpp): the correct orders of the ensemble rule span the GEMM's order too
//! (properties/differential.hpp). Throws InputError for a foreign backend.
Outputs run_builtin_on_host(const BackendInfo& builtin, const Case& c, backends::GemmOrder gemm_order);

//! Times the forward and the backward of `backend` on `c` with the cuda executor: inputs uploaded once,
//! `warmup` runs, then `repeats` timed runs (backends/cuda/{scan,gated}_timing.hpp). Throws InputError
//! without a device or a cuda build or for a backend that cannot be timed, BackendError when a run fails.
BackendTiming time_backend(const BackendInfo& backend, const Case& c, int warmup, int repeats);

//! The name of the CUDA device the cuda executor would use, or nothing without one.
std::optional<std::string> cuda_device_name();

//! The CUDA devices this process can use (0 without a cuda build, a driver or a device).
int cuda_device_count();

//! Makes the `ordinal`-th visible CUDA device (of CUDA_VISIBLE_DEVICES when it is set) the only one this
//! process sees, for every thread: call it before anything touches CUDA. Throws InputError without a cuda
//! build or without such a device.
void use_cuda_device(int ordinal);

//! Throws InputError when this build or machine cannot run `executor` (no cuda build, no device).
void require_executor(Executor executor);

}  // namespace scancheck
