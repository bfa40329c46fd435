// SPDX-License-Identifier: Apache-2.0
//! @file
//! The cuda executor of a few scan backends (recurrences.md §1) against their host twin and against the
//! float128 reference. Built only with SCANCHECK_HAVE_CUDA; every test skips, never passes, when
//! scancheck::cuda::device_status() finds no device.
//!
//! Twin tolerance: the program bodies are the same, so the two executors differ only where the hardware
//! does (nvcc contracts a*b + c into FMAs by default; the host build uses -ffp-contract=off). Per output
//! tensor, max |cuda - host| / max |host| <= 1e-5 for fp32 io, and <= 1e-2 for bf16 io (a bf16 output may
//! round the other way after such a difference: one bf16 ulp is 2^-8 relative to the element).
//! Reference tolerance: the placeholder of scan_backend_test.cpp (1e-4 fp32, 3e-2 bf16, per tensor,
//! relative to the tensor's max), until the tolerance-policy issue replaces both.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/architectures.hpp"
#include "backends/backend.hpp"
#include "backends/cuda/device.hpp"
#include "core/error.hpp"
#include "core/generate.hpp"
#include "reference/reference.hpp"

#if !SCANCHECK_HAVE_CUDA
#error "scan_backend_gpu_test is built only with the CUDA executor (SCANCHECK_HAVE_CUDA)"
#endif

namespace {

using namespace scancheck;

struct GpuPoint {
  std::int64_t length;
  std::int64_t width;
  Regime regime;
  bool with_h0;
  bool with_dh_last;
};

//! Lengths around the schedule's chunk and group boundaries, and one wide shape (W not a multiple of 32,
//! more channels than one block of 256 threads) so programs spread over several blocks.
std::vector<GpuPoint> gpu_points(const BackendInfo& b) {
  const std::int64_t c = std::max<std::int64_t>(b.builtin->schedule.chunk, 16), gc = std::max<std::int64_t>(b.builtin->schedule.group, 1) * c;
  const std::int64_t narrow = describe(b.architecture).complex ? 10 : 6, wide = describe(b.architecture).complex ? 602 : 301;
  return {{1, narrow, Regime::default_, true, true},
          {c + 1, narrow, Regime::long_memory, false, false},
          {gc + 1, narrow, Regime::resets, true, false},
          {3 * gc + 5, narrow, Regime::extreme, false, true},
          {c * 5 + 3, wide, Regime::clip, true, true},
          {1000, wide, Regime::default_, true, true}};
}

Case make_gpu_case(const BackendInfo& b, const GpuPoint& p, std::uint64_t seed) {
  CaseRequest r;
  r.architecture = b.architecture;
  r.shape = {2, p.length, p.width, 1};
  r.seed = seed;
  r.regime = p.regime;
  r.io_dtype = b.io_dtype;
  r.with_h0 = p.with_h0;
  r.with_dh_last = p.with_dh_last;
  return make_case(r);
}

template <class T>
void expect_close(const Outputs& got, const std::map<std::string, Tensor<T>>& want, double tol, const char* against) {
  ASSERT_EQ(got.size(), want.size());
  for (const auto& [name, w] : want) {
    const Tensor<float>& g = got.at(name);
    ASSERT_EQ(g.dims(), w.dims()) << name;
    double scale = 0, worst = 0;
    std::int64_t at = 0;
    bool nan = false;
    for (std::int64_t i = 0; i < w.size(); ++i) scale = std::max(scale, std::abs(static_cast<double>(w[i])));
    for (std::int64_t i = 0; i < g.size(); ++i) {
      const double d = std::abs(static_cast<double>(g[i]) - static_cast<double>(w[i]));
      nan = nan || std::isnan(d);
      if (d > worst) worst = d, at = i;
    }
    EXPECT_FALSE(nan) << name << ": NaN where " << against << " has none";
    if (scale == 0) {
      EXPECT_EQ(worst, 0) << name << ": " << against << " is all zero";
    } else {
      EXPECT_LE(worst / scale, tol) << name << ": max |error| / max |" << against << "| = " << worst / scale
                                    << " at " << index_string(g.dims(), at) << ": got " << g[at] << ", " << against
                                    << " " << static_cast<double>(w[at]);
    }
  }
}

class ScanBackendGpu : public testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const auto status = cuda::device_status();
    if (status.count == 0) GTEST_SKIP() << "no CUDA device: " << status.reason;
  }
};

TEST_P(ScanBackendGpu, CudaMatchesHostTwinAndReference) {
  const BackendInfo& b = find_backend(GetParam());
  const double twin_tol = b.io_dtype == DType::float32 ? 1e-5 : 1e-2;
  const double ref_tol = b.io_dtype == DType::float32 ? 1e-4 : 3e-2;
  std::uint64_t seed = 500;
  for (const GpuPoint& p : gpu_points(b)) {
    const Case c = make_gpu_case(b, p, ++seed);
    SCOPED_TRACE(fmt::format("{} on {} seed={} regime={} h0={} dh_last={}", b.name, to_string(c.shape), seed,
                             to_string(p.regime), p.with_h0, p.with_dh_last));
    const Outputs device = run_backend(b, c, Executor::cuda);
    const Outputs host = run_backend(b, c, Executor::host);
    expect_close(device, host, twin_tol, "host");
    ReferenceOptions options;
    options.bounds = false;
    expect_close(device, compute_reference(c, options).values, ref_tol, "reference");
    // The device is deterministic too: a second run gives the same bits.
    const Outputs again = run_backend(b, c, Executor::cuda);
    for (const auto& [name, t] : device) EXPECT_EQ(t.values(), again.at(name).values()) << name;
  }
}

// A few backends: both architectures, both dtypes, each schedule kind.
INSTANTIATE_TEST_SUITE_P(Selected, ScanBackendGpu,
                         testing::Values("scan/sequential@fp32", "scan/grouped_prefix32_hierarchical_chunk16@fp32",
                                         "scan/chunk64@bf16", "complex_scan/chunk16@fp32",
                                         "complex_scan/grouped_prefix64_hierarchical_chunk32@fp32",
                                         "complex_scan/grouped_prefix32_hierarchical_chunk16@bf16"),
                         [](const testing::TestParamInfo<std::string>& info) {
                           std::string s = info.param;
                           for (char& ch : s)
                             if (ch == '/' || ch == '@') ch = '_';
                           return s;
                         });

}  // namespace
