// SPDX-License-Identifier: Apache-2.0
//! @file
//! The cuda executor of a selection of gated backends (recurrences.md §2 `rglru`, §3 `complex_rglru`,
//! forward and backward) against their host twin and against the float128 reference. Built only with
//! SCANCHECK_HAVE_CUDA; every test skips, never passes, when scancheck::cuda::device_status() finds no
//! device. The host suite (gated_backend_test) sweeps every variant's algorithm; this one checks what only
//! the hardware can: cuBLAS, the device's special functions, FMA contraction, and memory.
//!
//! Selection: the three production names in fp32 and bf16; complex_rglru unfused (split and merge kernels,
//! materialised at, u, g) and fused (gates inside the scan kernels) without fused_output; rglru sequential.
//! Cases: B = 2, two heads, W = 64 and 128, L = 1 (degenerate) and around 70 (several chunks of 16 and
//! 32, a partial last chunk; one group of the hierarchical schedules), regimes default, resets and
//! long_memory, h0 / dh_last present and absent, both sqrt-gradient conventions.
//!
//! Judgements:
//!   reference            every cuda run under the tolerance policy (docs/tolerance.md) against the float128
//!                        reference with its error bounds and the host `sequential` baseline, as the host
//!                        suite judges the host executor (backend_test_support.hpp);
//!   twin (cuda vs host)  per output tensor, max |cuda - host| / max |host| (expect_twin_close), NaN
//!                        failing, within kTwinFp32, kTwinBf16 below, each with its reason;
//!   determinism          a second cuda run gives the same bits.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "backends/backend.hpp"
#include "backends/cuda/device.hpp"
#include "core/generate.hpp"
#include "reference/reference.hpp"
#include "tests/backends/backend_test_support.hpp"

#if !SCANCHECK_HAVE_CUDA
#error "gated_backend_gpu_test is built only with the CUDA executor (SCANCHECK_HAVE_CUDA)"
#endif

namespace {

using namespace scancheck;
using namespace scancheck::backend_test;

// why 1e-4 and not the scan suite's 1e-5: the gate projections zx, za come from cuBLAS on the device and
// from Eigen on the host, which sum the K_in products in different orders (and cuBLAS with FMAs), so the
// twins' pre-activations differ by a few float32 ulps before any kernel runs; the gates, the scan and the
// weight gradients (sums over N = B L rows) carry and amplify that, and the parameter gradients are
// column sums with cancellation. Relative to the tensor's max this stays well under 1e-4: a wrong kernel is
// O(1) off (and the policy judges each element of the cuda run against its own bound besides).
constexpr double kTwinFp32 = 1e-4;
// why 3e-2: with bf16 io, y and dx are rounded to bf16 (one ulp is 2^-8 = 3.9e-3 of the element), and a
// float32 difference as above can round an element the other way; the backward then reads that y as
// h_{t-1} (without fused_write), so a one-ulp flip moves the gradients by a bf16 ulp's worth of the
// product too.
constexpr double kTwinBf16 = 3e-2;

struct Point {
  std::int64_t length, width;
  Regime regime;
  bool with_h0, with_dh_last;
  SqrtGradient sqrt_gradient;
  friend auto operator<=>(const Point&, const Point&) = default;
};

//! Degenerate first (one step), then lengths that cross the chunk boundaries of C = 16 and 32 with a
//! partial last chunk (70 = 4 * 16 + 6 = 2 * 32 + 6; 67, 71 likewise), the wider W = 128 for more
//! channels per head, and a reset regime (decays zeroed mid-sequence).
const std::vector<Point>& points() {
  static const std::vector<Point> all{
      {1, 64, Regime::default_, true, true, SqrtGradient::bounded},
      {70, 64, Regime::default_, true, true, SqrtGradient::bounded},
      {67, 128, Regime::resets, false, true, SqrtGradient::exact},
      {71, 128, Regime::long_memory, true, false, SqrtGradient::bounded},
  };
  return all;
}

CaseRequest request_of(Architecture arch, DType dtype, const Point& p) {
  CaseRequest r;
  r.architecture = arch;
  r.shape = {2, p.length, p.width, 2};
  r.seed = 9000 + 16 * static_cast<std::uint64_t>(p.length) + static_cast<std::uint64_t>(p.width);
  r.regime = p.regime;
  r.io_dtype = dtype;
  r.sqrt_gradient = p.sqrt_gradient;
  r.with_h0 = p.with_h0;
  r.with_dh_last = p.with_dh_last;
  return r;
}

//! Cases, their references (with bounds) and the host sequential baseline's outputs, shared by the
//! backends of one architecture and dtype.
using Key = std::tuple<Architecture, DType, Point>;
CaseRequest request_of_key(const Key& k) { return request_of(std::get<0>(k), std::get<1>(k), std::get<2>(k)); }
CaseCache<Key>& cache() {
  static CaseCache<Key> cases(request_of_key);
  return cases;
}

class GatedBackendGpu : public testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const auto status = cuda::device_status();
    if (status.count == 0) GTEST_SKIP() << "no CUDA device: " << status.reason;
  }
};

TEST_P(GatedBackendGpu, CudaMatchesHostTwinAndReference) {
  const BackendInfo& b = find_backend(GetParam());
  const double twin_tol = b.io_dtype == DType::float32 ? kTwinFp32 : kTwinBf16;
  for (const Point& p : points()) {
    const Key k{b.architecture, b.io_dtype, p};
    const Case& c = cache().case_of(k);
    const CaseRequest r = request_of_key(k);
    SCOPED_TRACE(fmt::format("{} on {} seed={} regime={} h0={} dh_last={} sqrt_gradient={}", b.name, to_string(r.shape),
                             r.seed, to_string(p.regime), p.with_h0, p.with_dh_last, to_string(p.sqrt_gradient)));
    const Outputs device = run_backend(b, c, Executor::cuda);
    const Outputs host = run_backend(b, c, Executor::host);
    expect_twin_close(device, host, twin_tol);
    cache().expect_passes(k, b, device, Executor::cuda);
    // The device is deterministic too (cuBLAS on one device, fixed-order reductions): the same bits again.
    expect_bitwise_equal(run_backend(b, c, Executor::cuda), device);
    if (testing::Test::HasFailure()) return;  // one failing case says enough
  }
}

INSTANTIATE_TEST_SUITE_P(
    Selected, GatedBackendGpu,
    testing::Values("rglru/fused_grouped_prefix32_hierarchical_chunk16@fp32",
                    "rglru/fused_grouped_prefix32_hierarchical_chunk16@bf16",
                    "complex_rglru/fused_output_fused_write_shared_sfu_chunk32@fp32",
                    "complex_rglru/fused_output_fused_write_shared_sfu_chunk32@bf16",
                    "complex_rglru/fused_output_fused_write_shared_sfu_grouped_prefix64_hierarchical_chunk32@fp32",
                    "complex_rglru/fused_output_fused_write_shared_sfu_grouped_prefix64_hierarchical_chunk32@bf16",
                    "complex_rglru/chunk16@fp32",                                      // unfused
                    "complex_rglru/fused_grouped_prefix32_hierarchical_chunk16@bf16",  // fused
                    "rglru/sequential@fp32"),
    test_name);

}  // namespace
