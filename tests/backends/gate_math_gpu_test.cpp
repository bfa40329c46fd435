// SPDX-License-Identifier: Apache-2.0
//! @file
//! The shared gate formulas on the device against the same formulas on the host: the device's expf,
//! expm1f, log1pf, sinf, cosf (CUDA C Programming Guide: at most 2 ulps) and its FMA contraction may move
//! each term by a few float32 ulps, never more. Skipped, not passed, without a device.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "backends/cuda/device.hpp"
#include "backends/kernels/numeric.hpp"
#include "core/rng.hpp"
#include "reference/gate_math.hpp"
#include "tests/backends/gate_math_device.hpp"

namespace scancheck {
namespace {

TEST(GateMathGpu, DeviceMatchesHostWithinAFewUlps) {
  const auto status = cuda::device_status();
  if (status.count == 0) GTEST_SKIP() << "no CUDA device: " << status.reason;
  const int n = 50000;
  const CounterRng rng(4);
  std::vector<float> zx(n), za(n), s(n), imag(n), out(n * test::gate_math_outputs);
  std::vector<std::uint8_t> reset(n);
  for (int i = 0; i < n; ++i) {
    zx[i] = static_cast<float>(rng.normal(1, i) * 8);
    za[i] = static_cast<float>(rng.normal(2, i) * 8);
    s[i] = ref::softplus(static_cast<float>(rng.uniform(3, i, -20, 8)));
    imag[i] = static_cast<float>(rng.uniform(4, i, 0, 3.14159));
    reset[i] = rng.uniform(5, i) < 0.1;
  }
  test::gate_terms_on_device({zx.data(), za.data(), s.data(), imag.data(), reset.data(), n}, out.data());
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    const auto g = ref::gate_terms<float, kernels::cfloat>(zx[i], za[i], s[i], &imag[i], reset[i] != 0);
    const float host[] = {g.gx, g.ga, g.gx_minus, g.ga_minus, g.log_a, g.r, g.q, g.m, g.a.re, g.a.im};
    for (int k = 0; k < test::gate_math_outputs; ++k) {
      const float d = out[i * test::gate_math_outputs + k];
      // 8 float32 ulps of the larger magnitude. a.re and a.im are r cos(phi) and r sin(phi): near a zero of
      // cos or sin their error is a few ulps of r (phi itself is a few ulps off), so r is their scale.
      float scale = std::fmax(std::fabs(host[k]), std::fabs(d));
      if (k >= 8) scale = std::fmax(scale, g.r);
      if (std::fabs(d - host[k]) > 8 * 0x1p-23f * scale + 1e-37f && ++bad <= 5)
        ADD_FAILURE() << "element " << i << " term " << k << ": host " << host[k] << " device " << d;
    }
  }
  EXPECT_EQ(bad, 0);
}

}  // namespace
}  // namespace scancheck
