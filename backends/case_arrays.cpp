// SPDX-License-Identifier: Apache-2.0
#include "backends/case_arrays.hpp"

#include "core/architectures.hpp"

namespace scancheck::backends {
namespace {

kernels::ScanGeometry geometry(const Case& c) {
  const Shape& s = c.shape;
  const std::int64_t channels = state_channels(c.architecture, s);
  return {s.batch, s.length, s.width, channels, describe(c.architecture).complex ? channels : 0};
}

const float* optional_input(const Case& c, const char* name) { return c.has(name) ? c.at(name).data() : nullptr; }
float* output(Outputs* out, const char* name) { return out ? out->at(name).data() : nullptr; }

}  // namespace

Outputs output_tensors(const Case& c) {
  Outputs out;
  for (const TensorSpec& spec : tensor_layout(c, TensorRole::output)) out.emplace(spec.name, Tensor<float>(spec.dims));
  return out;
}

ScanArrays scan_arrays(const Case& c, Outputs* out) {
  ScanArrays io;
  io.geometry = geometry(c);
  io.complex = describe(c.architecture).complex;
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
  const bool complex = describe(c.architecture).complex;
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
}  // namespace scancheck::backends
