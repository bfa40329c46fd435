// SPDX-License-Identifier: Apache-2.0
//! @file
//! gla_reference: each (sequence, head) gathered from fla's layout, evaluated by gla_sequence in the chosen
//! scalar on its own thread, and scattered back rounded once to float64.
#include "reference/gla.hpp"

#include <bit>
#include <cmath>
#include <functional>
#include <string>

#include "core/error.hpp"
#include "reference/dual.hpp"
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
    case Precision::float32: return evaluate<float>(p, threads);
    default:
      throw InputError("gla: the reference evaluates in float128, mpfr50 or float64, not " +
                       std::string(to_string(precision)));
  }
}

std::map<std::string, Tensor<double>> gla_term_magnitudes(const GlaProblem& p, int threads) {
  return evaluate<double>(absolute(p), threads);
}

namespace {

constexpr double u32 = 0x1p-24;       // float32's unit roundoff
constexpr double flush32 = 0x1p-126;  // what a flushed result may lose
constexpr double exp_ulps = 4;        // exp, or exp2 after the argument's own rounding (counted apart)

//! D(L): the additions trees over the sequence add beyond a sequential order's (order_free_bound.hpp).
double tree_additions(std::int64_t length) {
  return 2.0 * std::bit_width(static_cast<std::uint64_t>(std::max<std::int64_t>(length, 2) - 1)) + 4;
}

//! Lambda_t[i]: the sum of |g| over the `chunk` steps of sequence `s` ending at t, laid out as [L, K] rows of
//! one (sequence, head): the most a chunk-local cumulative gate reaching back from t can hold.
template <class S>
std::vector<double> window_sums(const ref::GlaSequenceInputs<S>& in, std::int64_t chunk) {
  const std::int64_t L = in.length, K = in.keys;
  std::vector<double> sums(L * K, 0.0);
  using ref::value_of;  // a Dual's own by ADL
  const auto size = [&](std::int64_t at) { return std::fabs(static_cast<double>(value_of(in.g[at]))); };
  for (std::int64_t i = 0; i < K; ++i) {
    double window = 0;
    for (std::int64_t t = 0; t < L; ++t) {
      window += size(t * K + i);
      if (t >= chunk) window -= size((t - chunk) * K + i);
      sums[t * K + i] = std::max(window, 0.0);
    }
  }
  return sums;
}

//! The suffix-sum form of dg (recurrences.md section 7), bounded from the bounds and magnitudes of dq, dk and
//! ht: dg_t[i] = sum_{r >= t} (q_r[i] dq_r[i] - k_r[i] dk_r[i]) + sum_j dht[i, j] ht[i, j], per key channel
//! (a scalar gate then sums its K channels).
void bound_dg_identity(const GlaProblem& a, const std::map<std::string, Tensor<double>>& bound,
                       const std::map<std::string, Tensor<double>>& magnitude, Tensor<double>& dg_bound) {
  const std::vector<GlaSequenceSpan> spans = gla_sequences(a);
  const std::int64_t T = a.q.dim(1), H = a.q.dim(2), K = a.q.dim(3), V = a.v.dim(3);
  const bool scalar = a.gates == GateForm::scalar;
  for (std::size_t n = 0; n < spans.size(); ++n) {
    const GlaSequenceSpan& s = spans[n];
    const double tree = tree_additions(s.end - s.begin);
    for (std::int64_t h = 0; h < H; ++h) {
      std::vector<double> error(K, 0.0), size(K, 0.0);  // the suffix sums' error and magnitude so far
      const std::int64_t state = (static_cast<std::int64_t>(n) * H + h) * K * V;
      for (std::int64_t i = 0; i < K; ++i)
        for (std::int64_t j = 0; j < V && a.dht; ++j) {
          const double d = (*a.dht)[state + i * V + j];
          error[i] += d * bound.at("ht")[state + i * V + j];
          size[i] += d * magnitude.at("ht")[state + i * V + j];
        }
      for (std::int64_t t = s.end - 1; t >= s.begin; --t) {
        const std::int64_t row = (s.batch * T + t) * H + h;
        double scalar_error = 0, scalar_size = 0;
        for (std::int64_t i = 0; i < K; ++i) {
          const std::int64_t at = row * K + i;
          const double q = a.q[at], k = a.k[at];
          error[i] += q * bound.at("dq")[at] + k * bound.at("dk")[at];
          size[i] += q * magnitude.at("dq")[at] + k * magnitude.at("dk")[at];
          // Two products, the difference, the additions of a suffix sum in any order, and the state's V terms.
          const double total = error[i] + u32 * (static_cast<double>(s.end - t) + V + 3 + tree) * size[i];
          if (!scalar) dg_bound[at] = std::max(dg_bound[at], total);
          scalar_error += total;
          scalar_size += size[i];
        }
        if (scalar) dg_bound[row] = std::max(dg_bound[row], scalar_error + u32 * (K + tree) * scalar_size);
      }
    }
  }
}

}  // namespace

