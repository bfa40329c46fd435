// SPDX-License-Identifier: Apache-2.0
//! @file
//! cuBLAS (cuda executor) against Eigen (host executor) on the strided batched GEMM of the gate
//! projections, every transposition. Skipped, not passed, without a device.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "backends/cuda/device.hpp"
#include "backends/cuda/gemm_cuda.hpp"
#include "backends/host/host_executor.hpp"
#include "core/rng.hpp"

namespace scancheck::backends {
namespace {

class CudaGemm : public testing::TestWithParam<int> {};

TEST_P(CudaGemm, MatchesHostExecutor) {
  const auto status = cuda::device_status();
  if (status.count == 0) GTEST_SKIP() << "no CUDA device: " << status.reason;
  const bool ta = GetParam() & 1, tb = GetParam() & 2;
  const std::int64_t m = 300, n = 64, k = 128, batch = 4;  // rows = B*L, n = K_out, k = K_in, batch = heads
  const CounterRng rng(5);
  std::vector<float> a(batch * m * k), b(batch * k * n), c_host(batch * m * n), c_cuda;
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(rng.normal(1, i));
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(rng.normal(2, i));
  c_cuda = c_host;
  const StridedBatchedGemm host{
      m, n,     k,   batch, {a.data(), ta ? m : k, m * k, ta}, {b.data(), tb ? k : n, k * n, tb}, c_host.data(),
      n, m * n, 0.0f};
  HostExecutor ex;
  ex.gemm("host", host);
  StridedBatchedGemm device = host;
  device.c = c_cuda.data();
  gemm_cuda(device, static_cast<std::int64_t>(a.size()), static_cast<std::int64_t>(b.size()),
            static_cast<std::int64_t>(c_cuda.size()));
  double worst = 0;
  for (std::size_t i = 0; i < c_host.size(); ++i)
    worst = std::max(worst, std::fabs(double(c_host[i]) - c_cuda[i]) / (1 + std::fabs(double(c_host[i]))));
  // Both sum 128 float32 products in their own order: a few float32 ulps of sqrt(k)-sized sums.
  EXPECT_LT(worst, 2e-5);
}

INSTANTIATE_TEST_SUITE_P(Transpositions, CudaGemm, testing::Range(0, 4));

}  // namespace
}  // namespace scancheck::backends
