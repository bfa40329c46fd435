// SPDX-License-Identifier: Apache-2.0
//! @file
//! Throughput of the host twin of the scan backends: float32 real scan (recurrences.md §1), forward plus
//! backward, at B = 1, L = 8192, W = 256 (2M element-steps), one thread unless a row says otherwise, in
//! element-steps per second.
//!
//!   scan_fwd_bwd/plain              the baseline: the same math as a plain C++ float loop over the same
//!                                   arrays (time outer, channels inner, as row-major [B, L, W] invites)
//!   scan_fwd_bwd/plain_downward     the same loop with the backward's channel loops running downwards as
//!                                   well as its time loop, so that the backward walks memory downwards
//!                                   throughout, as the twin's reverse kernels do (affine_scan/schedules.hpp,
//!                                   Lanes::lane): rows visited downwards but each row upwards defeat the
//!                                   hardware prefetchers, and `plain`'s backward runs about 5x slower than
//!                                   its forward on the machine measured (README, Performance). For
//!                                   information: the fastest plain loop found
//!   scan_fwd_bwd/twin/<schedule>    backends::run_scan_host, the whole run: upload (copies the inputs),
//!                                   poisoned and guarded outputs, the kernels, download (guard and
//!                                   write checks, copy out). This is what run_backend does on the host.
//!   scan_fwd_bwd/twin_kernels/<schedule>
//!                                   the kernel launches alone (forward and backward, scratch included),
//!                                   on buffers uploaded outside the timed region
//!
//!   scan_fwd_bwd/twin_fresh_memory/<schedule>
//!                                   the whole run after malloc_trim(0) (untimed): every buffer of the run
//!                                   is fresh memory and faults its pages in, as in a process whose heap was
//!                                   just returned to the system. glibc only.
//!
//! Schedules: grouped_prefix32_hierarchical_chunk16 (the target) and sequential (for information).
//! The ratios twin / plain are printed after the table (issue goal: twin within 2x of the plain loop for the
//! whole run, 1.5x for the kernels), then twin / plain_downward (for information), in wall-clock time, then
//! again in the benchmark thread's CPU time (steadier when other work shares the machine).
//!
//! Every row runs untimed iterations first (MinWarmUpTime): the first run of a process grows its heap, page
//! by page, which is not the steady state the rows measure; a smoke run (scan_bench_smoke) would otherwise
//! time little else.
//!
//! Heap state: whether a run's ~60 MB of buffers come from memory the process already holds or from fresh
//! pages depends on glibc's trimming heuristics and the allocation history, and fresh pages cost a fault
//! each (expensive on virtual machines). main() therefore disables trimming and mmap for large blocks
//! (mallopt), so the `twin` rows measure the resident-heap steady state, and the `twin_fresh_memory` rows
//! the other extreme.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "backends/backend.hpp"
#include "backends/host/host_executor.hpp"
#include "backends/scan_run.hpp"
#include "core/generate.hpp"
#include "tests/bench/ratio_reporter.hpp"
#include "tests/bench/resident_heap.hpp"

