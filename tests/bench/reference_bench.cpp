// SPDX-License-Identifier: Apache-2.0
//! @file
//! Throughput of the reference: rglru forward plus backward on one (batch, head) block at K = 128 and
//! K = 256, in element-steps (one channel, one time step) per second on one thread. The same templated
//! block code evaluated in double, in the same run, is the baseline; the ratio float128 / double is printed
//! after the table (issue goal: within 10x). "float128" is the float128 reference's scalar, ref::Quad
//! (float128 arithmetic, double-double elementary functions).
//!
//! The tiered reference (what check, fuzz and reports use) is timed whole, as compute_reference runs it on
//! the same one-block case: the certified double pass with its float32 bounds, the certification and any
//! float128 recomputation (none on this default-regime case), against compute_reference in plain double
//! (values only, no bounds) in the same run: "tiered/double" (issue goal: within 2x); and the float128
//! reference with its bounds (what judged before the tiered one): "float128/tiered".
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

#include "core/generate.hpp"
#include "reference/gather.hpp"
#include "reference/quad.hpp"
#include "reference/reference.hpp"
#include "reference/scalar.hpp"
#include "tests/bench/ratio_reporter.hpp"

namespace {

using namespace scancheck;

const Case& bench_case(std::int64_t k) {
  static std::map<std::int64_t, Case> cases;
  auto it = cases.find(k);
  if (it == cases.end()) {
    CaseRequest r;
    r.architecture = Architecture::rglru;
    r.shape = {1, 64, k, 1};
    r.seed = 7;
    it = cases.emplace(k, make_case(r)).first;
  }
  return it->second;
}

template <class S>
void rglru_forward_backward(benchmark::State& state) {
  const Case& c = bench_case(state.range(0));
  const auto in = ref::gather_gated_block<S, S>(c, 0, 0);
  for (auto _ : state) {
    const auto fw = ref::gated_forward(in);
    auto gr = ref::gated_backward(in, fw);
    benchmark::DoNotOptimize(gr.dwx.data());
  }
  const double element_steps = static_cast<double>(c.shape.length * c.shape.width);
  state.counters["element_steps/s"] =
      benchmark::Counter(element_steps * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

void rglru_reference(benchmark::State& state, Precision precision, bool bounds) {
  const Case& c = bench_case(state.range(0));
  ReferenceOptions options;
  options.precision = precision;
  options.bounds = bounds;
  options.threads = 1;
  for (auto _ : state) {
    const ReferenceResult r = compute_reference(c, options);
    benchmark::DoNotOptimize(r.values.begin()->second.data());
  }
  const double element_steps = static_cast<double>(c.shape.length * c.shape.width);
  state.counters["element_steps/s"] =
      benchmark::Counter(element_steps * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

BENCHMARK_CAPTURE(rglru_reference, double, Precision::float64, false)
    ->Name("reference/double")
    ->Arg(128)
    ->Arg(256)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(rglru_reference, tiered, Precision::tiered, true)
    ->Name("reference/tiered")
    ->Arg(128)
    ->Arg(256)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(rglru_reference, float128, Precision::float128, true)
    ->Name("reference/float128")
    ->Arg(128)
    ->Arg(256)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(rglru_forward_backward<double>)
    ->Name("rglru_fwd_bwd/double")
    ->Arg(128)
    ->Arg(256)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(rglru_forward_backward<ref::Quad>)
    ->Name("rglru_fwd_bwd/float128")
    ->Arg(128)
    ->Arg(256)
    ->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  std::vector<scancheck::bench::Ratio> ratios;
  for (const char* k : {"128", "256"})
    ratios.push_back({std::string("rglru_fwd_bwd/float128/") + k, std::string("rglru_fwd_bwd/double/") + k,
                      std::string("float128/double at K=") + k, " (goal: <= 10x)"});
  for (const char* k : {"128", "256"})
    ratios.push_back({std::string("reference/tiered/") + k, std::string("reference/double/") + k,
                      std::string("tiered/double (whole references) at K=") + k, " (goal: <= 2x)"});
  for (const char* k : {"128", "256"})
    ratios.push_back({std::string("reference/float128/") + k, std::string("reference/tiered/") + k,
                      std::string("float128/tiered (whole references with bounds: the judging reference before "
                                  "and now) at K=") +
                          k,
                      ""});
  scancheck::bench::RatioReporter reporter(std::move(ratios));
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
}
