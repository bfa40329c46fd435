// SPDX-License-Identifier: Apache-2.0
//! @file
//! Forward then backward of a plain affine scan (`scan`, `complex_scan`) on any executor: upload the
//! case, run both directions under the schedule, check and download every output. One template for both
//! executors, instantiated in host/scan_host.cpp and cuda/scan_cuda.cu. C++17.
#pragma once

#include <cstdint>

#include "backends/kernels/affine_scan/schedules.hpp"

namespace scancheck::backends {

//! The host-side arrays of one scan case: inputs (io tensors hold io-dtype values as float) and the
//! output arrays to fill. Optional inputs are nullptr.
struct ScanArrays {
  kernels::ScanGeometry geometry;
  bool complex = false;
  bool bf16_io = false;
  const float* a = nullptr;  // [B, L, W]
  const float* b = nullptr;
  const float* h0 = nullptr;       // [B, W]
  const float* dh = nullptr;       // [B, L, W]
  const float* dh_last = nullptr;  // [B, W]
  float* h = nullptr;              // outputs
  float* h_last = nullptr;
  float* da = nullptr;
  float* db = nullptr;
  float* dh0 = nullptr;
};

//! A scan case on an executor: inputs uploaded, outputs poisoned and guarded, and the forward and backward
//! sequences over them.
template <class F, class IO>
struct ScanOnExecutor {
  kernels::ScanForward<F, IO> forward;
  kernels::ScanBackward<F, IO> backward;

  template <class Exec>
  static ScanOnExecutor upload(Exec& ex, const ScanArrays& io) {
    const kernels::ScanGeometry& g = io.geometry;
    const std::int64_t act = g.batch * g.length * g.width, state = g.batch * g.width;
    const IO* a = ex.template upload<IO>(io.a, act);
    const IO* b = ex.template upload<IO>(io.b, act);
    const IO* dh = ex.template upload<IO>(io.dh, act);
    const float* h0 = io.h0 ? ex.template upload<float>(io.h0, state) : nullptr;
    const float* dh_last = io.dh_last ? ex.template upload<float>(io.dh_last, state) : nullptr;
    IO* h = ex.template output<IO>(act);
    IO* da = ex.template output<IO>(act);
    IO* db = ex.template output<IO>(act);
    float* h_last = ex.template output<float>(state);
    float* dh0 = ex.template output<float>(state);
    return {{g, a, b, h0, h, h_last}, {g, a, dh, dh_last, h, h0, da, db, dh0}};
  }

  //! Checks every output (all written, guards intact) and copies it into `io`'s output arrays.
  template <class Exec>
  void download(Exec& ex, const ScanArrays& io) const {
    const kernels::ScanGeometry& g = io.geometry;
    const std::int64_t act = g.batch * g.length * g.width, state = g.batch * g.width;
    ex.download(forward.h, act, io.h, "h");
    ex.download(forward.h_last, state, io.h_last, "h_last");
    ex.download(backward.da, act, io.da, "da");
    ex.download(backward.db, act, io.db, "db");
    ex.download(backward.dh0, state, io.dh0, "dh0");
  }
};

//! Calls visit(F{}, IO{}) with the field (float or cfloat) and io storage (float or bf16) of the case.
template <class Visit>
decltype(auto) with_scan_types(const ScanArrays& io, Visit&& visit) {
  using kernels::bf16;
  using kernels::cfloat;
  if (io.complex) return io.bf16_io ? visit(cfloat{}, bf16{}) : visit(cfloat{}, float{});
  return io.bf16_io ? visit(float{}, bf16{}) : visit(float{}, float{});
}

template <class Exec>
void run_scan(Exec& ex, const ScanArrays& io, const kernels::Schedule& schedule) {
  with_scan_types(io, [&](auto field, auto storage) {
    const auto on = ScanOnExecutor<decltype(field), decltype(storage)>::upload(ex, io);
    kernels::run_affine_scan(ex, on.forward, schedule);
    kernels::run_affine_scan(ex, on.backward, schedule);
    ex.synchronize();
    on.download(ex, io);
  });
}

//! Entry points per executor (host/scan_host.cpp, cuda/scan_cuda.cu).
//! threads: host executor threads, 0 for all hardware threads (results do not depend on it).
void run_scan_host(const ScanArrays&, const kernels::Schedule&, int threads = 0);
void run_scan_cuda(const ScanArrays&, const kernels::Schedule&);

}  // namespace scancheck::backends
