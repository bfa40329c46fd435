// SPDX-License-Identifier: Apache-2.0
//! @file
//! A console reporter that keeps every run's adjusted real time and, after the table, prints the ratios a
//! benchmark's issue asks for (e.g. float128 / double, twin / plain loop). A ratio whose runs were filtered
//! out is not printed.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

namespace scancheck::bench {

//! Prints "ratio <label>: <time(numerator) / time(denominator)>x<note>".
struct Ratio {
  std::string numerator;    //!< full benchmark name, e.g. "rglru_fwd_bwd/float128/128"
  std::string denominator;
  std::string label;        //!< e.g. "float128/double at K=128"
  std::string note;         //!< e.g. " (goal: <= 25x)"
  int decimals = 1;
};

class RatioReporter : public benchmark::ConsoleReporter {
 public:
  //! Colour only on a terminal (a reporter passed to RunSpecifiedBenchmarks ignores --benchmark_color), so
  //! that `grep '^ratio'` works on piped output.
  explicit RatioReporter(std::vector<Ratio> ratios)
      : ConsoleReporter(isatty(fileno(stdout)) ? OO_ColorTabular : OO_Tabular), ratios_(std::move(ratios)) {}

  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) times_[r.benchmark_name()] = r.GetAdjustedRealTime();
    ConsoleReporter::ReportRuns(runs);
  }

  void Finalize() override {
    ConsoleReporter::Finalize();
    for (const Ratio& r : ratios_) {
      const auto n = times_.find(r.numerator);
      const auto d = times_.find(r.denominator);
      if (n != times_.end() && d != times_.end())
        std::printf("ratio %s: %.*fx%s\n", r.label.c_str(), r.decimals, n->second / d->second, r.note.c_str());
    }
  }

 private:
  std::vector<Ratio> ratios_;
  std::map<std::string, double> times_;
};

}  // namespace scancheck::bench
