// SPDX-License-Identifier: Apache-2.0
//! @file
//! A GlaProblem (reference/gla.hpp, fla's layout) through the built-in gated linear attention kernels
//! (backends/gla_run.hpp): the arrays they take, and their outputs by name, shaped as gla_reference's. What
//! the judgement's correct orders, the tests and the mutants run, until the family has a case format.
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "backends/gla_run.hpp"
#include "core/dtype.hpp"
#include "reference/gla.hpp"

namespace scancheck {

namespace gla_problem_detail {
inline std::vector<float> as_float(const Tensor<double>& t) { return {t.values().begin(), t.values().end()}; }
}  // namespace gla_problem_detail

//! A built-in kernel's outputs on `p`, shaped as gla_reference's: `run` is run_gla_host, run_gla_cuda or a
//! mutant's run on the arrays.
template <class Run>
std::map<std::string, Tensor<float>> run_gla_problem(const GlaProblem& p, DType io_dtype, const Run& run) {
  using gla_problem_detail::as_float;
  const std::vector<GlaSequenceSpan> spans = gla_sequences(p);
  const std::int64_t N = static_cast<std::int64_t>(spans.size());
  std::vector<std::int64_t> batch, begin, end;
  for (const GlaSequenceSpan& s : spans) batch.push_back(s.batch), begin.push_back(s.begin), end.push_back(s.end);
  const std::vector<float> q = as_float(p.q), k = as_float(p.k), v = as_float(p.v), g = as_float(p.g),
                           d_o = as_float(p.d_o), h0 = p.h0 ? as_float(*p.h0) : std::vector<float>{},
                           dht = p.dht ? as_float(*p.dht) : std::vector<float>{};
  std::map<std::string, Tensor<float>> out;
  for (std::string_view name : gla_output_names)
    out.emplace(std::string(name), Tensor<float>(gla_output_dims(p, name)));
  backends::GlaArrays io;
  io.geometry = {p.q.dim(1),
                 N,
                 p.q.dim(2),
                 p.q.dim(3),
                 p.v.dim(3),
                 p.gates == GateForm::scalar,
                 static_cast<float>(p.scale.value_or(1.0 / std::sqrt(static_cast<double>(p.q.dim(3)))))};
  io.batch = p.q.dim(0);
  io.bf16_io = io_dtype == DType::bfloat16;
  io.span_batch = batch.data(), io.span_begin = begin.data(), io.span_end = end.data();
  io.q = q.data(), io.k = k.data(), io.v = v.data(), io.g = g.data(), io.d_o = d_o.data();
  io.h0 = p.h0 ? h0.data() : nullptr, io.dht = p.dht ? dht.data() : nullptr;
  io.o = out.at("o").values().data(), io.ht = out.at("ht").values().data(), io.dq = out.at("dq").values().data();
  io.dk = out.at("dk").values().data(), io.dv = out.at("dv").values().data(), io.dg = out.at("dg").values().data();
  io.dh0 = out.at("dh0").values().data();
  run(io);
  return out;
}

//! The built-in kernel with `schedule` on the host executor (`threads`; results do not depend on it).
inline std::map<std::string, Tensor<float>> run_gla_builtin(const GlaProblem& p, DType io_dtype,
                                                            const backends::GlaSchedule& schedule, int threads = 0) {
  return run_gla_problem(p, io_dtype,
                         [&](const backends::GlaArrays& io) { backends::run_gla_host(io, schedule, threads); });
}

}  // namespace scancheck
