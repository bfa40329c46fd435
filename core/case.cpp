// SPDX-License-Identifier: Apache-2.0
#include "core/case.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/architectures.hpp"
#include "core/error.hpp"

namespace scancheck {
namespace {

using enum TensorRole;
constexpr TensorRole output_role = TensorRole::output;

std::string context(const Case& c) { return fmt::format("{} {}", to_string(c.architecture), to_string(c.shape)); }

template <class T>
void check_dims(const Case& c, const std::string& name, const Tensor<T>& t, const Dims& expected) {
  if (t.dims() != expected)
    throw InputError(fmt::format("{}.npy: shape {} does not match {} expected for {}", name, to_string(t.dims()),
                                 to_string(expected), context(c)));
  if (t.size() != element_count(expected))
    throw InputError(fmt::format("{}.npy: holds {} values but its shape {} has {}", name, t.size(), to_string(expected),
                                 element_count(expected)));
}

void check_bf16_representable(const std::string& name, const Tensor<float>& t) {
  const auto bad = std::find_if(t.values().begin(), t.values().end(),
                                [](float v) { return !std::isnan(v) && round_to_bf16(v) != v; });
  if (bad == t.values().end()) return;
  throw InputError(fmt::format("{}.npy: value {:.9g} at {} is not representable in bfloat16, the case's io_dtype", name,
                               *bad, index_string(t.dims(), bad - t.values().begin())));
}

void check_known_names(const Case& c, const std::vector<TensorSpec>& layout) {
  for (const auto& entry : c.tensors) {
    const std::string& name = entry.first;
    const auto spec = std::find_if(layout.begin(), layout.end(), [&](const auto& s) { return s.name == name; });
    if (spec == layout.end())
      throw InputError(fmt::format("{}.npy: not a tensor of {}", name, to_string(c.architecture)));
    if (spec->role == output)
      throw InputError(fmt::format("{}.npy: an output of {}, not part of a case", name, to_string(c.architecture)));
    if (spec->integer) throw InputError(fmt::format("{}.npy: an int32 tensor, held in Case::segment_pos", name));
  }
}

// A default-constructed tensor (no dims, no values) stands for "absent"; a rank-0 tensor holds one value.
bool absent(const Tensor<std::int32_t>& t) { return t.empty() && t.size() == 0; }

void check_segment_pos(const Case& c, const TensorSpec& spec) {
  if (absent(c.segment_pos)) throw InputError(fmt::format("segment_pos.npy: missing, required for {}", context(c)));
  check_dims(c, spec.name, c.segment_pos, spec.dims);
}

void check_float_tensor(const Case& c, const TensorSpec& spec) {
  const auto it = c.tensors.find(spec.name);
  if (it == c.tensors.end()) {
    if (spec.optional) return;
    throw InputError(fmt::format("{}.npy: missing, required for {}", spec.name, context(c)));
  }
  check_dims(c, spec.name, it->second, spec.dims);
  if (spec.precision == TensorPrecision::io && c.io_dtype == DType::bfloat16)
    check_bf16_representable(spec.name, it->second);
}

}  // namespace

std::vector<TensorSpec> tensor_layout(Architecture arch, const Shape& shape, DecaySpace form) {
  std::vector<TensorSpec> layout = describe(arch).layout(shape);
  if (form == DecaySpace::linear) return layout;
  if (!describe(arch).log_decays)
    throw InputError(
        fmt::format("{} has no decays a kernel can take in log space (decays: {})", to_string(arch), to_string(form)));
  for (TensorSpec& spec : layout) {
    if (spec.name == "a") spec.name = decay_input(form);
    if (spec.name == "da") spec.name = "dlog_a";
  }
  return layout;
}

std::string_view decay_input(DecaySpace form) { return form == DecaySpace::log ? "log_a" : "a"; }

std::vector<TensorSpec> tensor_layout(Architecture arch, const Shape& shape, TensorRole role, DecaySpace form) {
  std::vector<TensorSpec> layout = tensor_layout(arch, shape, form);
  std::erase_if(layout, [role](const TensorSpec& s) { return s.role != role; });
  return layout;
}

Direction direction_of(Architecture arch, std::string_view output) {
  const Shape smallest{1, 1, describe(arch).channel_factor(), 1};
  for (const DecaySpace form : {DecaySpace::linear, DecaySpace::log}) {
    if (form == DecaySpace::log && !describe(arch).log_decays) break;
    for (const TensorSpec& spec : tensor_layout(arch, smallest, output_role, form))
      if (spec.name == output) return spec.direction;
  }
  throw InputError(fmt::format("'{}' is not an output of {}", output, to_string(arch)));
}

std::vector<TensorSpec> tensor_layout(const Case& c) { return tensor_layout(c.architecture, c.shape, c.decays); }
std::vector<TensorSpec> tensor_layout(const Case& c, TensorRole role) {
  return tensor_layout(c.architecture, c.shape, role, c.decays);
}

std::string main_input(const Case& c) {
  const std::string_view name = describe(c.architecture).main_input;
  if (c.decays != DecaySpace::linear && !describe(c.architecture).log_decays)
    throw InputError(fmt::format("{} has no decays a kernel can take in log space (decays: {})",
                                 to_string(c.architecture), to_string(c.decays)));
  return std::string(name == "a" ? decay_input(c.decays) : name);
}

void validate(const Case& c) {
  validate(c.architecture, c.shape);
  const std::vector<TensorSpec> layout = tensor_layout(c);
  for (const TensorSpec& spec : layout) {
    if (spec.role == output) continue;
    if (spec.integer) check_segment_pos(c, spec);
    else check_float_tensor(c, spec);
  }
  if (!describe(c.architecture).segment_positions && !absent(c.segment_pos))
    throw InputError(fmt::format("segment_pos.npy: given, but {} has no segment positions", to_string(c.architecture)));
  check_known_names(c, layout);
}

}  // namespace scancheck
