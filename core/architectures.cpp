// SPDX-License-Identifier: Apache-2.0
//! @file
//! The tensor layouts of the two families (docs/recurrences.md, and docs/architecture.md, "Cases"); the descriptors
//! point at them.
#include "core/architectures.hpp"

namespace scancheck {
namespace {

using enum TensorRole;
using enum Direction;

TensorSpec activation(std::string name, TensorRole role, Dims dims, Direction direction = forward) {
  return {std::move(name), role, std::move(dims), false, false, TensorPrecision::io, direction};
}
TensorSpec float32_tensor(std::string name, TensorRole role, Dims dims, bool optional = false,
                          Direction direction = forward) {
  return {std::move(name), role, std::move(dims), optional, false, TensorPrecision::float32, direction};
}
TensorSpec gradient(std::string name, Dims dims, TensorPrecision precision) {
  return {std::move(name), output, std::move(dims), false, false, precision, backward};
}
//! A gate weight, bias or decay parameter (input) or its gradient (output): float32, shared by the batch.
TensorSpec parameter(std::string name, TensorRole role, Dims dims) {
  return {std::move(name),
          role,
          std::move(dims),
          false,
          false,
          TensorPrecision::float32,
          role == output ? backward : forward,
          true};
}

}  // namespace

//! scan and complex_scan: the decays a and inputs b are given; W stored channels either way.
std::vector<TensorSpec> affine_scan_layout(const Shape& s) {
  const Dims act{s.batch, s.length, s.width}, state{s.batch, s.width};
  return {
      activation("a", input, act),
      activation("b", input, act),
      float32_tensor("h0", input, state, true),
      activation("dh", cotangent, act),
      float32_tensor("dh_last", cotangent, state, true),
      activation("h", output, act),
      float32_tensor("h_last", output, state),
      gradient("da", act, TensorPrecision::io),
      gradient("db", act, TensorPrecision::io),
      gradient("dh0", state, TensorPrecision::float32),
  };
}

namespace {

//! rglru and complex_rglru: the complex kind has half as many state channels (K_out = K_in / 2 per head)
//! and the extra phase parameter a_imag_param.
std::vector<TensorSpec> gated_layer_layout(const Shape& s, bool complex) {
  const std::int64_t channels = complex ? s.width / 2 : s.width;
  const std::int64_t k_in = s.width / s.heads, k_out = channels / s.heads;
  const Dims act{s.batch, s.length, s.width}, state{s.batch, s.width};
  const Dims param{channels}, weight{s.heads, k_in, k_out}, bias{s.heads, k_out};
  std::vector<TensorSpec> layout{
      activation("x", input, act),
      {"segment_pos", input, {s.batch, s.length}, false, true, TensorPrecision::float32},
      float32_tensor("h0", input, state, true),
      parameter("a_param", input, param),
      parameter("input_gate_w", input, weight),
      parameter("input_gate_b", input, bias),
      parameter("a_gate_w", input, weight),
      parameter("a_gate_b", input, bias),
  };
  if (complex) layout.push_back(parameter("a_imag_param", input, param));
  const std::vector<TensorSpec> rest{
      activation("dy", cotangent, act),
      float32_tensor("dh_last", cotangent, state, true),
      activation("y", output, act),
      float32_tensor("h_last", output, state),
      gradient("dx", act, TensorPrecision::io),
      gradient("dh0", state, TensorPrecision::float32),
      parameter("d_a_param", output, param),
      parameter("d_input_gate_w", output, weight),
      parameter("d_input_gate_b", output, bias),
      parameter("d_a_gate_w", output, weight),
      parameter("d_a_gate_b", output, bias),
  };
  layout.insert(layout.end(), rest.begin(), rest.end());
  if (complex) layout.push_back(parameter("d_a_imag_param", output, param));
  return layout;
}

}  // namespace

std::vector<TensorSpec> real_gated_layer_layout(const Shape& s) { return gated_layer_layout(s, false); }
std::vector<TensorSpec> complex_gated_layer_layout(const Shape& s) { return gated_layer_layout(s, true); }

}  // namespace scancheck
