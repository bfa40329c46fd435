// SPDX-License-Identifier: Apache-2.0
//! @file
//! Device timings of every scan backend at the production seed shapes, run by hand on a GPU machine: CUDA
//! events, median (and range) of 20 warmed runs, forward and backward apart, and the bytes each phase must move
//! as a fraction of the device's measured copy rate. Prints a Markdown table. Exit 77 without a device.
#include <cstdio>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "backends/case_arrays.hpp"
#include "backends/cuda/device.hpp"
#include "backends/cuda/scan_timing.hpp"
#include "core/architectures.hpp"
#include "core/generate.hpp"

using namespace scancheck;

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::stoi(argv[1]) : 20;
  const auto status = cuda::device_status();
  if (status.count == 0) {
    std::printf("SKIP: no CUDA device (%s)\n", status.reason.c_str());
    return 77;
  }
  const double copy_rate = backends::device_copy_rate(std::int64_t{1} << 30, 10);
  std::printf("Device: %s. Device-to-device copy rate: %.0f GB/s (read + write, 1 GiB, median of 10).\n\n",
              status.name.c_str(), copy_rate / 1e9);
  std::printf(
      "| backend | shape (B, L, W) | forward ms (median [min, max]) | backward ms | forward %% of copy rate "
      "| backward %% of copy rate |\n|---|---|---|---|---|---|\n");
  const std::vector<Shape> shapes = {{4, 2048, 2048, 1}, {1, 8192, 2560, 1}, {1, 32768, 1024, 1}, {1, 32768, 2048, 1}};
  for (const Shape& shape : shapes) {
    for (Architecture arch : {Architecture::scan, Architecture::complex_scan}) {
      for (DType dtype : {DType::float32, DType::bfloat16}) {
        CaseRequest r;
        r.architecture = arch;
        r.shape = shape;
        r.seed = 1;
        r.io_dtype = dtype;
        const Case c = make_case(r);
        const backends::ScanArrays io = backends::scan_arrays(c, nullptr);
        for (const BackendInfo& b : registry()) {
          if (b.architecture != arch || b.io_dtype != dtype) continue;
          const auto t = backends::time_scan_cuda(io, b.builtin->schedule, 3, repeats);
          const auto pct = [&](double bytes, double ms) { return 100.0 * bytes / (ms * 1e-3) / copy_rate; };
          std::printf("| %s | (%lld, %lld, %lld) | %.3f [%.3f, %.3f] | %.3f [%.3f, %.3f] | %.0f%% | %.0f%% |\n",
                      b.name.c_str(), static_cast<long long>(shape.batch), static_cast<long long>(shape.length),
                      static_cast<long long>(shape.width), t.forward.median_ms, t.forward.min_ms, t.forward.max_ms,
                      t.backward.median_ms, t.backward.min_ms, t.backward.max_ms,
                      pct(t.forward_bytes, t.forward.median_ms), pct(t.backward_bytes, t.backward.median_ms));
          std::fflush(stdout);
        }
      }
    }
  }
  return 0;
}
