// SPDX-License-Identifier: Apache-2.0
//! @file
//! The error every CUDA runtime or cuBLAS failure becomes: the call and the runtime's message ("out of
//! device memory" for allocation failures). The backend layer prefixes it with the backend and shape.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace scancheck::backends {

struct CudaError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline void cuda_check(cudaError_t e, const std::string& what) {
  if (e != cudaSuccess) {
    const std::string kind = e == cudaErrorMemoryAllocation ? "out of device memory" : cudaGetErrorString(e);
    throw CudaError(what + ": " + kind);
  }
}

}  // namespace scancheck::backends
