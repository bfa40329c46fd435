// SPDX-License-Identifier: Apache-2.0
#include "backends/backend.hpp"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#if SCANCHECK_HAVE_CUDA
#include "backends/cuda/device.hpp"
#endif
#include "core/architectures.hpp"
#include "core/error.hpp"

namespace scancheck {

std::string_view to_string(Executor e) { return e == Executor::host ? "host" : "cuda"; }

Executor parse_executor(std::string_view name) {
  if (name == "host") return Executor::host;
  if (name == "cuda") return Executor::cuda;
  throw InputError(fmt::format("unknown executor '{}' (expected one of: host, cuda)", name));
}

std::string_view to_string(ShapePlan p) { return p == ShapePlan::any ? "any" : "bucketed"; }

ShapePlan parse_shape_plan(std::string_view name) {
  if (name == "any") return ShapePlan::any;
  if (name == "bucketed") return ShapePlan::bucketed;
  throw InputError(fmt::format("unknown shape plan '{}' (expected one of: any, bucketed)", name));
}

std::string_view to_string(RunFailure f) {
  switch (f) {
    case RunFailure::error: return "error";
    case RunFailure::fault: return "fault";
    case RunFailure::timeout: return "timeout";
  }
  return "error";
}

std::string to_string(const BackendProvenance& p) {
  std::vector<std::string> said;
  for (const auto& [field, value] : {std::pair{"package", &p.package}, {"version", &p.version}, {"commit", &p.commit}})
    if (!value->empty()) said.push_back(fmt::format("{} {}", field, *value));
  return fmt::format("{}", fmt::join(said, ", "));
}

bool BackendInfo::computes(Direction d) const { return std::find(passes.begin(), passes.end(), d) != passes.end(); }

std::string BackendConstraints::violated_by(const Case& c) const {
  const Shape& s = c.shape;
  if (s.width % width_multiple != 0)
    return fmt::format("W = {} is not a multiple of width_multiple {}", s.width, width_multiple);
  if (max_width && s.width > *max_width) return fmt::format("W = {} is above max_width {}", s.width, *max_width);
  if (max_length && s.length > *max_length) return fmt::format("L = {} is above max_length {}", s.length, *max_length);
  if (s.length < min_length) return fmt::format("L = {} is below min_length {}", s.length, min_length);
  if (s.length % length_multiple != 0)
    return fmt::format("L = {} is not a multiple of length_multiple {}", s.length, length_multiple);
  if (max_batch && s.batch > *max_batch) return fmt::format("B = {} is above max_batch {}", s.batch, *max_batch);
  if (!heads.empty() && std::find(heads.begin(), heads.end(), s.heads) == heads.end())
    return fmt::format("H = {} is not one of heads [{}]", s.heads, fmt::join(heads, ", "));
  if (!sqrt_gradients.empty() &&
      std::find(sqrt_gradients.begin(), sqrt_gradients.end(), c.sqrt_gradient) == sqrt_gradients.end())
    return fmt::format("sqrt_gradient {} is not one it implements", to_string(c.sqrt_gradient));
  if (!h0 && c.has("h0")) return "the case has h0 and the backend takes none (h0: false)";
  if (!dh_last && c.has("dh_last")) return "the case has dh_last and the backend takes none (dh_last: false)";
  const auto& pos = c.segment_pos.values();
  if (!resets && std::find(pos.begin(), pos.end(), 0) != pos.end())
    return "the case has segment resets and the backend takes none (resets: false)";
  if (resets_at_start && describe(c.architecture).segment_positions)
    for (std::int64_t b = 0; b < s.batch; ++b)
      if (c.segment_pos[b * s.length] != 0)
        return fmt::format(
            "batch entry {} does not start with a reset and the backend takes only cases whose "
            "entries all do (resets_at_start: true)",
            b);
  if (c.decays != decays)
    return fmt::format("the case gives its decays as {} and the backend takes them as {} (decays: {})",
                       decay_input(c.decays), decay_input(decays), to_string(decays));
  if (positive_decays && c.has("a") && !describe(c.architecture).complex) {
    const auto& a = c.at("a").values();
    if (std::any_of(a.begin(), a.end(), [](float v) { return !(v > 0); }))
      return "the case has a decay a <= 0 and the backend takes positive decays only (positive_decays: true)";
  }
  return {};
}

const BackendInfo& BackendRegistry::add(BackendInfo backend) {
  const BackendName parsed{backend.provider, backend.architecture, backend.variant, backend.io_dtype};
  const std::string name = to_string(parse_backend_name(to_string(parsed)));  // the grammar's checks
  if (!backend.name.empty() && backend.name != name)
    throw InputError(fmt::format("backend '{}': its name does not match its fields ({})", backend.name, name));
  if (!backend.run) throw InputError(fmt::format("backend {}: nothing to run", name));
  if (by_name_.count(name)) throw InputError(fmt::format("backend {} is registered twice", name));
  backend.name = name;
  const BackendInfo& added = backends_.emplace_back(std::move(backend));
  by_name_.emplace(name, &added);
  return added;
}

const BackendInfo* BackendRegistry::find(std::string_view name) const {
  const auto it = by_name_.find(std::string(name));
  return it == by_name_.end() ? nullptr : it->second;
}

std::vector<std::string> BackendRegistry::providers() const {
  std::vector<std::string> out;
  for (const BackendInfo& b : backends_)
    if (!b.provider.empty() && std::find(out.begin(), out.end(), b.provider) == out.end()) out.push_back(b.provider);
  return out;
}

BackendRegistry& registry() {
  static BackendRegistry all = [] {
    BackendRegistry r;
    register_builtin_backends(r);
    return r;
  }();
  return all;
}

const BackendInfo& find_backend(std::string_view name) {
  if (const BackendInfo* b = registry().find(name)) return *b;
  throw InputError(fmt::format("unknown backend '{}' (scancheck list shows every backend)", name));
}

const BackendInfo& baseline_backend(Architecture architecture, DType io_dtype) {
  return find_backend(to_string(baseline_of(architecture, io_dtype)));
}

std::vector<Executor> built_executors() {
#if SCANCHECK_HAVE_CUDA
  return {Executor::host, Executor::cuda};
#else
  return {Executor::host};
#endif
}

void require_executor(Executor executor) {
  if (executor == Executor::host) return;
#if SCANCHECK_HAVE_CUDA
  const auto status = cuda::device_status();
  if (status.count == 0) throw InputError(fmt::format("no CUDA device available: {}", status.reason));
#else
  throw InputError("this build of scancheck has no cuda executor (nvcc was not found at configure time)");
#endif
}

namespace {

void require_fit(const BackendInfo& backend, const Case& c) {
  validate(c);
  if (c.architecture != backend.architecture)
    throw InputError(fmt::format("backend {} runs {} cases, not {}", backend.name, to_string(backend.architecture),
                                 to_string(c.architecture)));
  if (c.io_dtype != backend.io_dtype)
    throw InputError(fmt::format("backend {} takes {} io, the case is {}", backend.name, to_string(backend.io_dtype),
                                 to_string(c.io_dtype)));
}

//! Runs `body`; any failure but bad input becomes a BackendError that says `what` failed.
template <class Body>
auto as_backend_failure(const std::string& what, Body body) -> decltype(body()) {
  try {
    return body();
  } catch (const InputError&) {
    throw;
  } catch (const BackendError&) {
    throw;
  } catch (const std::exception& e) {
    throw BackendError(fmt::format("{}: {}", what, e.what()));
  }
}

}  // namespace

Outputs run_backend(const BackendInfo& backend, const Case& c, Executor executor) {
  require_fit(backend, c);
  if (const std::string why = backend.constraints.violated_by(c); !why.empty())
    throw InputError(fmt::format("backend {} cannot run this case: {}", backend.name, why));
  if (backend.builtin) require_executor(executor);  // a foreign backend runs where its worker runs it
  return as_backend_failure(
      fmt::format("backend {} ({} executor) on {}", backend.name, to_string(executor), to_string(c.shape)),
      [&] { return backend.run(c, executor); });
}

BackendTiming time_backend(const BackendInfo& backend, const Case& c, int warmup, int repeats) {
  require_fit(backend, c);
  require_executor(Executor::cuda);
  if (!backend.time) throw InputError(fmt::format("backend {} has no device timing", backend.name));
  return as_backend_failure(fmt::format("timing {} on {}", backend.name, to_string(c.shape)),
                            [&] { return backend.time(c, warmup, repeats); });
}

int cuda_device_count() {
#if SCANCHECK_HAVE_CUDA
  return cuda::device_status().count;
#else
  return 0;
#endif
}

void use_cuda_device(int ordinal) {
#if SCANCHECK_HAVE_CUDA
  std::string chosen = std::to_string(ordinal);
  if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES"); visible && *visible) {
    std::vector<std::string> ids;
    std::string id;
    for (const char* c = visible;; ++c) {
      if (*c == ',' || *c == 0) {
        ids.push_back(id);
        id.clear();
        if (*c == 0) break;
      } else {
        id += *c;
      }
    }
    if (ordinal < 0 || ordinal >= std::ssize(ids))
      throw InputError(fmt::format("--device {}: CUDA_VISIBLE_DEVICES='{}' makes {} device(s) visible", ordinal,
                                   visible, ids.size()));
    chosen = ids[static_cast<std::size_t>(ordinal)];
  }
  setenv("CUDA_VISIBLE_DEVICES", chosen.c_str(), 1);
  const auto status = cuda::device_status();
  if (status.count == 0)
    throw InputError(fmt::format("--device {}: no such CUDA device here ({})", ordinal, status.reason));
#else
  throw InputError(fmt::format("--device {}: this scancheck was built without the CUDA executor", ordinal));
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
