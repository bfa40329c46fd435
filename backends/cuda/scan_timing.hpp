// SPDX-License-Identifier: Apache-2.0
//! @file
//! Device timings of a scan backend (CUDA events around the forward and around the backward launches, on
//! device-resident data, after warm-up runs), and the device's copy rate, for the timing programs
//! (tests/bench/*_gpu_timing).
#pragma once

#include <cstdint>
#include <vector>

#include "backends/scan_run.hpp"

namespace scancheck::backends {

struct PhaseTiming {
  double median_ms = 0, min_ms = 0, max_ms = 0;
};

struct ScanTiming {
  PhaseTiming forward, backward;
  double forward_bytes = 0;   //!< bytes the forward must move: read a, b; write h (io) and h_last
  double backward_bytes = 0;  //!< read a, dh, h; write da, db (io), dh0
};

//! Times `repeats` runs after `warmup` runs. `io` supplies the inputs (outputs are not copied back).
ScanTiming time_scan_cuda(const ScanArrays& io, const kernels::Schedule& schedule, int warmup, int repeats);

//! Device-to-device cudaMemcpy rate in bytes per second (read + write counted), median of repeats.
double device_copy_rate(std::int64_t bytes, int repeats);

}  // namespace scancheck::backends
