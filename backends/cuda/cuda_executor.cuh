// SPDX-License-Identifier: Apache-2.0
//! @file
//! The `cuda` executor: launches a program body as a real CUDA kernel, one thread per program (blocks of
//! 256, x fastest so neighbouring channels coalesce). Every CUDA call and launch is checked; a failure
//! throws CudaError with the call and the runtime's message, which the backend layer prefixes with the
//! backend and shape. Launches go to the default stream; synchronize() surfaces kernel faults.
//!
//! Per-launch device timing (opt in, for the timing executables): after record_launches(&sink), every
//! launch and gemm is bracketed by a pair of CUDA events on the default stream and appends a LaunchTiming
//! to `sink`; resolve_launch_times() turns the pairs into milliseconds once the device is done. Event pairs
//! come from a pool owned by the executor: each record_launches(&sink) call hands them out again from the
//! first, so repetitions create no events after the first run (resolve a run's records before the next
//! record_launches call reuses its events). Without a recorder nothing changes: no event, no record.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "backends/cuda/cublas_library.hpp"
#include "backends/cuda/cuda_error.hpp"
#include "backends/gemm.hpp"
#include "backends/kernels/program.hpp"
#include "backends/output_guard.hpp"

namespace scancheck::backends {

inline void cublas_check(cublasStatus_t status, const std::string& what) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    const std::string kind =
        status == CUBLAS_STATUS_ALLOC_FAILED ? "out of device memory" : cublas_library().status_string(status);
    throw CudaError(what + ": " + kind);
  }
}

//! One launch or GEMM recorded by CudaExecutor::record_launches.
struct LaunchTiming {
  enum class Kind { kernel, gemm };
  std::string name;  //!< the name given to launch() or gemm()
  Kind kind = Kind::kernel;
  cudaEvent_t start{}, stop{};  //!< owned by the executor's pool
  double ms = 0;                //!< device time between the events, set by resolve_launch_times
};

//! Waits for each record's stop event and sets its `ms`.
inline void resolve_launch_times(std::vector<LaunchTiming>& records) {
  for (LaunchTiming& r : records) {
    cuda_check(cudaEventSynchronize(r.stop), "kernel execution");
    float ms = 0;
    cuda_check(cudaEventElapsedTime(&ms, r.start, r.stop), "cudaEventElapsedTime of " + r.name);
    r.ms = ms;
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
    if (cublas_) cublas_library().destroy(cublas_);
    for (void* p : allocations_) cudaFree(p);
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
  }

  //! Appends a LaunchTiming to `*sink` for every later launch and gemm (nullptr: stop recording), reusing
  //! the pool's event pairs from the first; see the file comment.
  void record_launches(std::vector<LaunchTiming>* sink) {
    sink_ = sink;
    next_event_ = 0;
  }

  //! StridedBatchedGemm through cuBLAS. Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T,
  //! and a row-major X read column-major is X^T, so the operands swap and keep their own transposition.
  void gemm(const std::string& name, const StridedBatchedGemm& g) {
    if (!cublas_) {
      cublas_check(cublas_library().create(&cublas_), "cublasCreate");
      cublas_check(cublas_library().set_math_mode(cublas_, CUBLAS_PEDANTIC_MATH), "cublasSetMathMode");
    }
    const float one = 1.0f;
    const auto op = [](const MatrixView& x) { return x.transposed ? CUBLAS_OP_T : CUBLAS_OP_N; };
    start_record(name, LaunchTiming::Kind::gemm);
    cublas_check(cublas_library().sgemm_strided_batched(
                     cublas_, op(g.b), op(g.a), static_cast<int>(g.n), static_cast<int>(g.m), static_cast<int>(g.k),
                     &one, g.b.data, static_cast<int>(g.b.ld), g.b.stride, g.a.data, static_cast<int>(g.a.ld),
                     g.a.stride, &g.beta, g.c, static_cast<int>(g.ldc), g.stride_c, static_cast<int>(g.batch)),
                 "cuBLAS " + name);
    stop_record();
  }

  template <class Body>
  void launch(const std::string& kernel, kernels::Grid grid, const Body& body) {
    const std::int64_t blocks = (grid.size() + threads_per_block - 1) / threads_per_block;
    if (blocks == 0) return;
    start_record(kernel, LaunchTiming::Kind::kernel);
    program_kernel<<<static_cast<unsigned>(blocks), threads_per_block>>>(body, grid);
    cuda_check(cudaGetLastError(), "launch of " + kernel);
    stop_record();
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
  //! When recording: takes the pool's next event pair (creating it on first use) and records its start.
  void start_record(const std::string& name, LaunchTiming::Kind kind) {
    if (!sink_) return;
    const std::size_t at = next_event_;
    next_event_ += 2;
    while (events_.size() < next_event_) {
      cudaEvent_t e{};
      cuda_check(cudaEventCreate(&e), "cudaEventCreate");
      events_.push_back(e);
    }
    pending_ = LaunchTiming{name, kind, events_[at], events_[at + 1], 0};
    cuda_check(cudaEventRecord(pending_.start), "cudaEventRecord");
  }
  //! When recording: records the stop event after the launch and appends the record.
  void stop_record() {
    if (!sink_) return;
    cuda_check(cudaEventRecord(pending_.stop), "cudaEventRecord");
    sink_->push_back(std::move(pending_));
  }

  cublasHandle_t cublas_ = nullptr;
  std::vector<void*> allocations_;
  std::vector<std::size_t> sizes_;
  std::size_t next_ = 0;
  std::vector<LaunchTiming>* sink_ = nullptr;
  std::vector<cudaEvent_t> events_;  //!< the recorder's pool: pairs (start, stop)
  std::size_t next_event_ = 0;
  LaunchTiming pending_;
};

}  // namespace scancheck::backends
