// SPDX-License-Identifier: Apache-2.0
//! @file
//! Gated linear attention (docs/recurrences.md section 7) in fla's chunked schedule (chunk_gla,
//! chunk_simple_gla): chunks of C steps from each sequence's start; within a chunk the gate products are
//! exponentials of differences of cumulative log gates G (summed from the chunk's start), an attention-like
//! matrix A[t, s] = sum_i q_t[i] k_s[i] exp(G_t[i] - G_s[i]) times V, plus the queries times the state
//! entering the chunk; the state is carried from chunk to chunk in float32. With bfloat16 io every matrix
//! product's operands are rounded to bfloat16 (gla_operand), as fla's tl.dot operands are:
//!
//!   gates,       program (i, h, n): G within each chunk
//!   states,      program (j, h, n): S_c[:, j] entering chunk c, S_{c+1} = exp(G_last) S_c + K~_c^T V_c, ht
//!   output,      program (j, h, row): o_t[j] = scale ((q_t exp(G_t)) . S_c[:, j] + sum_{s <= t} A[t, s] v_s[j])
//!   cotangents,  program (j, h, n): dS_c[:, j] leaving chunk c, dS_{c-1} = exp(G_last) dS_c + scale Q~_c^T dO_c, dh0
//!   keys,        program (i, h, row): dq_t[i], dk_t[i] from the chunk's pieces and S_c, dS_c
//!   values,      program (j, h, row): dv_s[j] = sum_{t >= s} scale A[t, s] do_t[j] + (K~_s . dS_c[:, j])
//!   dg,          program (i, h, n): dg_t[i] = sum_{r >= t} (q_r dq_r - k_r dk_r)[i] + dht[i, :] . ht[i, :]
//!
//! (K~_s = k_s exp(G_last - G_s), Q~_t = q_t exp(G_t)), then GlaGateGradient (layout.hpp). Programs never
//! communicate. These kernels are also the chunked correct orders judge_gla compares kernels with. C++17
//! (nvcc compiles it too).
#pragma once

#include <cmath>
#include <cstdint>

#include "backends/kernels/gla/layout.hpp"

namespace scancheck::kernels {

//! Where chunks and rows meet sequences: chunk_offset[n] is sequence n's first chunk in the [chunks, H, K, V]
//! state buffers, row_sequence[b T + t] the sequence row t of batch entry b belongs to.
struct GlaChunking {
  std::int64_t chunk;
  const std::int64_t* chunk_offset;  //!< [N + 1]
  const std::int64_t* row_sequence;  //!< [B T]
};

//! The chunk holding row t of sequence n: its index among n's chunks, its first and one-past-last rows.
struct GlaChunkSpan {
  std::int64_t index, begin, end;
};
SC_HD GlaChunkSpan gla_chunk_of(const GlaChunking& c, const GlaSpans& spans, std::int64_t n, std::int64_t t) {
  const std::int64_t index = (t - spans.begin[n]) / c.chunk, begin = spans.begin[n] + index * c.chunk;
  const std::int64_t end = begin + c.chunk < spans.end[n] ? begin + c.chunk : spans.end[n];
  return {index, begin, end};
}

//! Where state entry (i, j) of chunk `index` of sequence n, head h, is in a [chunks, H, K, V] buffer.
SC_HD std::int64_t gla_chunk_state(const GlaGeometry& g, const GlaChunking& c, std::int64_t n, std::int64_t index,
                                   std::int64_t h, std::int64_t i, std::int64_t j) {
  return (((c.chunk_offset[n] + index) * g.heads + h) * g.keys + i) * g.values + j;
}

//! The log gate of key channel i at row t (a scalar gate is one per head).
SC_HD float gla_log_gate(const GlaGeometry& g, const float* gates, std::int64_t b, std::int64_t t, std::int64_t h,
                         std::int64_t i) {
  return g.scalar_gates ? gates[(b * g.length + t) * g.heads + h] : gates[gla_row(g, b, t, h, g.keys) + i];
}

//! Everything the chunked launches read: the inputs, the chunking and the cumulative gates.
//! The bodies below are templates over the view, and each decision of the schedule is one of its members
//! (which gate a step reads, how a carry decays, how many chunks a sequence has, which sources a query
//! attends, the state a query reads, the backward's scale, the final state's term in dg): the mutation
//! tests' decorators (backends/mutants/gla_mutations.hpp) derive from the view and hide one of them, as the
//! scans' sequence decorators do, and the production bodies pay nothing for it.
template <class IO>
struct GlaChunkedView {
  using io = IO;
  GlaGeometry geo;
  GlaSpans spans;
  GlaChunking chunking;
  GlaInputs<IO> in;
  const float* G;  //!< [B, T, H, K] cumulative log gates within chunks

