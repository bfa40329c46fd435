// SPDX-License-Identifier: Apache-2.0
//! @file
//! The chunked float32 order of gated linear attention (reference/gla_chunked.hpp), and gla_chunked_float32
//! over a whole problem.
#include "reference/gla_chunked.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/dtype.hpp"
#include "reference/gla.hpp"
#include "reference/gla_driver.hpp"

namespace scancheck::ref {

GlaSequenceOutputs<float> gla_chunked_sequence(const GlaSequenceInputs<float>& in, const ChunkedSchedule& schedule) {
  const std::int64_t T = in.length, K = in.keys, V = in.values, C = std::max<std::int64_t>(schedule.chunk, 1);
  const float scale = in.scale;
  using std::exp;
  // An operand of a matrix product, rounded to bfloat16 where the io is.
  const auto operand = [&](float x) { return schedule.bf16_io ? round_to_bf16(x) : x; };
  const auto operands = [&](std::vector<float> xs) {
    for (float& x : xs) x = operand(x);
    return xs;
  };
  GlaSequenceOutputs<float> out;
  out.o.assign(T * V, 0.0f);
  out.dv.assign(T * V, 0.0f);
  out.dq.assign(T * K, 0.0f);
  out.dk.assign(T * K, 0.0f);
  out.dg.assign(T * K, 0.0f);
  const auto q = [&](std::int64_t t, std::int64_t i) { return in.q[t * K + i]; };
  const auto k = [&](std::int64_t t, std::int64_t i) { return in.k[t * K + i]; };
  const auto v = [&](std::int64_t t, std::int64_t j) { return in.v[t * V + j]; };
  const auto d_o = [&](std::int64_t t, std::int64_t j) { return in.d_o[t * V + j]; };
  std::vector<float> G(T * K);  // cumulative log gates within each chunk
  for (std::int64_t t = 0; t < T; ++t)
    for (std::int64_t i = 0; i < K; ++i) {
      G[t * K + i] = (t % C == 0 ? 0.0f : G[(t - 1) * K + i]) + in.g[t * K + i];
    }
  const auto decay = [&](std::int64_t t, std::int64_t s, std::int64_t i) { return exp(G[t * K + i] - G[s * K + i]); };

  const std::int64_t chunks = (T + C - 1) / C;
  std::vector<std::vector<float>> entering(chunks + 1, std::vector<float>(K * V, 0.0f));  // and ht last
  if (!in.h0.empty()) entering[0] = in.h0;
  for (std::int64_t c = 0; c < chunks; ++c) {
    const std::int64_t c0 = c * C, c1 = std::min(T, c0 + C), last = c1 - 1;
    const std::vector<float>& S = entering[c];
    const std::vector<float> stored = operands(S);  // the state as the output kernel reads it
    for (std::int64_t t = c0; t < c1; ++t)
      for (std::int64_t j = 0; j < V; ++j) {
        float inter = 0, intra = 0;
        for (std::int64_t i = 0; i < K; ++i) inter += operand(q(t, i) * exp(G[t * K + i])) * stored[i * V + j];
        for (std::int64_t s = c0; s <= t; ++s) {
          float a = 0;
          for (std::int64_t i = 0; i < K; ++i) a += q(t, i) * k(s, i) * decay(t, s, i);
          intra += operand(a) * v(s, j);
        }
        out.o[t * V + j] = scale * (inter + intra);
      }
    std::vector<float>& next = entering[c + 1];
    for (std::int64_t i = 0; i < K; ++i)
      for (std::int64_t j = 0; j < V; ++j) {
        float sum = exp(G[last * K + i]) * S[i * V + j];
        for (std::int64_t s = c0; s < c1; ++s) sum += operand(k(s, i) * decay(last, s, i)) * v(s, j);
        next[i * V + j] = sum;
      }
  }
  out.ht = entering[chunks];

  std::vector<float> dS = in.dht.empty() ? std::vector<float>(K * V, 0.0f) : in.dht;  // leaving the chunk
  for (std::int64_t c = chunks - 1; c >= 0; --c) {
    const std::int64_t c0 = c * C, c1 = std::min(T, c0 + C), last = c1 - 1;
    const std::vector<float> S = operands(entering[c]);
    const std::vector<float> dS_stored = operands(dS);
    for (std::int64_t t = c0; t < c1; ++t)
      for (std::int64_t i = 0; i < K; ++i) {
        float inter = 0, intra = 0;
        for (std::int64_t j = 0; j < V; ++j) inter += d_o(t, j) * S[i * V + j];
        for (std::int64_t s = c0; s <= t; ++s) {
          float dov = 0;
          for (std::int64_t j = 0; j < V; ++j) dov += d_o(t, j) * v(s, j);
          intra += operand(dov) * k(s, i) * decay(t, s, i);
        }
        out.dq[t * K + i] = scale * (inter * exp(G[t * K + i]) + intra);
      }
    for (std::int64_t s = c0; s < c1; ++s) {
      for (std::int64_t i = 0; i < K; ++i) {
        float intra = 0, carried = 0;
        for (std::int64_t t = s; t < c1; ++t) {
          float dov = 0;
          for (std::int64_t j = 0; j < V; ++j) dov += d_o(t, j) * v(s, j);
          intra += scale * operand(dov) * q(t, i) * decay(t, s, i);
        }
        for (std::int64_t j = 0; j < V; ++j) carried += v(s, j) * dS_stored[i * V + j];
        out.dk[s * K + i] = intra + carried * decay(last, s, i);
      }
      for (std::int64_t j = 0; j < V; ++j) {
        float intra = 0, carried = 0;
        for (std::int64_t t = s; t < c1; ++t) {
          float a = 0;
          for (std::int64_t i = 0; i < K; ++i) a += q(t, i) * k(s, i) * decay(t, s, i);
          intra += scale * operand(a) * d_o(t, j);
        }
        for (std::int64_t i = 0; i < K; ++i) carried += operand(k(s, i) * decay(last, s, i)) * dS_stored[i * V + j];
        out.dv[s * V + j] = intra + carried;
      }
    }
    std::vector<float> previous(K * V);
    for (std::int64_t i = 0; i < K; ++i)
      for (std::int64_t j = 0; j < V; ++j) {
        float sum = exp(G[last * K + i]) * dS[i * V + j];
        for (std::int64_t t = c0; t < c1; ++t) sum += scale * operand(q(t, i) * exp(G[t * K + i])) * d_o(t, j);
        previous[i * V + j] = sum;
      }
    dS = std::move(previous);
  }
  out.dh0 = dS;
  std::vector<float> suffix(K, 0.0f);
  for (std::int64_t i = 0; i < K && !in.dht.empty(); ++i)
    for (std::int64_t j = 0; j < V; ++j) suffix[i] += in.dht[i * V + j] * out.ht[i * V + j];
  for (std::int64_t t = T - 1; t >= 0; --t)
    for (std::int64_t i = 0; i < K; ++i) {
      suffix[i] += q(t, i) * out.dq[t * K + i] - k(t, i) * out.dk[t * K + i];
      out.dg[t * K + i] = suffix[i];
    }
  return out;
}

}  // namespace scancheck::ref

