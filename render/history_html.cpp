// SPDX-License-Identifier: Apache-2.0
// The history page in HTML: its CSS, the summary, the trends table and a section per backend, each plot drawn
// by plots/history_trend.cpp.
#include "render/history_html.hpp"

#include <algorithm>
#include <cstdint>
#include <string_view>

#include <fmt/format.h>

#include "render/html_text.hpp"
#include "render/plots/history_trend.hpp"

namespace scancheck::render {

using namespace reports;  // the model rendered here

namespace {

using namespace detail;

constexpr std::string_view style = R"css(
h2{font-size:20px;margin:40px 0 6px;padding-bottom:4px;border-bottom:1px solid var(--rule);
  font-family:ui-monospace,"DejaVu Sans Mono",monospace;overflow-wrap:anywhere}
dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:16px 0;font-size:13px;
  background:var(--panel);border:1px solid var(--rule);border-radius:6px;padding:10px 14px}
dd{margin:0;overflow-wrap:anywhere}
.swatch.error{background:#0969da}.swatch.ratio{background:#bc4c00}.swatch.time{background:#8250df}
.swatch.failure{width:10px;height:10px;background:var(--fail);transform:rotate(45deg)}
figure{margin:0}
svg .revision{font:10px ui-monospace,"DejaVu Sans Mono",monospace}
svg .bound-factor{stroke:var(--fail);stroke-width:1.2;stroke-dasharray:5 4}
svg .series polyline{fill:none;stroke-width:1.6}
svg .series.error polyline{stroke:#0969da}svg .series.error circle{fill:#0969da}
svg .series.bound-ratio polyline{stroke:#bc4c00}svg .series.bound-ratio circle{fill:#bc4c00}
svg .series.device-time polyline{stroke:#8250df}svg .series.device-time circle{fill:#8250df}svg .series.profile-time polyline{stroke:#bf8700;stroke-dasharray:4 3}svg .series.profile-time circle{fill:#bf8700}
svg .failure-marker path{fill:var(--fail);stroke:#6e1016;stroke-width:1.2}
.trend-worse{color:var(--fail);font-weight:700}
.trend-better{color:var(--pass);font-weight:600}
)css";

std::string fact(std::string_view name, std::string_view value) {
  return fmt::format("<dt>{}</dt><dd>{}</dd>", name, escape(value));
}

std::string banner(const HistoryView& v) {
  const HistoryEntry& latest = v.reports.back();
  const std::int64_t failing = v.failing_rows.back();
  if (failing == 0)
    return fmt::format("<div class=\"banner pass\">latest report {}: every row of the shown backends passes</div>\n",
                       escape(report_name(latest)));
  return fmt::format("<div class=\"banner fail\">latest report {}: {} failing row{} of the shown backends</div>\n",
                     escape(report_name(latest)), failing, failing == 1 ? "" : "s");
}

std::string header(const HistoryView& v) {
  const HistoryEntry &first = v.reports.front(), &last = v.reports.back();
  std::string out =
      fmt::format("<header id=\"summary\">\n<h1>scancheck history <small>{}</small></h1>\n", escape(v.query.label));
  out += banner(v);
  out += "<dl>" + fact("database", v.database) + fact("reports", std::to_string(v.reports.size())) +
         fact("from", first.generated_at + " (" + first.git_revision + ")") +
         fact("to", last.generated_at + " (" + last.git_revision + ")") + fact("backends", v.query.backends) +
         fact("since", v.query.since.empty() ? "the first report" : v.query.since) + "</dl>\n</header>\n";
  return out;
}

std::string trend_table(const HistoryView& v) {
  std::string out = fmt::format(
      "<section id=\"trends\">\n<h2>Trends</h2>\n<p class=\"note\">A backend's error in a report is the largest "
      "scaled error of its tensors. Its latest report is compared with the best earlier one: worse above {0}x, "
      "better below 1/{0}, same in between; errors below 2⁻²⁴ (one float32 rounding at the tensor's scale) "
      "count as 2⁻²⁴.</p>\n<div class=\"scroll\"><table>\n<thead><tr><th class=\"name\">backend</th>"
      "<th class=\"name\">latest</th><th>error</th><th class=\"name\">best earlier</th><th>error</th>"
      "<th class=\"name\">trend</th><th>failing rows (latest)</th><th>reports with failures</th></tr></thead>\n"
      "<tbody>\n",
      num(trend_factor));
  for (const BackendTrend& t : v.backends) {
    const bool failing = t.latest_failing_rows > 0;
    put(out,
        "<tr{}><td class=\"name\"><a href=\"#b{}\">{}</a></td><td class=\"name\">{}</td><td>{}</td>"
        "<td class=\"name\">{}</td><td>{}</td><td class=\"name trend-{}\">{}</td><td>{}</td><td>{} of {}</td></tr>\n",
        failing ? " class=\"failed\"" : "", &t - v.backends.data(), escape(t.backend),
        escape(report_name(v.reports[t.latest])), num(t.latest_error),
        t.best_earlier ? escape(report_name(v.reports[*t.best_earlier])) : "–", num(t.best_earlier_error),
        to_string(t.trend), escape(trend_text(t)), t.latest_failing_rows, t.failed_reports.size(), v.reports.size());
  }
  return out + "</tbody></table></div>\n</section>\n";
}

//! The key above a backend's plots; device time only where one of them has it.
std::string legend(bool timed) {
  return fmt::format(
      "<div class=\"legend\"><span><span class=\"swatch error\"></span>scaled error</span>"
      "<span><span class=\"swatch ratio\"></span>error / bound (dashed: bound factor)</span>{}"
      "<span><span class=\"swatch failure\"></span>&nbsp;failed (hover for verdict and reason)</span></div>\n",
      timed ? "<span><span class=\"swatch time\"></span>median device time</span>" : "");
}

std::string backend_sections(const HistoryView& v) {
  std::string out;
  for (const BackendTrend& t : v.backends) {
    const bool any_timed = std::any_of(v.series.begin(), v.series.end(),
                                       [&](const TrendSeries& s) { return s.backend == t.backend && s.timed(); });
    put(out, "<section class=\"backend\" id=\"b{}\">\n<h2>{}</h2>\n{}<div class=\"panels\">\n", &t - v.backends.data(),
        escape(t.backend), legend(any_timed));
    for (const TrendSeries& s : v.series)
      if (s.backend == t.backend) out += "<figure class=\"scroll\">\n" + history_trend_svg(s, v) + "</figure>\n";
    out += "</div>\n</section>\n";
  }
  return out;
}

}  // namespace

std::string render_history_html(const HistoryView& v) {
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>scancheck history — {}</title>\n<style>{}{}</style>\n</head>\n<body>\n<main>\n",
      escape(v.query.label), base_style, style);
  out += header(v) + trend_table(v) + backend_sections(v);
  out +=
      "<footer>Written by scancheck history show from the history database; self-contained: no scripts, no "
      "external resources.</footer>\n</main>\n</body>\n</html>\n";
  return out;
}

}  // namespace scancheck::render
