// SPDX-License-Identifier: Apache-2.0
//! @file
//! Forward then backward of gated linear attention (`gla`, `simple_gla`: docs/recurrences.md section 7) on
//! any executor, in the recurrent schedule (kernels/gla/recurrent.hpp, fla's fused_recurrent) or the chunked
//! one (kernels/gla/chunked.hpp, fla's chunk kernels): upload the problem, launch, check and download every
//! output. One template for both executors, instantiated in host/gla_host.cpp and cuda/gla_cuda.cu. C++17.
#pragma once

#include <cstdint>
#include <vector>

#include "backends/kernels/gla/chunked.hpp"
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

//! The schedule: recurrent (chunk 0), or chunks of `chunk` steps from each sequence's start.
struct GlaSchedule {
  std::int64_t chunk = 0;
};

namespace gla_detail {

//! Uploaded inputs and the outputs the schedules write (dg per key channel, stored by GlaGateGradient).
template <class IO>
struct Buffers {
  kernels::GlaSpans spans;
  kernels::GlaInputs<IO> in;
  IO *o, *dq, *dk, *dv, *dg;
  float *ht, *dh0, *dg_keys;
};

template <class IO, class Exec>
void recurrent(Exec& ex, const GlaArrays& io, const Buffers<IO>& b) {
  const kernels::GlaGeometry& geo = io.geometry;
  const std::int64_t N = geo.sequences, states = N * geo.heads * geo.keys * geo.values;
  const std::int64_t keys = io.batch * geo.length * geo.heads * geo.keys;
  const kernels::Grid columns{geo.values, geo.heads, N}, key_rows{geo.keys, geo.heads, N};
  ex.launch("gla recurrent forward", columns,
            kernels::GlaForwardColumns<IO>{geo, b.spans, b.in, ex.template scratch<float>(states), b.o, b.ht});
  ex.launch("gla recurrent backward rows", key_rows,
            kernels::GlaBackwardRows<IO>{geo, b.spans, b.in, ex.template scratch<float>(states),
                                         ex.template scratch<float>(keys), ex.template scratch<float>(keys), b.dg_keys,
                                         b.dq, b.dk, b.dh0});
  ex.launch("gla recurrent backward columns", columns,
            kernels::GlaBackwardColumns<IO>{geo, b.spans, b.in, ex.template scratch<float>(states), b.dv});
}

template <class IO, class Exec>
void chunked(Exec& ex, const GlaArrays& io, const Buffers<IO>& b, std::int64_t chunk) {
  const kernels::GlaGeometry& geo = io.geometry;
  const std::int64_t N = geo.sequences, rows = io.batch * geo.length;  // rows of the [B, T] grid
  std::vector<std::int64_t> chunk_offset{0}, row_sequence(static_cast<std::size_t>(rows), 0);
  for (std::int64_t n = 0; n < N; ++n) {
    chunk_offset.push_back(chunk_offset.back() + (io.span_end[n] - io.span_begin[n] + chunk - 1) / chunk);
    for (std::int64_t t = io.span_begin[n]; t < io.span_end[n]; ++t)
      row_sequence[static_cast<std::size_t>(io.span_batch[n] * geo.length + t)] = n;
  }
  const std::int64_t block = geo.heads * geo.keys * geo.values, keys = rows * geo.heads * geo.keys;
  const kernels::GlaChunking chunking{chunk, ex.copy_in(chunk_offset.data(), N + 1),
                                      ex.copy_in(row_sequence.data(), rows)};
  float* G = ex.template scratch<float>(keys);
  using View = kernels::GlaChunkedView<IO>;
  const View view{geo, b.spans, chunking, b.in, G};
  float* entering = ex.template scratch<float>(chunk_offset.back() * block);
  float* leaving = ex.template scratch<float>(chunk_offset.back() * block);
  float *dq32 = ex.template scratch<float>(keys), *dk32 = ex.template scratch<float>(keys);
  const kernels::Grid per_key{geo.keys, geo.heads, N}, per_value{geo.values, geo.heads, N};
  ex.launch("gla chunk gates", per_key, kernels::GlaChunkGates<View>{view, G});
  ex.launch("gla chunk states", per_value,
            kernels::GlaChunkStates<View>{view, ex.template scratch<float>(N * block), entering, b.ht});
  ex.launch("gla chunk output", kernels::Grid{geo.values, geo.heads, rows},
            kernels::GlaChunkOutput<View>{view, entering, b.o});
  ex.launch("gla chunk cotangents", per_value,
            kernels::GlaChunkCotangents<View>{view, ex.template scratch<float>(N * block), leaving, b.dh0});
  ex.launch("gla chunk key gradients", kernels::Grid{geo.keys, geo.heads, rows},
            kernels::GlaChunkKeyGradients<View>{view, entering, leaving, dq32, dk32, b.dq, b.dk});
  ex.launch("gla chunk value gradients", kernels::Grid{geo.values, geo.heads, rows},
            kernels::GlaChunkValueGradients<View>{view, leaving, b.dv});
  ex.launch("gla chunk gate identity", per_key, kernels::GlaChunkGateIdentity<View>{view, b.ht, dq32, dk32, b.dg_keys});
}

template <class IO, class Exec>
void run(Exec& ex, const GlaArrays& io, const GlaSchedule& schedule) {
  const kernels::GlaGeometry& geo = io.geometry;
  const std::int64_t rows = io.batch * geo.length * geo.heads, N = geo.sequences;
  const std::int64_t keys = rows * geo.keys, values = rows * geo.values, states = N * geo.heads * geo.keys * geo.values;
  const std::int64_t gates = geo.scalar_gates ? rows : keys;
  Buffers<IO> b;
  b.spans = {ex.copy_in(io.span_batch, N), ex.copy_in(io.span_begin, N), ex.copy_in(io.span_end, N)};
  b.in = {ex.template upload<IO>(io.q, keys),
          ex.template upload<IO>(io.k, keys),
          ex.template upload<IO>(io.v, values),
          ex.template upload<IO>(io.d_o, values),
          ex.template upload<float>(io.g, gates),
          io.h0 ? ex.template upload<float>(io.h0, states) : nullptr,
          io.dht ? ex.template upload<float>(io.dht, states) : nullptr};
  b.o = ex.template output<IO>(values), b.dq = ex.template output<IO>(keys), b.dk = ex.template output<IO>(keys);
  b.dv = ex.template output<IO>(values), b.dg = ex.template output<IO>(gates);
  b.ht = ex.template output<float>(states), b.dh0 = ex.template output<float>(states);
  b.dg_keys = ex.template scratch<float>(keys);
  if (schedule.chunk > 0) chunked(ex, io, b, schedule.chunk);
  else recurrent(ex, io, b);
  ex.launch("gla gate gradient", kernels::Grid{geo.length, geo.heads, io.batch},
            kernels::GlaGateGradient<IO>{geo, b.dg_keys, b.dg});
  ex.synchronize();
  ex.download(b.o, values, io.o, "o");
  ex.download(b.ht, states, io.ht, "ht");
  ex.download(b.dq, keys, io.dq, "dq");
  ex.download(b.dk, keys, io.dk, "dk");
  ex.download(b.dv, values, io.dv, "dv");
  ex.download(b.dg, gates, io.dg, "dg");
  ex.download(b.dh0, states, io.dh0, "dh0");
}

}  // namespace gla_detail

template <class Exec>
void run_gla(Exec& ex, const GlaArrays& io, const GlaSchedule& schedule) {
  io.bf16_io ? gla_detail::run<kernels::bf16>(ex, io, schedule) : gla_detail::run<float>(ex, io, schedule);
}

//! Entry points per executor (host/gla_host.cpp, cuda/gla_cuda.cu).
void run_gla_host(const GlaArrays&, const GlaSchedule&, int threads = 0);
void run_gla_cuda(const GlaArrays&, const GlaSchedule&);

}  // namespace scancheck::backends
