// SPDX-License-Identifier: Apache-2.0
//! @file
//! A scancheck plugin in CUDA (include/scancheck/plugin.h), provider "cudademo": the real affine scan
//! (recurrences.md section 1) forward and backward in float32 on the device, one thread per (batch,
//! channel) walking the sequence. scancheck hands it device memory and a stream; it launches on that stream
//! and returns, and scancheck synchronizes.
//!
//!     cudademo:scan/thread_per_channel@fp32
//!
//!     scancheck fuzz --plugin build/cudademo.so --backends 'cudademo:*' --cases 200     (a GPU and a CUDA
//!     build of scancheck; elsewhere its runs are errors saying why)
#include <cstdint>
#include <cstdio>

#include <cuda_runtime.h>

#include <scancheck/plugin.h>

namespace {

//! [B, L, W] row-major; pointers may be null for absent tensors (h0, dh_last) and, for the backward, when
//! the backend is run forward only (it is not here).
struct ScanArgs {
  std::int64_t B, L, W;
  const float *a, *b, *h0, *dh, *dh_last;
  float *h, *h_last, *da, *db, *dh0;
};

//! Contract (recurrences.md section 1), per (b, w):
//!   h_t = a_t h_{t-1} + b_t, h_{-1} = h0 (zero when absent); h_last = h_{L-1}
//!   g_{L-1} = dh_{L-1} + dh_last, g_t = dh_t + a_{t+1} g_{t+1}; db_t = g_t, da_t = g_t h_{t-1}, dh0 = a_0 g_0
__global__ void scan_kernel(ScanArgs s) {
  const std::int64_t channel = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (channel >= s.B * s.W) return;
  const std::int64_t bi = channel / s.W, w = channel % s.W;
  const auto at = [&](std::int64_t t) { return (bi * s.L + t) * s.W + w; };
  const float initial = s.h0 ? s.h0[bi * s.W + w] : 0.0f;
  float state = initial;
  for (std::int64_t t = 0; t < s.L; ++t) {
    state = __fmul_rn(s.a[at(t)], state) + s.b[at(t)];  // no FMA: round like the textbook loop
    s.h[at(t)] = state;
  }
  s.h_last[bi * s.W + w] = state;
  if (!s.db) return;
  float g = s.dh_last ? s.dh_last[bi * s.W + w] : 0.0f;
  for (std::int64_t t = s.L - 1; t >= 0; --t) {
    g = s.dh[at(t)] + (t + 1 < s.L ? __fmul_rn(s.a[at(t + 1)], g) : g);
    s.db[at(t)] = g;
    s.da[at(t)] = __fmul_rn(g, t > 0 ? s.h[at(t - 1)] : initial);
  }
  s.dh0[bi * s.W + w] = __fmul_rn(s.a[at(0)], g);
}

const float* input(const scancheck_case* c, const char* name) {
  const DLTensor* t = scancheck_find_input(c, name);
  return t ? static_cast<const float*>(t->data) : nullptr;
}
float* output(const scancheck_case* c, const char* name) {
  const DLTensor* t = scancheck_find_output(c, name);
  return t ? static_cast<float*>(t->data) : nullptr;
}

int run(const scancheck_backend*, const scancheck_case* c, void* stream, char* error, std::size_t error_size) {
  const ScanArgs s{c->batch,        c->length,           c->width,        input(c, "a"),
                   input(c, "b"),   input(c, "h0"),      input(c, "dh"),  input(c, "dh_last"),
                   output(c, "h"),  output(c, "h_last"), output(c, "da"), output(c, "db"),
                   output(c, "dh0")};
  const std::int64_t channels = c->batch * c->width;
  const int threads = 128;
  const unsigned blocks = static_cast<unsigned>((channels + threads - 1) / threads);
  scan_kernel<<<blocks, threads, 0, static_cast<cudaStream_t>(stream)>>>(s);
  if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) {
    std::snprintf(error, error_size, "scan_kernel launch: %s", cudaGetErrorString(e));
    return 1;
  }
  return 0;  // scancheck synchronizes the stream
}

scancheck_backend make_backend() {
  scancheck_backend b{};  // zero: both passes, deterministic, no constraints
  b.variant = "thread_per_channel";
  b.architecture = SCANCHECK_SCAN;
  b.io_dtype = SCANCHECK_FLOAT32;
  b.device_type = kDLCUDA;
  b.run = run;
  return b;
}

const scancheck_backend backends[] = {make_backend()};
const scancheck_provider provider = {SCANCHECK_PLUGIN_ABI_VERSION, "cudademo", 1, backends};

}  // namespace

SCANCHECK_PLUGIN_EXPORT const scancheck_provider* scancheck_plugin(void) { return &provider; }
