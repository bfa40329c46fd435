// SPDX-License-Identifier: Apache-2.0
#include "core/case.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"

namespace scancheck {
namespace {

using enum TensorRole;

TensorSpec activation(std::string name, TensorRole role, Dims dims) {
  return {std::move(name), role, std::move(dims), false, false, TensorPrecision::io};
}
TensorSpec float32(std::string name, TensorRole role, Dims dims, bool optional = false) {
  return {std::move(name), role, std::move(dims), optional, false, TensorPrecision::float32};
}

std::vector<TensorSpec> scan_layout(const Shape& s) {
  const Dims act{s.batch, s.length, s.width}, state{s.batch, s.width};
  return {
      activation("a", input, act),        activation("b", input, act),
      float32("h0", input, state, true),  activation("dh", cotangent, act),
      float32("dh_last", cotangent, state, true),
      activation("h", output, act),       float32("h_last", output, state),
      activation("da", output, act),      activation("db", output, act),
      float32("dh0", output, state),
  };
}

// rglru and complex_rglru: the complex kind has half as many state channels (K_out = K_in / 2 per head)
// and the extra phase parameter a_imag_param.
std::vector<TensorSpec> gated_layout(Architecture arch, const Shape& s) {
  const std::int64_t channels = state_channels(arch, s);
  const std::int64_t k_in = head_inputs(arch, s), k_out = head_channels(arch, s);
  const Dims act{s.batch, s.length, s.width}, state{s.batch, s.width};
  const Dims param{channels}, weight{s.heads, k_in, k_out}, bias{s.heads, k_out};
  std::vector<TensorSpec> layout{
      activation("x", input, act),
      {"segment_pos", input, {s.batch, s.length}, false, true, TensorPrecision::float32},
      float32("h0", input, state, true),
      float32("a_param", input, param),
      float32("input_gate_w", input, weight),
      float32("input_gate_b", input, bias),
      float32("a_gate_w", input, weight),
      float32("a_gate_b", input, bias),
  };
  if (is_complex(arch)) layout.push_back(float32("a_imag_param", input, param));
  const std::vector<TensorSpec> rest{
      activation("dy", cotangent, act),        float32("dh_last", cotangent, state, true),
      activation("y", output, act),            float32("h_last", output, state),
      activation("dx", output, act),           float32("dh0", output, state),
      float32("d_a_param", output, param),     float32("d_input_gate_w", output, weight),
      float32("d_input_gate_b", output, bias), float32("d_a_gate_w", output, weight),
      float32("d_a_gate_b", output, bias),
  };
  layout.insert(layout.end(), rest.begin(), rest.end());
  if (is_complex(arch)) layout.push_back(float32("d_a_imag_param", output, param));
  return layout;
}

std::string context(const Case& c) {
  return fmt::format("{} {}", to_string(c.architecture), to_string(c.shape));
}

template <class T>
void check_dims(const Case& c, const std::string& name, const Tensor<T>& t, const Dims& expected) {
  if (t.dims() != expected)
    throw InputError(fmt::format("{}.npy: shape {} does not match {} expected for {}", name,
                                 to_string(t.dims()), to_string(expected), context(c)));
  if (t.size() != element_count(expected))
    throw InputError(fmt::format("{}.npy: holds {} values but its shape {} has {}", name, t.size(),
                                 to_string(expected), element_count(expected)));
}

void check_bf16_representable(const std::string& name, const Tensor<float>& t) {
  const auto bad = std::find_if(t.values().begin(), t.values().end(),
                                [](float v) { return !std::isnan(v) && round_to_bf16(v) != v; });
  if (bad == t.values().end()) return;
  throw InputError(fmt::format("{}.npy: value {:.9g} at {} is not representable in bfloat16, the case's io_dtype",
                               name, *bad, index_string(t.dims(), bad - t.values().begin())));
}

void check_known_names(const Case& c, const std::vector<TensorSpec>& layout) {
  for (const auto& [name, tensor] : c.tensors) {
    const auto spec = std::find_if(layout.begin(), layout.end(), [&](const auto& s) { return s.name == name; });
    if (spec == layout.end())
      throw InputError(fmt::format("{}.npy: not a tensor of {}", name, to_string(c.architecture)));
    if (spec->role == output)
      throw InputError(fmt::format("{}.npy: an output of {}, not part of a case", name, to_string(c.architecture)));
    if (spec->integer)
      throw InputError(fmt::format("{}.npy: an int32 tensor, held in Case::segment_pos", name));
  }
}

// A default-constructed tensor (no dims, no values) stands for "absent"; a rank-0 tensor holds one value.
bool absent(const Tensor<std::int32_t>& t) { return t.empty() && t.size() == 0; }

void check_segment_pos(const Case& c, const TensorSpec& spec) {
  if (absent(c.segment_pos))
    throw InputError(fmt::format("segment_pos.npy: missing, required for {}", context(c)));
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

std::vector<TensorSpec> tensor_layout(Architecture arch, const Shape& shape) {
  return is_gated(arch) ? gated_layout(arch, shape) : scan_layout(shape);
}

std::vector<TensorSpec> tensor_layout(Architecture arch, const Shape& shape, TensorRole role) {
  std::vector<TensorSpec> layout = tensor_layout(arch, shape);
  std::erase_if(layout, [role](const TensorSpec& s) { return s.role != role; });
  return layout;
}

void validate(const Case& c) {
  validate(c.architecture, c.shape);
  const std::vector<TensorSpec> layout = tensor_layout(c.architecture, c.shape);
  for (const TensorSpec& spec : layout) {
    if (spec.role == output) continue;
    if (spec.integer)
      check_segment_pos(c, spec);
    else
      check_float_tensor(c, spec);
  }
  if (!is_gated(c.architecture) && !absent(c.segment_pos))
    throw InputError(fmt::format("segment_pos.npy: given, but {} has no segment positions",
                                 to_string(c.architecture)));
  check_known_names(c, layout);
}

}  // namespace scancheck
