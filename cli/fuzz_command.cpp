// SPDX-License-Identifier: Apache-2.0
//! @file
//! `scancheck fuzz`: property runs over random cases (properties/fuzz.hpp) with a progress bar on a
//! terminal and plain lines otherwise. Ctrl-C stops after the current case and keeps every finding.
//! Exit codes: 0 no finding, 1 findings, 2 bad input, 130 interrupted without findings.
#include <atomic>
#include <cstdio>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/interrupt.hpp"
#include "cli/options.hpp"
#include "cli/progress.hpp"
#include "core/error.hpp"
#include "properties/differential.hpp"
#include "properties/fuzz.hpp"

namespace scancheck::cli {
namespace {

//! "90", "90s", "5m", "2h" -> seconds.
double parse_duration(const std::string& text) {
  try {
    std::size_t used = 0;
    const double value = std::stod(text, &used);
    const std::string unit = text.substr(used);
    const double scale = unit.empty() || unit == "s" ? 1 : unit == "m" ? 60 : unit == "h" ? 3600 : -1;
    if (scale > 0 && value > 0) return value * scale;
  } catch (const std::exception&) {
  }
  throw InputError(fmt::format("--time '{}': expected a positive duration such as 90s, 5m or 2h", text));
}

//! "i/n" with 0 <= i < n.
std::pair<std::int64_t, std::int64_t> parse_shard(const std::string& text) {
  long long i = -1, n = 0;
  char tail = 0;
  if (std::sscanf(text.c_str(), "%lld/%lld%c", &i, &n, &tail) != 2 || n < 1 || i < 0 || i >= n)
    throw InputError(fmt::format("--shard '{}': expected i/n with 0 <= i < n", text));
  return {i, n};
}

struct Options {
  std::string backends, time, shard = "0/1", findings = "findings";
  std::vector<std::string> regimes;
  std::int64_t cases = 0;
  std::uint64_t seed = 1;
  JudgeOptions judge;
  ExecutorOption executor;
  ForeignOptions foreign;
};

//! "cases 12/100 | 340 backend runs | 1.20 cases/s | 0 failures | ETA 73s"
std::string progress_line(const FuzzOptions& f, const FuzzProgress& p) {
  const double rate = p.elapsed > 0 ? static_cast<double>(p.cases) / p.elapsed : 0;
  std::string eta = "-";
  if (f.cases && rate > 0) eta = fmt::format("{:.0f}s", static_cast<double>(*f.cases - p.cases) / rate);
  else if (f.seconds) eta = fmt::format("{:.0f}s", std::max(0.0, *f.seconds - p.elapsed));
  const std::string total = f.cases ? fmt::format("/{}", *f.cases) : "";
  return fmt::format("cases {}{} | {} backend runs | {:.2f} cases/s | {} failures | ETA {}", p.cases, total, p.checks,
                     rate, p.findings.size(), eta);
}

int run_fuzz(const Options& o) {
  o.foreign.load();
  FuzzOptions f;
  f.backends = match_backends(o.backends);
  f.seed = o.seed;
  std::tie(f.shard, f.shards) = parse_shard(o.shard);
  if (o.cases < 0) throw InputError("--cases must be positive");
  if (o.cases > 0) f.cases = o.cases;
  if (!o.time.empty()) f.seconds = parse_duration(o.time);
  if (!f.cases && !f.seconds) f.cases = 100;
  f.executor = o.executor.executor();
  f.policy = o.judge.policy();
  f.reference_threads = o.judge.threads;
  f.findings = o.findings;
  if (!o.regimes.empty()) {
    f.regimes.clear();
    for (const std::string& name : o.regimes) f.regimes.push_back(parse_regime(name));
  }
  f.stop = &stop_on_interrupt();

  FuzzProgress p;
  {
    ProgressLine progress;
    p = fuzz(f, [&](const FuzzProgress& now) { progress.show(progress_line(f, now), now.elapsed, now.cases % 50 == 0); });
  }
  std::printf("fuzz: %lld cases, %lld backend runs in %.1f s, shard %s, seed %llu%s\n",
              static_cast<long long>(p.cases), static_cast<long long>(p.checks), p.elapsed, o.shard.c_str(),
              static_cast<unsigned long long>(o.seed), p.interrupted ? " (interrupted)" : "");
  for (std::size_t i = 0; i < p.findings.size(); ++i) {
    const Finding& finding = p.findings[i];
    std::printf("FAIL %s after %lld cases, shrunk in %d steps to %s\n  %s\n", finding.backend.c_str(),
                static_cast<long long>(finding.cases_until_failure), finding.shrink_steps,
                to_string(finding.request).c_str(), finding.message.c_str());
    for (const std::string& where : finding.diagnosis) std::printf("  where: %s\n", where.c_str());
    if (!p.saved[i].empty())
      for (const std::string& line : repro_lines(finding, p.saved[i] / "case")) std::printf("  repro: %s\n", line.c_str());
  }
  if (!p.findings.empty()) return 1;
  return p.interrupted ? 130 : 0;
}

}  // namespace

void add_fuzz(CLI::App& app, Action& action) {
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("fuzz", "Property runs over random cases, shrinking and saving every failure");
  cmd->add_option("--backends", o->backends, "backend name or glob, e.g. 'complex_rglru/*@bf16'")->required();
  cmd->add_option("--cases", o->cases, "number of cases (default 100 without --time)")->check(positive_integer);
  cmd->add_option("--time", o->time, "run for this long: 90s, 5m, 2h");
  cmd->add_option("--seed", o->seed, "seed of the case stream (default 1)");
  cmd->add_option("--shard", o->shard, "i/n: this run's share of the stream (disjoint seed streams)");
  cmd->add_option("--findings", o->findings, "directory for shrunk failing cases (default ./findings)");
  cmd->add_option("--regimes", o->regimes, "only these regimes, e.g. default,long_memory (default: all five)")
      ->delimiter(',');
  o->executor.add_to(*cmd);
  o->judge.add_to(*cmd);
  o->foreign.add_to(*cmd);
  cmd->callback([&action, o] { action = [o] { return run_fuzz(*o); }; });
}

}  // namespace scancheck::cli