std::map<std::string, Tensor<double>> gla_bounds(const GlaProblem& p, const GlaBoundOptions& options, int threads) {
  using D = ref::Dual<double>;
  const GlaProblem a = absolute(p);
  const std::int64_t sequences = static_cast<std::int64_t>(gla_sequences(a).size());
  const std::int64_t C = std::max<std::int64_t>(options.chunk, 1);
  auto magnitude = output_tensors(a, sequences), decays = magnitude, gate_sizes = magnitude, ends = magnitude;
  const auto value = [](const D& x) { return x.v; };
  const auto derivative = [](const D& x) { return x.d; };
  // Every weighted sum of the terms is a derivative of the magnitude recurrence: moving each log gate by
  // epsilon w_r multiplies a term by exp(epsilon sum of w over its decays); moving an input by epsilon
  // Lambda |x| weighs the terms holding it by Lambda.
  run_sequences<D>(a, threads,
                   [](auto& in) {
                     for (D& g : in.g) g.d = 1;
                   },  // the number of decays
                   {Sink<D>{&magnitude, value}, Sink<D>{&decays, derivative}});
  run_sequences<D>(a, threads,
                   [](auto& in) {
                     for (D& g : in.g) g.d = std::fabs(g.v);
                   },  // the sum of |g| over the decays
                   {Sink<D>{&gate_sizes, derivative}});
  run_sequences<D>(a, threads,
                   [C](auto& in) {  // the window at the term's earlier end, through k_s and v_s
                     const std::vector<double> window = window_sums(in, C);
                     for (std::int64_t t = 0; t < in.length; ++t) {
                       for (std::int64_t i = 0; i < in.keys; ++i)
                         in.k[t * in.keys + i].d = in.k[t * in.keys + i].v * window[t * in.keys + i];
                       double widest = 0;
                       for (std::int64_t i = 0; i < in.keys; ++i) widest = std::max(widest, window[t * in.keys + i]);
                       for (std::int64_t j = 0; j < in.values; ++j)
                         in.v[t * in.values + j].d = in.v[t * in.values + j].v * widest;
                     }
                   },
                   {Sink<D>{&ends, derivative}});
  // What a flushed rounding can grow into: every factor at least one, no decay below one.
  GlaProblem unit = a;
  for (Tensor<double>* t : {&unit.q, &unit.k, &unit.v, &unit.d_o})
    for (double& x : t->values()) x = std::max(x, 1.0);
  for (auto* t : {&unit.h0, &unit.dht})
    if (*t)
      for (double& x : (*t)->values()) x = std::max(x, 1.0);
  for (double& g : unit.g.values()) g = std::max(g, 0.0);
  if (unit.scale) unit.scale = std::max(*unit.scale, 1.0);
  auto grown = output_tensors(a, sequences);
  run_sequences<double>(unit, threads, [](auto&) {}, {Sink<double>{&grown, [](double x) { return std::max(x, 1.0); }}});

  const double K = static_cast<double>(a.q.dim(3)), V = static_cast<double>(a.v.dim(3));
  const double tree = tree_additions(a.q.dim(1)), T = static_cast<double>(a.q.dim(1));
  // Per term (docs/reference.md): 6 roundings of its input products, the additions of any order
  // (1 + K + V + C + D(L), and one per decay), its gate product's error in the recurrent order (1 + exp_ulps
  // per decay plus |g| from exp's argument) and in a chunked one (C (2 Lambda + sum |g|) from the cumulative
  // gates, 2 exp_ulps + 2 per piece).
  const double per_term = 6 + 1 + K + V + static_cast<double>(C) + tree + 2 * exp_ulps + 2;
  const double per_decay = 1 + 1 + exp_ulps + 2 * exp_ulps + 2;
  std::map<std::string, Tensor<double>> bound = output_tensors(a, sequences);
  for (auto& [name, b] : bound) {
    // dk and dv hold one end's window once (see the ends run above), the others twice.
    const double end_weight = (name == "dk" || name == "dv") ? 2.0 * C : 1.0 * C;
    for (std::int64_t e = 0; e < b.size(); ++e)
      b[e] = u32 * (per_term * magnitude.at(name)[e] + per_decay * decays.at(name)[e] +
                    (C + 1.0) * gate_sizes.at(name)[e] + end_weight * ends.at(name)[e]) +
             flush32 * (T + per_term) * grown.at(name)[e];
  }
  bound_dg_identity(a, bound, magnitude, bound.at("dg"));
  return bound;
}

}  // namespace scancheck
