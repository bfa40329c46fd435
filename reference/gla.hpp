// SPDX-License-Identifier: Apache-2.0
//! @file
//! The exact reference of gated linear attention (recurrences.md section 7) on tensors in fla's layout:
//! `gla` with a log gate per key channel, `simple_gla` with one per head and step (Mamba2's SSD core,
//! RetNet, lightning attention). Every output and gradient is evaluated in float128 or mpfr50 and rounded
//! once to float64; float64 and float32 are the same code at working precision (float32: the recurrent order
//! a kernel would take), for baselines.
//!
//! Packed sequences follow fla's `cu_seqlens`: with offsets the batch is one row of N sequences laid end to
//! end, each starting from its own initial state h0[n] and ending in its own final state ht[n]; nothing
//! crosses from one sequence to the next.
//!
//! Example (a batch of two sequences of length 5, one head, K = 4, V = 3):
//!
//!     GlaProblem p;
//!     p.q = Tensor<double>({2, 5, 1, 4}, 0.5);  p.k = p.q;  p.g = Tensor<double>({2, 5, 1, 4}, -0.1);
//!     p.v = Tensor<double>({2, 5, 1, 3}, 1.0);  p.d_o = p.v;
//!     auto exact = gla_reference(p, Precision::float128);   // exact.at("o"), exact.at("dg"), ...
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.hpp"
#include "core/tensor.hpp"
#include "reference/reference.hpp"

namespace scancheck {

//! Where the log gates live: one per key channel ([B, T, H, K], `gla`) or one per head ([B, T, H], `simple_gla`).
enum class GateForm { vector, scalar };

//! Inputs and cotangents in fla's [B, T, H, D] layout (head-first layouts are transposed at the edge).
struct GlaProblem {
  GateForm gates = GateForm::vector;
  Tensor<double> q;                      //!< [B, T, H, K]
  Tensor<double> k;                      //!< [B, T, H, K]
  Tensor<double> v;                      //!< [B, T, H, V]
  Tensor<double> g;                      //!< log gates, <= 0 in practice: [B, T, H, K] or [B, T, H]
  std::optional<Tensor<double>> h0;      //!< [N, H, K, V]; absent: zero
  Tensor<double> d_o;                    //!< [B, T, H, V], the cotangent of o
  std::optional<Tensor<double>> dht;     //!< [N, H, K, V]; absent: zero
  std::optional<double> scale;           //!< absent: K^-1/2, exactly
  std::vector<std::int64_t> cu_seqlens;  //!< empty: N = B sequences; else B = 1 and N + 1 offsets 0 = c_0 <= ... = T
};

//! The sequences of a problem, N of them: [begin, end) rows of batch entry `batch`.
struct GlaSequenceSpan {
  std::int64_t batch, begin, end;
};
//! Throws InputError naming the first inconsistency (a tensor's shape, the offsets, a non-finite scale).
std::vector<GlaSequenceSpan> gla_sequences(const GlaProblem&);

//! The output and gradient names, in the order of recurrences.md section 7.
inline constexpr std::string_view gla_output_names[] = {"o", "ht", "dq", "dk", "dv", "dg", "dh0"};
//! The shape of output `name` of `p` (InputError for another name or an inconsistent problem).
Dims gla_output_dims(const GlaProblem& p, std::string_view name);

//! Every output and gradient of recurrences.md section 7 by name: o [B, T, H, V], ht [N, H, K, V], dq, dk
//! [B, T, H, K], dv [B, T, H, V], dg shaped as g, dh0 [N, H, K, V]. Precision float128, mpfr50, float64 or
//! float32;
//! `threads` 0 is every hardware thread (results do not depend on it). Throws InputError as gla_sequences.
std::map<std::string, Tensor<double>> gla_reference(const GlaProblem&, Precision = Precision::float128,
                                                    int threads = 0);

//! The evaluation orders a bound admits besides the recurrent one (docs/reference.md, "Gated linear attention").
struct GlaBoundOptions {
  //! The most consecutive log gates a kernel sums into one cumulative gate (fla's chunk: 64); its
  //! sub-chunks and reference points lie within those windows.
  std::int64_t chunk = 64;
  //! The inputs' and stored outputs' dtype. bfloat16: q, k, v, do are bfloat16 values (g, h0, dht any float32),
  //! the arithmetic float32,
  //! every matrix product's operands may be rounded to bfloat16 (gla_bf16_operand_roundings on any term's
  //! way), and o, dq, dk, dv, dg are stored in bfloat16 (dg may be float32: the bound admits either); ht and dh0
  //! in float32, as fla stores them.
  DType io = DType::float32;
};

//! The bfloat16 roundings of intermediates a term meets on its way to any output in a bfloat16-io kernel:
//! fla's chunked kernels feed every tl.dot bfloat16 operands, and a term passes through at most three of
//! them (o: the gated query and key, then the attention entry; or the gated key of the state update, the
//! stored state, and the gated query), one more allowed for a sub-chunk's operand. Each adds at most
//! bfloat16's unit roundoff times the magnitudes of the terms it holds.
inline constexpr int gla_bf16_operand_roundings = 4;

//! Per element, a bound on |evaluation in float32 - exact| with the io of options.io, for every evaluation order of
//! docs/reference.md ("Gated linear attention"): the recurrent order; chunked orders with an intra-chunk
//! attention matrix and a carried state, gate products formed from chunk-local cumulative log gates
//! (exp(G_t - G_s), or exp(G_t) exp(-G_s)), any chunk size up to options.chunk; GEMM sums in any order;
//! trees over the sequence; and, for dg, the chunked kernels' identity (a suffix sum of q dq - k dk). exp
//! may be exp2 of the argument times log2 e, good to 4 ulps; results below 2^-126 may flush to zero.
std::map<std::string, Tensor<double>> gla_bounds(const GlaProblem&, const GlaBoundOptions& = {}, int threads = 0);

//! An evaluation as verdicts need it: the exact values and their float32 bounds (gla_bounds).
struct GlaEvaluation {
  std::map<std::string, Tensor<double>> values;
  std::map<std::string, Tensor<double>> bounds;
  std::int64_t uncertified_elements = 0;                     //!< tiered: double values not certified
  std::vector<std::array<std::int64_t, 2>> float128_blocks;  //!< tiered: (sequence, head) recomputed in float128
};

//! Values and bounds. Precision::tiered (what judging needs, at double speed): the double evaluation,
//! certified element by element when its own error bound (the recurrent order's, with double's unit) is at
//! most 1/1000 of the element's float32 bound; every (sequence, head) holding an element that is not (a
//! value double cannot hold) recomputed in float128. Other precisions: gla_reference's values.
GlaEvaluation gla_evaluate(const GlaProblem&, Precision = Precision::tiered, const GlaBoundOptions& = {},
                           int threads = 0);

//! Each output's sum of the magnitudes of its terms: the same recurrences over |q|, |k|, |v|, |h0|, |do| and
//! |dht| with the gates as given, in float64. Any evaluation of an output with relative rounding e per term
//! errs by at most e times this, so it is the scale rounding is measured against.
std::map<std::string, Tensor<double>> gla_term_magnitudes(const GlaProblem&, int threads = 0);

}  // namespace scancheck
