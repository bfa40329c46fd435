// SPDX-License-Identifier: Apache-2.0
//! @file
//! The built-in gated linear attention kernels (recurrent, chunks of 64) on the cuda executor: judged by
//! judge_gla on the host test's regimes in float32 and bfloat16 io, and within a few float32 units of the host twin's
//! outputs (the device's expf and the host's exp differ by an ulp). Skipped, not passed, without a device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "backends/cuda/device.hpp"
#include "backends/gla_problem.hpp"
#include "properties/gla_judgement.hpp"
#include "tests/reference/gla_problems.hpp"

namespace scancheck {
namespace {

TEST(GlaRecurrentBuiltinGpu, PassesAndAgreesWithTheHostTwin) {
  const auto status = cuda::device_status();
  if (status.count == 0) GTEST_SKIP() << "no CUDA device: " << status.reason;
  std::uint64_t seed = 600;
  for (const char* regime : {"default", "long_memory", "extreme"})
    for (const GateForm gates : {GateForm::vector, GateForm::scalar})
      for (const DType io : {DType::float32, DType::bfloat16}) {
        GlaProblem p = draw(++seed, regime, gates, 2, 130, 2, 16, 8);
        if (io == DType::bfloat16) p = in_bf16(p);
        for (const std::int64_t chunk : {0, 64}) {
          const backends::GlaSchedule schedule{.chunk = chunk};
          const auto device =
              run_gla_problem(p, io, [&](const backends::GlaArrays& a) { backends::run_gla_cuda(a, schedule); });
          const auto host =
              run_gla_problem(p, io, [&](const backends::GlaArrays& a) { backends::run_gla_host(a, schedule, 0); });
          EXPECT_TRUE(judge_gla(p, device, TolerancePolicy{}, {.io = io}).pass) << regime << " chunk " << chunk;
          const auto magnitudes = gla_term_magnitudes(p);
          for (const auto& [name, t] : device)
            for (std::int64_t n = 0; n < t.size(); ++n)  // a few units of the sum of |terms| per step's exp
              ASSERT_LE(std::fabs(double(t[n]) - host.at(name)[n]),
                        (io == DType::bfloat16 ? 0x1p-7 : 0x1p-20) * magnitudes.at(name)[n] + 1e-30)
                  << regime << " chunk " << chunk << " " << name << index_string(t.dims(), n);
        }
      }
}

}  // namespace
}  // namespace scancheck
