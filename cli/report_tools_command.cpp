// SPDX-License-Identifier: Apache-2.0
//! @file
//! `scancheck diff`, `merge` and `calibrate`: the report tools (reports/diff.hpp, merge.hpp, calibrate.hpp)
//! on report.json files. A REPORT argument is a report.json file or a report directory holding one.
//! Exit codes: diff 0 no regression, 1 regression; merge and calibrate 0 written; all 2 for bad input (a
//! missing or foreign file, another schema version, mismatched labels or policies, bad options).
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/case_dir.hpp"
#include "reports/calibrate.hpp"
#include "reports/diff.hpp"
#include "reports/merge.hpp"

namespace scancheck::cli {
namespace {

struct DiffOptions {
  std::string old_report, new_report;
  GrowthOption growth;
};

int run_diff(const DiffOptions& o) {
  const reports::ReportDiff d = reports::diff_reports(reports::load_report(o.old_report),
                                                      reports::load_report(o.new_report), o.growth.max_growth);
  std::fputs(reports::format_diff(d).c_str(), stdout);
  return d.regressed() ? 1 : 0;
}

struct MergeOptions {
  std::vector<std::string> inputs;
  std::string out;
  std::int64_t shards = 0;
};

int run_merge(const MergeOptions& o) {
  std::vector<reports::MergeInput> inputs;
  for (const std::string& path : o.inputs) inputs.push_back({path, reports::load_report(path)});
  const std::size_t count = inputs.size();
  const reports::Report merged = reports::merge_reports(std::move(inputs), o.shards);
  reports::save_report_json(merged, o.out);
  std::printf("merge: %zu reports -> %s: %s\n", count, o.out.c_str(), merged.verdict.summary.c_str());
  return 0;
}

struct CalibrateOptions {
  std::string report, out, format = "json";
  double margin = 2;
};

int run_calibrate(const CalibrateOptions& o) {
  const reports::Calibration c = reports::calibrate(reports::load_report(o.report), o.margin);
  write_file_atomically(o.out, o.format == "pytest" ? reports::to_pytest(c) : reports::to_json(c).dump(2) + "\n");
  std::printf("calibrate: %zu tolerances, %zu backends not calibrated (failing rows), margin %g -> %s\n",
              c.tolerances.size(), c.not_calibrated.size(), c.margin, o.out.c_str());
  return 0;
}

}  // namespace

void add_diff(CLI::App& app, Action& action) {
  auto [cmd, o] =
      add_command(app, action, "diff", "Compare two reports: new failures, fixed rows, error growth", run_diff);
  cmd->add_option("OLD", o->old_report, "the earlier report.json or report directory")->required();
  cmd->add_option("NEW", o->new_report, "the later report.json or report directory")->required();
  o->growth.add_to(*cmd);
  cmd->footer(
      "Exit codes: 0 no regression, 1 regression (new failure, new failing row or growth above F), "
      "2 bad input.");
}

void add_merge(CLI::App& app, Action& action) {
  auto [cmd, o] =
      add_command(app, action, "merge", "Merge shard reports of one run (same label and policy)", run_merge);
  cmd->add_option("REPORTS", o->inputs,
                  "two or more report.json files or report directories (shard reports: any that were written)")
      ->required();
  cmd->add_option("--out", o->out, "the merged report.json")->required();
  cmd->add_option("--shards", o->shards,
                  "the run's shard count: shards without a report are named in the merge's coverage")
      ->check(positive_integer);
}

void add_calibrate(CLI::App& app, Action& action) {
  auto [cmd, o] =
      add_command(app, action, "calibrate",
                  "rtol/atol per backend x tensor from a report's passing rows, with evidence", run_calibrate);
  cmd->add_option("REPORT", o->report, "a report.json or report directory")->required();
  cmd->add_option("--out", o->out, "the file to write")->required();
  cmd->add_option("--format", o->format, "json (default) | pytest")->check(CLI::IsMember({"json", "pytest"}));
  cmd->add_option("--margin", o->margin, "factor over the largest observed errors, at least 1 (default 2)");
}

}  // namespace scancheck::cli
