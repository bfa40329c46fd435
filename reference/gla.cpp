// SPDX-License-Identifier: Apache-2.0
//! @file
//! gla_reference: each (sequence, head) gathered from fla's layout, evaluated by gla_sequence in the chosen
//! scalar on its own thread, and scattered back rounded once to float64.
#include "reference/gla.hpp"

#include <cmath>
#include <functional>
#include <string>

#include "core/error.hpp"
#include "reference/gla_sequence.hpp"
#define SCANCHECK_REFERENCE_EVALUATE_INTERNAL
#include "reference/evaluate.hpp"

namespace scancheck {
namespace {

void expect_dims(const char* name, const Tensor<double>& t, const Dims& dims) {
  if (t.dims() != dims)
    throw InputError(std::string("gla: ") + name + " is " + to_string(t.dims()) + ", expected " + to_string(dims));
}

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
std::map<std::string, Tensor<double>> output_tensors(const GlaProblem& p, std::int64_t sequences) {
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

//! Runs gla_sequence in the scalar S on every (sequence, head) of `p`, on `threads` threads, after
//! `prepare(in)` has adjusted the gathered inputs, and stores every sink's projection of the outputs.
template <class S, class Prepare>
void run_sequences(const GlaProblem& p, int threads, Prepare prepare, const std::vector<Sink<S>>& sinks) {
  const std::vector<GlaSequenceSpan> spans = gla_sequences(p);
  const std::int64_t N = static_cast<std::int64_t>(spans.size()), H = p.q.dim(2), K = p.q.dim(3), V = p.v.dim(3);
  using std::sqrt;
  const S scale = p.scale ? S(*p.scale) : S(1) / sqrt(S(static_cast<double>(K)));
  const int workers = threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  // Every (sequence, head) writes its own rows and states: no two blocks share an element.
  ref::parallel_for(N * H, workers, nullptr, [&](std::int64_t block) {
    const std::int64_t n = block / H, h = block % H;
    const GlaSequenceSpan& s = spans[n];
    ref::GlaSequenceInputs<S> in;
    in.length = s.end - s.begin;
    in.keys = K;
    in.values = V;
    in.scale = scale;
    in.q = gather_rows<S>(p.q, s, h);
    in.k = gather_rows<S>(p.k, s, h);
    in.g = gather_rows<S>(p.g, s, h, K);
    in.v = gather_rows<S>(p.v, s, h);
    in.d_o = gather_rows<S>(p.d_o, s, h);
    in.h0 = gather_state<S>(p.h0, n, h);
    in.dht = gather_state<S>(p.dht, n, h);
    prepare(in);
    const ref::GlaSequenceOutputs<S> r = ref::gla_sequence(in);
    for (const Sink<S>& sink : sinks) {
      scatter_rows(r.o, sink, "o", s, h);
      scatter_rows(r.dq, sink, "dq", s, h);
      scatter_rows(r.dk, sink, "dk", s, h);
      scatter_rows(r.dv, sink, "dv", s, h);
      scatter_rows(r.dg, sink, "dg", s, h);
      scatter_state(r.ht, sink, "ht", n, h);
      scatter_state(r.dh0, sink, "dh0", n, h);
    }
  });
}

template <class S>
std::map<std::string, Tensor<double>> evaluate(const GlaProblem& p, int threads) {
  auto out = output_tensors(p, static_cast<std::int64_t>(gla_sequences(p).size()));
  run_sequences<S>(p, threads, [](auto&) {}, {Sink<S>{&out, [](const S& x) { return ref::to_double(x); }}});
  return out;
}

//! |x| of every input and cotangent (and of the scale); the gates as given.
GlaProblem absolute(GlaProblem p) {
  for (Tensor<double>* t : {&p.q, &p.k, &p.v, &p.d_o})
    for (double& x : t->values()) x = std::fabs(x);
  for (auto* t : {&p.h0, &p.dht})
    if (*t)
      for (double& x : (*t)->values()) x = std::fabs(x);
  if (p.scale) p.scale = std::fabs(*p.scale);
  return p;
}

}  // namespace

std::vector<GlaSequenceSpan> gla_sequences(const GlaProblem& p) {
  if (p.q.rank() != 4) throw InputError("gla: q is " + to_string(p.q.dims()) + ", expected [B, T, H, K]");
  if (p.v.rank() != 4) throw InputError("gla: v is " + to_string(p.v.dims()) + ", expected [B, T, H, V]");
  const std::int64_t B = p.q.dim(0), T = p.q.dim(1), H = p.q.dim(2), K = p.q.dim(3), V = p.v.dim(3);
  if (K < 1 || V < 1 || H < 1)
    throw InputError("gla: K, V and H must be positive, got q " + to_string(p.q.dims()) + " and v " +
                     to_string(p.v.dims()));
  expect_dims("k", p.k, {B, T, H, K});
  expect_dims("v", p.v, {B, T, H, V});
  expect_dims("g", p.g, p.gates == GateForm::vector ? Dims{B, T, H, K} : Dims{B, T, H});
  expect_dims("do", p.d_o, {B, T, H, V});
  if (p.scale && !std::isfinite(*p.scale)) throw InputError("gla: the scale must be finite");
  std::vector<GlaSequenceSpan> spans;
  if (p.cu_seqlens.empty()) {
    for (std::int64_t b = 0; b < B; ++b) spans.push_back({b, 0, T});
  } else {
    const auto& c = p.cu_seqlens;
    if (B != 1) throw InputError("gla: with cu_seqlens the batch must be 1, got " + std::to_string(B));
    if (c.size() < 2 || c.front() != 0 || c.back() != T)
      throw InputError("gla: cu_seqlens must run from 0 to T = " + std::to_string(T));
    for (std::size_t n = 0; n + 1 < c.size(); ++n) {
      if (c[n + 1] < c[n])
        throw InputError("gla: cu_seqlens must not decrease (at offset " + std::to_string(n + 1) + ")");
      spans.push_back({0, c[n], c[n + 1]});
    }
  }
  const std::int64_t N = static_cast<std::int64_t>(spans.size());
  if (p.h0) expect_dims("h0", *p.h0, {N, H, K, V});
  if (p.dht) expect_dims("dht", *p.dht, {N, H, K, V});
  return spans;
}

std::map<std::string, Tensor<double>> gla_reference(const GlaProblem& p, Precision precision, int threads) {
  switch (precision) {
    case Precision::float128: return evaluate<ref::float128>(p, threads);
    case Precision::mpfr50: return evaluate<ref::mpfr50>(p, threads);
    case Precision::float64: return evaluate<double>(p, threads);
    default:
      throw InputError("gla: the reference evaluates in float128, mpfr50 or float64, not " +
                       std::string(to_string(precision)));
  }
}

std::map<std::string, Tensor<double>> gla_term_magnitudes(const GlaProblem& p, int threads) {
  return evaluate<double>(absolute(p), threads);
}

}  // namespace scancheck
