// SPDX-License-Identifier: Apache-2.0
//! @file
//! Shared helpers of the reference validation suites (tests/reference/*_test.cpp).
//!
//! - case construction: generated cases (make_case), hand-built ones (blank_case), direction cases;
//! - the whole-case outputs evaluated in any scalar S and assembled exactly as compute_reference assembles
//!   them (same summation order), but kept in S instead of being rounded to float64 (`assemble_outputs`);
//! - the directional derivative of the loss L = sum(y dy) + sum(h_last dh_last) by forward-mode AD
//!   (`forward_mode_derivative`) and the backward's gradient dotted with the direction (`gradient_dot`);
//! - per-block flattened outputs (`block_values`) for precision-against-precision comparisons;
//! - exact-enough conversions between the high-precision scalars.
//!
//! Complex values follow recurrences.md §1: merged [Re | Im] storage; gradients in the PyTorch convention
//! (grad = dL/dRe + i dL/dIm), so a directional derivative is Re(grad) dRe + Im(grad) dIm.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/architectures.hpp"
#include "core/case.hpp"
#include "core/generate.hpp"
#include "core/rng.hpp"
#include "reference/complex.hpp"
#include "reference/dual.hpp"
#include "reference/gated_block.hpp"
#include "reference/gather.hpp"
#include "reference/quad.hpp"
#include "reference/reference.hpp"
#include "reference/scalar.hpp"
#include "reference/scan_block.hpp"

