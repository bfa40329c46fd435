// SPDX-License-Identifier: Apache-2.0
//! @file
//! The built-in backends: every schedule of docs/backends/scan.md for every architecture, with each family's flag
//! combinations, in both io dtypes, registered through BackendRegistry::add like any foreign backend.
//! Each family's run callable maps the case onto its launch sequence (scan_run.hpp, gated_run.hpp) on
//! the chosen executor.
#include <fmt/format.h>

#include "backends/backend.hpp"
#include "backends/case_arrays.hpp"
#if SCANCHECK_HAVE_CUDA
#include "backends/cuda/gated_timing.hpp"
#include "backends/cuda/scan_timing.hpp"
#endif
#include "core/architectures.hpp"
#include "core/error.hpp"

namespace scancheck {
namespace {

using Kind = Schedule::Kind;

//! The flag sets of each architecture's variants. Plain scans have no gates to fuse; rglru: unfused and
//! fused; complex_rglru: every combination of its four flags, fused_write only where there are chunks.
std::vector<VariantFlags> builtin_flag_sets(const ArchitectureDescriptor& arch, const Schedule& schedule) {
  if (arch.family == Family::affine_scan) return {{}};
  if (!arch.complex) return {{}, {.fused = true}};
  std::vector<VariantFlags> sets;
  const bool chunked = schedule.kind != Kind::sequential;
  for (bool fused : {false, true})
    for (bool fused_output : {false, true})
      for (bool fused_write : {false, true})
        for (bool shared_sfu : {false, true})
          if (chunked || !fused_write) sets.push_back({fused, fused_output, fused_write, shared_sfu});
  return sets;
}

#if !SCANCHECK_HAVE_CUDA
[[noreturn]] void no_cuda_build() {
  throw InputError("this build of scancheck has no cuda executor (nvcc was not found at configure time)");
}
#endif

//! Runs on_host, or on_cuda where the build has the cuda executor: the one place the executor asked for
//! meets the executors built.
template <class OnHost, class OnCuda>
void on_executor(Executor executor, const OnHost& on_host, [[maybe_unused]] const OnCuda& on_cuda) {
  if (executor == Executor::host) return on_host();
#if SCANCHECK_HAVE_CUDA
  on_cuda();
#else
  no_cuda_build();
#endif
}

#if SCANCHECK_HAVE_CUDA
PassTiming pass_timing(const backends::PhaseTiming& t) { return {t.median_ms, t.min_ms, t.max_ms}; }
#endif

Outputs run_affine_scan(const Variant& v, const Case& c, Executor executor) {
  Outputs out = backends::output_tensors(c);
  const backends::ScanArrays io = backends::scan_arrays(c, &out);
  on_executor(
      executor, [&] { backends::run_scan_host(io, v.schedule); }, [&] { backends::run_scan_cuda(io, v.schedule); });
  return out;
}

BackendTiming time_affine_scan(const Variant& v, const Case& c, int warmup, int repeats) {
#if SCANCHECK_HAVE_CUDA
  const auto t = backends::time_scan_cuda(backends::scan_arrays(c, nullptr), v.schedule, warmup, repeats);
  return {pass_timing(t.forward), pass_timing(t.backward), repeats};
#else
  (void)v, (void)c, (void)warmup, (void)repeats;
  no_cuda_build();
#endif
}

Outputs run_gated_layer(const Variant& v, const Case& c, Executor executor,
                        backends::GemmOrder gemm_order = backends::GemmOrder::library) {
  Outputs out = backends::output_tensors(c);
  const backends::GatedArrays io = backends::gated_arrays(c, &out);
  on_executor(
      executor, [&] { backends::run_gated_host(io, v.flags, v.schedule, 0, gemm_order); },
      [&] { backends::run_gated_cuda(io, v.flags, v.schedule); });
  return out;
}

BackendTiming time_gated_layer(const Variant& v, const Case& c, int warmup, int repeats) {
#if SCANCHECK_HAVE_CUDA
  const auto t = backends::time_gated_cuda(backends::gated_arrays(c, nullptr), v.flags, v.schedule, warmup, repeats);
  return {pass_timing(t.forward.total), pass_timing(t.backward.total), repeats};
#else
  (void)v, (void)c, (void)warmup, (void)repeats;
  no_cuda_build();
#endif
}

//! The run and timing callables of a built-in variant of `arch`'s family.
void attach_callables(BackendInfo& b, const ArchitectureDescriptor& arch, const Variant& v) {
  switch (arch.family) {
    case Family::affine_scan:
      b.run = [v](const Case& c, Executor e) { return run_affine_scan(v, c, e); };
      b.time = [v](const Case& c, int warmup, int repeats) { return time_affine_scan(v, c, warmup, repeats); };
      return;
    case Family::gated_layer:
      b.run = [v](const Case& c, Executor e) { return run_gated_layer(v, c, e); };
      b.time = [v](const Case& c, int warmup, int repeats) { return time_gated_layer(v, c, warmup, repeats); };
      return;
  }
}

}  // namespace

//! sequential, chunk{16,32,64}, grouped_prefix{32,64}_hierarchical_chunk{16,32}, and the orders of most
//! production kernels: local_chunk64 (chunk-local scans plus the carry, as Mamba's and FLA's chunked kernels)
//! and tree_chunk32 (a Kogge-Stone tree per chunk, as tl.associative_scan or a CUB block scan).
const std::vector<Schedule>& builtin_schedules() {
  static const std::vector<Schedule> schedules = [] {
    std::vector<Schedule> s{{Kind::sequential, 0, 0}};
    for (std::int64_t c : {16, 32, 64}) s.push_back({Kind::chunked, c, 0});
    for (std::int64_t g : {32, 64})
      for (std::int64_t c : {16, 32}) s.push_back({Kind::hierarchical, c, g});
    s.push_back({Kind::local, 64, 0});
    s.push_back({Kind::tree, 32, 0});
    return s;
  }();
  return schedules;
}

BackendInfo builtin_variant_backend(Architecture architecture, const Variant& v, DType io_dtype, std::string provider) {
  BackendInfo b;
  b.provider = std::move(provider);
  b.architecture = architecture;
  b.variant = to_string(v);
  b.io_dtype = io_dtype;
  b.builtin = v;
  attach_callables(b, describe(architecture), v);
  return b;
}

Outputs run_builtin_on_host(const BackendInfo& builtin, const Case& c, backends::GemmOrder gemm_order) {
  if (!builtin.builtin) throw InputError(fmt::format("{} is not a built-in backend", builtin.name));
  if (describe(builtin.architecture).family != Family::gated_layer || gemm_order == backends::GemmOrder::library)
    return run_backend(builtin, c, Executor::host);  // no GEMMs, or the library's order
  BackendInfo ordered = builtin;
  ordered.run = [v = *builtin.builtin, gemm_order](const Case& cc, Executor e) {
    return run_gated_layer(v, cc, e, gemm_order);
  };
  return run_backend(ordered, c, Executor::host);
}

void register_builtin_backends(BackendRegistry& r) {
  for (const ArchitectureDescriptor& arch : architecture_descriptors)
    for (const Schedule& schedule : builtin_schedules())
      for (const VariantFlags& flags : builtin_flag_sets(arch, schedule))
        for (DType dtype : {DType::float32, DType::bfloat16})
          r.add(builtin_variant_backend(arch.id, {schedule, flags}, dtype));
}

}  // namespace scancheck
