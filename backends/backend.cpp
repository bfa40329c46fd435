// SPDX-License-Identifier: Apache-2.0
#include "backends/backend.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "backends/case_arrays.hpp"
#if SCANCHECK_HAVE_CUDA
#include "backends/cuda/device.hpp"
#include "backends/cuda/gated_timing.hpp"
#include "backends/cuda/scan_timing.hpp"
#endif
#include "core/error.hpp"

namespace scancheck {
namespace {

using kernels::Schedule;

struct ScheduleToken {
  std::string token;
  Schedule plan;
};

//! The schedules of the scan issue: sequential, chunk{16,32,64}, grouped_prefix{32,64}_hierarchical_chunk{16,32}.
std::vector<ScheduleToken> scan_schedules() {
  std::vector<ScheduleToken> s{{"sequential", {Schedule::Kind::sequential, 0, 0}}};
  for (std::int64_t c : {16, 32, 64}) s.push_back({fmt::format("chunk{}", c), {Schedule::Kind::chunked, c, 0}});
  for (std::int64_t g : {32, 64})
    for (std::int64_t c : {16, 32})
      s.push_back({fmt::format("grouped_prefix{}_hierarchical_chunk{}", g, c), {Schedule::Kind::hierarchical, c, g}});
  return s;
}

//! The flag sets of each architecture's variants, flags in the order of harness.md. rglru: unfused and
//! fused. complex_rglru: every combination of its four flags; fused_write only where there are chunks.
std::vector<std::vector<std::string>> variant_flags(Architecture arch, const Schedule& plan) {
  if (arch == Architecture::rglru) return {{}, {"fused"}};
  if (arch != Architecture::complex_rglru) return {{}};
  std::vector<std::vector<std::string>> sets;
  const bool chunked = plan.kind != Schedule::Kind::sequential;
  for (int fused : {0, 1})
    for (int fused_output : {0, 1})
      for (int fused_write : {0, 1})
        for (int shared_sfu : {0, 1}) {
          if (fused_write && !chunked) continue;
          std::vector<std::string> f;
          if (fused) f.push_back("fused");
          if (fused_output) f.push_back("fused_output");
          if (fused_write) f.push_back("fused_write");
          if (shared_sfu) f.push_back("shared_sfu");
          sets.push_back(f);
        }
  return sets;
}

std::vector<BackendInfo> build_registry() {
  std::vector<BackendInfo> all;
  for (Architecture arch :
       {Architecture::scan, Architecture::complex_scan, Architecture::rglru, Architecture::complex_rglru})
    for (const ScheduleToken& s : scan_schedules())
      for (const std::vector<std::string>& flags : variant_flags(arch, s.plan)) {
        const std::string variant = flags.empty() ? s.token : fmt::format("{}_{}", fmt::join(flags, "_"), s.token);
        for (DType d : {DType::float32, DType::bfloat16})
          all.push_back({fmt::format("{}/{}@{}", to_string(arch), variant, dtype_token(d)), arch, variant, s.token,
                         s.plan, flags, d});
      }
  return all;
}

Outputs run_scan_backend(const BackendInfo& backend, const Case& c, Executor executor) {
  Outputs out = backends::output_tensors(c);
  const backends::ScanArrays io = backends::scan_arrays(c, &out);
  if (executor == Executor::host) {
    backends::run_scan_host(io, backend.plan);
  } else {
#if SCANCHECK_HAVE_CUDA
    backends::run_scan_cuda(io, backend.plan);
#else
    throw InputError("this build of scancheck has no cuda executor (nvcc was not found at configure time)");
#endif
  }
  return out;
}

Outputs run_gated_backend(const BackendInfo& backend, const Case& c, Executor executor) {
  Outputs out = backends::output_tensors(c);
  const backends::GatedArrays io = backends::gated_arrays(c, &out);
  const backends::GatedFlags flags = backends::gated_flags(backend);
  if (executor == Executor::host) {
    backends::run_gated_host(io, flags, backend.plan);
  } else {
#if SCANCHECK_HAVE_CUDA
    backends::run_gated_cuda(io, flags, backend.plan);
#else
    throw InputError("this build of scancheck has no cuda executor (nvcc was not found at configure time)");
#endif
  }
  return out;
}

void require_cuda_device() {
#if SCANCHECK_HAVE_CUDA
  const auto status = cuda::device_status();
  if (status.count == 0) throw InputError(fmt::format("no CUDA device available: {}", status.reason));
#else
  throw InputError("this build of scancheck has no cuda executor (nvcc was not found at configure time)");
#endif
}

}  // namespace

std::string_view to_string(Executor e) { return e == Executor::host ? "host" : "cuda"; }

Executor parse_executor(std::string_view name) {
  if (name == "host") return Executor::host;
  if (name == "cuda") return Executor::cuda;
  throw InputError(fmt::format("unknown executor '{}' (expected one of: host, cuda)", name));
}

std::string_view dtype_token(DType d) { return d == DType::float32 ? "fp32" : "bf16"; }

const std::vector<BackendInfo>& registry() {
  static const std::vector<BackendInfo> all = build_registry();
  return all;
}

const BackendInfo& find_backend(std::string_view name) {
  for (const BackendInfo& b : registry())
    if (b.name == name) return b;
  throw InputError(fmt::format("unknown backend '{}' (scancheck list shows every backend)", name));
}

std::vector<Executor> built_executors() {
#if SCANCHECK_HAVE_CUDA
  return {Executor::host, Executor::cuda};
#else
  return {Executor::host};
#endif
}

Outputs run_backend(const BackendInfo& backend, const Case& c, Executor executor) {
  validate(c);
  if (c.architecture != backend.architecture)
    throw InputError(fmt::format("backend {} runs {} cases, not {}", backend.name, to_string(backend.architecture),
                                 to_string(c.architecture)));
  if (c.io_dtype != backend.io_dtype)
    throw InputError(fmt::format("backend {} takes {} io, the case is {}", backend.name, to_string(backend.io_dtype),
                                 to_string(c.io_dtype)));
  if (executor == Executor::cuda) require_cuda_device();
  try {
    return is_gated(c.architecture) ? run_gated_backend(backend, c, executor) : run_scan_backend(backend, c, executor);
  } catch (const std::runtime_error& e) {
    if (dynamic_cast<const InputError*>(&e)) throw;
    throw BackendError(fmt::format("backend {} ({} executor) on {}: {}", backend.name, to_string(executor),
                                   to_string(c.shape), e.what()));
  }
}

#if SCANCHECK_HAVE_CUDA
namespace {
PassTiming pass_timing(const backends::PhaseTiming& t) { return {t.median_ms, t.min_ms, t.max_ms}; }
}  // namespace
#endif

BackendTiming time_backend(const BackendInfo& backend, const Case& c, int warmup, int repeats) {
  validate(c);
  require_cuda_device();
#if SCANCHECK_HAVE_CUDA
  try {
    if (is_gated(c.architecture)) {
      const backends::GatedTiming t = backends::time_gated_cuda(backends::gated_arrays(c, nullptr),
                                                                backends::gated_flags(backend), backend.plan, warmup,
                                                                repeats);
      return {pass_timing(t.forward.total), pass_timing(t.backward.total), repeats};
    }
    const backends::ScanTiming t = backends::time_scan_cuda(backends::scan_arrays(c, nullptr), backend.plan, warmup,
                                                            repeats);
    return {pass_timing(t.forward), pass_timing(t.backward), repeats};
  } catch (const std::runtime_error& e) {
    if (dynamic_cast<const InputError*>(&e)) throw;
    throw BackendError(fmt::format("timing {} on {}: {}", backend.name, to_string(c.shape), e.what()));
  }
#else
  (void)backend, (void)warmup, (void)repeats;
  return {};
#endif
}

std::optional<std::string> cuda_device_name() {
#if SCANCHECK_HAVE_CUDA
  const auto status = cuda::device_status();
  if (status.count > 0) return status.name;
#endif
  return std::nullopt;
}

}  // namespace scancheck

