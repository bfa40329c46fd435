// SPDX-License-Identifier: Apache-2.0
//! @file
//! Throughput of the host twin of the rglru backends: float32 rglru (recurrences.md §2), forward plus
//! backward, at B = 1, L = 8192, W = 256, H = 4 heads (K = 64; 2M element-steps), seed 7 of the default
//! regime (no resets), bounded sqrt gradient, h0 and dh_last present, one thread, in element-steps per
//! second. GEMMs are excluded on both sides: the gate projections zx = X Wx, za = X Wa, the
//! back-projections and the weight gradients.
//!
//!   rglru_fwd_bwd/plain             the baseline: the same math as a plain sequential C++ float loop (time
//!                                   outer, channels inner, as row-major [B, L, W] invites), from zx and za
//!                                   computed outside the timed region: softplus(a_param) per channel; the
//!                                   forward (gate terms, h = at h + x gx m, y and h_last); the backward's
//!                                   reverse scan g_t = dy_t + at_{t+1} g_{t+1} from dh_last with the local
//!                                   gradients (gate terms again), writing dx_direct, dzx, dza and the
//!                                   per-element a_param term, and dh0; then the column sums dbx, dba and
//!                                   d_a_param. Gate terms and local gradients are ref::gate_terms and
//!                                   ref::local_gradients (reference/gate_math.hpp), the kernels' formulas.
//!   rglru_fwd_bwd/twin/<variant>    backends::run_gated on the host executor, the whole run as
//!                                   run_gated_host does it: upload, poisoned and guarded outputs, scratch,
//!                                   the kernels, the GEMMs, download (guard and write checks, copy out),
//!                                   the executor's teardown; the GEMMs' wall time is subtracted (manual
//!                                   time: whole run minus GEMMs).
//!   rglru_fwd_bwd/twin_kernels/<variant>
//!                                   the kernel launches alone of the same run: the sum of the launches'
//!                                   wall times (no GEMM, upload, allocation or download)
//!
//! Columns: Time is wall-clock time (the twin rows' manual time); cpu_ms the same quantity in the thread's
//! CPU time; gemm_ms the GEMMs' wall time per run, subtracted from the twin row.
//!
//! Variants (backend rglru/<variant>@fp32): fused_grouped_prefix32_hierarchical_chunk16 (the issue's
//! target), grouped_prefix32_hierarchical_chunk16 and sequential (unfused; for information). The ratios
//! twin / plain are printed after the table, in wall time and in thread CPU time (issue goal: the fused
//! hierarchical twin within 3x of the plain loop). Before the benchmarks main() checks the plain loop
//! against the sequential twin (y, h_last and dh0 to float32 rounding, the column sums to their summation
//! error) and exits 1 if they disagree.
//!
//! Heap state: as in scan_bench.cpp, main() disables trimming and mmap for large blocks (mallopt), so the
//! twin's 60 to 90 MB of buffers per run come from memory the process already holds (the resident-heap steady
//! state) rather than from fresh pages that fault in one by one.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <map>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "backends/backend.hpp"
#include "backends/case_arrays.hpp"
#include "backends/gated_run.hpp"
#include "backends/host/host_executor.hpp"
#include "core/generate.hpp"
#include "reference/gate_math.hpp"
#include "tests/bench/ratio_reporter.hpp"
#include "tests/bench/resident_heap.hpp"

namespace {

using namespace scancheck;

constexpr std::int64_t bench_batch = 1, bench_length = 8192, bench_width = 256, bench_heads = 4;
constexpr std::int64_t bench_k = bench_width / bench_heads;
constexpr std::int64_t bench_rows = bench_batch * bench_length;
constexpr std::int64_t bench_elements = bench_rows * bench_width;        // [B, L, W]
constexpr std::int64_t bench_states = bench_batch * bench_width;         // [B, W]
constexpr std::int64_t bench_weights = bench_heads * bench_k * bench_k;  // [H, K, K]

const Case& bench_case() {
  static const Case c = [] {
    CaseRequest r;
    r.architecture = Architecture::rglru;
    r.shape = {bench_batch, bench_length, bench_width, bench_heads};
    r.seed = 7;
    r.sqrt_gradient = SqrtGradient::bounded;
    r.with_h0 = true;
    r.with_dh_last = true;
    return make_case(r);
  }();
  return c;
}

using Clock = std::chrono::steady_clock;

//! CPU time of the calling thread (every launch and GEMM of a one-thread host run is on that thread).
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

//! Wall-clock and thread CPU seconds.
struct Seconds {
  double wall = 0, cpu = 0;
  Seconds& operator+=(const Seconds& o) {
    wall += o.wall;
    cpu += o.cpu;
    return *this;
  }
  Seconds operator-(const Seconds& o) const { return {wall - o.wall, cpu - o.cpu}; }
};

class Stopwatch {
 public:
  Stopwatch() : wall_(Clock::now()), cpu_(thread_cpu_seconds()) {}
  Seconds elapsed() const {
    return {std::chrono::duration<double>(Clock::now() - wall_).count(), thread_cpu_seconds() - cpu_};
  }

