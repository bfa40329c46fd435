// SPDX-License-Identifier: Apache-2.0
#include "backends/cuda/cuda_executor.cuh"
#include "backends/scan_run.hpp"

namespace scancheck::backends {

void run_scan_cuda(const ScanArrays& io, const kernels::Schedule& schedule) {
  CudaExecutor ex;
  run_scan(ex, io, schedule);
}

}  // namespace scancheck::backends
