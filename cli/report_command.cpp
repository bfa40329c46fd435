// SPDX-License-Identifier: Apache-2.0
//! @file
//! `scancheck report`: a tolerance report (reports/runner.hpp) written as report.json, report.md and
//! report.html into --out, atomically. Progress on stderr: a live line on a terminal, a line every ten
//! seconds otherwise. Ctrl-C stops after the current case and writes what was measured, marked interrupted.
//! Exit codes: 0 every row passed, 1 some row failed, 2 bad input, 130 interrupted.
//! `scancheck render` writes the same three files from an existing report.json.
//! Both take --timings PROFILE.json [--timings-alias FROM=TO]...: a speed profile the user took of their
//! kernels, joined to the backward rows (reports/profile.hpp); a summary line and one line per profile row
//! that did not join go to stdout. `report` reads the profile before its run, so a malformed one costs no run.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.hpp"
#include "cli/interrupt.hpp"
#include "cli/options.hpp"
#include "cli/progress.hpp"
#include "core/case_request.hpp"
#include "core/choices.hpp"
#include "core/error.hpp"
#include "render/report_files.hpp"
#include "reports/profile.hpp"
#include "reports/runner.hpp"
#include "reports/summary.hpp"

namespace scancheck::cli {
namespace {

void print_profile_join(const reports::ProfileJoin& join) {
  for (const std::string& line : reports::describe_profile_join(join)) std::printf("%s\n", line.c_str());
}

//! The verdict, what a pass rules out (reports/summary.hpp) and where the files are.
void print_outcome(const reports::Report& report, const std::string& out) {
  std::printf("%s\n", report.verdict.summary.c_str());
  if (const auto detection = reports::summarise_detection(report))
    std::printf("detects: %s\n", reports::describe_detection(*detection).c_str());
  std::printf("report: %s/report.{json,md,html}\n", out.c_str());
}

struct Options {
  std::string preset = "quick", backends, label, out;
  std::uint64_t seed = 1;
  std::string lengths;
  std::vector<std::string> regimes;
  std::string reference_precision = "tiered";
  bool sample = false;
  JudgeOptions judge;
  ReferenceBudget budget;
  ExecutorOption executor;
  ForeignOptions foreign;
  ShardOption shard;
  TimingsOptions timings;  //!< `scancheck report` only: a campaign joins a profile to its merged report
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
  for (const std::string& name : o.regimes) r.regimes.push_back(parse_regime(name));
  r.stop = &stop_on_interrupt();
  r.max_reference_seconds = o.budget.seconds;
  r.reference_precision = parse_precision(o.reference_precision);
  r.sample = o.sample;
  const ShardOption::Choice shard = o.shard.choice();
  r.shard = {shard.index, shard.count};
  if (shard.count > 1)
    std::printf("report: shard %lld of %lld (from %s)\n", static_cast<long long>(shard.index),
                static_cast<long long>(shard.count), shard.from.c_str());
  return r;
}

//! "[#####.....] 120/608 runs | 42 s | ETA 70 s | rglru/chunk16@fp32"
std::string progress_line(const reports::ReportProgress& p) {
  const double done = p.work_total > 0 ? p.work_done / p.work_total : 0;
  const std::string eta = done > 0 ? fmt::format("{:.0f} s", p.elapsed / done - p.elapsed) : "-";
  return fmt::format("{} {}/{} runs, case {}/{} | {:.0f} s | ETA {} | {}", ProgressLine::bar(done), p.runs_done,
                     p.runs_total, std::min(p.case_index + 1, p.cases), p.cases, p.elapsed, eta, p.activity);
}

//! Joins the profile read before the run; should the join itself fail (two profile rows naming one row
//! after the aliases), the run's report is still written, without the profile, before the error.
void join_after_run(reports::Report& report, const reports::Profile& profile, const reports::ProfileAliases& aliases,
                    const std::string& out) {
  try {
    reports::join_profile(report, profile, aliases);
  } catch (const InputError& e) {
    render::write_report(report, out);
    throw InputError(fmt::format("{} (the report was written to {} without the profile)", e.what(), out));
  }
}

int run_report_command(const Options& o) {
  o.executor.select_device();
  std::optional<reports::Profile> profile;
  reports::ProfileAliases aliases;
  if (o.timings.given()) {
    aliases = reports::parse_profile_aliases(o.timings.aliases);
    profile = reports::load_profile(o.timings.profile);
  }
  o.foreign.load();
  const reports::ReportOptions options = report_options(o);
  reports::Report report;
  {
    ProgressLine progress;
    report = reports::run_report(options,
                                 [&](const reports::ReportProgress& p) { progress.show(progress_line(p), p.elapsed); });
  }
  if (profile) join_after_run(report, *profile, aliases, o.out);
  render::write_report(report, o.out);
  print_outcome(report, o.out);
  if (report.profile) print_profile_join(*report.profile);
  if (stop_on_interrupt().load()) return 130;
  return report.verdict.pass ? 0 : 1;
}

struct RenderOptions {
  std::string report, out;
  TimingsOptions timings;
};

//! report.md and report.html again from a report.json (a merged one, say), beside a copy of it; with
//! --timings, the profile joined first (replacing one joined before).
int run_render(const RenderOptions& o) {
  reports::Report report = reports::load_report(o.report);
  if (o.timings.given())
    reports::attach_profile(report, o.timings.profile, reports::parse_profile_aliases(o.timings.aliases));
  render::write_report(report, o.out);
  print_outcome(report, o.out);
  if (o.timings.given()) print_profile_join(*report.profile);
  return 0;
}

}  // namespace

void add_render(CLI::App& app, Action& action) {
  auto [cmd, o] = add_command(app, action, "render", "report.md and report.html from a report.json (e.g. a merged one)",
                              run_render);
  cmd->add_option("report", o->report, "report.json, or a directory holding one")->required();
  o->timings.add_to(*cmd);
  cmd->add_option("--out", o->out, "output directory (written atomically)")->required();
}

namespace {

//! The report's options on `cmd`: `scancheck report` and the arguments `scancheck campaign` passes on.
void add_report_options(CLI::App& cmd, Options& o) {
  // The last --preset wins, so `ci/report.sh --preset ci` overrides the script's quick.
  cmd.add_option("--preset", o.preset, fmt::format("{} (default: quick)", fmt::join(reports::preset_names(), " | ")))
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  cmd.add_option("--backends", o.backends,
                 "backend name or glob (default: every backend; seed-shapes: the production ones)");
  o.executor.add_to(cmd, /*allow_auto=*/true);
  cmd.add_option("--seed", o.seed, "seed of the case stream (default 1)");
  cmd.add_option("--lengths", o.lengths, "quick, ci: case lengths instead of the preset's, e.g. 2,33,300");
  cmd.add_option(
         "--regimes", o.regimes,
         "quick, ci: the cases' regimes, in turn, comma-separated, of: " + regime_choices() + " (default: drawn)")
      ->delimiter(',');
  cmd.add_option("--label", o.label, "the report's label (default: the preset); merge joins reports of one label");
  cmd.add_option("--reference-precision", o.reference_precision,
                 "tiered (default: double certified element by element, float128 where not) | float128");
  cmd.add_flag("--sample", o.sample, "seed-shapes: verify one (batch, head) block per case instead of every element");
  o.judge.add_to(cmd);
  o.budget.add_to(cmd);
  o.foreign.add_to(cmd);
  o.shard.add_to(cmd);
  cmd.add_option("--out", o.out, "output directory (written atomically)")->required();
}

}  // namespace

void add_report(CLI::App& app, Action& action) {
  auto [cmd, o] =
      add_command(app, action, "report", "Tolerance report of the backends: report.json, report.md, report.html",
                  run_report_command);
  add_report_options(*cmd, *o);
  o->timings.add_to(*cmd);
}

std::string check_report_arguments(const std::vector<std::string>& args, std::int64_t shards) {
  for (const std::string& a : args)
    if (a == "--out" || a.starts_with("--out=") || a == "--shard" || a.starts_with("--shard="))
      throw InputError(fmt::format("report arguments: {} is the campaign's to set (--out DIR; one shard per task)", a));
  Options o;
  CLI::App parser{"scancheck report"};
  add_report_options(parser, o);
  std::vector<std::string> words{"--out", "campaign-check"};
  words.insert(words.begin(), args.begin(), args.end());
  std::reverse(words.begin(), words.end());  // CLI11 parses a vector from its back
  try {
    parser.parse(words);
  } catch (const CLI::ParseError& e) {
    throw InputError(fmt::format("report arguments: {}", e.what()));
  }
  // Planned here as on the host: the machine submitting a campaign need not have the GPUs its jobs ask for.
  o.executor = ExecutorOption{};
  reports::ReportOptions options = report_options(o);
  if (o.foreign.workers.empty() && o.foreign.plugins.empty() && o.foreign.in_process_plugins.empty()) {
    const std::int64_t cases = reports::plan_report(options).cases_unsharded;
    if (shards > cases)
      throw InputError(fmt::format("--shards {}: the report's plan has only {} cases, so at most {} shards have work",
                                   shards, cases, cases));
  }
  return o.label.empty() ? o.preset : o.label;
}

}  // namespace scancheck::cli