namespace {

using namespace scancheck;

constexpr std::int64_t bench_batch = 1, bench_length = 8192, bench_width = 256;

const Case& bench_case() {
  static const Case c = [] {
    CaseRequest r;
    r.architecture = Architecture::scan;
    r.shape = {bench_batch, bench_length, bench_width, 1};
    r.seed = 7;
    return make_case(r);
  }();
  return c;
}

//! Output arrays of one run, float32 like the twin's outputs.
struct OutputArrays {
  std::vector<float> h, h_last, da, db, dh0;
  OutputArrays()
      : h(bench_batch * bench_length * bench_width),
        h_last(bench_batch * bench_width),
        da(h.size()),
        db(h.size()),
        dh0(h_last.size()) {}
};

backends::ScanArrays scan_arrays(const Case& c, OutputArrays& out) {
  backends::ScanArrays io;
  io.geometry = {bench_batch, bench_length, bench_width, bench_width, 0};
  io.a = c.at("a").data();
  io.b = c.at("b").data();
  io.dh = c.at("dh").data();
  io.h0 = c.at("h0").data();
  io.dh_last = c.at("dh_last").data();
  io.h = out.h.data();
  io.h_last = out.h_last.data();
  io.da = out.da.data();
  io.db = out.db.data();
  io.dh0 = out.dh0.data();
  return io;
}

void count_element_steps(benchmark::State& state) {
  state.counters["element_steps/s"] = benchmark::Counter(
      static_cast<double>(bench_batch * bench_length * bench_width) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate);
}

//! recurrences.md §1 for real channels, written as one would by hand:
//!   forward   h_t = a_t h_{t-1} + b_t                   (h_{-1} = h0)
//!   backward  g_{L-1} = dh_{L-1} + dh_last,  g_t = dh_t + a_{t+1} g_{t+1}
//!             db_t = g_t,  da_t = g_t h_{t-1},  dh0 = a_0 g_0
//! `Downward`: the backward's channel loops run downwards (the forward as it is), so the backward walks
//! every array from its end to its start (plain_scan_downward); otherwise upwards (plain_scan).
template <bool Downward>
void plain_scan_walking(const backends::ScanArrays& io, std::vector<float>& g) {
  const std::int64_t L = io.geometry.length, W = io.geometry.width;
  const auto channels = [W](auto&& body) {
    if constexpr (Downward)
      for (std::int64_t w = W - 1; w >= 0; --w) body(w);
    else
      for (std::int64_t w = 0; w < W; ++w) body(w);
  };
  for (std::int64_t n = 0; n < io.geometry.batch; ++n) {
    const float* a = io.a + n * L * W;
    const float* b = io.b + n * L * W;
    const float* dh = io.dh + n * L * W;
    const float* h0 = io.h0 + n * W;
    float* h = io.h + n * L * W;
    float* da = io.da + n * L * W;
    float* db = io.db + n * L * W;
    for (std::int64_t w = 0; w < W; ++w) h[w] = a[w] * h0[w] + b[w];
    for (std::int64_t t = 1; t < L; ++t)
      for (std::int64_t w = 0; w < W; ++w) h[t * W + w] = a[t * W + w] * h[(t - 1) * W + w] + b[t * W + w];
    for (std::int64_t w = 0; w < W; ++w) io.h_last[n * W + w] = h[(L - 1) * W + w];
    channels([&](std::int64_t w) { g[w] = dh[(L - 1) * W + w] + io.dh_last[n * W + w]; });
    for (std::int64_t t = L - 1; t >= 0; --t) {
      if (t < L - 1) channels([&](std::int64_t w) { g[w] = dh[t * W + w] + a[(t + 1) * W + w] * g[w]; });
      const float* prev = t > 0 ? h + (t - 1) * W : h0;
      channels([&](std::int64_t w) {
        db[t * W + w] = g[w];
        da[t * W + w] = g[w] * prev[w];
      });
    }
    channels([&](std::int64_t w) { io.dh0[n * W + w] = a[w] * g[w]; });
  }
}

void plain_scan(const backends::ScanArrays& io, std::vector<float>& g) { plain_scan_walking<false>(io, g); }
void plain_scan_downward(const backends::ScanArrays& io, std::vector<float>& g) { plain_scan_walking<true>(io, g); }

template <void (*Loop)(const backends::ScanArrays&, std::vector<float>&)>
void scan_plain(benchmark::State& state) {
  OutputArrays out;
  const backends::ScanArrays io = scan_arrays(bench_case(), out);
  std::vector<float> g(bench_width);
  for (auto _ : state) {
    Loop(io, g);
    benchmark::DoNotOptimize(out.h.data());
    benchmark::DoNotOptimize(out.da.data());
    benchmark::ClobberMemory();
  }
  count_element_steps(state);
}

//! The whole host run of the backend, as run_backend does it.
void scan_twin(benchmark::State& state, const std::string& backend, int threads) {
  const kernels::Schedule schedule = find_backend(backend).builtin->schedule;
  OutputArrays out;
  const backends::ScanArrays io = scan_arrays(bench_case(), out);
  for (auto _ : state) {
    backends::run_scan_host(io, schedule, threads);
    benchmark::ClobberMemory();
  }
  count_element_steps(state);
}

#if defined(__GLIBC__)
//! The whole run on fresh memory: the heap's free pages are returned to the system before each run.
void scan_twin_fresh_memory(benchmark::State& state, const std::string& backend) {
  const kernels::Schedule schedule = find_backend(backend).builtin->schedule;
  OutputArrays out;
  const backends::ScanArrays io = scan_arrays(bench_case(), out);
  for (auto _ : state) {
    state.PauseTiming();
    malloc_trim(0);
    state.ResumeTiming();
    backends::run_scan_host(io, schedule, 1);
    benchmark::ClobberMemory();
  }
  count_element_steps(state);
}
#endif

//! The forward and backward launches alone (run_scan without upload, output and download). Each
//! iteration gets a fresh executor (set up untimed) so scratch buffers do not pile up across iterations.
void scan_twin_kernels(benchmark::State& state, const std::string& backend) {
  const kernels::Schedule schedule = find_backend(backend).builtin->schedule;
  OutputArrays out;
  const backends::ScanArrays io = scan_arrays(bench_case(), out);
  for (auto _ : state) {
    state.PauseTiming();
    {
      backends::HostExecutor ex;
      const auto on = backends::ScanOnExecutor<float, float>::upload(ex, io);
      state.ResumeTiming();
      kernels::run_affine_scan(ex, on.forward, schedule);
      kernels::run_affine_scan(ex, on.backward, schedule);
      benchmark::DoNotOptimize(on.forward.h);
      benchmark::ClobberMemory();
      state.PauseTiming();
    }
    state.ResumeTiming();
  }
  count_element_steps(state);
}

const std::string hierarchical = "scan/grouped_prefix32_hierarchical_chunk16@fp32";
const std::string sequential = "scan/sequential@fp32";

// Untimed iterations before each row's timed ones, at least one (see the file comment).
constexpr double warm_up_seconds = 0.02;

BENCHMARK(scan_plain<plain_scan>)
    ->Name("scan_fwd_bwd/plain")
    ->MinWarmUpTime(warm_up_seconds)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(scan_plain<plain_scan_downward>)
    ->Name("scan_fwd_bwd/plain_downward")
    ->MinWarmUpTime(warm_up_seconds)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(scan_twin, hierarchical, hierarchical, 1)
    ->Name("scan_fwd_bwd/twin/grouped_prefix32_hierarchical_chunk16")
    ->MinWarmUpTime(warm_up_seconds)
    ->Unit(benchmark::kMillisecond);
// The execution model lets the host executor spread one launch's programs over threads (all hardware
// threads here); reported apart because the plain loop uses one.
BENCHMARK_CAPTURE(scan_twin, hierarchical_threads, hierarchical, 0)
    ->Name("scan_fwd_bwd/twin_all_threads/grouped_prefix32_hierarchical_chunk16")
    ->MinWarmUpTime(warm_up_seconds)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(scan_twin_kernels, hierarchical, hierarchical)
    ->Name("scan_fwd_bwd/twin_kernels/grouped_prefix32_hierarchical_chunk16")
    ->MinWarmUpTime(warm_up_seconds)
    ->Unit(benchmark::kMillisecond);
#if defined(__GLIBC__)
BENCHMARK_CAPTURE(scan_twin_fresh_memory, hierarchical, hierarchical)
    ->Name("scan_fwd_bwd/twin_fresh_memory/grouped_prefix32_hierarchical_chunk16")
    ->MinWarmUpTime(warm_up_seconds)
    ->Unit(benchmark::kMillisecond);
#endif
BENCHMARK_CAPTURE(scan_twin, sequential, sequential, 1)
    ->Name("scan_fwd_bwd/twin/sequential")
    ->MinWarmUpTime(warm_up_seconds)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(scan_twin_kernels, sequential, sequential)
    ->Name("scan_fwd_bwd/twin_kernels/sequential")
    ->MinWarmUpTime(warm_up_seconds)
    ->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  scancheck::bench::keep_heap_resident();
  benchmark::Initialize(&argc, argv);
  std::vector<scancheck::bench::Ratio> ratios;
  const char* const information = " (for information)";
  for (const char* baseline : {"plain", "plain_downward"})
    for (const char* schedule : {"grouped_prefix32_hierarchical_chunk16", "sequential"}) {
      const std::string b(baseline), s(schedule), denominator = "scan_fwd_bwd/" + b;
      const bool target = b == "plain" && s != "sequential";
      const auto label = [&](const char* what) { return fmt::format("twin/{}, {}, {}", b, s, what); };
      ratios.push_back(
          {"scan_fwd_bwd/twin/" + s, denominator, label("full run"), target ? " (goal: <= 2x)" : information, 2, true});
      ratios.push_back({"scan_fwd_bwd/twin_kernels/" + s, denominator, label("kernels only"),
                        target ? " (goal: <= 1.5x)" : information, 2, true});
      // Its other threads' CPU time is not the benchmark thread's: wall-clock time only.
      ratios.push_back({"scan_fwd_bwd/twin_all_threads/" + s, denominator, label("full run, all hardware threads"),
                        target ? " (goal: <= 2x)" : information, 2});
      ratios.push_back({"scan_fwd_bwd/twin_fresh_memory/" + s, denominator, label("full run on fresh memory"),
                        target ? " (goal: <= 2x)" : information, 2, true});
    }
  scancheck::bench::RatioReporter reporter(std::move(ratios));
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
}