namespace scancheck::backends {
namespace {

kernels::ScanGeometry geometry(const Case& c) {
  const Shape& s = c.shape;
  const std::int64_t channels = state_channels(c.architecture, s);
  return {s.batch, s.length, s.width, channels, is_complex(c.architecture) ? channels : 0};
}

const float* optional_input(const Case& c, const char* name) { return c.has(name) ? c.at(name).data() : nullptr; }
float* output(Outputs* out, const char* name) { return out ? out->at(name).data() : nullptr; }

}  // namespace

Outputs output_tensors(const Case& c) {
  Outputs out;
  for (const TensorSpec& spec : tensor_layout(c.architecture, c.shape, TensorRole::output))
    out.emplace(spec.name, Tensor<float>(spec.dims));
  return out;
}

ScanArrays scan_arrays(const Case& c, Outputs* out) {
  ScanArrays io;
  io.geometry = geometry(c);
  io.complex = is_complex(c.architecture);
  io.bf16_io = c.io_dtype == DType::bfloat16;
  io.a = c.at("a").data();
  io.b = c.at("b").data();
  io.dh = c.at("dh").data();
  io.h0 = optional_input(c, "h0");
  io.dh_last = optional_input(c, "dh_last");
  io.h = output(out, "h");
  io.h_last = output(out, "h_last");
  io.da = output(out, "da");
  io.db = output(out, "db");
  io.dh0 = output(out, "dh0");
  return io;
}

GatedArrays gated_arrays(const Case& c, Outputs* out) {
  const bool complex = is_complex(c.architecture);
  GatedArrays io;
  io.geometry = geometry(c);
  io.heads = c.shape.heads;
  io.complex = complex;
  io.bf16_io = c.io_dtype == DType::bfloat16;
  io.exact_sqrt_gradient = c.sqrt_gradient == SqrtGradient::exact;
  io.x = c.at("x").data();
  io.segment_pos = c.segment_pos.data();
  io.h0 = optional_input(c, "h0");
  io.a_param = c.at("a_param").data();
  io.a_imag_param = complex ? c.at("a_imag_param").data() : nullptr;
  io.input_gate_w = c.at("input_gate_w").data();
  io.input_gate_b = c.at("input_gate_b").data();
  io.a_gate_w = c.at("a_gate_w").data();
  io.a_gate_b = c.at("a_gate_b").data();
  io.dy = c.at("dy").data();
  io.dh_last = optional_input(c, "dh_last");
  io.y = output(out, "y");
  io.h_last = output(out, "h_last");
  io.dx = output(out, "dx");
  io.dh0 = output(out, "dh0");
  io.d_a_param = output(out, "d_a_param");
  io.d_a_imag_param = complex ? output(out, "d_a_imag_param") : nullptr;
  io.d_input_gate_w = output(out, "d_input_gate_w");
  io.d_input_gate_b = output(out, "d_input_gate_b");
  io.d_a_gate_w = output(out, "d_a_gate_w");
  io.d_a_gate_b = output(out, "d_a_gate_b");
  return io;
}

GatedFlags gated_flags(const BackendInfo& b) {
  const auto has = [&](std::string_view flag) { return std::find(b.flags.begin(), b.flags.end(), flag) != b.flags.end(); };
  return {has("fused"), has("fused_output"), has("fused_write"), has("shared_sfu")};
}

}  // namespace scancheck::backends
