// SPDX-License-Identifier: Apache-2.0
//! @file
//! gla_bounds and gla_evaluate: the float32 bounds of gated linear attention for every evaluation order
//! (docs/reference.md, "Gated linear attention"), from weighted sums of the terms' magnitudes, and the tiered
//! evaluation that certifies double values against them. Each (sequence, head) is bounded, evaluated and
//! certified in one pass on its own thread, so memory stays that of the inputs, values and bounds.
#include <atomic>
#include <bit>
#include <cmath>
#include <mutex>
#include <string>

#include "reference/dual.hpp"
#include "reference/gla.hpp"
#include "reference/gla_driver.hpp"

namespace scancheck {
namespace {

using namespace gla_driver;
using Outputs = ref::GlaSequenceOutputs<double>;

constexpr double u32 = 0x1p-24;       // float32's unit roundoff
constexpr double flush32 = 0x1p-126;  // what a flushed result may lose
constexpr double exp_ulps = 4;        // exp, or exp2 after the argument's own rounding (counted apart)

//! D(L): the additions trees over the sequence add beyond a sequential order's (order_free_bound.hpp).
double tree_additions(std::int64_t length) {
  return 2.0 * std::bit_width(static_cast<std::uint64_t>(std::max<std::int64_t>(length, 2) - 1)) + 4;
}

//! Lambda_t[i]: the sum of |g| over the `chunk` steps ending at t, as [L, K] rows: the most a chunk-local
//! cumulative gate reaching back from t can hold.
std::vector<double> window_sums(const ref::GlaSequenceInputs<double>& in, std::int64_t chunk) {
  const std::int64_t L = in.length, K = in.keys;
  std::vector<double> sums(L * K, 0.0);
  for (std::int64_t i = 0; i < K; ++i) {
    double window = 0;
    for (std::int64_t t = 0; t < L; ++t) {
      window += std::fabs(in.g[t * K + i]);
      if (t >= chunk) window -= std::fabs(in.g[(t - chunk) * K + i]);
      sums[t * K + i] = std::max(window, 0.0);
    }
  }
  return sums;
}

//! The weighted sums of every output's terms that the bounds are made of, for one (sequence, head).
struct TermSums {
  Outputs magnitude;   //!< M: sum of |term|
  Outputs decays;      //!< W: sum of |term| n, n the decays in its span
  Outputs gate_sizes;  //!< Z: sum of |term| sum of |g| over its span
  Outputs ends;        //!< sum of |term| Lambda at its earlier end (through k_s and v_s: see term_sums)
  Outputs grown;       //!< what a flushed rounding can grow into
};

template <class F>
Outputs map_outputs(const ref::GlaSequenceOutputs<ref::Dual<double>>& r, F f) {
  const auto each = [&](const std::vector<ref::Dual<double>>& xs) {
    std::vector<double> ys(xs.size());
    for (std::size_t n = 0; n < xs.size(); ++n) ys[n] = f(xs[n]);
    return ys;
  };
  return {each(r.o), each(r.ht), each(r.dq), each(r.dk), each(r.dg), each(r.dv), each(r.dh0)};
}

//! Every sum is a derivative of the magnitude recurrence: moving each log gate by epsilon w_r multiplies a
//! term by exp(epsilon sum of w over its decays); moving an input by epsilon Lambda |x| weighs the terms
//! holding it by Lambda. `a` holds one block's magnitudes (gla_driver::absolute).
TermSums term_sums(const ref::GlaSequenceInputs<double>& a, std::int64_t C) {
  using D = ref::Dual<double>;
  const auto lift = [](const std::vector<double>& xs) { return std::vector<D>(xs.begin(), xs.end()); };
  ref::GlaSequenceInputs<D> in{a.length,  a.keys,    a.values,   D(a.scale),  lift(a.q),  lift(a.k),
                               lift(a.g), lift(a.v), lift(a.h0), lift(a.d_o), lift(a.dht)};
  const auto value = [](const D& x) { return x.v; };
  const auto derivative = [](const D& x) { return x.d; };
  TermSums sums;
  auto counted = in;
  for (D& g : counted.g) g.d = 1;  // the number of decays
  const auto by_count = ref::gla_sequence(counted);
  sums.magnitude = map_outputs(by_count, value);
  sums.decays = map_outputs(by_count, derivative);
  auto sized = in;
  for (D& g : sized.g) g.d = std::fabs(g.v);  // the sum of |g| over the decays
  sums.gate_sizes = map_outputs(ref::gla_sequence(sized), derivative);
  auto windowed = in;  // the window at the term's earlier end, through k_s and v_s
  const std::vector<double> window = window_sums(a, C);
  for (std::int64_t t = 0; t < a.length; ++t) {
    double widest = 0;
    for (std::int64_t i = 0; i < a.keys; ++i) {
      windowed.k[t * a.keys + i].d = a.k[t * a.keys + i] * window[t * a.keys + i];
      widest = std::max(widest, window[t * a.keys + i]);
    }
    for (std::int64_t j = 0; j < a.values; ++j) windowed.v[t * a.values + j].d = a.v[t * a.values + j] * widest;
  }
  sums.ends = map_outputs(ref::gla_sequence(windowed), derivative);
  auto unit = in;  // every factor at least one, no decay below one
  for (auto* xs : {&unit.q, &unit.k, &unit.v, &unit.d_o, &unit.h0, &unit.dht})
    for (D& x : *xs) x = D(std::max(x.v, 1.0));
  for (D& g : unit.g) g = D(std::max(g.v, 0.0));
  unit.scale = D(std::max(a.scale, 1.0));
  sums.grown = map_outputs(ref::gla_sequence(unit), [](const D& x) { return std::max(x.v, 1.0); });
  return sums;
}

//! What bounds one (sequence, head): the float32 bound of every element, and the double evaluation's own.
struct SequenceBounds {
  Outputs float32;
  Outputs own;  //!< of gla_sequence<double>, the recurrent order in double: what certifies a tiered value
};

//! dg also admits the suffix-sum identity (recurrences.md section 7): dg_t[i] = sum_{r >= t} (q_r[i]
//! dq_r[i] - k_r[i] dk_r[i]) + sum_j dht[i, j] ht[i, j], bounded from dq's, dk's and ht's bounds and
//! magnitudes and the suffix sum's own additions; the larger bound is taken.
void admit_dg_identity(const ref::GlaSequenceInputs<double>& a, const TermSums& sums, double tree, Outputs& bound) {
  const std::int64_t L = a.length, K = a.keys, V = a.values;
  for (std::int64_t i = 0; i < K; ++i) {
    double error = 0, size = 0;  // the suffix sum's error and magnitude so far
    for (std::int64_t j = 0; j < V && !a.dht.empty(); ++j) {
      error += a.dht[i * V + j] * bound.ht[i * V + j];
      size += a.dht[i * V + j] * sums.magnitude.ht[i * V + j];
    }
    for (std::int64_t t = L - 1; t >= 0; --t) {
      const std::int64_t at = t * K + i;
      error += a.q[at] * bound.dq[at] + a.k[at] * bound.dk[at];
      size += a.q[at] * sums.magnitude.dq[at] + a.k[at] * sums.magnitude.dk[at];
      // Two products, the difference, the additions of a suffix sum in any order, and the state's V terms.
      const double identity = error + u32 * (static_cast<double>(L - t) + V + 3 + tree) * size;
      bound.dg[at] = std::max(bound.dg[at], identity);
    }
  }
}

constexpr double u16 = 0x1p-8;  // bfloat16's unit roundoff

//! bfloat16 io (GlaBoundOptions::io), the operands: each bfloat16 operand a term meets adds at most u16 times
//! the magnitudes of the terms it holds, so u16 M per rounding.
void admit_bf16_operands(const TermSums& sums, Outputs& bound) {
  for (auto field : {&Outputs::o, &Outputs::ht, &Outputs::dq, &Outputs::dk, &Outputs::dg, &Outputs::dv, &Outputs::dh0})
    for (std::size_t n = 0; n < (bound.*field).size(); ++n)
      (bound.*field)[n] += u16 * gla_bf16_operand_roundings * (sums.magnitude.*field)[n];
}

//! bfloat16 io, a stored output's own rounding: at most u16 times the computed value, |exact| <= M plus what
//! it erred by already.
void admit_bf16_store(const TermSums& sums, std::vector<double> Outputs::*field, Outputs& bound) {
  for (std::size_t n = 0; n < (bound.*field).size(); ++n)
    (bound.*field)[n] += u16 * ((sums.magnitude.*field)[n] + (bound.*field)[n]);
}

//! The bounds of one (sequence, head) from its magnitudes `a`; `steps` is the problem's T.
SequenceBounds bound_sequence(const ref::GlaSequenceInputs<double>& a, GateForm gates, std::int64_t C,
                              std::int64_t steps, DType io) {
  const TermSums sums = term_sums(a, C);
  const double K = static_cast<double>(a.keys), V = static_cast<double>(a.values);
  const double tree = tree_additions(steps), T = static_cast<double>(steps);
  // Per term (docs/reference.md): 6 roundings of its input products, the additions of any order
  // (1 + K + V + C + D(L), and one per decay), its gate product's error in the recurrent order (1 + exp_ulps
  // per decay plus |g| from exp's argument) and in a chunked one (C (2 Lambda + sum |g|) from the cumulative
  // gates, 2 exp_ulps + 2 per piece). In double (the recurrent order): products, K + V additions, one
  // addition, product and correctly rounded exp per decay, gradual underflow.
  const double per_term = 6 + 1 + K + V + static_cast<double>(C) + tree + 2 * exp_ulps + 2;
  const double per_decay = 1 + 1 + exp_ulps + 2 * exp_ulps + 2;
  const double per_term64 = 12 + K + V, per_decay64 = 3;
  SequenceBounds b{sums.magnitude, sums.magnitude};
  const auto fill = [&](std::vector<double> Outputs::*field, double end_weight) {
    const auto &m = sums.magnitude.*field, &w = sums.decays.*field, &z = sums.gate_sizes.*field;
    const auto &e = sums.ends.*field, &grown = sums.grown.*field;
    for (std::size_t n = 0; n < m.size(); ++n) {
      (b.float32.*field)[n] = u32 * (per_term * m[n] + per_decay * w[n] + (C + 1.0) * z[n] + end_weight * e[n]) +
                              flush32 * (T + per_term) * grown[n];
      (b.own.*field)[n] = 0x1p-53 * (per_term64 * m[n] + per_decay64 * w[n]) + 0x1p-1074 * (T + per_term64) * grown[n];
    }
  };
  // dk's and dv's terms hold their earlier end's window once (see term_sums), the others' twice.
  for (auto field : {&Outputs::o, &Outputs::ht, &Outputs::dq, &Outputs::dg, &Outputs::dh0}) fill(field, 1.0 * C);
  for (auto field : {&Outputs::dk, &Outputs::dv}) fill(field, 2.0 * C);
  // With bfloat16 io, the identity may be formed from dq and dk as stored, operand roundings included.
  const bool bf16 = io == DType::bfloat16;
  if (bf16) {
    admit_bf16_operands(sums, b.float32);
    for (auto field : {&Outputs::o, &Outputs::dq, &Outputs::dk, &Outputs::dv}) admit_bf16_store(sums, field, b.float32);
  }
  admit_dg_identity(a, sums, tree, b.float32);
  if (gates == GateForm::scalar)  // the scatter sums the K channels: their bounds, plus the sum's additions
    for (std::size_t n = 0; n < b.float32.dg.size(); ++n) b.float32.dg[n] += u32 * (K + tree) * sums.magnitude.dg[n];
  if (bf16) admit_bf16_store(sums, &Outputs::dg, b.float32);
  return b;
}

//! Whether every element of a double evaluation is certified by its own error bound.
std::int64_t uncertified(const Outputs& values, const SequenceBounds& b) {
  std::int64_t count = 0;
  for (auto field : {&Outputs::o, &Outputs::ht, &Outputs::dq, &Outputs::dk, &Outputs::dg, &Outputs::dv, &Outputs::dh0})
    for (std::size_t n = 0; n < (values.*field).size(); ++n)
      count += !(std::isfinite((values.*field)[n]) &&
                 (b.own.*field)[n] <= ref::certification_margin * (b.float32.*field)[n]);
  return count;
}

}  // namespace

std::map<std::string, Tensor<double>> gla_bounds(const GlaProblem& p, const GlaBoundOptions& options, int threads) {
  const GlaProblem a = absolute(p);
  const std::int64_t C = std::max<std::int64_t>(options.chunk, 1);
  auto bounds = output_tensors(p, static_cast<std::int64_t>(gla_sequences(p).size()));
  const Sink<double> sink{&bounds, [](double x) { return x; }};
  for_each_sequence(a, threads, [&](const GlaSequenceSpan& s, std::int64_t n, std::int64_t h) {
    scatter_sequence(bound_sequence(gather_sequence<double>(a, s, n, h), a.gates, C, a.q.dim(1), options.io).float32,
                     sink, s, n, h);
  });
  return bounds;
}

GlaEvaluation gla_evaluate(const GlaProblem& p, Precision precision, const GlaBoundOptions& options, int threads) {
  GlaEvaluation result;
  if (precision != Precision::tiered) {
    result.values = gla_reference(p, precision, threads);
    result.bounds = gla_bounds(p, options, threads);
    return result;
  }
  const GlaProblem a = absolute(p);
  const std::int64_t C = std::max<std::int64_t>(options.chunk, 1);
  const std::int64_t sequences = static_cast<std::int64_t>(gla_sequences(p).size());
  result.values = output_tensors(p, sequences);
  result.bounds = output_tensors(p, sequences);
  const Sink<double> values{&result.values, [](double x) { return x; }},
      bounds{&result.bounds, [](double x) { return x; }};
  const Sink<ref::float128> exact{&result.values, [](const ref::float128& x) { return ref::to_double(x); }};
  std::atomic<std::int64_t> not_certified{0};
  std::mutex recomputed;
  for_each_sequence(p, threads, [&](const GlaSequenceSpan& s, std::int64_t n, std::int64_t h) {
    const SequenceBounds b = bound_sequence(gather_sequence<double>(a, s, n, h), a.gates, C, a.q.dim(1), options.io);
    scatter_sequence(b.float32, bounds, s, n, h);
    const Outputs working = ref::gla_sequence(gather_sequence<double>(p, s, n, h));
    const std::int64_t count = uncertified(working, b);
    if (count == 0) {
      scatter_sequence(working, values, s, n, h);
      return;
    }
    not_certified += count;
    scatter_sequence(ref::gla_sequence(gather_sequence<ref::float128>(p, s, n, h)), exact, s, n, h);
    const std::lock_guard lock(recomputed);
    result.float128_blocks.push_back({n, h});
  });
  std::sort(result.float128_blocks.begin(), result.float128_blocks.end());
  result.uncertified_elements = not_certified;
  return result;
}

}  // namespace scancheck