  //! The log gate row t of sequence n adds to G.
  SC_HD float log_gate(std::int64_t /*n*/, std::int64_t b, std::int64_t t, std::int64_t h, std::int64_t i) const {
    return gla_log_gate(geo, in.g, b, t, h, i);
  }
  //! The chunks of sequence n.
  SC_HD std::int64_t chunk_count(std::int64_t n) const {
    return chunking.chunk_offset[n + 1] - chunking.chunk_offset[n];
  }
  //! What the state entering chunk c is multiplied by on its way out: exp(G_last).
  SC_HD float state_carry(std::int64_t b, const GlaChunkSpan& c, std::int64_t h, std::int64_t i) const {
    using std::exp;
    return exp(cumulative(b, c.end - 1, h, i));
  }
  //! What the state's cotangent leaving chunk c is multiplied by on its way back: exp(G_last).
  SC_HD float cotangent_carry(std::int64_t b, const GlaChunkSpan& c, std::int64_t h, std::int64_t i) const {
    using std::exp;
    return exp(cumulative(b, c.end - 1, h, i));
  }
  //! Whether the output at row t attends source row s of its chunk (causal: s <= t).
  SC_HD bool attends(std::int64_t t, std::int64_t s) const { return s <= t; }
  //! The state dq reads in chunk `index` of sequence n: the one entering that chunk.
  SC_HD float query_state(const float* states, std::int64_t n, std::int64_t index, std::int64_t h, std::int64_t i,
                          std::int64_t j) const {
    return states[gla_chunk_state(geo, chunking, n, index, h, i, j)];
  }
  //! The scale of dk's intra-chunk term.
  SC_HD float key_gradient_scale() const { return geo.scale; }
  //! Where dg's suffix sum starts: dht[i, :] . ht[i, :].
  SC_HD float final_state_term(const float* ht, std::int64_t n, std::int64_t h, std::int64_t i) const {
    float sum = 0;
    for (std::int64_t j = 0; j < geo.values && in.dht; ++j)
      sum += in.dht[gla_state(geo, n, h, i, j)] * ht[gla_state(geo, n, h, i, j)];
    return sum;
  }

  SC_HD float q(std::int64_t b, std::int64_t t, std::int64_t h, std::int64_t i) const {
    return to_float(in.q[gla_row(geo, b, t, h, geo.keys) + i]);
  }
  SC_HD float k(std::int64_t b, std::int64_t t, std::int64_t h, std::int64_t i) const {
    return to_float(in.k[gla_row(geo, b, t, h, geo.keys) + i]);
  }
  SC_HD float v(std::int64_t b, std::int64_t t, std::int64_t h, std::int64_t j) const {
    return to_float(in.v[gla_row(geo, b, t, h, geo.values) + j]);
  }
  SC_HD float d_o(std::int64_t b, std::int64_t t, std::int64_t h, std::int64_t j) const {
    return to_float(in.d_o[gla_row(geo, b, t, h, geo.values) + j]);
  }
  SC_HD float cumulative(std::int64_t b, std::int64_t t, std::int64_t h, std::int64_t i) const {
    return G[gla_row(geo, b, t, h, geo.keys) + i];
  }
  //! exp(G_t[i] - G_s[i]): the gate product from s (exclusive) to t within one chunk.
  SC_HD float decay(std::int64_t b, std::int64_t t, std::int64_t s, std::int64_t h, std::int64_t i) const {
    using std::exp;
    return exp(cumulative(b, t, h, i) - cumulative(b, s, h, i));
  }
  //! A[t, s] = sum_i q_t[i] k_s[i] exp(G_t[i] - G_s[i]), in float32.
  SC_HD float attention(std::int64_t b, std::int64_t t, std::int64_t s, std::int64_t h) const {
    float a = 0;
    for (std::int64_t i = 0; i < geo.keys; ++i) a += q(b, t, h, i) * k(b, s, h, i) * decay(b, t, s, h, i);
    return a;
  }
  //! do_t . v_s, in float32.
  SC_HD float output_value(std::int64_t b, std::int64_t t, std::int64_t s, std::int64_t h) const {
    float a = 0;
    for (std::int64_t j = 0; j < geo.values; ++j) a += d_o(b, t, h, j) * v(b, s, h, j);
    return a;
  }
};

//! G: program (i, h, n) sums the log gates of each chunk from its start.
template <class View>
struct GlaChunkGates {
  View view;
  float* G;

