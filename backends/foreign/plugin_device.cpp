// SPDX-License-Identifier: Apache-2.0
#include "backends/foreign/plugin_device.hpp"

#include <stdexcept>
#include <string>

#if SCANCHECK_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace scancheck::foreign::plugin_device {

#if SCANCHECK_HAVE_CUDA

namespace {

void check(cudaError_t e, const char* call) {
  if (e == cudaSuccess) return;
  const std::string why = e == cudaErrorMemoryAllocation ? "out of device memory" : cudaGetErrorString(e);
  throw std::runtime_error(std::string(call) + ": " + why);
}

}  // namespace

bool available() { return true; }

int current_device() {
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  return device;
}

Memory::Memory(std::size_t bytes) { check(cudaMalloc(&ptr_, bytes), "cudaMalloc"); }
Memory::~Memory() { cudaFree(ptr_); }

void copy_to_device(void* device, const void* host, std::size_t bytes) {
  check(cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice), "cudaMemcpy to the device");
}
void copy_to_host(void* host, const void* device, std::size_t bytes) {
  check(cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy to the host");
}

Stream::Stream() {
  cudaStream_t s = nullptr;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
  stream_ = s;
}
Stream::~Stream() { cudaStreamDestroy(static_cast<cudaStream_t>(stream_)); }

void Stream::synchronize() {
  check(cudaStreamSynchronize(static_cast<cudaStream_t>(stream_)), "cudaStreamSynchronize after the run");
  check(cudaGetLastError(), "a CUDA error left by the run");
}

#else

namespace {
[[noreturn]] void unavailable() { throw std::runtime_error("this scancheck has no CUDA executor"); }
}  // namespace

bool available() { return false; }
int current_device() { unavailable(); }
Memory::Memory(std::size_t) { unavailable(); }
Memory::~Memory() = default;
void copy_to_device(void*, const void*, std::size_t) { unavailable(); }
void copy_to_host(void*, const void*, std::size_t) { unavailable(); }
Stream::Stream() { unavailable(); }
Stream::~Stream() = default;
void Stream::synchronize() { unavailable(); }

#endif

}  // namespace scancheck::foreign::plugin_device
