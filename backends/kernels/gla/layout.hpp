// SPDX-License-Identifier: Apache-2.0
//! @file
//! What every gated linear attention schedule shares (docs/recurrences.md section 7): the problem's sizes and
//! sequences, fla's [B, T, H, D] and [N, H, K, V] layouts, the decays, the inputs, and the last launch that
//! stores dg in the gate's form. C++17 (nvcc compiles it too).
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "backends/kernels/numeric.hpp"
#include "backends/kernels/program.hpp"

namespace scancheck::kernels {

//! A problem's sizes: T rows per batch entry, N sequences (spans of rows), H heads, K keys, V values.
struct GlaGeometry {
  std::int64_t length, sequences, heads, keys, values;
  bool scalar_gates;  //!< g is [B, T, H] (simple_gla), else [B, T, H, K]
  float scale;
};

//! Sequence n: rows [begin[n], end[n]) of batch entry batch[n] (fla's cu_seqlens, or one per batch entry).
struct GlaSpans {
  const std::int64_t* batch;
  const std::int64_t* begin;
  const std::int64_t* end;
};

//! Where row t of sequence n's batch entry and head h starts in a [B, T, H, D] tensor.
SC_HD std::int64_t gla_row(const GlaGeometry& g, std::int64_t b, std::int64_t t, std::int64_t h, std::int64_t d) {
  return ((b * g.length + t) * g.heads + h) * d;
}

//! Where state entry (i, j) of (sequence n, head h) is in an [N, H, K, V] tensor.
SC_HD std::int64_t gla_state(const GlaGeometry& g, std::int64_t n, std::int64_t h, std::int64_t i, std::int64_t j) {
  return ((n * g.heads + h) * g.keys + i) * g.values + j;
}

//! The decay exp(g_t[i]) of key channel i at row t (a scalar gate is one per head).
SC_HD float gla_decay(const GlaGeometry& g, const float* gates, std::int64_t b, std::int64_t t, std::int64_t h,
                      std::int64_t i) {
  using std::exp;
  return g.scalar_gates ? exp(gates[(b * g.length + t) * g.heads + h]) : exp(gates[gla_row(g, b, t, h, g.keys) + i]);
}

template <class IO>
struct GlaInputs {
  const IO *q, *k, *v, *d_o;
  const float* g;
  const float* h0;   //!< [N, H, K, V] or nullptr (zero)
  const float* dht;  //!< [N, H, K, V] or nullptr (zero)
};

//! A value entering a matrix product: rounded to bfloat16 where the io is, as fla's kernels feed tl.dot
//! operands in the inputs' dtype (float32 accumulation).
template <class IO>
SC_HD float gla_operand(float x) {
  if constexpr (std::is_same_v<IO, bf16>) return to_float(to_bf16(x));
  else return x;
}

//! dg in the gate's dtype: program (t, h, b) sums the key channels' dg_t[i] of a scalar gate in order, or
//! stores a vector gate's as they are.
template <class G>
struct GlaGateGradient {
  GlaGeometry geo;
  const float* dg_keys;  //!< [B, T, H, K]
  G* dg;                 //!< [B, T, H] or [B, T, H, K]

  SC_HD void operator()(ProgramId p) const {
    const std::int64_t t = p.x, h = p.y, b = p.z, at = gla_row(geo, b, t, h, geo.keys);
    if (!geo.scalar_gates) {
      for (std::int64_t i = 0; i < geo.keys; ++i) store<G>(dg, at + i, dg_keys[at + i]);
      return;
    }
    float sum = 0;
    for (std::int64_t i = 0; i < geo.keys; ++i) sum += dg_keys[at + i];
    store<G>(dg, (b * geo.length + t) * geo.heads + h, sum);
  }
};

}  // namespace scancheck::kernels
