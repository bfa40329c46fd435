// SPDX-License-Identifier: Apache-2.0
#include "backends/cuda/cuda_executor.cuh"
#include "backends/gla_run.hpp"

namespace scancheck::backends {

void run_gla_cuda(const GlaArrays& io) {
  CudaExecutor ex;
  run_gla(ex, io);
}

}  // namespace scancheck::backends
