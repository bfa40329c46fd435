// SPDX-License-Identifier: Apache-2.0
#include "backends/cuda/device.hpp"

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>

namespace scancheck::cuda {
namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

__global__ void bf16_round_kernel(const float* in, std::uint16_t* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __bfloat16_as_ushort(__float2bfloat16_rn(in[i]));
}

//! Under `ctest -j` with resource groups (tests/CMakeLists.txt, ci/gpu-check.sh) each GPU test is handed its
//! GPU in CTEST_RESOURCE_GROUP_0_GPUS ("id:2,slots:1", ids as nvidia-smi numbers them): the process then
//! sees that device only, as device 0. Done before the runtime starts, which is why it lives here: every
//! GPU test asks device_status() first whether it can run.
void adopt_ctest_gpu() {
  const char* group = std::getenv("CTEST_RESOURCE_GROUP_0_GPUS");
  int id = -1;
  if (group && std::sscanf(group, "id:%d", &id) == 1 && id >= 0)
    setenv("CUDA_VISIBLE_DEVICES", std::to_string(id).c_str(), 1);
}

}  // namespace

DeviceStatus device_status() {
  static std::once_flag adopted;
  std::call_once(adopted, adopt_ctest_gpu);
  DeviceStatus s;
  const cudaError_t e = cudaGetDeviceCount(&s.count);
  if (e != cudaSuccess) {
    s.count = 0;
    s.reason = cudaGetErrorString(e);
    cudaGetLastError();  // clear the error so later calls report their own
    return s;
  }
  if (s.count == 0) {
    s.reason = "no CUDA device";
    return s;
  }
  int current = 0;
  cudaGetDevice(&current);
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, current) == cudaSuccess) s.name = prop.name;
  return s;
}

std::vector<std::uint16_t> bf16_bits_on_device(const std::vector<float>& values) {
  const int n = static_cast<int>(values.size());
  std::vector<std::uint16_t> out(values.size());
  float* d_in = nullptr;
  std::uint16_t* d_out = nullptr;
  check(cudaMalloc(&d_in, n * sizeof(float)), "cudaMalloc");
  check(cudaMalloc(&d_out, n * sizeof(std::uint16_t)), "cudaMalloc");
  check(cudaMemcpy(d_in, values.data(), n * sizeof(float), cudaMemcpyHostToDevice), "copy to device");
  bf16_round_kernel<<<(n + 255) / 256, 256>>>(d_in, d_out, n);
  check(cudaGetLastError(), "launch of bf16_round_kernel");
  check(cudaDeviceSynchronize(), "bf16_round_kernel");
  check(cudaMemcpy(out.data(), d_out, n * sizeof(std::uint16_t), cudaMemcpyDeviceToHost), "copy to host");
  cudaFree(d_in);
  cudaFree(d_out);
  return out;
}

}  // namespace scancheck::cuda
