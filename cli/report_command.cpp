// SPDX-License-Identifier: Apache-2.0
//! @file
//! `scancheck report`: a tolerance report (reports/runner.hpp) written as report.json, report.md and
//! report.html into --out, atomically. Progress on stderr: a live line on a terminal, a line every ten
//! seconds otherwise. Ctrl-C stops after the current case and writes what was measured, marked interrupted.
//! Exit codes: 0 every row passed, 1 some row failed, 2 bad input, 130 interrupted.
//! `scancheck render` writes the same three files from an existing report.json.
#include <atomic>
#include <cstdio>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/interrupt.hpp"
#include "cli/options.hpp"
#include "cli/progress.hpp"
#include "core/case_request.hpp"
#include "core/error.hpp"
#include "reports/runner.hpp"

namespace scancheck::cli {
namespace {

struct Options {
  std::string preset = "quick", backends, label, out;
  std::uint64_t seed = 1;
  std::string lengths;
  JudgeOptions judge;
  ReferenceBudget budget;
  ExecutorOption executor;
  ForeignOptions foreign;
};

reports::ReportOptions report_options(const Options& o) {
  reports::ReportOptions r;
  r.preset = o.preset;
  if (!o.backends.empty()) r.backends = o.backends;
  if (!o.executor.automatic()) r.executor = o.executor.executor();
  r.seed = o.seed;
  r.label = o.label;
  r.policy = o.judge.policy();
  r.threads = o.judge.threads;
  if (!o.lengths.empty()) r.lengths = parse_integer_list(o.lengths, "--lengths");
  for (const std::int64_t length : r.lengths)
    if (length < 1) throw InputError(fmt::format("--lengths '{}': lengths must be >= 1", o.lengths));
  r.stop = &stop_on_interrupt();
  r.max_reference_seconds = o.budget.seconds;
  return r;
}

//! "[#####.....] 120/608 runs | 42 s | ETA 70 s | rglru/chunk16@fp32"
std::string progress_line(const reports::ReportProgress& p) {
  const double done = p.runs_total > 0 ? static_cast<double>(p.runs_done) / static_cast<double>(p.runs_total) : 0;
  const std::string eta = p.runs_done > 0 ? fmt::format("{:.0f} s", p.elapsed / done - p.elapsed) : "-";
  return fmt::format("{} {}/{} runs, case {}/{} | {:.0f} s | ETA {} | {}", ProgressLine::bar(done), p.runs_done,
                     p.runs_total, std::min(p.case_index + 1, p.cases), p.cases, p.elapsed, eta, p.activity);
}

int run_report_command(const Options& o) {
  o.foreign.load();
  const reports::ReportOptions options = report_options(o);
  reports::Report report;
  {
    ProgressLine progress;
    report = reports::run_report(options, [&](const reports::ReportProgress& p) { progress.show(progress_line(p), p.elapsed); });
  }
  reports::write_report(report, o.out);
  std::printf("%s\nreport: %s/report.{json,md,html}\n", report.verdict.summary.c_str(), o.out.c_str());
  if (stop_on_interrupt().load()) return 130;
  return report.verdict.pass ? 0 : 1;
}

struct RenderOptions {
  std::string report, out;
};

//! report.md and report.html again from a report.json (a merged one, say), beside a copy of it.
int run_render(const RenderOptions& o) {
  const reports::Report report = reports::load_report(o.report);
  reports::write_report(report, o.out);
  std::printf("%s\nreport: %s/report.{json,md,html}\n", report.verdict.summary.c_str(), o.out.c_str());
  return 0;
}

}  // namespace

void add_render(CLI::App& app, Action& action) {
  auto o = std::make_shared<RenderOptions>();
  CLI::App* cmd = app.add_subcommand("render", "report.md and report.html from a report.json (e.g. a merged one)");
  cmd->add_option("report", o->report, "report.json, or a directory holding one")->required();
  cmd->add_option("--out", o->out, "output directory (written atomically)")->required();
  cmd->callback([&action, o] { action = [o] { return run_render(*o); }; });
}

void add_report(CLI::App& app, Action& action) {
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("report", "Tolerance report of the backends: report.json, report.md, report.html");
  // The last --preset wins, so `ci/report.sh --preset ci` overrides the script's quick.
  cmd->add_option("--preset", o->preset, "quick (default) | ci | seed-shapes")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  cmd->add_option("--backends", o->backends, "backend name or glob (default: every backend; seed-shapes: the production ones)");
  o->executor.add_to(*cmd, /*allow_auto=*/true);
  cmd->add_option("--seed", o->seed, "seed of the case stream (default 1)");
  cmd->add_option("--lengths", o->lengths, "quick, ci: case lengths instead of the preset's, e.g. 2,33,300");
  cmd->add_option("--label", o->label, "the report's label (default: the preset); merge joins reports of one label");
  o->judge.add_to(*cmd);
  o->budget.add_to(*cmd);
  o->foreign.add_to(*cmd);
  cmd->add_option("--out", o->out, "output directory (written atomically)")->required();
  cmd->callback([&action, o] { action = [o] { return run_report_command(*o); }; });
}

}  // namespace scancheck::cli
