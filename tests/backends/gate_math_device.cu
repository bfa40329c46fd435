// SPDX-License-Identifier: Apache-2.0
//! @file
//! reference/gate_math.hpp compiled for the device: the gate terms of n elements computed by a kernel,
//! for gate_math_gpu_test.cpp. Also proves in every CUDA build that the shared formulas compile for sm_90.
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "backends/kernels/numeric.hpp"
#include "reference/gate_math.hpp"
#include "tests/backends/gate_math_device.hpp"

namespace scancheck::test {
namespace {

__global__ void gate_terms_kernel(GateMathInputs in, float* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= in.n) return;
  const auto g = ref::gate_terms<float, kernels::cfloat>(in.zx[i], in.za[i], in.s[i], &in.imag[i], in.reset[i] != 0);
  float* o = out + i * gate_math_outputs;
  const float values[gate_math_outputs] = {g.gx, g.ga, g.gx_minus, g.ga_minus, g.log_a, g.r, g.q, g.m, g.a.re, g.a.im};
  for (int k = 0; k < gate_math_outputs; ++k) o[k] = values[k];
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

template <class T>
T* to_device(const T* host, int n) {
  T* p = nullptr;
  check(cudaMalloc(&p, n * sizeof(T)), "cudaMalloc");
  check(cudaMemcpy(p, host, n * sizeof(T), cudaMemcpyHostToDevice), "copy to device");
  return p;
}

}  // namespace

void gate_terms_on_device(const GateMathInputs& host, float* out) {
  const int n = host.n;
  GateMathInputs d{to_device(host.zx, n),   to_device(host.za, n),    to_device(host.s, n),
                   to_device(host.imag, n), to_device(host.reset, n), n};
  float* d_out = nullptr;
  check(cudaMalloc(&d_out, n * gate_math_outputs * sizeof(float)), "cudaMalloc");
  gate_terms_kernel<<<(n + 255) / 256, 256>>>(d, d_out);
  check(cudaGetLastError(), "launch of gate_terms_kernel");
  check(cudaMemcpy(out, d_out, n * gate_math_outputs * sizeof(float), cudaMemcpyDeviceToHost), "copy to host");
  for (const void* p :
       {static_cast<const void*>(d.zx), static_cast<const void*>(d.za), static_cast<const void*>(d.s),
        static_cast<const void*>(d.imag), static_cast<const void*>(d.reset), static_cast<const void*>(d_out)})
    cudaFree(const_cast<void*>(p));
}

}  // namespace scancheck::test