  SC_HD void operator()(ProgramId p) const {
    const std::int64_t i = p.x, h = p.y, n = p.z, b = view.spans.batch[n];
    float sum = 0;
    for (std::int64_t t = view.spans.begin[n]; t < view.spans.end[n]; ++t) {
      if ((t - view.spans.begin[n]) % view.chunking.chunk == 0) sum = 0;
      sum += view.log_gate(n, b, t, h, i);
      G[gla_row(view.geo, b, t, h, view.geo.keys) + i] = sum;
    }
  }
};

//! The states entering each chunk and ht: program (j, h, n) carries column j through the chunks.
template <class View>
struct GlaChunkStates {
  using IO = typename View::io;
  View view;
  float* column;  //!< scratch [N, H, K, V]
  float* states;  //!< [chunks, H, K, V]
  float* ht;

  SC_HD void operator()(ProgramId p) const {
    const GlaGeometry& g = view.geo;
    const std::int64_t j = p.x, h = p.y, n = p.z, b = view.spans.batch[n], K = g.keys, V = g.values;
    float* S = column + gla_state(g, n, h, 0, 0);  // entry i at S[i * V + j]
    for (std::int64_t i = 0; i < K; ++i) S[i * V + j] = view.in.h0 ? view.in.h0[gla_state(g, n, h, i, j)] : 0.0f;
    for (std::int64_t index = 0; index < view.chunk_count(n); ++index) {
      const GlaChunkSpan c =
          gla_chunk_of(view.chunking, view.spans, n, view.spans.begin[n] + index * view.chunking.chunk);
      for (std::int64_t i = 0; i < K; ++i) {
        states[gla_chunk_state(g, view.chunking, n, c.index, h, i, j)] = S[i * V + j];
        float sum = view.state_carry(b, c, h, i) * S[i * V + j];
        for (std::int64_t s = c.begin; s < c.end; ++s)
          sum += gla_operand<IO>(view.k(b, s, h, i) * view.decay(b, c.end - 1, s, h, i)) * view.v(b, s, h, j);
        S[i * V + j] = sum;
      }
    }
    for (std::int64_t i = 0; i < K; ++i) ht[gla_state(g, n, h, i, j)] = S[i * V + j];
  }
};

//! o: program (j, h, b T + t); zero on a row no chunk holds.
template <class View>
struct GlaChunkOutput {
  using IO = typename View::io;
  View view;
  const float* states;
  IO* o;

  SC_HD void operator()(ProgramId p) const {
    using std::exp;
    const GlaGeometry& g = view.geo;
    const std::int64_t j = p.x, h = p.y, b = p.z / g.length, t = p.z % g.length;
    const std::int64_t n = view.chunking.row_sequence[p.z];
    const GlaChunkSpan c = gla_chunk_of(view.chunking, view.spans, n, t);
    float inter = 0, intra = 0;
    if (c.index < view.chunk_count(n)) {
      for (std::int64_t i = 0; i < g.keys; ++i)
        inter += gla_operand<IO>(view.q(b, t, h, i) * exp(view.cumulative(b, t, h, i))) *
                 gla_operand<IO>(states[gla_chunk_state(g, view.chunking, n, c.index, h, i, j)]);
      for (std::int64_t s = c.begin; s <= t; ++s)
        if (view.attends(t, s)) intra += gla_operand<IO>(view.attention(b, t, s, h)) * view.v(b, s, h, j);
    }
    store<IO>(o, gla_row(g, b, t, h, g.values) + j, g.scale * (inter + intra));
  }
};

//! The state's cotangent leaving each chunk and dh0: program (j, h, n) carries column j back through the chunks.
template <class View>
struct GlaChunkCotangents {
  using IO = typename View::io;
  View view;
  float* column;     //!< scratch [N, H, K, V]
  float* cotangent;  //!< [chunks, H, K, V]
  float* dh0;

  SC_HD void operator()(ProgramId p) const {
    using std::exp;
    const GlaGeometry& g = view.geo;
    const std::int64_t j = p.x, h = p.y, n = p.z, b = view.spans.batch[n], K = g.keys, V = g.values;
    float* D = column + gla_state(g, n, h, 0, 0);
    for (std::int64_t i = 0; i < K; ++i) D[i * V + j] = view.in.dht ? view.in.dht[gla_state(g, n, h, i, j)] : 0.0f;
    for (std::int64_t index = view.chunk_count(n) - 1; index >= 0; --index) {
      const GlaChunkSpan c =
          gla_chunk_of(view.chunking, view.spans, n, view.spans.begin[n] + index * view.chunking.chunk);
      for (std::int64_t i = 0; i < K; ++i) {
        cotangent[gla_chunk_state(g, view.chunking, n, c.index, h, i, j)] = D[i * V + j];
        float sum = view.cotangent_carry(b, c, h, i) * D[i * V + j];
        for (std::int64_t t = c.begin; t < c.end; ++t)
          sum +=
              g.scale * gla_operand<IO>(view.q(b, t, h, i) * exp(view.cumulative(b, t, h, i))) * view.d_o(b, t, h, j);
        D[i * V + j] = sum;
      }
    }
    for (std::int64_t i = 0; i < K; ++i) dh0[gla_state(g, n, h, i, j)] = D[i * V + j];
  }
};

//! dq and dk: program (i, h, b T + t); zero on a row no chunk holds.
template <class View>
struct GlaChunkKeyGradients {
  using IO = typename View::io;
  View view;
  const float *states, *cotangent;
  float *dq32, *dk32;  //!< scratch [B, T, H, K]: before they are stored, for dg
  IO *dq, *dk;

