// SPDX-License-Identifier: Apache-2.0
#include "backends/mutants/mutant_run.hpp"

#include <algorithm>
#include <stdexcept>
#include <string_view>

#include <fmt/format.h>

#include "core/error.hpp"

namespace scancheck::mutation {
namespace {

// The same layout as backends/backend.cpp (geometry, optional_input, has_flag); run_unmutated's bitwise
// equality with run_backend checks the two agree.
kernels::ScanGeometry geometry(const Case& c) {
  const std::int64_t channels = state_channels(c.architecture, c.shape);
  return {c.shape.batch, c.shape.length, c.shape.width, channels, is_complex(c.architecture) ? channels : 0};
}

const float* optional_input(const Case& c, const char* name) { return c.has(name) ? c.at(name).data() : nullptr; }

bool has_flag(const BackendInfo& b, std::string_view flag) {
  return std::find(b.flags.begin(), b.flags.end(), flag) != b.flags.end();
}

}  // namespace

PreparedRun::PreparedRun(const BackendInfo& backend, const Case& c) : base(backend) {
  validate(c);
  if (c.architecture != base.architecture || c.io_dtype != base.io_dtype)
    throw InputError(fmt::format("a mutant of {} cannot run a {} case with {} io", base.name, to_string(c.architecture),
                                 to_string(c.io_dtype)));
  for (const TensorSpec& spec : tensor_layout(c.architecture, c.shape, TensorRole::output))
    outputs.emplace(spec.name, Tensor<float>(spec.dims));
  const auto out = [&](const char* name) { return outputs.at(name).data(); };
  gated = is_gated(c.architecture);
  const bool complex = is_complex(c.architecture), bf16_io = c.io_dtype == DType::bfloat16;
  if (!gated) {
    scan.geometry = geometry(c);
    scan.complex = complex;
    scan.bf16_io = bf16_io;
    scan.a = c.at("a").data();
    scan.b = c.at("b").data();
    scan.dh = c.at("dh").data();
    scan.h0 = optional_input(c, "h0");
    scan.dh_last = optional_input(c, "dh_last");
    scan.h = out("h");
    scan.h_last = out("h_last");
    scan.da = out("da");
    scan.db = out("db");
    scan.dh0 = out("dh0");
    return;
  }
  gates.geometry = geometry(c);
  gates.heads = c.shape.heads;
  gates.complex = complex;
  gates.bf16_io = bf16_io;
  gates.exact_sqrt_gradient = c.sqrt_gradient == SqrtGradient::exact;
  gates.x = c.at("x").data();
  gates.segment_pos = c.segment_pos.data();
  gates.h0 = optional_input(c, "h0");
  gates.a_param = c.at("a_param").data();
  gates.a_imag_param = complex ? c.at("a_imag_param").data() : nullptr;
  gates.input_gate_w = c.at("input_gate_w").data();
  gates.input_gate_b = c.at("input_gate_b").data();
  gates.a_gate_w = c.at("a_gate_w").data();
  gates.a_gate_b = c.at("a_gate_b").data();
  gates.dy = c.at("dy").data();
  gates.dh_last = optional_input(c, "dh_last");
  gates.y = out("y");
  gates.h_last = out("h_last");
  gates.dx = out("dx");
  gates.dh0 = out("dh0");
  gates.d_a_param = out("d_a_param");
  gates.d_a_imag_param = complex ? out("d_a_imag_param") : nullptr;
  gates.d_input_gate_w = out("d_input_gate_w");
  gates.d_input_gate_b = out("d_input_gate_b");
  gates.d_a_gate_w = out("d_a_gate_w");
  gates.d_a_gate_b = out("d_a_gate_b");
  flags = {has_flag(base, "fused"), has_flag(base, "fused_output"), has_flag(base, "fused_write"),
           has_flag(base, "shared_sfu")};
}

Outputs run_unmutated(const BackendInfo& base, const Case& c) {
  using A = Architecture;
  constexpr DType fp32 = DType::float32, bf16 = DType::bfloat16;
  const bool f = base.io_dtype == fp32;
  switch (base.architecture) {
    case A::scan:
      return f ? run_mutated<A::scan, fp32>(base, c, Unchanged{}) : run_mutated<A::scan, bf16>(base, c, Unchanged{});
    case A::complex_scan:
      return f ? run_mutated<A::complex_scan, fp32>(base, c, Unchanged{})
               : run_mutated<A::complex_scan, bf16>(base, c, Unchanged{});
    case A::rglru:
      return f ? run_mutated<A::rglru, fp32>(base, c, Unchanged{}) : run_mutated<A::rglru, bf16>(base, c, Unchanged{});
    case A::complex_rglru:
      return f ? run_mutated<A::complex_rglru, fp32>(base, c, Unchanged{})
               : run_mutated<A::complex_rglru, bf16>(base, c, Unchanged{});
  }
  throw std::logic_error("unknown architecture");
}

}  // namespace scancheck::mutation
