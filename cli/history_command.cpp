// SPDX-License-Identifier: Apache-2.0
//! @file
//! `scancheck history`: every report of a campaign kept in one SQLite database (reports/history.hpp), the
//! trend page of a label (render/history_page.hpp), and a new report checked against the best earlier one.
//!   history add REPORT... --db FILE    one line per report: "added ..." or "already in the history: ..."
//!   history show --db FILE [--label L] [--backends GLOB] [--since DATE] --out DIR
//!   history check --db FILE REPORT [--max-growth F]
//! A REPORT is a report.json file or a report directory holding one.
//! Exit codes: add and show 0; check 0 no regression (or no earlier report to compare with), 1 regression
//! (`scancheck diff`'s rules); all 2 for bad input (a missing database for show and check, a file that is
//! not a scancheck history or is of a newer schema, a malformed report, label or date).
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/files.hpp"
#include "render/history_page.hpp"
#include "reports/diff.hpp"
#include "reports/history.hpp"
#include "reports/profile.hpp"

namespace scancheck::cli {
namespace {

using reports::History;

struct AddOptions {
  std::vector<std::string> reports;
  std::string db;
  TimingsOptions timings;
};

//! Each report in its own transaction: those before a malformed one stay added. The database is created
//! only once the profile and the first report have been read, so bad input leaves no empty history behind.
int run_add(const AddOptions& o) {
  std::optional<reports::Profile> profile;
  reports::ProfileAliases aliases;
  if (o.timings.given()) {
    aliases = reports::parse_profile_aliases(o.timings.aliases);
    profile = reports::load_profile(o.timings.profile);
  }
  std::optional<History> history;
  for (const std::string& path : o.reports) {
    reports::Report report = reports::load_report(path);
    if (!history) history.emplace(o.db, History::Open::create_or_upgrade);
    if (profile) {
      reports::join_profile(report, *profile, aliases);
      for (const std::string& line : reports::describe_profile_join(*report.profile))
        fmt::print("{}: {}\n", path, line);
    }
    const reports::AddResult a = history->add(report);
    fmt::print("{} {} {} {} ({} rows)\n", a.added ? "added" : "already in the history:", a.entry.label,
               a.entry.git_revision, a.entry.generated_at, a.entry.rows);
  }
  return 0;
}

struct ShowOptions {
  std::string db, label, backends = "*", since, out;
  bool label_given = false;
};

int run_show(const ShowOptions& o) {
  // --out replaces its directory: it must not be the one holding the database.
  require_output_apart(o.db, o.out, "--out");
  const History history(o.db, History::Open::existing);
  reports::HistoryQuery query;
  query.label = o.label_given ? o.label : history.sole_label();
  query.backends = o.backends;
  query.since = o.since;
  const render::HistoryView view = render::history_view(history, query);
  render::write_history_page(view, o.out);
  fmt::print("history: {} reports of '{}', {} backends, {} plots -> {}/history.{{html,md}}\n", view.reports.size(),
             query.label, view.backends.size(), view.series.size(), o.out);
  return 0;
}

struct CheckOptions {
  std::string db, report;
  GrowthOption growth;
};

int run_check(const CheckOptions& o) {
  const History history(o.db, History::Open::existing);
  const reports::Report report = reports::load_report(o.report);
  const std::optional<reports::HistoryEntry> best = history.best_earlier(report.label, report.generated_at);
  if (!best) {
    fmt::print("history check: no earlier report of label '{}' before {} in {}: nothing to compare with\n",
               report.label, report.generated_at, o.db);
    return 0;
  }
  fmt::print(
      "history check: {} against the best earlier report {} {} ({} of {} rows failing, mean scaled error "
      "{:.3g})\n",
      o.report, best->git_revision, best->generated_at, best->rows_failed, best->rows, best->mean_scaled_error());
  const reports::ReportDiff d = reports::diff_reports(history.load(best->id), report, o.growth.max_growth);
  std::fputs(reports::format_diff(d).c_str(), stdout);
  return d.regressed() ? 1 : 0;
}

void add_history_add(CLI::App& history, Action& action) {
  auto [cmd, o] = add_command(history, action, "add",
                              "Add reports to the history (a report already there is not added twice)", run_add);
  cmd->add_option("REPORTS", o->reports, "report.json files or report directories")->required();
  cmd->add_option("--db", o->db, "the history database (created when missing)")->required();
  o->timings.add_to(*cmd);
}

void add_history_show(CLI::App& history, Action& action) {
  auto o = std::make_shared<ShowOptions>();
  CLI::App* cmd = history.add_subcommand("show", "Trend plots and a summary of one label's reports");
  cmd->add_option("--db", o->db, "the history database")->required();
  CLI::Option* label = cmd->add_option("--label", o->label, "the label (default: the only one in the history)");
  cmd->add_option("--backends", o->backends, "a backend glob, as --backends elsewhere (default '*')");
  cmd->add_option("--since", o->since, "only reports generated from this UTC date on: YYYY-MM-DD[THH:MM:SSZ]");
  cmd->add_option("--out", o->out, "the directory to write history.html and history.md into")->required();
  cmd->footer(
      fmt::format("Trend: a backend's error in a report is the largest scaled error of its tensors; the "
                  "latest is worse above {0:g}x the best earlier, better below 1/{0:g}, same in between.",
                  render::trend_factor));
  cmd->callback([&action, o, label] {
    o->label_given = label->count() > 0;
    action = [o] { return run_show(*o); };
  });
}

void add_history_check(CLI::App& history, Action& action) {
  auto [cmd, o] =
      add_command(history, action, "check", "Diff a report against the best earlier report of its label", run_check);
  cmd->add_option("REPORT", o->report, "a report.json or report directory")->required();
  cmd->add_option("--db", o->db, "the history database")->required();
  o->growth.add_to(*cmd);
  cmd->footer(
      "Best earlier: of the label's reports generated before REPORT, neither interrupted nor empty, the "
      "one with the fewest failing rows; ties go to the smallest mean scaled error over its tensors, then "
      "to the newest. The diff is `scancheck diff BEST REPORT`.\n"
      "Exit codes: 0 no regression (or no earlier report), 1 regression, 2 bad input.");
}

}  // namespace

void add_history(CLI::App& app, Action& action) {
  CLI::App* history = app.add_subcommand("history", "Every report in an SQLite history: add, trend pages, check");
  history->require_subcommand(1);
  add_history_add(*history, action);
  add_history_show(*history, action);
  add_history_check(*history, action);
}

}  // namespace scancheck::cli
