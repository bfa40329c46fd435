// SPDX-License-Identifier: Apache-2.0
#include "backends/cuda/cuda_executor.cuh"
#include "backends/gla_run.hpp"

namespace scancheck::backends {

void run_gla_cuda(const GlaArrays& io, const GlaSchedule& schedule) {
  CudaExecutor ex;
  run_gla(ex, io, schedule);
}

}  // namespace scancheck::backends