namespace scancheck::reftest {

using ref::Complex;
using ref::Dual;
using ref::float128;
using ref::mpfr50;
using ref::Quad;  // the float128 reference's scalar: float128 arithmetic, exp, sqrt, ... via double-double

// ---------------------------------------------------------------------------------------------------
// Cases

inline CaseRequest request(Architecture arch, Shape shape, std::uint64_t seed, Regime regime = Regime::default_,
                           DType dtype = DType::float32, SqrtGradient sqrt = SqrtGradient::bounded, bool with_h0 = true,
                           bool with_dh_last = true) {
  CaseRequest r;
  r.architecture = arch;
  r.shape = shape;
  r.seed = seed;
  r.regime = regime;
  r.io_dtype = dtype;
  r.sqrt_gradient = sqrt;
  r.with_h0 = with_h0;
  r.with_dh_last = with_dh_last;
  return r;
}

//! "rglru B=2 L=7 W=8 H=2 regime=default seed=3 sqrt=bounded io=float32 h0 dh_last": for SCOPED_TRACE.
inline std::string trace_of(const Case& c) {
  std::ostringstream s;
  s << to_string(c.architecture) << ' ' << to_string(c.shape)
    << " regime=" << (c.provenance.regime.empty() ? "?" : c.provenance.regime)
    << " seed=" << (c.provenance.seed ? std::to_string(*c.provenance.seed) : "?")
    << " sqrt=" << to_string(c.sqrt_gradient) << " io=" << to_string(c.io_dtype) << (c.has("h0") ? " h0" : " no_h0")
    << (c.has("dh_last") ? " dh_last" : " no_dh_last");
  return s.str();
}

//! A hand-built case of the given shape: every required input and cotangent present and zero-filled,
//! h0 and dh_last present when asked, segment_pos (gated kinds) = t + 1 (no reset anywhere).
inline Case blank_case(Architecture arch, Shape shape, bool with_h0 = true, bool with_dh_last = true) {
  Case c;
  c.architecture = arch;
  c.shape = shape;
  c.sqrt_gradient = SqrtGradient::exact;
  for (const TensorSpec& spec : tensor_layout(arch, shape)) {
    if (spec.role == TensorRole::output || spec.integer) continue;
    if (spec.name == "h0" && !with_h0) continue;
    if (spec.name == "dh_last" && !with_dh_last) continue;
    c.tensors.emplace(spec.name, Tensor<float>(spec.dims, 0.0f));
  }
  if ((describe(arch).family == Family::gated_layer)) {
    c.segment_pos = Tensor<std::int32_t>({shape.batch, shape.length});
    for (std::int64_t b = 0; b < shape.batch; ++b)
      for (std::int64_t t = 0; t < shape.length; ++t) c.segment_pos(b, t) = static_cast<std::int32_t>(t + 1);
  }
  return c;
}

//! Fills every element of tensor `name` with scale * N(0, 1) drawn from CounterRng(seed) (stream `stream`).
inline void fill_normal(Case& c, const std::string& name, std::uint64_t seed, std::uint64_t stream,
                        double scale = 1.0) {
  const CounterRng rng(seed);
  Tensor<float>& t = c.at(name);
  for (std::int64_t i = 0; i < t.size(); ++i)
    t[i] = static_cast<float>(scale * rng.normal(stream, static_cast<std::uint64_t>(i)));
}

//! A direction for every float input of the case: the case itself (architecture, shape, segment_pos,
//! cotangents) with every input tensor replaced by N(0, 1) draws of CounterRng(seed), one stream per
//! tensor. h0 is always present, even where the case has none: a case without h0 is differentiated at a
//! zero h0, where its dh0 is the gradient (recurrences.md §1; "no h0" and "h0 = 0" give the same values).
inline Case direction_case(const Case& c, std::uint64_t seed) {
  Case d = c;
  std::uint64_t stream = 101;
  for (const TensorSpec& spec : tensor_layout(c)) {
    ++stream;
    if (spec.role != TensorRole::input || spec.integer) continue;
    d.tensors[spec.name] = Tensor<float>(spec.dims, 0.0f);
    fill_normal(d, spec.name, seed, stream);
  }
  return d;
}

//! Pairs (gradient output, the input it is the gradient of), for the dot product with a direction.
inline std::vector<std::pair<std::string, std::string>> gradient_pairs(Architecture arch) {
  if (!(describe(arch).family == Family::gated_layer)) return {{"da", "a"}, {"db", "b"}, {"dh0", "h0"}};
  std::vector<std::pair<std::string, std::string>> p{{"dx", "x"},
                                                     {"dh0", "h0"},
                                                     {"d_a_param", "a_param"},
                                                     {"d_input_gate_w", "input_gate_w"},
                                                     {"d_input_gate_b", "input_gate_b"},
                                                     {"d_a_gate_w", "a_gate_w"},
                                                     {"d_a_gate_b", "a_gate_b"}};
  if (describe(arch).complex) p.emplace_back("d_a_imag_param", "a_imag_param");
  return p;
}

//! Options for compute_reference: one thread unless asked (ctest runs suites side by side), all blocks.
inline ReferenceOptions options(Precision precision, bool bounds, int threads = 1) {
  ReferenceOptions o;
  o.precision = precision;
  o.bounds = bounds;
  o.threads = threads;
  return o;
}

// ---------------------------------------------------------------------------------------------------
// Field helpers

//! Calls fn(std::type_identity<F>{}) with F = S for the real kinds and Complex<S> for the complex kinds.
template <class S, class Fn>
decltype(auto) with_field(Architecture arch, Fn&& fn) {
  if (describe(arch).complex) return fn(std::type_identity<Complex<S>>{});
  return fn(std::type_identity<S>{});
}

//! Real inner product of two field values seen as merged real vectors: x y, or Re x Re y + Im x Im y.
template <class S>
S dot1(const S& x, const S& y) {
  return x * y;
}
template <class S>
S dot1(const Complex<S>& x, const Complex<S>& y) {
  return x.re * y.re + x.im * y.im;
}

//! sum_i |x_i y_i| (per real component): the scale of an inner product, for relative comparisons.
template <class S>
S absdot1(const S& x, const S& y) {
  using std::abs;
  return abs(x * y);
}
template <class S>
S absdot1(const Complex<S>& x, const Complex<S>& y) {
  using std::abs;
  return abs(x.re * y.re) + abs(x.im * y.im);
}

template <class X, class Y, class S>
void accumulate_dot(const std::vector<X>& x, const std::vector<Y>& y, S& sum, S& scale) {
  for (std::size_t i = 0; i < x.size(); ++i) {
    sum = sum + dot1(x[i], y[i]);
    scale = scale + absdot1(x[i], y[i]);
  }
}

// Dual parts.
template <class T>
const T& primal(const Dual<T>& x) {
  return x.v;
}
template <class T>
Complex<T> primal(const Complex<Dual<T>>& x) {
  return {x.re.v, x.im.v};
}
template <class T>
const T& tangent(const Dual<T>& x) {
  return x.d;
}
template <class T>
Complex<T> tangent(const Complex<Dual<T>>& x) {
  return {x.re.d, x.im.d};
}
template <class T>
void set_tangent(Dual<T>& x, const T& d) {
  x.d = d;
}
template <class T>
void set_tangent(Complex<Dual<T>>& x, const Complex<T>& d) {
  x.re.d = d.re;
  x.im.d = d.im;
}
//! Sets the tangents of xs to ds; an empty xs (absent h0) becomes zeros carrying the tangents.
template <class X, class D>
void set_tangents(std::vector<X>& xs, const std::vector<D>& ds) {
  if (xs.empty()) xs.assign(ds.size(), X(0));
  for (std::size_t i = 0; i < ds.size(); ++i) set_tangent(xs[i], ds[i]);
}

//! Writes a field value into a merged real tensor: index (real) or index and index + Wc (complex).
template <class S>
void put_merged(std::vector<S>& out, std::int64_t index, const S& v, std::int64_t) {
  out[index] = v;
}
template <class S>
void put_merged(std::vector<S>& out, std::int64_t index, const Complex<S>& v, std::int64_t complex_width) {
  out[index] = v.re;
  out[index + complex_width] = v.im;
}

// ---------------------------------------------------------------------------------------------------
// Whole-case outputs at any scalar

//! Every output of tensor_layout(arch, shape, output), evaluated with scalar S and assembled the way the
//! reference driver does (dx = direct term + gate back-projection; parameter gradients summed over batch
//! entries 0..B-1 in ascending order, d_a_param = sigmoid(a_param) * sum), kept in S. With S = Quad (the
//! float128 reference's scalar) each value rounded to double must equal compute_reference(float128, bounds
//! off) bitwise.
template <class S>
std::map<std::string, std::vector<S>> assemble_outputs(const Case& c) {
  const Shape& s = c.shape;
  const std::int64_t B = s.batch, L = s.length, W = s.width, H = s.heads;
  const std::int64_t Wc = describe(c.architecture).complex ? W / 2 : 0;
  std::map<std::string, std::vector<S>> out;
  for (const TensorSpec& spec : tensor_layout(c.architecture, s, TensorRole::output))
    out[spec.name].assign(static_cast<std::size_t>(element_count(spec.dims)), S(0));
  with_field<S>(c.architecture, [&]<class F>(std::type_identity<F>) {
    if (!(describe(c.architecture).family == Family::gated_layer)) {
      const std::int64_t K = state_channels(c.architecture, s) / H;
      for (std::int64_t b = 0; b < B; ++b)
        for (std::int64_t h = 0; h < H; ++h) {
          const auto r = ref::scan_block(ref::gather_scan_block<F>(c, b, h));
          for (std::int64_t t = 0; t < L; ++t)
            for (std::int64_t k = 0; k < K; ++k) {
              const std::int64_t at = (b * L + t) * W + h * K + k;
              put_merged(out["h"], at, r.h[t * K + k], Wc);
              put_merged(out["da"], at, r.da[t * K + k], Wc);
              put_merged(out["db"], at, r.db[t * K + k], Wc);
            }
          for (std::int64_t k = 0; k < K; ++k) {
            put_merged(out["h_last"], b * W + h * K + k, r.h[(L - 1) * K + k], Wc);
            put_merged(out["dh0"], b * W + h * K + k, r.dh0[k], Wc);
          }
        }
      return;
    }
    const std::int64_t Ki = head_inputs(c.architecture, s), K = head_channels(c.architecture, s);
    std::vector<ref::GatedBlockGrads<S, F>> grads;
    for (std::int64_t b = 0; b < B; ++b)
      for (std::int64_t h = 0; h < H; ++h) {
        const auto in = ref::gather_gated_block<S, F>(c, b, h);
        const auto fw = ref::gated_forward(in);
        grads.push_back(ref::gated_backward(in, fw));
        for (std::int64_t t = 0; t < L; ++t)
          for (std::int64_t j = 0; j < K; ++j) put_merged(out["y"], (b * L + t) * W + h * K + j, fw.h[t * K + j], Wc);
        for (std::int64_t j = 0; j < K; ++j) {
          put_merged(out["h_last"], b * W + h * K + j, fw.h[(L - 1) * K + j], Wc);
          put_merged(out["dh0"], b * W + h * K + j, grads.back().dh0[j], Wc);
        }
      }
    // dx at merged position p: the direct term of state channel p (real kinds) or p mod Wc (its real part
    // for p < Wc, imaginary part otherwise), plus the back-projection of gate head p / K_in.
    for (std::int64_t b = 0; b < B; ++b)
      for (std::int64_t p = 0; p < W; ++p) {
        const std::int64_t channel = Wc ? p % Wc : p;
        const auto& owner = grads[static_cast<std::size_t>(b * H + channel / K)];
        const auto& gate = grads[static_cast<std::size_t>(b * H + p / Ki)];
        for (std::int64_t t = 0; t < L; ++t) {
          const F& d = owner.dx_direct[t * K + channel % K];
          S direct;
          if constexpr (ref::is_complex_v<F>) direct = p < Wc ? d.re : d.im;
          else direct = d;
          out["dx"][(b * L + t) * W + p] = direct + gate.dx_gate[t * Ki + p % Ki];
        }
      }
    const Tensor<float>& a_param = c.at("a_param");
    for (std::int64_t h = 0; h < H; ++h) {
      auto total = grads[static_cast<std::size_t>(h)];
      for (std::int64_t b = 1; b < B; ++b) {
        const auto& g = grads[static_cast<std::size_t>(b * H + h)];
        for (std::size_t k = 0; k < total.dwx.size(); ++k) {
          total.dwx[k] = total.dwx[k] + g.dwx[k];
          total.dwa[k] = total.dwa[k] + g.dwa[k];
        }
        for (std::int64_t j = 0; j < K; ++j) {
          total.dbx[j] = total.dbx[j] + g.dbx[j];
          total.dba[j] = total.dba[j] + g.dba[j];
          total.a_param_sum[j] = total.a_param_sum[j] + g.a_param_sum[j];
          total.a_imag_sum[j] = total.a_imag_sum[j] + g.a_imag_sum[j];
        }
      }
      const std::int64_t n = Ki * K;
      for (std::int64_t k = 0; k < n; ++k) {
        out["d_input_gate_w"][h * n + k] = total.dwx[k];
        out["d_a_gate_w"][h * n + k] = total.dwa[k];
      }
      for (std::int64_t j = 0; j < K; ++j) {
        out["d_input_gate_b"][h * K + j] = total.dbx[j];
        out["d_a_gate_b"][h * K + j] = total.dba[j];
        out["d_a_param"][h * K + j] = ref::sigmoid(S(a_param[h * K + j])) * total.a_param_sum[j];
        if constexpr (ref::is_complex_v<F>) out["d_a_imag_param"][h * K + j] = total.a_imag_sum[j];
      }
    }
  });
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Directional derivatives

//! d/d(eps) of L = sum(y dy) + sum(h_last dh_last) at inputs + eps * direction, by forward-mode AD in
//! Dual<T>: every block is evaluated with the case's values as primals and the direction's as tangents.
//! Returns (derivative, sum of |terms|).
template <class T>
std::pair<T, T> forward_mode_derivative(const Case& c, const Case& dir) {
  using D = Dual<T>;
  const Shape& s = c.shape;
  const std::int64_t L = s.length;
  T sum(0), scale(0);
  with_field<T>(c.architecture, [&]<class F>(std::type_identity<F>) {
    using FD = std::conditional_t<ref::is_complex_v<F>, Complex<D>, D>;
    const auto add_loss = [&](const std::vector<FD>& y, const std::vector<FD>& dy, const std::vector<FD>& dh_last,
                              std::int64_t K) {
      std::vector<F> ty(y.size()), ly(y.size());
      for (std::size_t i = 0; i < y.size(); ++i) {
        ty[i] = tangent(y[i]);
        ly[i] = primal(dy[i]);
      }
      accumulate_dot(ty, ly, sum, scale);
      if (dh_last.empty()) return;
      std::vector<F> tl(K), ll(K);
      for (std::int64_t j = 0; j < K; ++j) {
        tl[j] = tangent(y[(L - 1) * K + j]);
        ll[j] = primal(dh_last[j]);
      }
      accumulate_dot(tl, ll, sum, scale);
    };
    for (std::int64_t b = 0; b < s.batch; ++b)
      for (std::int64_t h = 0; h < s.heads; ++h) {
        if (!(describe(c.architecture).family == Family::gated_layer)) {
          auto in = ref::gather_scan_block<FD>(c, b, h);
          const auto d = ref::gather_scan_block<F>(dir, b, h);
          set_tangents(in.a, d.a);
          set_tangents(in.b, d.b);
          set_tangents(in.h0, d.h0);
          const auto r = ref::scan_block(in);
          add_loss(r.h, in.dh, in.dh_last, in.channels);
        } else {
          auto in = ref::gather_gated_block<D, FD>(c, b, h);
          const auto d = ref::gather_gated_block<T, F>(dir, b, h);
          set_tangents(in.x_gate, d.x_gate);
          set_tangents(in.x_direct, d.x_direct);
          set_tangents(in.h0, d.h0);
          set_tangents(in.a_param, d.a_param);
          if (!d.a_imag_param.empty()) set_tangents(in.a_imag_param, d.a_imag_param);
          set_tangents(in.wx, d.wx);
          set_tangents(in.wa, d.wa);
          set_tangents(in.bx, d.bx);
          set_tangents(in.ba, d.ba);
          const auto fw = ref::gated_forward(in);
          add_loss(fw.h, in.dy, in.dh_last, in.channels);
        }
      }
  });
  return {sum, scale};
}

//! sum over (gradient, input) pairs of <assembled gradient, direction of the input>; returns (dot, sum of
//! |terms|). Parameter directions are shared by all batch entries, as the parameters are.
template <class S>
std::pair<S, S> gradient_dot(const Case& c, const std::map<std::string, std::vector<S>>& grads, const Case& dir) {
  S sum(0), scale(0);
  for (const auto& [grad, input] : gradient_pairs(c.architecture)) {
    const std::vector<S>& g = grads.at(grad);
    const Tensor<float>& d = dir.at(input);
    for (std::int64_t i = 0; i < d.size(); ++i) {
      const S term = g[static_cast<std::size_t>(i)] * S(d[i]);
      sum = sum + term;
      using std::abs;
      scale = scale + abs(term);
    }
  }
  return {sum, scale};
}

// ---------------------------------------------------------------------------------------------------
// Per-block values

template <class S>
using NamedValues = std::vector<std::pair<std::string, std::vector<S>>>;

template <class S>
void append_real(std::vector<S>& out, const std::vector<S>& v) {
  out.insert(out.end(), v.begin(), v.end());
}
template <class S>
void append_real(std::vector<S>& out, const std::vector<Complex<S>>& v) {
  for (const auto& z : v) out.push_back(z.re);
  for (const auto& z : v) out.push_back(z.im);
}
template <class V>
auto flat(const V& v) {
  using S = ref::scalar_of_t<typename V::value_type>;
  std::vector<S> out;
  append_real(out, v);
  return out;
}

//! Every value block (b, h) determines, evaluated with scalar S, as named real vectors (complex ones as
//! all real parts, then all imaginary parts): scans h, da, db, dh0; gated layers zx, za, at, y, and every
//! block gradient (before the cross-block combination).
template <class S>
NamedValues<S> block_values(const Case& c, std::int64_t b, std::int64_t h) {
  NamedValues<S> out;
  with_field<S>(c.architecture, [&]<class F>(std::type_identity<F>) {
    if (!(describe(c.architecture).family == Family::gated_layer)) {
      const auto r = ref::scan_block(ref::gather_scan_block<F>(c, b, h));
      out = {{"h", flat(r.h)}, {"da", flat(r.da)}, {"db", flat(r.db)}, {"dh0", flat(r.dh0)}};
      return;
    }
    const auto in = ref::gather_gated_block<S, F>(c, b, h);
    const auto fw = ref::gated_forward(in);
    const auto g = ref::gated_backward(in, fw);
    out = {{"zx", fw.zx},        {"za", fw.za},          {"at", flat(fw.at)},
           {"y", flat(fw.h)},    {"dx_gate", g.dx_gate}, {"dx_direct", flat(g.dx_direct)},
           {"dh0", flat(g.dh0)}, {"dwx", g.dwx},         {"dwa", g.dwa},
           {"dbx", g.dbx},       {"dba", g.dba},         {"a_param_sum", g.a_param_sum}};
    if constexpr (ref::is_complex_v<F>) out.emplace_back("a_imag_sum", g.a_imag_sum);
  });
  return out;
}

//! min over non-reset elements of 2 sqrt(q), evaluated in float128: the clip of the bounded convention is
//! active somewhere iff this is below 1/1000.
inline double min_two_sqrt_q(const Case& c) {
  double lowest = INFINITY;
  with_field<float128>(c.architecture, [&]<class F>(std::type_identity<F>) {
    for (std::int64_t b = 0; b < c.shape.batch; ++b)
      for (std::int64_t h = 0; h < c.shape.heads; ++h) {
        const auto in = ref::gather_gated_block<float128, F>(c, b, h);
        const auto fw = ref::gated_forward(in);
        for (std::int64_t t = 0; t < in.length; ++t) {
          if (in.reset[t]) continue;
          for (std::int64_t j = 0; j < in.channels; ++j) {
            const std::int64_t i = t * in.channels + j;
            const auto g = ref::gate_terms<float128, F>(fw.zx[i], fw.za[i], ref::softplus(in.a_param[j]),
                                                        ref::imag_param(in, j), false);
            lowest = std::min(lowest, static_cast<double>(2 * g.m));
          }
        }
      }
  });
  return lowest;
}

// ---------------------------------------------------------------------------------------------------
// Scalars

//! float128 -> mpfr50 through a 40-digit decimal string: within 1e-40 relative of the float128 value,
//! far below the 1e-28 the comparisons resolve (float128 has 34 digits).
inline mpfr50 to_mpfr(const float128& x) { return mpfr50(x.str(40, std::ios_base::scientific)); }
inline mpfr50 to_mpfr(const Quad& x) { return to_mpfr(x.value()); }

//! Significant digits of agreement: -log10(|x - y| / scale), capped at 60 (bitwise-equal values).
inline double digits(const mpfr50& diff, const mpfr50& scale) {
  using std::abs;
  if (diff == 0) return 60;
  if (scale == 0) return 0;
  const mpfr50 r = abs(diff) / scale;
  return std::min(60.0, -static_cast<double>(log10(r)));
}

inline double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  const std::size_t n = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n), v.end());
  return v[n];
}

}  // namespace scancheck::reftest
