// SPDX-License-Identifier: Apache-2.0
#include "render/history_markdown.hpp"

#include <cctype>
#include <cstdint>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "render/html_text.hpp"

namespace scancheck::render {

using namespace reports;  // the model rendered here

namespace {

using detail::put;

bool alphanumeric(char ch) { return std::isalnum(static_cast<unsigned char>(ch)) != 0; }

//! Outside text in history.md, as render/markdown.cpp escapes report.md's: one line, & < > as entities,
//! inline syntax backslashed (and _ outside words), so that it reads as itself in a table cell or list item.
//! (No line of history.md starts with outside text, so no block marker needs escaping.)
std::string md(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = static_cast<unsigned char>(text[i]) < 0x20 || text[i] == 0x7f ? ' ' : text[i];
    const bool intraword = i > 0 && i + 1 < text.size() && alphanumeric(text[i - 1]) && alphanumeric(text[i + 1]);
    if (ch == '&') out += "&amp;";
    else if (ch == '<') out += "&lt;";
    else if (ch == '>') out += "&gt;";
    else if (std::string_view("\\`*[]|~$").find(ch) != std::string_view::npos || (ch == '_' && !intraword))
      out += {'\\', ch};
    else out += ch;
  }
  return out;
}

std::string md_number(const std::optional<double>& x) { return x ? fmt::format("{:.3g}", *x) : "-"; }

}  // namespace

std::string render_history_markdown(const HistoryView& v) {
  const HistoryEntry &first = v.reports.front(), &last = v.reports.back();
  std::string out = fmt::format("# scancheck history: {}\n\n", md(v.query.label));
  put(out, "{} reports from {} ({}) to {} ({}); backends {}{}; database {}.\n\n", v.reports.size(),
      md(first.generated_at), md(short_revision(first.git_revision)), md(last.generated_at),
      md(short_revision(last.git_revision)), md(v.query.backends),
      v.query.since.empty() ? "" : ", since " + md(v.query.since), md(v.database));
  const std::int64_t failing = v.failing_rows.back();
  put(out, "**Latest report {}: {}.**\n\n", md(report_name(last)),
      failing == 0 ? std::string("every row of the shown backends passes")
                   : fmt::format("{} failing row{} of the shown backends", failing, failing == 1 ? "" : "s"));
  put(out,
      "A backend's error in a report is the largest scaled error (max |got - exact| / max |exact|) of its "
      "tensors. Trend: its latest report against the best (smallest) earlier error: *worse* above {0}x, "
      "*better* below 1/{0}, *same* in between, *new* without an earlier error; errors below 2^-24 (one float32 "
      "rounding at the tensor's scale) count as 2^-24.\n\n",
      fmt::format("{:g}", trend_factor));
  out +=
      "| backend | latest | error | best earlier | error | trend | failing rows (latest) | reports with failures |\n"
      "|---|---|---:|---|---:|---|---:|---|\n";
  for (const BackendTrend& t : v.backends) {
    std::string failed = fmt::format("{} of {}", t.failed_reports.size(), v.reports.size());
    if (!t.failed_reports.empty())
      failed += fmt::format(" (first {}, last {})", md(report_name(v.reports[t.failed_reports.front()])),
                            md(report_name(v.reports[t.failed_reports.back()])));
    put(out, "| {} | {} | {} | {} | {} | {} | {} | {} |\n", md(t.backend), md(report_name(v.reports[t.latest])),
        md_number(t.latest_error), t.best_earlier ? md(report_name(v.reports[*t.best_earlier])) : "-",
        md_number(t.best_earlier_error), t.trend == Trend::worse ? "**" + trend_text(t) + "**" : trend_text(t),
        t.latest_failing_rows, failed);
  }
  std::string failures;
  for (const TrendSeries& s : v.series)
    for (const TrendPoint& p : s.points)
      if (p.failed && p.report + 1 == v.reports.size())
        put(failures, "- {} {} ({}): {}: {}\n", md(s.backend), s.tensor.empty() ? "-" : md(s.tensor),
            to_string(s.direction), md(p.verdict), md(p.reason));
  if (!failures.empty()) out += "\n## Failures in the latest report\n\n" + failures;
  return out;
}

}  // namespace scancheck::render
