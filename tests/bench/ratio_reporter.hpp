// SPDX-License-Identifier: Apache-2.0
//! @file
//! A console reporter that keeps every run's adjusted real time and, after the table, prints the ratios a
//! benchmark's issue asks for (e.g. float128 / double, twin / plain loop). A ratio whose runs were filtered
//! out is not printed. Runs are named without the `/min_warmup_time:...` part that a benchmark's
//! MinWarmUpTime adds, in the table and in the ratios.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

namespace scancheck::bench {

//! Prints "ratio <label>: <time(numerator) / time(denominator)>x<note>" in wall-clock time and, when
//! cpu_time is set, after all the wall-clock lines, "ratio <label>, CPU time: ...x<note>" in the benchmark
//! thread's CPU time (steadier on a shared machine; meaningless for a row that works on other threads).
struct Ratio {
  std::string numerator;  //!< full benchmark name, e.g. "rglru_fwd_bwd/float128/128"
  std::string denominator;
  std::string label;  //!< e.g. "float128/double at K=128"
  std::string note;   //!< e.g. " (goal: <= 25x)"
  int decimals = 1;
  bool cpu_time = false;
};

class RatioReporter : public benchmark::ConsoleReporter {
 public:
  //! Colour only on a terminal (a reporter passed to RunSpecifiedBenchmarks ignores --benchmark_color), so
  //! that `grep '^ratio'` works on piped output.
  explicit RatioReporter(std::vector<Ratio> ratios)
      : ConsoleReporter(isatty(fileno(stdout)) ? OO_ColorTabular : OO_Tabular), ratios_(std::move(ratios)) {}

  void ReportRuns(const std::vector<Run>& runs) override {
    const std::vector<Run> named = without_warm_up(runs);
    for (const Run& r : named) {
      times_[r.benchmark_name()] = r.GetAdjustedRealTime();
      cpu_times_[r.benchmark_name()] = r.GetAdjustedCPUTime();
    }
    ConsoleReporter::ReportRuns(named);
  }

  //! The runs with their names' warm-up part cleared.
  static std::vector<Run> without_warm_up(std::vector<Run> runs) {
    for (Run& r : runs) r.run_name.min_warmup_time.clear();
    return runs;
  }

  void Finalize() override {
    ConsoleReporter::Finalize();
    for (const Ratio& r : ratios_) print(r, times_, "");
    for (const Ratio& r : ratios_)
      if (r.cpu_time) print(r, cpu_times_, ", CPU time");
  }

 private:
  static void print(const Ratio& r, const std::map<std::string, double>& times, const char* what) {
    const auto n = times.find(r.numerator);
    const auto d = times.find(r.denominator);
    if (n != times.end() && d != times.end())
      std::printf("ratio %s%s: %.*fx%s\n", r.label.c_str(), what, r.decimals, n->second / d->second, r.note.c_str());
  }

  std::vector<Ratio> ratios_;
  std::map<std::string, double> times_, cpu_times_;
};

}  // namespace scancheck::bench