namespace scancheck {

namespace {

//! The outputs as a kernel with io `io` stores them: o, dq, dk, dv, dg rounded to bfloat16 once (a scalar
//! gate's dg after its sum over K), ht and dh0 in float32.
std::map<std::string, Tensor<double>> stored_in(DType io, std::map<std::string, Tensor<double>> out) {
  if (io == DType::bfloat16)
    for (const char* stored : {"o", "dq", "dk", "dv", "dg"})
      for (double& x : out.at(stored).values()) x = round_to_bf16(static_cast<float>(x));
  return out;
}

}  // namespace

std::map<std::string, Tensor<double>> gla_chunked_float32(const GlaProblem& p, std::int64_t chunk, int threads,
                                                          DType io) {
  using namespace gla_driver;
  auto out = output_tensors(p, static_cast<std::int64_t>(gla_sequences(p).size()));
  const Sink<float> sink{&out, [](float x) { return static_cast<double>(x); }};
  const ref::ChunkedSchedule schedule{.chunk = chunk, .bf16_io = io == DType::bfloat16};
  for_each_sequence(p, threads, [&](const GlaSequenceSpan& s, std::int64_t n, std::int64_t h) {
    scatter_sequence(ref::gla_chunked_sequence(gather_sequence<float>(p, s, n, h), schedule), sink, s, n, h);
  });
  return stored_in(io, std::move(out));
}

std::map<std::string, Tensor<double>> gla_recurrent_float32(const GlaProblem& p, int threads, DType io) {
  return stored_in(io, gla_reference(p, Precision::float32, threads));
}

}  // namespace scancheck
