// SPDX-License-Identifier: Apache-2.0
//! @file
//! Fuzz throughput: cases per second of `scancheck fuzz` at its default sizes (the RapidCheck size cycle
//! 0..100, every regime, seed 1) on the host executor, with two reference threads, for rglru@fp32:
//!
//!   fuzz/one_backend/<precision>    rglru/fused_grouped_prefix32_hierarchical_chunk16@fp32 alone
//!   fuzz/every_backend/<precision>  every rglru@fp32 backend on each case (one reference per case)
//!
//! <precision> is the reference's: tiered (what fuzz uses) or float128 (the reference before it), on the
//! same cases, in the same run. Counters: cases/s, and reference_share, the fraction of the time spent
//! computing references (FuzzProgress::reference_seconds). After the table: the ratio of throughputs,
//! tiered over float128 (issue goal: at least 2x). `--smoke` (first argument) runs a few cases only: the
//! ctest smoke run, whose ratios are indicative at best.
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "backends/backend.hpp"
#include "properties/differential.hpp"
#include "properties/fuzz.hpp"
#include "tests/bench/ratio_reporter.hpp"

namespace {

using namespace scancheck;

constexpr const char* one_backend = "rglru/fused_grouped_prefix32_hierarchical_chunk16@fp32";
constexpr const char* every_backend = "rglru/*@fp32";

void fuzz_throughput(benchmark::State& state, const char* glob, Precision precision, std::int64_t cases) {
  FuzzOptions o;
  o.backends = match_backends(glob);
  o.cases = cases;
  o.reference_threads = 2;
  o.reference_precision = precision;
  double seconds = 0, reference_seconds = 0;
  std::int64_t done = 0;
  for (auto _ : state) {
    const FuzzProgress p = fuzz(o);
    if (!p.findings.empty()) state.SkipWithError(("a finding: " + p.findings.front().message).c_str());
    seconds += p.elapsed;
    reference_seconds += p.reference_seconds;
    done += p.cases;
  }
  state.counters["cases/s"] = benchmark::Counter(static_cast<double>(done), benchmark::Counter::kIsRate);
  state.counters["reference_share"] = seconds > 0 ? reference_seconds / seconds : 0;
  state.counters["backends"] = static_cast<double>(o.backends.size());
}

void register_rows(bool smoke) {
  const std::int64_t few = smoke ? 4 : 40, fewer = smoke ? 2 : 12;
  for (const auto& [name, glob, cases] :
       {std::tuple{"one_backend", one_backend, few}, {"every_backend", every_backend, fewer}})
    for (const Precision p : {Precision::tiered, Precision::float128})
      benchmark::RegisterBenchmark((std::string("fuzz/") + name + "/" + std::string(to_string(p))).c_str(),
                                   [glob, p, cases](benchmark::State& s) { fuzz_throughput(s, glob, p, cases); })
          ->Unit(benchmark::kSecond)
          ->UseRealTime()
          ->Iterations(1);
}

}  // namespace

int main(int argc, char** argv) {
  const bool smoke = argc > 1 && std::string(argv[1]) == "--smoke";
  if (smoke) {
    argv[1] = argv[0];
    ++argv;
    --argc;
  }
  benchmark::Initialize(&argc, argv);
  register_rows(smoke);
  std::vector<bench::Ratio> ratios;
  for (const char* name : {"one_backend", "every_backend"})
    ratios.push_back({std::string("fuzz/") + name + "/float128/iterations:1/real_time",
                      std::string("fuzz/") + name + "/tiered/iterations:1/real_time",
                      std::string("fuzz throughput tiered / float128, ") + name, " (goal: >= 2x)"});
  bench::RatioReporter reporter(std::move(ratios));
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
}
