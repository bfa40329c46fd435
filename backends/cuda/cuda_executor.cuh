// SPDX-License-Identifier: Apache-2.0
//! @file
//! The `cuda` executor: launches a program body as a real CUDA kernel, one thread per program (blocks of
//! 256, x fastest so neighbouring channels coalesce). Every CUDA call and launch is checked; a failure
//! throws CudaError with the call and the runtime's message, which the backend layer prefixes with the
//! backend and shape. Launches go to the default stream; synchronize() surfaces kernel faults.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "backends/gemm.hpp"
#include "backends/kernels/program.hpp"
#include "backends/output_guard.hpp"

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

inline void cublas_check(cublasStatus_t status, const std::string& what) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    const std::string kind = status == CUBLAS_STATUS_ALLOC_FAILED ? "out of device memory" : cublasGetStatusString(status);
    throw CudaError(what + ": " + kind);
  }
}

template <class Body>
__global__ void program_kernel(Body body, kernels::Grid grid) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < grid.size()) body(grid.at(i));
}

class CudaExecutor {
 public:
  static constexpr const char* name = "cuda";
  static constexpr int lanes = 1;  //!< one thread per channel
  static constexpr int threads_per_block = 256;

  CudaExecutor() = default;
  CudaExecutor(const CudaExecutor&) = delete;
  CudaExecutor& operator=(const CudaExecutor&) = delete;
  ~CudaExecutor() {
    if (cublas_) cublasDestroy(cublas_);
    for (void* p : allocations_) cudaFree(p);
  }

  //! StridedBatchedGemm through cuBLAS. Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T,
  //! and a row-major X read column-major is X^T, so the operands swap and keep their own transposition.
  void gemm(const std::string& name, const StridedBatchedGemm& g) {
    if (!cublas_) {
      cublas_check(cublasCreate(&cublas_), "cublasCreate");
      cublas_check(cublasSetMathMode(cublas_, CUBLAS_PEDANTIC_MATH), "cublasSetMathMode");
    }
    const float one = 1.0f;
    const auto op = [](const MatrixView& x) { return x.transposed ? CUBLAS_OP_T : CUBLAS_OP_N; };
    cublas_check(cublasSgemmStridedBatched(cublas_, op(g.b), op(g.a), static_cast<int>(g.n), static_cast<int>(g.m),
                                           static_cast<int>(g.k), &one, g.b.data, static_cast<int>(g.b.ld),
                                           g.b.stride, g.a.data, static_cast<int>(g.a.ld), g.a.stride, &g.beta, g.c,
                                           static_cast<int>(g.ldc), g.stride_c, static_cast<int>(g.batch)),
                 "cuBLAS " + name);
  }

  template <class Body>
  void launch(const std::string& kernel, kernels::Grid grid, const Body& body) {
    const std::int64_t blocks = (grid.size() + threads_per_block - 1) / threads_per_block;
    if (blocks == 0) return;
    program_kernel<<<static_cast<unsigned>(blocks), threads_per_block>>>(body, grid);
    cuda_check(cudaGetLastError(), "launch of " + kernel);
  }

  //! Device memory that lives as long as the executor. After rewind(mark), requests are served again
  //! from the allocations made since `mark`, in order, so timed repetitions allocate nothing.
  template <class T>
  T* scratch(std::int64_t n) {
    const std::size_t bytes = static_cast<std::size_t>(n > 0 ? n : 1) * sizeof(T);
    if (next_ < allocations_.size() && sizes_[next_] >= bytes) return static_cast<T*>(allocations_[next_++]);
    void* p = nullptr;
    cuda_check(cudaMalloc(&p, bytes), "cudaMalloc of " + std::to_string(bytes) + " bytes");
    allocations_.insert(allocations_.begin() + static_cast<std::ptrdiff_t>(next_), p);
    sizes_.insert(sizes_.begin() + static_cast<std::ptrdiff_t>(next_), bytes);
    ++next_;
    return static_cast<T*>(p);
  }
  std::size_t mark() const { return next_; }
  void rewind(std::size_t mark) { next_ = mark; }

  template <class T>
  const T* upload(const float* values, std::int64_t n) {
    std::vector<T> host(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) kernels::store<T>(host.data(), i, values[i]);
    T* p = scratch<T>(n);
    cuda_check(cudaMemcpy(p, host.data(), n * sizeof(T), cudaMemcpyHostToDevice), "copy to device");
    return p;
  }

  //! Host values as they are (integers such as segment_pos).
  template <class T>
  const T* copy_in(const T* values, std::int64_t n) {
    T* p = scratch<T>(n);
    cuda_check(cudaMemcpy(p, values, n * sizeof(T), cudaMemcpyHostToDevice), "copy to device");
    return p;
  }

  template <class T>
  T* output(std::int64_t n) {
    const std::vector<T> image = poisoned_image<T>(n);
    T* p = scratch<T>(static_cast<std::int64_t>(image.size()));
    cuda_check(cudaMemcpy(p, image.data(), image.size() * sizeof(T), cudaMemcpyHostToDevice), "copy to device");
    return p + guard_elements;
  }

  template <class T>
  void download(const T* p, std::int64_t n, float* out, const std::string& what) {
    std::vector<T> image(static_cast<std::size_t>(n + 2 * guard_elements));
    cuda_check(cudaMemcpy(image.data(), p - guard_elements, image.size() * sizeof(T), cudaMemcpyDeviceToHost),
               "copy of " + what + " to host");
    unpack_image(image, n, out, what);
  }

  void synchronize() { cuda_check(cudaDeviceSynchronize(), "kernel execution"); }

 private:
  cublasHandle_t cublas_ = nullptr;
  std::vector<void*> allocations_;
  std::vector<std::size_t> sizes_;
  std::size_t next_ = 0;
};

}  // namespace scancheck::backends
