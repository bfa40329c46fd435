// SPDX-License-Identifier: Apache-2.0
#include "backends/backend.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "backends/scan_run.hpp"
#if SCANCHECK_HAVE_CUDA
#include "backends/cuda/device.hpp"
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

std::vector<BackendInfo> build_registry() {
  std::vector<BackendInfo> all;
  for (Architecture arch : {Architecture::scan, Architecture::complex_scan})
    for (const ScheduleToken& s : scan_schedules())
      for (DType d : {DType::float32, DType::bfloat16})
        all.push_back({fmt::format("{}/{}@{}", to_string(arch), s.token, dtype_token(d)), arch, s.token, s.token,
                       s.plan, {}, d});
  return all;
}

kernels::ScanGeometry geometry(const Case& c) {
  const Shape& s = c.shape;
  const std::int64_t channels = state_channels(c.architecture, s);
  return {s.batch, s.length, s.width, channels, is_complex(c.architecture) ? channels : 0};
}

const float* optional_input(const Case& c, const char* name) { return c.has(name) ? c.at(name).data() : nullptr; }

Outputs run_scan_backend(const BackendInfo& backend, const Case& c, Executor executor) {
  Outputs out;
  for (const TensorSpec& spec : tensor_layout(c.architecture, c.shape, TensorRole::output))
    out.emplace(spec.name, Tensor<float>(spec.dims));
  backends::ScanArrays io;
  io.geometry = geometry(c);
  io.complex = is_complex(c.architecture);
  io.bf16_io = c.io_dtype == DType::bfloat16;
  io.a = c.at("a").data();
  io.b = c.at("b").data();
  io.dh = c.at("dh").data();
  io.h0 = optional_input(c, "h0");
  io.dh_last = optional_input(c, "dh_last");
  io.h = out.at("h").data();
  io.h_last = out.at("h_last").data();
  io.da = out.at("da").data();
  io.db = out.at("db").data();
  io.dh0 = out.at("dh0").data();
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
    return run_scan_backend(backend, c, executor);
  } catch (const std::runtime_error& e) {
    if (dynamic_cast<const InputError*>(&e)) throw;
    throw BackendError(fmt::format("backend {} ({} executor) on {}: {}", backend.name, to_string(executor),
                                   to_string(c.shape), e.what()));
  }
}

}  // namespace scancheck
