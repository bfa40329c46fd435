// SPDX-License-Identifier: Apache-2.0
//! @file
//! The cuda executor of a few scan backends (recurrences.md §1) against their host twin and against the
//! float128 reference. Built only with SCANCHECK_HAVE_CUDA; every test skips, never passes, when
//! scancheck::cuda::device_status() finds no device.
//!
//! Reference: every cuda run is judged under the tolerance policy (docs/tolerance.md) against the float128
//! reference with its error bounds and the host `sequential` baseline, as the host suite judges the host
//! executor (backend_test_support.hpp).
//! Twin tolerance (expect_twin_close): the program bodies are the same, so the two executors differ only
//! where the hardware does (nvcc contracts a*b + c into FMAs by default; the host build uses
//! -ffp-contract=off). Per output tensor, max |cuda - host| / max |host| <= 1e-5 for fp32 io, and <= 1e-2
//! for bf16 io (a bf16 output may round the other way after such a difference: one bf16 ulp is 2^-8
//! relative to the element).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "backends/backend.hpp"
#include "backends/cuda/device.hpp"
#include "core/architectures.hpp"
#include "core/error.hpp"
#include "core/generate.hpp"
#include "properties/differential.hpp"
#include "reference/reference.hpp"
#include "tests/backends/backend_test_support.hpp"

#if !SCANCHECK_HAVE_CUDA
#error "scan_backend_gpu_test is built only with the CUDA executor (SCANCHECK_HAVE_CUDA)"
#endif

namespace {

using namespace scancheck;
using namespace scancheck::backend_test;

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
  const std::int64_t c = std::max<std::int64_t>(b.builtin->schedule.chunk, 16),
                     gc = std::max<std::int64_t>(b.builtin->schedule.group, 1) * c;
  const std::int64_t narrow = describe(b.architecture).complex ? 10 : 6,
                     wide = describe(b.architecture).complex ? 602 : 301;
  return {{1, narrow, Regime::default_, true, true},     {c + 1, narrow, Regime::long_memory, false, false},
          {gc + 1, narrow, Regime::resets, true, false}, {3 * gc + 5, narrow, Regime::extreme, false, true},
          {c * 5 + 3, wide, Regime::clip, true, true},   {1000, wide, Regime::default_, true, true}};
}

CaseRequest gpu_request(const BackendInfo& b, const GpuPoint& p, std::uint64_t seed) {
  CaseRequest r;
  r.architecture = b.architecture;
  r.shape = {2, p.length, p.width, 1};
  r.seed = seed;
  r.regime = p.regime;
  r.io_dtype = b.io_dtype;
  r.with_h0 = p.with_h0;
  r.with_dh_last = p.with_dh_last;
  return r;
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
  std::uint64_t seed = 500;
  for (const GpuPoint& p : gpu_points(b)) {
    const CaseRequest r = gpu_request(b, p, ++seed);
    const Case c = make_case(r);
    SCOPED_TRACE(fmt::format("{} on {} seed={} regime={} h0={} dh_last={}", b.name, to_string(c.shape), seed,
                             to_string(p.regime), p.with_h0, p.with_dh_last));
    const Outputs device = run_backend(b, c, Executor::cuda);
    const Outputs host = run_backend(b, c, Executor::host);
    expect_twin_close(device, host, twin_tol);
    // Every core of the device machine: the long and wide cases are the largest references of the suites.
    const ReferenceResult reference = reference_with_bounds(c, 0);
    const CorrectOrders orders = correct_orders(c);
    expect_passes_policy(b.name, c, device, reference, orders,
                         fmt::format("{}\nrepro: {}", describe_case(c), repro_line(r, b.name, Executor::cuda)));
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
                         test_name);

}  // namespace
