// SPDX-License-Identifier: Apache-2.0
//! @file
//! From a case to the inputs of one (batch, head) block, converted exactly to the scalar S: the slices of
//! the activations, the head's weights and the channels' parameters. Public so that tests can instantiate
//! the blocks with other scalars (dual numbers, perturbed inputs).
//!
//! Channel maps. Plain scans: head h owns state channels [h Kc, (h+1) Kc), Kc = state_channels / H.
//! Gated layers: head h reads gate inputs [h K_in, (h+1) K_in) of the stored (merged) width and owns state
//! channels c = h K_out + j. Complex channels c live at merged positions c (real) and Wc + c (imaginary).
#pragma once

#include <cstdint>
#include <vector>

#include "core/case.hpp"
#include "reference/complex.hpp"
#include "reference/gated_block.hpp"
#include "reference/scan_block.hpp"

namespace scancheck::ref {

//! Reads channel c of a [.., W] row: real, or the complex number at (c, Wc + c) of a merged row.
template <class F>
F read_channel(const float* row, std::int64_t c, std::int64_t complex_width) {
  using S = scalar_of_t<F>;
  if constexpr (is_complex_v<F>) return F(S(row[c]), S(row[complex_width + c]));
  else return F(row[c]);
}

//! Copies channels [c0, c0 + K) of every row of a [rows, W] tensor into a [rows, K] block, reusing `out`.
template <class F>
void read_channels(const Tensor<float>& t, std::int64_t row0, std::int64_t rows, std::int64_t c0, std::int64_t K,
                   std::int64_t complex_width, std::vector<F>& out) {
  const std::int64_t W = t.dims().back();
  out.resize(rows * K);
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t k = 0; k < K; ++k)
      out[r * K + k] = read_channel<F>(t.data() + (row0 + r) * W, c0 + k, complex_width);
}

template <class F>
std::vector<F> read_channels(const Tensor<float>& t, std::int64_t row0, std::int64_t rows, std::int64_t c0,
                             std::int64_t K, std::int64_t complex_width) {
  std::vector<F> out;
  read_channels(t, row0, rows, c0, K, complex_width, out);
  return out;
}

template <class F>
std::vector<F> read_optional_state(const Case& c, const char* name, std::int64_t b, std::int64_t c0, std::int64_t K,
                                   std::int64_t complex_width) {
  if (!c.has(name)) return {};
  return read_channels<F>(c.at(name), b, 1, c0, K, complex_width);
}

template <class F>
ScanBlockInputs<F> gather_scan_block(const Case& c, std::int64_t b, std::int64_t h) {
  const Shape& s = c.shape;
  const std::int64_t Kc = state_channels(c.architecture, s) / s.heads;
  const std::int64_t Wc = is_complex_v<F> ? s.width / 2 : 0;
  const std::int64_t c0 = h * Kc;
  ScanBlockInputs<F> in;
  in.length = s.length;
  in.channels = Kc;
  in.a = read_channels<F>(c.at(std::string(decay_input(c.decays))), b * s.length, s.length, c0, Kc, Wc);
  if constexpr (!is_complex_v<F>) {
    using std::exp;
    if (c.decays == DecaySpace::log)
      for (F& a : in.a) a = exp(a);  // exactly, or with the float32 exp's rounding in a bounded field
  }
  in.b = read_channels<F>(c.at("b"), b * s.length, s.length, c0, Kc, Wc);
  in.dh = read_channels<F>(c.at("dh"), b * s.length, s.length, c0, Kc, Wc);
  in.h0 = read_optional_state<F>(c, "h0", b, c0, Kc, Wc);
  in.dh_last = read_optional_state<F>(c, "dh_last", b, c0, Kc, Wc);
  in.bf16_storage = c.io_dtype == DType::bfloat16;
  return in;
}

//! The head's slice [h, K_in, K_out] or [h, K_out] of a parameter tensor, flattened.
template <class S>
std::vector<S> read_head(const Tensor<float>& t, std::int64_t h) {
  const std::int64_t n = t.size() / t.dim(0);
  std::vector<S> out(n);
  for (std::int64_t k = 0; k < n; ++k) out[k] = S(t[h * n + k]);
  return out;
}

template <class S>
std::vector<S> read_range(const Tensor<float>& t, std::int64_t c0, std::int64_t n) {
  std::vector<S> out(n);
  for (std::int64_t k = 0; k < n; ++k) out[k] = S(t[c0 + k]);
  return out;
}

//! Gathers block (b, h) into `in`, whose buffers of an earlier block of the same case are reused.
template <class S, class F>
void gather_gated_block(const Case& c, std::int64_t b, std::int64_t h, GatedBlockInputs<S, F>& in) {
  const Shape& s = c.shape;
  const std::int64_t L = s.length, W = s.width;
  const std::int64_t Ki = head_inputs(c.architecture, s), K = head_channels(c.architecture, s);
  const std::int64_t Wc = is_complex_v<F> ? W / 2 : 0;
  in.length = L;
  in.inputs = Ki;
  in.channels = K;
  in.sqrt_gradient = c.sqrt_gradient;
  in.bf16_storage = c.io_dtype == DType::bfloat16;
  read_channels(c.at("x"), b * L, L, h * Ki, Ki, 0, in.x_gate);
  read_channels(c.at("x"), b * L, L, h * K, K, Wc, in.x_direct);
  in.reset.resize(L);
  for (std::int64_t t = 0; t < L; ++t) in.reset[t] = c.segment_pos(b, t) == 0;
  in.h0 = read_optional_state<F>(c, "h0", b, h * K, K, Wc);
  in.a_param = read_range<S>(c.at("a_param"), h * K, K);
  if constexpr (is_complex_v<F>) in.a_imag_param = read_range<S>(c.at("a_imag_param"), h * K, K);
  in.wx = read_head<S>(c.at("input_gate_w"), h);
  in.bx = read_head<S>(c.at("input_gate_b"), h);
  in.wa = read_head<S>(c.at("a_gate_w"), h);
  in.ba = read_head<S>(c.at("a_gate_b"), h);
  read_channels(c.at("dy"), b * L, L, h * K, K, Wc, in.dy);
  in.dh_last = read_optional_state<F>(c, "dh_last", b, h * K, K, Wc);
}

template <class S, class F>
GatedBlockInputs<S, F> gather_gated_block(const Case& c, std::int64_t b, std::int64_t h) {
  GatedBlockInputs<S, F> in;
  gather_gated_block(c, b, h, in);
  return in;
}

}  // namespace scancheck::ref