  SC_HD void operator()(ProgramId p) const {
    using std::exp;
    const GlaGeometry& g = view.geo;
    const std::int64_t i = p.x, h = p.y, b = p.z / g.length, t = p.z % g.length;
    const std::int64_t n = view.chunking.row_sequence[p.z];
    const GlaChunkSpan c = gla_chunk_of(view.chunking, view.spans, n, t);
    const std::int64_t at = gla_row(g, b, t, h, g.keys) + i;
    float query = 0, key = 0;
    if (c.index < view.chunk_count(n)) {
      float inter = 0, intra = 0;
      for (std::int64_t j = 0; j < g.values; ++j)
        inter += view.d_o(b, t, h, j) * gla_operand<IO>(view.query_state(states, n, c.index, h, i, j));
      for (std::int64_t s = c.begin; s <= t; ++s)
        intra += gla_operand<IO>(view.output_value(b, t, s, h)) * view.k(b, s, h, i) * view.decay(b, t, s, h, i);
      query = g.scale * (inter * exp(view.cumulative(b, t, h, i)) + intra);
      float within = 0, carried = 0;  // dk_t[i], t as the earlier end
      for (std::int64_t r = t; r < c.end; ++r)
        within += view.key_gradient_scale() * gla_operand<IO>(view.output_value(b, r, t, h)) * view.q(b, r, h, i) *
                  view.decay(b, r, t, h, i);
      for (std::int64_t j = 0; j < g.values; ++j)
        carried +=
            view.v(b, t, h, j) * gla_operand<IO>(cotangent[gla_chunk_state(g, view.chunking, n, c.index, h, i, j)]);
      key = within + carried * view.decay(b, c.end - 1, t, h, i);
    }
    dq32[at] = query;
    dk32[at] = key;
    store<IO>(dq, at, query);
    store<IO>(dk, at, key);
  }
};

//! dv: program (j, h, b T + s); zero on a row no chunk holds.
template <class View>
struct GlaChunkValueGradients {
  using IO = typename View::io;
  View view;
  const float* cotangent;
  IO* dv;

  SC_HD void operator()(ProgramId p) const {
    const GlaGeometry& g = view.geo;
    const std::int64_t j = p.x, h = p.y, b = p.z / g.length, s = p.z % g.length;
    const std::int64_t n = view.chunking.row_sequence[p.z];
    const GlaChunkSpan c = gla_chunk_of(view.chunking, view.spans, n, s);
    float within = 0, carried = 0;
    if (c.index < view.chunk_count(n)) {
      for (std::int64_t t = s; t < c.end; ++t)
        within += g.scale * gla_operand<IO>(view.attention(b, t, s, h)) * view.d_o(b, t, h, j);
      for (std::int64_t i = 0; i < g.keys; ++i)
        carried += gla_operand<IO>(view.k(b, s, h, i) * view.decay(b, c.end - 1, s, h, i)) *
                   gla_operand<IO>(cotangent[gla_chunk_state(g, view.chunking, n, c.index, h, i, j)]);
    }
    store<IO>(dv, gla_row(g, b, s, h, g.values) + j, within + carried);
  }
};

//! dg per key channel by the suffix-sum identity: program (i, h, n).
template <class View>
struct GlaChunkGateIdentity {
  View view;
  const float *ht, *dq32, *dk32;
  float* dg_keys;  //!< [B, T, H, K]

  SC_HD void operator()(ProgramId p) const {
    const GlaGeometry& g = view.geo;
    const std::int64_t i = p.x, h = p.y, n = p.z, b = view.spans.batch[n];
    float suffix = view.final_state_term(ht, n, h, i);
    for (std::int64_t t = view.spans.end[n] - 1; t >= view.spans.begin[n]; --t) {
      const std::int64_t at = gla_row(g, b, t, h, g.keys) + i;
      suffix += view.q(b, t, h, i) * dq32[at] - view.k(b, t, h, i) * dk32[at];
      dg_keys[at] = suffix;
    }
  }
};

}  // namespace scancheck::kernels
