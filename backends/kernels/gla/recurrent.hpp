// SPDX-License-Identifier: Apache-2.0
//! @file
//! Gated linear attention (docs/recurrences.md section 7) in the recurrent order, the schedule of fla's
//! fused_recurrent kernels: the K x V state of each (sequence, head) carried step by step in float32, and
//! every output and gradient from it. Each entry S[i, j] is a scalar recurrence with decay exp(g_t[i]), so
//! programs own whole columns (forward, dv) or rows (dq, dk, dg, dh0) of the state and never communicate:
//!
//!   forward, program (j, h, n):   S[:, j] = alpha_t S[:, j] + k_t v_t[j];  o_t[j] = scale q_t . S[:, j]
//!   rows, program (i, h, n):      S[i, :] again, dq_t[i] = scale S_t[i, :] . do_t;  then in reverse the
//!                                 state's cotangent D[i, :] = dht[i, :], D += scale q_t[i] do_t,
//!                                 dk_t[i] = D . v_t, D *= alpha_t[i];  dh0[i, :] = D;
//!                                 dg_t[i] = sum_{r >= t} (q_r dq_r - k_r dk_r)[i] + dht[i, :] . ht[i, :]
//!   columns, program (j, h, n):   D[:, j] in reverse as above, dv_t[j] = D[:, j] . k_t
//!   then GlaGateGradient (layout.hpp) stores dg
//!
//! Inputs and outputs in fla's [B, T, H, D] layout, io storage IO (float or bf16) for q, k, v, do and o,
//! dq, dk, dv, dg; gates, states and their cotangents in float32. A column or row of state lives in a
//! global scratch buffer the program alone touches. C++17 (nvcc compiles it too).
#pragma once

#include <cmath>
#include <cstdint>

#include "backends/kernels/gla/layout.hpp"
#include "backends/kernels/numeric.hpp"
#include "backends/kernels/program.hpp"

namespace scancheck::kernels {

//! o and ht: program (j, h, n) carries column j of the state.
template <class IO>
struct GlaForwardColumns {
  GlaGeometry geo;
  GlaSpans spans;
  GlaInputs<IO> in;
  float* column;  //!< scratch [N, H, K, V]
  IO* o;
  float* ht;

  SC_HD void operator()(ProgramId p) const {
    const std::int64_t j = p.x, h = p.y, n = p.z, b = spans.batch[n], K = geo.keys, V = geo.values;
    float* S = column + gla_state(geo, n, h, 0, 0);  // entry i at S[i * V + j]
    for (std::int64_t i = 0; i < K; ++i) S[i * V + j] = in.h0 ? in.h0[gla_state(geo, n, h, i, j)] : 0.0f;
    for (std::int64_t t = spans.begin[n]; t < spans.end[n]; ++t) {
      const std::int64_t rk = gla_row(geo, b, t, h, K);
      const float vj = to_float(in.v[gla_row(geo, b, t, h, V) + j]);
      float out = 0;
      for (std::int64_t i = 0; i < K; ++i) {
        float& s = S[i * V + j];
        s = gla_decay(geo, in.g, b, t, h, i) * s + to_float(in.k[rk + i]) * vj;
        out += to_float(in.q[rk + i]) * s;
      }
      store<IO>(o, gla_row(geo, b, t, h, V) + j, geo.scale * out);
    }
    for (std::int64_t i = 0; i < K; ++i) ht[gla_state(geo, n, h, i, j)] = S[i * V + j];
  }
};

//! dq, dk, dh0 and dg (per key channel): program (i, h, n) carries row i of the state and of its cotangent.
template <class IO>
struct GlaBackwardRows {
  GlaGeometry geo;
  GlaSpans spans;
  GlaInputs<IO> in;
  float* row;      //!< scratch [N, H, K, V]
  float* dq32;     //!< scratch [B, T, H, K]: dq and dk before they are stored, for dg
  float* dk32;     //!< scratch [B, T, H, K]
  float* dg_keys;  //!< [B, T, H, K]: dg per key channel (the output itself for vector gates)
  IO *dq, *dk;
  float* dh0;