 private:
  Clock::time_point wall_;
  double cpu_;
};

//! The host executor with its GEMMs and its launches timed, for subtracting the GEMMs from a whole run
//! and for summing the kernels alone. run_gated is a template over the executor, so these members hide
//! the base class's.
class TimedHostExecutor : public backends::HostExecutor {
 public:
  using HostExecutor::HostExecutor;

  void gemm(const std::string& name, const backends::StridedBatchedGemm& g) {
    const Stopwatch watch;
    HostExecutor::gemm(name, g);
    gemms += watch.elapsed();
  }

  template <class Body>
  void launch(const std::string& kernel, kernels::Grid grid, const Body& body) {
    const Stopwatch watch;
    HostExecutor::launch(kernel, grid, body);
    launches += watch.elapsed();
  }

  Seconds gemms, launches;
};

//! Output arrays of one twin run (float32 like the twin's outputs), by output name.
struct TwinOutputs {
  Outputs tensors = backends::output_tensors(bench_case());
  const float* at(const char* name) const { return tensors.at(name).data(); }
};

//! The inputs of the plain loop: the case's tensors and the gate projections zx = X Wx, za = X Wa per
//! head (bias not added), computed once, untimed, by the host executor's GEMM (so they are the twin's).
struct PlainInputs {
  const float* x;                   // [B, L, W]
  const std::int32_t* segment_pos;  // [B, L]
  const float* h0;                  // [B, W]
  const float* a_param;             // [W]
  const float* bx;                  // [W] ([H, K] flattened)
  const float* ba;
  const float* dy;            // [B, L, W]
  const float* dh_last;       // [B, W]
  std::vector<float> zx, za;  // [B, L, W]
};

const PlainInputs& plain_inputs() {
  static const PlainInputs in = [] {
    const Case& c = bench_case();
    PlainInputs p{c.at("x").data(),
                  c.segment_pos.data(),
                  c.at("h0").data(),
                  c.at("a_param").data(),
                  c.at("input_gate_b").data(),
                  c.at("a_gate_b").data(),
                  c.at("dy").data(),
                  c.at("dh_last").data(),
                  std::vector<float>(bench_elements),
                  std::vector<float>(bench_elements)};
    // Per head h: Z_h = X_h W_h, X_h the head's K columns of x, W_h [K, K].
    const auto projection = [&](const char* weights, float* z) {
      return backends::StridedBatchedGemm{bench_rows,
                                          bench_k,
                                          bench_k,
                                          bench_heads,
                                          {p.x, bench_width, bench_k, false},
                                          {c.at(weights).data(), bench_k, bench_k * bench_k, false},
                                          z,
                                          bench_width,
                                          bench_k};
    };
    backends::HostExecutor ex;
    ex.gemm("input gate projection", projection("input_gate_w", p.zx.data()));
    ex.gemm("a gate projection", projection("a_gate_w", p.za.data()));
    return p;
  }();
  return in;
}

//! Outputs and per-channel work arrays of the plain loop.
struct PlainOutputs {
  std::vector<float> y, h_last, dx_direct, dh0, dzx, dza, a_param_term, dbx, dba, d_a_param;
  std::vector<float> s, g, a_next, a_param_sum;  // [W]
  PlainOutputs()
      : y(bench_elements),
        h_last(bench_states),
        dx_direct(bench_elements),
        dh0(bench_states),
        dzx(bench_elements),
        dza(bench_elements),
        a_param_term(bench_elements),
        dbx(bench_width),
        dba(bench_width),
        d_a_param(bench_width),
        s(bench_width),
        g(bench_width),
        a_next(bench_width),
        a_param_sum(bench_width) {}
};

//! recurrences.md §2 (real rglru, bounded sqrt gradient) written as one would by hand, GEMMs excluded:
//!   forward   h_t = at_t h_{t-1} + x_t gx_t m_t   (h_{-1} = h0), y_t = h_t
//!   backward  g_{L-1} = dy_{L-1} + dh_last,  g_t = dy_t + at_{t+1} g_{t+1};  local gradients from g_t and
//!             h_{t-1} (y_{t-1}, or h0 at t = 0);  dh0 = at_0 g_0;  then column sums over (b, t).
void plain_rglru(const PlainInputs& in, PlainOutputs& out) {
  const std::int64_t L = bench_length, W = bench_width;
  float* s = out.s.data();
  float* g = out.g.data();
  float* a_next = out.a_next.data();
  for (std::int64_t w = 0; w < W; ++w) s[w] = ref::softplus(in.a_param[w]);
  for (std::int64_t n = 0; n < bench_batch; ++n) {
    // Forward, the state kept in h_last.
    float* h = out.h_last.data() + n * W;
    for (std::int64_t w = 0; w < W; ++w) h[w] = in.h0[n * W + w];
    for (std::int64_t t = 0; t < L; ++t) {
      const std::int64_t row = n * L + t;
      const bool reset = in.segment_pos[row] == 0;
      for (std::int64_t w = 0; w < W; ++w) {
        const std::int64_t i = row * W + w;
        const auto gt = ref::gate_terms<float, float>(in.zx[i] + in.bx[w], in.za[i] + in.ba[w], s[w], nullptr, reset);
        const float at = reset ? 0.0f : gt.a;
        h[w] = at * h[w] + in.x[i] * gt.gx * gt.m;
        out.y[i] = h[w];
      }
    }
    // Backward: a_next holds at_{t+1} (1 at t = L-1, where g starts from dh_last).
    for (std::int64_t w = 0; w < W; ++w) {
      g[w] = in.dh_last[n * W + w];
      a_next[w] = 1.0f;
    }
    for (std::int64_t t = L - 1; t >= 0; --t) {
      const std::int64_t row = n * L + t;
      const bool reset = in.segment_pos[row] == 0;
      const float* prev = t > 0 ? out.y.data() + (row - 1) * W : in.h0 + n * W;
      for (std::int64_t w = 0; w < W; ++w) {
        const std::int64_t i = row * W + w;
        g[w] = a_next[w] * g[w] + in.dy[i];
        const auto gt = ref::gate_terms<float, float>(in.zx[i] + in.bx[w], in.za[i] + in.ba[w], s[w], nullptr, reset);
        const float product = ref::scan_product(g[w], prev[w]);
        const auto lg = ref::local_gradients<float, float>(gt, g[w], in.x[i], &product, s[w], nullptr, reset, false);
        out.dx_direct[i] = lg.dx_direct;
        out.dzx[i] = lg.dzx;
        out.dza[i] = lg.dza;
        out.a_param_term[i] = lg.a_param_term;
        a_next[w] = reset ? 0.0f : gt.a;
      }
    }
    for (std::int64_t w = 0; w < W; ++w) out.dh0[n * W + w] = a_next[w] * g[w];
  }
  // Column sums over all rows, top to bottom.
  for (std::int64_t w = 0; w < W; ++w) out.dbx[w] = out.dba[w] = out.a_param_sum[w] = 0.0f;
  for (std::int64_t row = 0; row < bench_rows; ++row)
    for (std::int64_t w = 0; w < W; ++w) {
      out.dbx[w] += out.dzx[row * W + w];
      out.dba[w] += out.dza[row * W + w];
      out.a_param_sum[w] += out.a_param_term[row * W + w];
    }
  for (std::int64_t w = 0; w < W; ++w) out.d_a_param[w] = ref::sigmoid(in.a_param[w]) * out.a_param_sum[w];
}

void count_element_steps(benchmark::State& state) {
  state.counters["element_steps/s"] = benchmark::Counter(
      static_cast<double>(bench_elements) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

void rglru_plain(benchmark::State& state) {
  const PlainInputs& in = plain_inputs();
  PlainOutputs out;
  double cpu = 0;
  for (auto _ : state) {
    const Stopwatch watch;
    plain_rglru(in, out);
    benchmark::DoNotOptimize(out.y.data());
    benchmark::DoNotOptimize(out.dzx.data());
    benchmark::ClobberMemory();
    cpu += watch.elapsed().cpu;
  }
  state.counters["cpu_ms"] = benchmark::Counter(cpu * 1e3, benchmark::Counter::kAvgIterations);
  count_element_steps(state);
}

//! One host run of the backend on a timed executor, as run_gated_host does it (executor made and torn
//! down in the run). Reports the whole run minus its GEMMs, or (kernels_only) the sum of its launches.
void rglru_twin(benchmark::State& state, const std::string& backend, bool kernels_only) {
  const BackendInfo& info = find_backend(backend);
  const backends::VariantFlags flags = info.builtin->flags;
  TwinOutputs out;
  const backends::GatedArrays io = backends::gated_arrays(bench_case(), &out.tensors);
  Seconds timed_total, gemm_total;
  for (auto _ : state) {
    Seconds gemms, launches;
    const Stopwatch watch;
    {
      TimedHostExecutor ex(1);
      backends::run_gated(ex, io, flags, info.builtin->schedule);
      gemms = ex.gemms;
      launches = ex.launches;
    }
    const Seconds timed = kernels_only ? launches : watch.elapsed() - gemms;
    benchmark::ClobberMemory();
    state.SetIterationTime(timed.wall);
    timed_total += timed;
    gemm_total += gemms;
  }
  // The row's time in thread CPU time, and the GEMMs' wall time per run (excluded from the row).
  state.counters["cpu_ms"] = benchmark::Counter(timed_total.cpu * 1e3, benchmark::Counter::kAvgIterations);
  state.counters["gemm_ms"] = benchmark::Counter(gemm_total.wall * 1e3, benchmark::Counter::kAvgIterations);
  count_element_steps(state);
}

const std::vector<std::string>& variants() {
  static const std::vector<std::string> v{"fused_grouped_prefix32_hierarchical_chunk16",
                                          "grouped_prefix32_hierarchical_chunk16", "sequential"};
  return v;
}

std::string backend_of(const std::string& variant) { return "rglru/" + variant + "@fp32"; }

//! Largest |a - b| over the n values, relative to the largest |b| where scale is empty, else to scale
//! element by element (per-channel summation error bounds).
double worst_error(const float* a, const float* b, std::int64_t n, const std::vector<double>& scale) {
  double peak = 0, worst = 0;
  for (std::int64_t i = 0; i < n; ++i) peak = std::max(peak, std::fabs(static_cast<double>(b[i])));
  for (std::int64_t i = 0; i < n; ++i) {
    const double d = std::fabs(static_cast<double>(a[i]) - static_cast<double>(b[i]));
    const double norm = scale.empty() ? std::max(peak, 1e-30) : std::max(scale[static_cast<std::size_t>(i)], 1e-30);
    worst = std::max(worst, d / norm);
  }
  return worst;
}

//! The plain loop computes what the backend computes: compared with the sequential twin (same step order,
//! so y, h_last and dh0 agree to float32 rounding; the column sums to their summation error, relative to
//! the channel's sum of |terms|). Returns false and prints the figures when they disagree.
bool plain_matches_twin() {
  const PlainInputs& in = plain_inputs();
  PlainOutputs plain;
  plain_rglru(in, plain);
  TwinOutputs twin;
  const BackendInfo& info = find_backend(backend_of("sequential"));
  backends::run_gated_host(backends::gated_arrays(bench_case(), &twin.tensors), info.builtin->flags,
                           info.builtin->schedule, 1);

  std::vector<double> abs_x(bench_width), abs_a(bench_width), abs_p(bench_width);
  const float* a_param = in.a_param;
  for (std::int64_t row = 0; row < bench_rows; ++row)
    for (std::int64_t w = 0; w < bench_width; ++w) {
      const auto i = static_cast<std::size_t>(row * bench_width + w);
      const auto c = static_cast<std::size_t>(w);
      abs_x[c] += std::fabs(plain.dzx[i]);
      abs_a[c] += std::fabs(plain.dza[i]);
      abs_p[c] += std::fabs(plain.a_param_term[i]) * ref::sigmoid(a_param[w]);
    }
  const std::vector<double> none;
  const double state_error = std::max({worst_error(plain.y.data(), twin.at("y"), bench_elements, none),
                                       worst_error(plain.h_last.data(), twin.at("h_last"), bench_states, none),
                                       worst_error(plain.dh0.data(), twin.at("dh0"), bench_states, none)});
  const double sum_error = std::max({worst_error(plain.dbx.data(), twin.at("d_input_gate_b"), bench_width, abs_x),
                                     worst_error(plain.dba.data(), twin.at("d_a_gate_b"), bench_width, abs_a),
                                     worst_error(plain.d_a_param.data(), twin.at("d_a_param"), bench_width, abs_p)});
  const bool ok = state_error <= 1e-6 && sum_error <= 1e-5;
  std::printf(
      "plain loop vs %s: y, h_last, dh0 within %.1e of their peak, dbx, dba, d_a_param within %.1e of "
      "sum |terms|%s\n",
      info.name.c_str(), state_error, sum_error, ok ? "" : ": MISMATCH, the plain loop is not the same math");
  return ok;
}

// One untimed iteration before each row's timed ones: the first run of a process grows its heap page by
// page, which is not the steady state the rows measure.
constexpr double warm_up_seconds = 1e-3;

BENCHMARK(rglru_plain)->Name("rglru_fwd_bwd/plain")->MinWarmUpTime(warm_up_seconds)->Unit(benchmark::kMillisecond);

void register_twin_rows() {
  for (const std::string& v : variants())
    for (bool kernels_only : {false, true}) {
      const std::string name = std::string("rglru_fwd_bwd/") + (kernels_only ? "twin_kernels/" : "twin/") + v;
      benchmark::RegisterBenchmark(name.c_str(), rglru_twin, backend_of(v), kernels_only)
          ->UseManualTime()
          ->MinWarmUpTime(warm_up_seconds)
          ->Unit(benchmark::kMillisecond);
    }
}

//! The ratios of RatioReporter (wall time), then the same ratios of the rows' cpu_ms counters (thread
//! CPU time, steadier than wall time on a machine shared with other work).
class GatedReporter : public bench::RatioReporter {
 public:
  explicit GatedReporter(const std::vector<bench::Ratio>& ratios) : RatioReporter(ratios), ratios_(ratios) {}

  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : without_warm_up(runs)) {
      const auto it = r.counters.find("cpu_ms");
      if (it != r.counters.end()) cpu_ms_[r.benchmark_name()] = it->second.value;
    }
    RatioReporter::ReportRuns(runs);
  }

  void Finalize() override {
    RatioReporter::Finalize();
    for (const bench::Ratio& r : ratios_) {
      const auto n = cpu_ms_.find(r.numerator);
      const auto d = cpu_ms_.find(r.denominator);
      if (n != cpu_ms_.end() && d != cpu_ms_.end())
        std::printf("ratio %s, thread CPU time: %.*fx%s\n", r.label.c_str(), r.decimals, n->second / d->second,
                    r.note.c_str());
    }
  }

 private:
  std::vector<bench::Ratio> ratios_;
  std::map<std::string, double> cpu_ms_;
};

}  // namespace

int main(int argc, char** argv) {
  scancheck::bench::keep_heap_resident();
  benchmark::Initialize(&argc, argv);
  if (!plain_matches_twin()) return 1;
  register_twin_rows();
  std::vector<scancheck::bench::Ratio> ratios;
  for (const std::string& v : variants()) {
    const char* goal = v == variants().front() ? " (goal: <= 3x)" : " (for information)";
    // Manual-time rows carry the suffix /manual_time in their names.
    ratios.push_back({"rglru_fwd_bwd/twin/" + v + "/manual_time", "rglru_fwd_bwd/plain",
                      "twin / plain loop (GEMMs excluded), " + v + ", full run", goal});
    ratios.push_back({"rglru_fwd_bwd/twin_kernels/" + v + "/manual_time", "rglru_fwd_bwd/plain",
                      "twin / plain loop (GEMMs excluded), " + v + ", kernels only", goal});
  }
  GatedReporter reporter(ratios);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
}
