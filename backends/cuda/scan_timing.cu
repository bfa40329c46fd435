// SPDX-License-Identifier: Apache-2.0
#include "backends/cuda/scan_timing.hpp"

#include <algorithm>

#include "backends/cuda/cuda_executor.cuh"

namespace scancheck::backends {
namespace {

class EventPair {
 public:
  EventPair() {
    cuda_check(cudaEventCreate(&start_), "cudaEventCreate");
    cuda_check(cudaEventCreate(&stop_), "cudaEventCreate");
  }
  ~EventPair() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  void start() { cuda_check(cudaEventRecord(start_), "cudaEventRecord"); }
  void stop() { cuda_check(cudaEventRecord(stop_), "cudaEventRecord"); }
  double elapsed_ms() {
    cuda_check(cudaEventSynchronize(stop_), "kernel execution");
    float ms = 0;
    cuda_check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    return ms;
  }

 private:
  cudaEvent_t start_{}, stop_{};
};

PhaseTiming summarize(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  return {ms[ms.size() / 2], ms.front(), ms.back()};
}

template <class F, class IO>
ScanTiming time_typed(const ScanArrays& io, const kernels::Schedule& schedule, int warmup, int repeats) {
  CudaExecutor ex;
  const auto on = ScanOnExecutor<F, IO>::upload(ex, io);
  const std::size_t mark = ex.mark();
  EventPair fw, bw;
  std::vector<double> fw_ms, bw_ms;
  for (int r = 0; r < warmup + repeats; ++r) {
    ex.rewind(mark);  // the schedule's scratch buffers are reused, not allocated again
    fw.start();
    kernels::run_affine_scan(ex, on.forward, schedule);
    fw.stop();
    bw.start();
    kernels::run_affine_scan(ex, on.backward, schedule);
    bw.stop();
    const double f = fw.elapsed_ms(), w = bw.elapsed_ms();
    if (r >= warmup) {
      fw_ms.push_back(f);
      bw_ms.push_back(w);
    }
  }
  ScanTiming t;
  t.forward = summarize(fw_ms);
  t.backward = summarize(bw_ms);
  const kernels::ScanGeometry& g = io.geometry;
  const double act = static_cast<double>(g.batch * g.length * g.width) * sizeof(IO);
  const double state = static_cast<double>(g.batch * g.width) * sizeof(float);
  t.forward_bytes = 3 * act + state * (io.h0 ? 2 : 1);
  t.backward_bytes = 5 * act + state * ((io.dh_last ? 1 : 0) + (io.h0 ? 1 : 0) + 1);
  return t;
}

}  // namespace

ScanTiming time_scan_cuda(const ScanArrays& io, const kernels::Schedule& schedule, int warmup, int repeats) {
  return with_scan_types(io, [&](auto field, auto storage) {
    return time_typed<decltype(field), decltype(storage)>(io, schedule, warmup, repeats);
  });
}

double device_copy_rate(std::int64_t bytes, int repeats) {
  CudaExecutor ex;
  char* src = ex.scratch<char>(bytes);
  char* dst = ex.scratch<char>(bytes);
  cuda_check(cudaMemset(src, 1, bytes), "cudaMemset");
  EventPair ev;
  std::vector<double> ms;
  for (int r = 0; r < repeats + 2; ++r) {
    ev.start();
    cuda_check(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice), "cudaMemcpy device to device");
    ev.stop();
    const double t = ev.elapsed_ms();
    if (r >= 2) ms.push_back(t);
  }
  return 2.0 * static_cast<double>(bytes) / (summarize(ms).median_ms * 1e-3);
}

}  // namespace scancheck::backends