  SC_HD void operator()(ProgramId p) const {
    const std::int64_t i = p.x, h = p.y, n = p.z, b = spans.batch[n], K = geo.keys, V = geo.values;
    float* R = row + gla_state(geo, n, h, i, 0);  // S[i, :], then D[i, :]
    for (std::int64_t j = 0; j < V; ++j) R[j] = in.h0 ? in.h0[gla_state(geo, n, h, i, j)] : 0.0f;
    for (std::int64_t t = spans.begin[n]; t < spans.end[n]; ++t) {
      const std::int64_t rk = gla_row(geo, b, t, h, K) + i, rv = gla_row(geo, b, t, h, V);
      const float a = gla_decay(geo, in.g, b, t, h, i), ki = to_float(in.k[rk]);
      float sum = 0;
      for (std::int64_t j = 0; j < V; ++j) {
        R[j] = a * R[j] + ki * to_float(in.v[rv + j]);
        sum += R[j] * to_float(in.d_o[rv + j]);
      }
      dq32[rk] = geo.scale * sum;
      store<IO>(dq, rk, dq32[rk]);
    }
    float final_state = 0;  // dht[i, :] . ht[i, :], ht's row now in R
    for (std::int64_t j = 0; j < V; ++j) {
      const float d = in.dht ? in.dht[gla_state(geo, n, h, i, j)] : 0.0f;
      final_state += d * R[j];
      R[j] = d;
    }
    for (std::int64_t t = spans.end[n] - 1; t >= spans.begin[n]; --t) {
      const std::int64_t rk = gla_row(geo, b, t, h, K) + i, rv = gla_row(geo, b, t, h, V);
      const float qi = geo.scale * to_float(in.q[rk]), a = gla_decay(geo, in.g, b, t, h, i);
      float sum = 0;
      for (std::int64_t j = 0; j < V; ++j) {
        R[j] += qi * to_float(in.d_o[rv + j]);
        sum += R[j] * to_float(in.v[rv + j]);
        R[j] *= a;
      }
      dk32[rk] = sum;
      store<IO>(dk, rk, sum);
    }
    for (std::int64_t j = 0; j < V; ++j) dh0[gla_state(geo, n, h, i, j)] = R[j];
    float suffix = final_state;
    for (std::int64_t t = spans.end[n] - 1; t >= spans.begin[n]; --t) {
      const std::int64_t rk = gla_row(geo, b, t, h, K) + i;
      suffix += to_float(in.q[rk]) * dq32[rk] - to_float(in.k[rk]) * dk32[rk];
      dg_keys[rk] = suffix;
    }
  }
};

//! dv: program (j, h, n) carries column j of the state's cotangent.
template <class IO>
struct GlaBackwardColumns {
  GlaGeometry geo;
  GlaSpans spans;
  GlaInputs<IO> in;
  float* column;  //!< scratch [N, H, K, V]
  IO* dv;

  SC_HD void operator()(ProgramId p) const {
    const std::int64_t j = p.x, h = p.y, n = p.z, b = spans.batch[n], K = geo.keys, V = geo.values;
    float* D = column + gla_state(geo, n, h, 0, 0);  // entry i at D[i * V + j]
    for (std::int64_t i = 0; i < K; ++i) D[i * V + j] = in.dht ? in.dht[gla_state(geo, n, h, i, j)] : 0.0f;
    for (std::int64_t t = spans.end[n] - 1; t >= spans.begin[n]; --t) {
      const std::int64_t rk = gla_row(geo, b, t, h, K);
      const float doj = to_float(in.d_o[gla_row(geo, b, t, h, V) + j]);
      float sum = 0;
      for (std::int64_t i = 0; i < K; ++i) {
        float& d = D[i * V + j];
        d += geo.scale * to_float(in.q[rk + i]) * doj;
        sum += d * to_float(in.k[rk + i]);
        d *= gla_decay(geo, in.g, b, t, h, i);
      }
      store<IO>(dv, gla_row(geo, b, t, h, V) + j, sum);
    }
  }
};

}  // namespace scancheck::kernels
