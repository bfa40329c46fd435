// SPDX-License-Identifier: Apache-2.0
#include "backends/cuda/gated_timing.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "backends/cuda/cuda_executor.cuh"

namespace scancheck::backends {
namespace {

PhaseTiming summarize(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  return {ms[ms.size() / 2], ms.front(), ms.back()};
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }
bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool is_scan_kernel(std::string_view name) { return starts_with(name, "affine ") || starts_with(name, "reverse "); }

//! Per-repetition sums of one phase's records [first, last).
struct PhaseSums {
  std::vector<double> total, gemm, scan, outside;
  void add(const std::vector<LaunchTiming>& records, std::size_t first, std::size_t last) {
    double t = 0, g = 0, s = 0;
    for (std::size_t i = first; i < last; ++i) {
      const LaunchTiming& r = records[i];
      t += r.ms;
      if (r.kind == LaunchTiming::Kind::gemm) g += r.ms;
      else if (is_scan_kernel(r.name)) s += r.ms;
    }
    total.push_back(t);
    gemm.push_back(g);
    scan.push_back(s);
    outside.push_back(t - g);
  }
  GatedPhaseTiming summary() const { return {summarize(total), summarize(gemm), summarize(scan), summarize(outside)}; }
};

template <class F, class IO>
GatedTiming time_typed(const GatedArrays& io, const VariantFlags& flags, const kernels::Schedule& schedule, int warmup,
                       int repeats) {
  CudaExecutor ex;
  gated_detail::Passes<F, IO, CudaExecutor> passes(ex, io, flags, schedule);  // uploads, untimed
  ex.synchronize();
  const std::size_t mark = ex.mark();
  std::vector<LaunchTiming> records;
  PhaseSums forward, backward;
  std::vector<LaunchTiming> backward_kernels;    // the first timed repetition's backward records
  std::vector<std::vector<double>> backward_ms;  // [backward launch][repetition]
  for (int r = 0; r < warmup + repeats; ++r) {
    records.clear();
    ex.rewind(mark);  // the phases' scratch buffers are reused, not allocated again
    ex.record_launches(&records);
    passes.forward();
    const std::size_t split = records.size();
    passes.backward();
    ex.record_launches(nullptr);
    resolve_launch_times(records);
    if (r < warmup) continue;
    forward.add(records, 0, split);
    backward.add(records, split, records.size());
    if (backward_kernels.empty()) {
      backward_kernels.assign(records.begin() + static_cast<std::ptrdiff_t>(split), records.end());
      backward_ms.resize(backward_kernels.size());
    }
    for (std::size_t i = split; i < records.size(); ++i) backward_ms.at(i - split).push_back(records[i].ms);
  }
  GatedTiming t;
  t.forward = forward.summary();
  t.backward = backward.summary();
  for (std::size_t i = 0; i < backward_kernels.size(); ++i) {
    const LaunchTiming& k = backward_kernels[i];
    if (k.kind == LaunchTiming::Kind::gemm) continue;
    const double bytes = gated_minimum_bytes(k.name, io, flags, schedule);
    if (bytes < 0) t.unmodelled.push_back(k.name);
    t.backward_kernels.push_back({k.name, std::max(bytes, 0.0), summarize(backward_ms[i]).median_ms});
    t.backward_outside_gemm_bytes += std::max(bytes, 0.0);
  }
  return t;
}

}  // namespace

GatedTiming time_gated_cuda(const GatedArrays& io, const VariantFlags& flags, const kernels::Schedule& schedule,
                            int warmup, int repeats) {
  if (repeats < 1) throw std::invalid_argument("time_gated_cuda: repeats must be at least 1");
  using kernels::bf16;
  using kernels::cfloat;
  if (io.complex)
    return io.bf16_io ? time_typed<cfloat, bf16>(io, flags, schedule, warmup, repeats)
                      : time_typed<cfloat, float>(io, flags, schedule, warmup, repeats);
  return io.bf16_io ? time_typed<float, bf16>(io, flags, schedule, warmup, repeats)
                    : time_typed<float, float>(io, flags, schedule, warmup, repeats);
}

double gated_minimum_bytes(std::string_view kernel, const GatedArrays& io, const VariantFlags& flags,
                           const kernels::Schedule& schedule) {
  // The symbols of the table in gated_timing.hpp, as doubles (bytes).
  const kernels::ScanGeometry& g = io.geometry;
  const double B = static_cast<double>(g.batch), N = B * static_cast<double>(g.length);
  const double Wc = static_cast<double>(g.channels), W = static_cast<double>(g.width);
  const double A = N * W, E = N * Wc;
  const double s = io.bf16_io ? 2 : 4, f = io.complex ? 8 : 4;
  const std::int64_t C = schedule.kind == kernels::Schedule::Kind::sequential ? 1 : schedule.chunk;
  const std::int64_t chunks = (g.length + C - 1) / C;
  const std::int64_t groups = schedule.group > 0 ? (chunks + schedule.group - 1) / schedule.group : 0;
  const double Q = B * static_cast<double>(chunks) * Wc, R = B * static_cast<double>(groups) * Wc;
  const double S = B * W, h0 = io.h0 ? 4 * S : 0, dh_last = io.dh_last ? 4 * S : 0;
  const double P = std::ceil(N / static_cast<double>(gated_detail::column_block_rows)) * Wc;
  const double D = flags.fused ? 4 * E + 4 * N : E * f;
  const double g_in = 4 * E + A * s + (flags.fused_write ? E * f : A * s) + h0;
  const double g_out = 4 * A + 4 * E + 4 * E + 4 * E + (io.complex ? 4 * E : 0) + 4 * S;
  const double emit = flags.fused ? g_in + g_out : E * f;  // what the reverse scan's emitting kernel adds

  if (kernel == "interleave dy") return 2 * A * s;
  if (kernel == "affine chunk replay from saved states")
    return Q * f + (flags.fused ? 8 * E + 4 * N + A * s : 2 * E * f) + E * f;
  if (kernel == "reverse chunk summary") return D + A * s + 2 * Q * f;
  if (kernel == "reverse chunk prefix") return 2 * Q * f + dh_last + Q * f;
  if (kernel == "reverse group local") return 2 * Q * f + 2 * Q * f + 2 * R * f;
  if (kernel == "reverse group outer") return 2 * R * f + dh_last + R * f;
  if (kernel == "reverse group correct") return 2 * Q * f + R * f + Q * f;
  if (kernel == "reverse chunk replay") return Q * f + D + A * s + emit;
  if (kernel == "reverse sequential scan") return D + A * s + dh_last + emit;
  if (kernel == "gate gradients") return E * f + 4 * E + 4 * N + g_in + g_out;  // + za, segment_pos (no D here)
  if (ends_with(kernel, " block sums")) return 4 * E + 4 * P;
  if (ends_with(kernel, " totals")) return 4 * P;
  if (kernel == "store dx") return 4 * A + A * s;
  return -1;
}

}  // namespace scancheck::backends
