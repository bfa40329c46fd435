// SPDX-License-Identifier: Apache-2.0
//! @file
//! The device side of gate_math_gpu_test: reference/gate_math.hpp's gate terms evaluated by a CUDA kernel.
#pragma once

#include <cstdint>

namespace scancheck::test {

struct GateMathInputs {
  const float* zx;
  const float* za;
  const float* s;     // softplus(a_param)
  const float* imag;  // a_imag_param
  const std::uint8_t* reset;
  int n;
};

//! gx, ga, gx_minus, ga_minus, log_a, r, q, m, a.re, a.im per element.
inline constexpr int gate_math_outputs = 10;

//! out: n * gate_math_outputs floats. Throws std::runtime_error on a CUDA error.
void gate_terms_on_device(const GateMathInputs& in, float* out);

}  // namespace scancheck::test
