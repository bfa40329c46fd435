// SPDX-License-Identifier: Apache-2.0
//! @file
//! GPU check of core/dtype.hpp: the host's bfloat16 rounding must equal the device's __float2bfloat16_rn
//! bit for bit on special and random values (ties, NaN, Inf, overflow, subnormals), since backends round
//! on the device and the harness rounds on the host. Skipped, not passed, without a device.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "backends/cuda/device.hpp"
#include "core/dtype.hpp"
#include "core/rng.hpp"

namespace {

std::vector<float> probe_values() {
  std::vector<float> v = {0.0f,
                          -0.0f,
                          1.0f,
                          -1.0f,
                          std::numeric_limits<float>::infinity(),
                          -std::numeric_limits<float>::infinity(),
                          std::numeric_limits<float>::quiet_NaN(),
                          3.4e38f,
                          -3.4e38f,
                          std::numeric_limits<float>::denorm_min(),
                          1e-40f,
                          std::bit_cast<float>(0x3f808000u),
                          std::bit_cast<float>(0x3f818000u)};
  const scancheck::CounterRng rng(2);
  for (std::uint64_t i = 0; i < 100000; ++i) v.push_back(std::bit_cast<float>(rng.bits(0, i)[0]));
  return v;
}

TEST(CudaBf16, DeviceRoundingEqualsHostRounding) {
  const auto status = scancheck::cuda::device_status();
  if (status.count == 0) GTEST_SKIP() << "no CUDA device: " << status.reason;
  const std::vector<float> in = probe_values();
  const std::vector<std::uint16_t> out = scancheck::cuda::bf16_bits_on_device(in);
  const int n = static_cast<int>(in.size());
  int mismatches = 0;
  for (int i = 0; i < n; ++i) {
    const std::uint16_t host = scancheck::bf16_bits(in[i]);
    const bool both_nan = std::isnan(in[i]) && (host & 0x7f80u) == 0x7f80u && (out[i] & 0x7f80u) == 0x7f80u;
    if (host != out[i] && !both_nan && ++mismatches <= 5)
      ADD_FAILURE() << "x = " << in[i] << " (0x" << std::hex << std::bit_cast<std::uint32_t>(in[i]) << "): host 0x"
                    << host << ", device 0x" << out[i];
  }
  EXPECT_EQ(mismatches, 0);
}

}  // namespace
