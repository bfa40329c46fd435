// SPDX-License-Identifier: Apache-2.0
#include "backends/cuda/cuda_executor.cuh"
#include "backends/gated_run.hpp"

namespace scancheck::backends {

void run_gated_cuda(const GatedArrays& io, const VariantFlags& flags, const kernels::Schedule& schedule) {
  CudaExecutor ex;
  run_gated(ex, io, flags, schedule);
}

}  // namespace scancheck::backends
