// SPDX-License-Identifier: Apache-2.0
//! @file
//! Internal to reference/: how the gated linear attention reference runs gla_sequence over a problem in
//! fla's layout: each (sequence, head) gathered in a scalar S, evaluated on its own thread, and every
//! projection of its outputs (a value, a derivative) scattered back as double. gla.cpp (values, the tiered
//! evaluation) and gla_bounds.cpp (bounds) both drive it.
#pragma once

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "reference/gla.hpp"
#include "reference/gla_sequence.hpp"
#define SCANCHECK_REFERENCE_EVALUATE_INTERNAL
#include "reference/evaluate.hpp"

namespace scancheck::gla_driver {

//! [B, T, H, D] -> the rows [begin, end) of (batch, head), [L, D] row-major, in the scalar S.
template <class S>
std::vector<S> gather_rows(const Tensor<double>& t, const GlaSequenceSpan& s, std::int64_t head,
                           std::int64_t depth_of_copy = -1) {
  const std::int64_t T = t.dim(1), H = t.dim(2), D = t.rank() == 4 ? t.dim(3) : 1;
  const std::int64_t copies = depth_of_copy < 0 ? D : depth_of_copy;  // a scalar gate is broadcast to K
  std::vector<S> rows;
  rows.reserve((s.end - s.begin) * copies);
  for (std::int64_t r = s.begin; r < s.end; ++r)
    for (std::int64_t d = 0; d < copies; ++d)
      rows.push_back(S(t[((s.batch * T + r) * H + head) * D + (D == 1 ? 0 : d)]));
  return rows;
}

//! [N, H, K, V] -> the K x V block of (sequence n, head), or empty without the tensor.
template <class S>
std::vector<S> gather_state(const std::optional<Tensor<double>>& t, std::int64_t n, std::int64_t head) {
  if (!t) return {};
  const std::int64_t H = t->dim(1), KV = t->dim(2) * t->dim(3);
  std::vector<S> state(KV);
  for (std::int64_t e = 0; e < KV; ++e) state[e] = S((*t)[(n * H + head) * KV + e]);
  return state;
}

//! Where one projection of a run's outputs goes: `project` maps a scalar to the double stored (its value,
//! or a derivative).
template <class S>
struct Sink {
  std::map<std::string, Tensor<double>>* tensors;
  std::function<double(const S&)> project;
};

template <class S>
void scatter_rows(const std::vector<S>& rows, const Sink<S>& sink, const char* name, const GlaSequenceSpan& s,
                  std::int64_t head) {
  Tensor<double>& t = sink.tensors->at(name);
  const std::int64_t T = t.dim(1), H = t.dim(2), D = t.rank() == 4 ? t.dim(3) : 1;
  const std::int64_t width = static_cast<std::int64_t>(rows.size()) / std::max<std::int64_t>(s.end - s.begin, 1);
  for (std::int64_t r = s.begin; r < s.end; ++r) {
    if (D == 1 && width > 1) {  // a scalar gate's gradient: the sum over the K channels it multiplies, in order
      S sum(0);
      for (std::int64_t d = 0; d < width; ++d) sum = sum + rows[(r - s.begin) * width + d];
      t[(s.batch * T + r) * H + head] = sink.project(sum);
      continue;
    }
    for (std::int64_t d = 0; d < D; ++d)
      t[((s.batch * T + r) * H + head) * D + d] = sink.project(rows[(r - s.begin) * D + d]);
  }
}

template <class S>
void scatter_state(const std::vector<S>& state, const Sink<S>& sink, const char* name, std::int64_t n,
                   std::int64_t head) {
  Tensor<double>& t = sink.tensors->at(name);
  const std::int64_t H = t.dim(1), KV = t.dim(2) * t.dim(3);
  for (std::int64_t e = 0; e < KV; ++e) t[(n * H + head) * KV + e] = sink.project(state[e]);
}

//! Output tensors of every name, shaped for `p`, filled with zeros.
inline std::map<std::string, Tensor<double>> output_tensors(const GlaProblem& p, std::int64_t sequences) {
  const std::int64_t H = p.q.dim(2), K = p.q.dim(3), V = p.v.dim(3);
  std::map<std::string, Tensor<double>> out;
  out.emplace("o", Tensor<double>(p.v.dims()));
  out.emplace("ht", Tensor<double>({sequences, H, K, V}));
  out.emplace("dq", Tensor<double>(p.q.dims()));
  out.emplace("dk", Tensor<double>(p.k.dims()));
  out.emplace("dv", Tensor<double>(p.v.dims()));
  out.emplace("dg", Tensor<double>(p.g.dims()));
  out.emplace("dh0", Tensor<double>({sequences, H, K, V}));
  return out;
}

//! One (sequence, head) of `p` gathered in the scalar S.
template <class S>
ref::GlaSequenceInputs<S> gather_sequence(const GlaProblem& p, const GlaSequenceSpan& s, std::int64_t n,
                                          std::int64_t h) {
  const std::int64_t K = p.q.dim(3);
  using std::sqrt;
  ref::GlaSequenceInputs<S> in;
  in.length = s.end - s.begin;
  in.keys = K;
  in.values = p.v.dim(3);
  in.scale = p.scale ? S(*p.scale) : S(1) / sqrt(S(static_cast<double>(K)));
  in.q = gather_rows<S>(p.q, s, h);
  in.k = gather_rows<S>(p.k, s, h);
  in.g = gather_rows<S>(p.g, s, h, K);
  in.v = gather_rows<S>(p.v, s, h);
  in.d_o = gather_rows<S>(p.d_o, s, h);
  in.h0 = gather_state<S>(p.h0, n, h);
  in.dht = gather_state<S>(p.dht, n, h);
  return in;
}

//! One (sequence, head)'s outputs, through `sink`, into their places.
template <class S>
void scatter_sequence(const ref::GlaSequenceOutputs<S>& r, const Sink<S>& sink, const GlaSequenceSpan& s,
                      std::int64_t n, std::int64_t h) {
  scatter_rows(r.o, sink, "o", s, h);
  scatter_rows(r.dq, sink, "dq", s, h);
  scatter_rows(r.dk, sink, "dk", s, h);
  scatter_rows(r.dv, sink, "dv", s, h);
  scatter_rows(r.dg, sink, "dg", s, h);
  scatter_state(r.ht, sink, "ht", n, h);
  scatter_state(r.dh0, sink, "dh0", n, h);
}

//! Calls body(span, n, h) for every (sequence n, head h) of `p` on `threads` threads (0: every core). Every
//! block writes its own rows and states: no two blocks share an element.
template <class Body>
void for_each_sequence(const GlaProblem& p, int threads, Body&& body) {
  const std::vector<GlaSequenceSpan> spans = gla_sequences(p);
  const std::int64_t H = p.q.dim(2);
  const int workers = threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  ref::parallel_for(static_cast<std::int64_t>(spans.size()) * H, workers, nullptr,
                    [&](std::int64_t block) { body(spans[block / H], block / H, block % H); });
}

//! Every output of `p` evaluated in the scalar S, rounded once to double.
template <class S>
std::map<std::string, Tensor<double>> evaluate(const GlaProblem& p, int threads) {
  auto out = output_tensors(p, static_cast<std::int64_t>(gla_sequences(p).size()));
  const Sink<S> sink{&out, [](const S& x) { return ref::to_double(x); }};
  for_each_sequence(p, threads, [&](const GlaSequenceSpan& s, std::int64_t n, std::int64_t h) {
    scatter_sequence(ref::gla_sequence(gather_sequence<S>(p, s, n, h)), sink, s, n, h);
  });
  return out;
}

//! |x| of every input and cotangent (and of the scale); the gates as given.
inline GlaProblem absolute(GlaProblem p) {
  for (Tensor<double>* t : {&p.q, &p.k, &p.v, &p.d_o})
    for (double& x : t->values()) x = std::fabs(x);
  for (auto* t : {&p.h0, &p.dht})
    if (*t)
      for (double& x : (*t)->values()) x = std::fabs(x);
  if (p.scale) p.scale = std::fabs(*p.scale);
  return p;
}

}  // namespace scancheck::gla_driver
