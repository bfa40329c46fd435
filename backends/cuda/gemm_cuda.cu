// SPDX-License-Identifier: Apache-2.0
#include "backends/cuda/gemm_cuda.hpp"

#include "backends/cuda/cuda_executor.cuh"

namespace scancheck::backends {

void gemm_cuda(const StridedBatchedGemm& g, std::int64_t a_size, std::int64_t b_size, std::int64_t c_size) {
  CudaExecutor ex;
  StridedBatchedGemm d = g;
  d.a.data = ex.upload<float>(g.a.data, a_size);
  d.b.data = ex.upload<float>(g.b.data, b_size);
  d.c = ex.scratch<float>(c_size);
  cuda_check(cudaMemcpy(d.c, g.c, c_size * sizeof(float), cudaMemcpyHostToDevice), "copy to device");
  ex.gemm("test gemm", d);
  ex.synchronize();
  cuda_check(cudaMemcpy(g.c, d.c, c_size * sizeof(float), cudaMemcpyDeviceToHost), "copy to host");
}

}  // namespace scancheck::backends
