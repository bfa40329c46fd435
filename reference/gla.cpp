// SPDX-License-Identifier: Apache-2.0
//! @file
//! gla_reference and gla_evaluate: the exact values of gated linear attention, in one precision or tiered
//! (reference/gla_driver.hpp runs the sequences).
#include "reference/gla.hpp"

#include <cmath>
#include <string>

#include "core/error.hpp"
#include "reference/gla_driver.hpp"

namespace scancheck {
namespace {

using namespace gla_driver;

void expect_dims(const char* name, const Tensor<double>& t, const Dims& dims) {
  if (t.dims() != dims)
    throw InputError(std::string("gla: ") + name + " is " + to_string(t.dims()) + ", expected " + to_string(dims));
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

Dims gla_output_dims(const GlaProblem& p, std::string_view name) {
  const std::int64_t N = static_cast<std::int64_t>(gla_sequences(p).size());
  if (name == "o" || name == "dv") return p.v.dims();
  if (name == "dq" || name == "dk") return p.q.dims();
  if (name == "dg") return p.g.dims();
  if (name == "ht" || name == "dh0") return {N, p.q.dim(2), p.q.dim(3), p.v.dim(3)};
  throw InputError("gla: '" + std::string(name) + "' is not an output (o, ht, dq, dk, dv, dg, dh0)");
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

}  // namespace scancheck
