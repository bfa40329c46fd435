// SPDX-License-Identifier: Apache-2.0
//! @file
//! Forward then backward of gated linear attention (`gla`, `simple_gla`: docs/recurrences.md section 7) on
//! any executor, in the recurrent schedule (kernels/gla/recurrent.hpp): upload the problem, launch, check
//! and download every output. One template for both executors, instantiated in host/gla_host.cpp and
//! cuda/gla_cuda.cu. C++17.
#pragma once

#include <cstdint>

#include "backends/kernels/gla/recurrent.hpp"

namespace scancheck::backends {

//! The host-side arrays of one problem in fla's [B, T, H, D] layout, io values as float (bfloat16 values
//! for bfloat16 io), and the output arrays to fill. h0 and dht may be nullptr (zero).
struct GlaArrays {
  kernels::GlaGeometry geometry;
  std::int64_t batch = 1;
  bool bf16_io = false;
  const std::int64_t *span_batch = nullptr, *span_begin = nullptr, *span_end = nullptr;  // [N] each
  const float *q = nullptr, *k = nullptr, *v = nullptr, *g = nullptr, *d_o = nullptr;
  const float *h0 = nullptr, *dht = nullptr;
  float *o = nullptr, *ht = nullptr, *dq = nullptr, *dk = nullptr, *dv = nullptr, *dg = nullptr, *dh0 = nullptr;
};

namespace gla_detail {

template <class IO, class Exec>
void run(Exec& ex, const GlaArrays& io) {
  const kernels::GlaGeometry& geo = io.geometry;
  const std::int64_t rows = io.batch * geo.length * geo.heads, N = geo.sequences;
  const std::int64_t keys = rows * geo.keys, values = rows * geo.values, states = N * geo.heads * geo.keys * geo.values;
  const std::int64_t gates = geo.scalar_gates ? rows : keys;
  const kernels::GlaSpans spans{ex.copy_in(io.span_batch, N), ex.copy_in(io.span_begin, N), ex.copy_in(io.span_end, N)};
  const kernels::GlaInputs<IO> in{ex.template upload<IO>(io.q, keys),
                                  ex.template upload<IO>(io.k, keys),
                                  ex.template upload<IO>(io.v, values),
                                  ex.template upload<IO>(io.d_o, values),
                                  ex.template upload<float>(io.g, gates),
                                  io.h0 ? ex.template upload<float>(io.h0, states) : nullptr,
                                  io.dht ? ex.template upload<float>(io.dht, states) : nullptr};
  IO *o = ex.template output<IO>(values), *dq = ex.template output<IO>(keys), *dk = ex.template output<IO>(keys);
  IO *dv = ex.template output<IO>(values), *dg = ex.template output<IO>(gates);
  float *ht = ex.template output<float>(states), *dh0 = ex.template output<float>(states);
  float* dg_keys = ex.template scratch<float>(keys);
  const kernels::Grid columns{geo.values, geo.heads, N}, key_rows{geo.keys, geo.heads, N};
  ex.launch("gla recurrent forward", columns,
            kernels::GlaForwardColumns<IO>{geo, spans, in, ex.template scratch<float>(states), o, ht});
  ex.launch(
      "gla recurrent backward rows", key_rows,
      kernels::GlaBackwardRows<IO>{geo, spans, in, ex.template scratch<float>(states), ex.template scratch<float>(keys),
                                   ex.template scratch<float>(keys), dg_keys, dq, dk, dh0});
  ex.launch("gla recurrent backward columns", columns,
            kernels::GlaBackwardColumns<IO>{geo, spans, in, ex.template scratch<float>(states), dv});
  ex.launch("gla gate gradient", kernels::Grid{geo.length, geo.heads, io.batch},
            kernels::GlaGateGradient<IO>{geo, dg_keys, dg});
  ex.synchronize();
  ex.download(o, values, io.o, "o");
  ex.download(ht, states, io.ht, "ht");
  ex.download(dq, keys, io.dq, "dq");
  ex.download(dk, keys, io.dk, "dk");
  ex.download(dv, values, io.dv, "dv");
  ex.download(dg, gates, io.dg, "dg");
  ex.download(dh0, states, io.dh0, "dh0");
}

}  // namespace gla_detail

template <class Exec>
void run_gla(Exec& ex, const GlaArrays& io) {
  io.bf16_io ? gla_detail::run<kernels::bf16>(ex, io) : gla_detail::run<float>(ex, io);
}

//! Entry points per executor (host/gla_host.cpp, cuda/gla_cuda.cu).
void run_gla_host(const GlaArrays&, int threads = 0);
void run_gla_cuda(const GlaArrays&);

}  // namespace scancheck::backends
