// SPDX-License-Identifier: Apache-2.0
//! @file
//! Gated linear attention on one head of one sequence, forward and backward (recurrences.md section 7),
//! templated over the reference scalar S. The state is a K x V matrix:
//!
//!     S_t = diag(alpha_t) S_{t-1} + k_t v_t^T,   alpha_t = exp(g_t),   o_t = scale S_t^T q_t
//!
//! so every entry S_t[i, j] is a scalar recurrence with decay alpha_t[i] and input k_t[i] v_t[j]. The
//! backward is the reverse recurrence of the state's cotangent D_t = scale q_t do_t^T + diag(alpha_{t+1})
//! D_{t+1} (D_{L-1} starting from dht), from which dk, dv and dg are contractions. dg needs S_{t-1} at every
//! step; the forward keeps the state every `checkpoint_interval` steps and the backward replays each
//! interval from its checkpoint (reverse_chunk_replay), so a sequence needs O((L/C + C) K V) scalars, not
//! O(L K V): 4096 steps of a 128 x 128 state stay within a few MB per head.
//!
//! Summation orders are fixed (i and j ascending), so every instantiation evaluates the same expression;
//! exp is the scalar's own, exact to its precision. Nothing here rounds to float32.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "reference/scalar.hpp"

namespace scancheck::ref {

//! One head of one sequence, rows t = 0..L-1, row-major.
template <class S>
struct GlaSequenceInputs {
  std::int64_t length = 0;
  std::int64_t keys = 0;    //!< K
  std::int64_t values = 0;  //!< V
  S scale{1};
  std::vector<S> q, k, g;  //!< [L, K]; g the log gates (alpha = exp(g))
  std::vector<S> v;        //!< [L, V]
  std::vector<S> h0;       //!< [K, V], or empty: a zero initial state
  std::vector<S> d_o;      //!< [L, V], the cotangent of o
  std::vector<S> dht;      //!< [K, V], or empty: a zero cotangent of the final state
};

template <class S>
struct GlaSequenceOutputs {
  std::vector<S> o;           //!< [L, V]
  std::vector<S> ht;          //!< [K, V]: S_{L-1} (h0 where L = 0)
  std::vector<S> dq, dk, dg;  //!< [L, K]; dg with respect to the log gates
  std::vector<S> dv;          //!< [L, V]
  std::vector<S> dh0;         //!< [K, V]: written also without h0 (the state's gradient at zero)
};

namespace gla_detail {

using std::exp;

//! One forward step: state <- diag(exp(g_t)) state + k_t v_t^T.
template <class S>
void advance(const GlaSequenceInputs<S>& in, std::int64_t t, std::vector<S>& state) {
  const std::int64_t K = in.keys, V = in.values;
  for (std::int64_t i = 0; i < K; ++i) {
    const S alpha = exp(in.g[t * K + i]);
    const S key = in.k[t * K + i];
    for (std::int64_t j = 0; j < V; ++j) state[i * V + j] = alpha * state[i * V + j] + key * in.v[t * V + j];
  }
}

//! The interval between kept states: about sqrt(L), which minimises checkpoints plus one replayed interval.
inline std::int64_t checkpoint_interval(std::int64_t length) {
  std::int64_t c = 1;
  while (c * c < length) ++c;
  return c;
}

}  // namespace gla_detail

//! The forward (o, ht, and dq, which needs only S_t) and the backward (dk, dv, dg, dh0) of one sequence.
template <class S>
GlaSequenceOutputs<S> gla_sequence(const GlaSequenceInputs<S>& in) {
  using gla_detail::exp;
  const std::int64_t L = in.length, K = in.keys, V = in.values;
  const std::int64_t interval = gla_detail::checkpoint_interval(L);
  GlaSequenceOutputs<S> out;
  out.o.assign(L * V, S(0));
  out.dq.assign(L * K, S(0));
  out.dk.assign(L * K, S(0));
  out.dg.assign(L * K, S(0));
  out.dv.assign(L * V, S(0));

  std::vector<S> state = in.h0.empty() ? std::vector<S>(K * V, S(0)) : in.h0;
  std::vector<std::vector<S>> checkpoints;  // checkpoints[c] = S_{c * interval - 1}, the state entering interval c
  for (std::int64_t t = 0; t < L; ++t) {
    if (t % interval == 0) checkpoints.push_back(state);
    gla_detail::advance(in, t, state);
    for (std::int64_t j = 0; j < V; ++j) {
      S sum(0);
      for (std::int64_t i = 0; i < K; ++i) sum = sum + state[i * V + j] * in.q[t * K + i];
      out.o[t * V + j] = in.scale * sum;
    }
    for (std::int64_t i = 0; i < K; ++i) {
      S sum(0);
      for (std::int64_t j = 0; j < V; ++j) sum = sum + state[i * V + j] * in.d_o[t * V + j];
      out.dq[t * K + i] = in.scale * sum;
    }
  }
  out.ht = state;

  // reverse_chunk_replay: for each interval, last first, rebuild S_{t-1} for its steps from the checkpoint,
  // then run the cotangent back through them.
  std::vector<S> cotangent = in.dht.empty() ? std::vector<S>(K * V, S(0)) : in.dht;  // diag(alpha_{t+1}) D_{t+1}
  std::vector<std::vector<S>> previous;                                              // previous[t - begin] = S_{t-1}
  std::vector<S> alpha(K);
  for (std::int64_t c = static_cast<std::int64_t>(checkpoints.size()) - 1; c >= 0; --c) {
    const std::int64_t begin = c * interval, end = std::min(L, begin + interval);
    previous.assign(1, checkpoints[c]);
    for (std::int64_t t = begin; t + 1 < end; ++t) {
      previous.push_back(previous.back());
      gla_detail::advance(in, t, previous.back());
    }
    for (std::int64_t t = end - 1; t >= begin; --t) {
      const std::vector<S>& before = previous[t - begin];
      for (std::int64_t i = 0; i < K; ++i) alpha[i] = exp(in.g[t * K + i]);
      for (std::int64_t i = 0; i < K; ++i) {
        const S query = in.scale * in.q[t * K + i];
        for (std::int64_t j = 0; j < V; ++j) cotangent[i * V + j] = cotangent[i * V + j] + query * in.d_o[t * V + j];
      }
      for (std::int64_t i = 0; i < K; ++i) {
        S key_sum(0), gate_sum(0);
        for (std::int64_t j = 0; j < V; ++j) {
          key_sum = key_sum + cotangent[i * V + j] * in.v[t * V + j];
          gate_sum = gate_sum + cotangent[i * V + j] * before[i * V + j];
        }
        out.dk[t * K + i] = key_sum;
        out.dg[t * K + i] = alpha[i] * gate_sum;  // d/dg = alpha d/dalpha
      }
      for (std::int64_t j = 0; j < V; ++j) {
        S sum(0);
        for (std::int64_t i = 0; i < K; ++i) sum = sum + cotangent[i * V + j] * in.k[t * K + i];
        out.dv[t * V + j] = sum;
      }
      for (std::int64_t i = 0; i < K; ++i)
        for (std::int64_t j = 0; j < V; ++j) cotangent[i * V + j] = alpha[i] * cotangent[i * V + j];
    }
  }
  out.dh0 = std::move(cotangent);
  return out;
}

}  // namespace scancheck::ref
