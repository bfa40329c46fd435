// SPDX-License-Identifier: Apache-2.0
// The history page: the view (series and trends) computed from the history's normalised tables, then
// history.html (its CSS, the summary table, one SVG per backend x tensor drawn with svg.hpp's primitives)
// and history.md.
#include "render/history_view.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/files.hpp"
#include "render/html_text.hpp"
#include "render/svg.hpp"

namespace scancheck::render {

using namespace reports;  // the model rendered here

namespace {

using namespace detail;

// ---- the view -----------------------------------------------------------------------------------------

//! The larger, an absent one losing.
void keep_max(std::optional<double>& acc, const std::optional<double>& v) {
  if (v && (!acc || *v > *acc)) acc = v;
}

//! Builds the series from the measurements, one point per (series, report).
class SeriesBuilder {
 public:
  TrendPoint& point(const std::string& backend, Direction direction, const std::string& tensor, std::size_t report) {
    const auto [it, fresh] = series_index_.try_emplace({backend, tensor, direction}, series_.size());
    if (fresh) series_.push_back({backend, tensor, direction, {}});
    TrendSeries& s = series_[it->second];
    // Measurements arrive in report order, so the point of `report` is the last one or a new one.
    if (s.points.empty() || s.points.back().report != report) s.points.push_back(point_at(report));
    return s.points.back();
  }

  //! A failing row with no failing tensor: every plot of its backend's pass in that report says so.
  void mark_row_failure(const HistoryMeasurement& row, std::size_t report) {
    bool marked = false;
    for (TrendSeries& s : series_) {
      if (s.backend != row.backend || s.direction != row.direction) continue;
      // The points are in report order: the first at or after `report` is its point or where it goes.
      auto it = std::lower_bound(s.points.begin(), s.points.end(), report,
                                 [](const TrendPoint& p, std::size_t r) { return p.report < r; });
      if (it == s.points.end() || it->report != report) it = s.points.insert(it, point_at(report));
      mark(*it, row, row.reason);
      marked = true;
    }
    if (!marked) mark(point(row.backend, row.direction, "", report), row, row.reason);
  }

  static TrendPoint point_at(std::size_t report) {
    TrendPoint p;
    p.report = report;
    return p;
  }

  static void mark(TrendPoint& p, const HistoryMeasurement& m, const std::string& reason) {
    if (p.failed) return;  // the first reason stays
    p.failed = true;
    p.verdict = std::string(to_string(m.verdict));
    p.reason = reason.empty() ? m.reason : reason;
  }

  std::vector<TrendSeries> take() {
    // Group each backend's plots together, in the order backends first appear.
    std::map<std::string, std::size_t> backend_order;
    for (const TrendSeries& s : series_) backend_order.try_emplace(s.backend, backend_order.size());
    std::stable_sort(series_.begin(), series_.end(), [&](const TrendSeries& a, const TrendSeries& b) {
      return backend_order.at(a.backend) < backend_order.at(b.backend);
    });
    return std::move(series_);
  }

 private:
  std::map<std::tuple<std::string, std::string, Direction>, std::size_t> series_index_;
  std::vector<TrendSeries> series_;
};

//! One row's measurements (its tensors), as they come from the history.
using RowKey = std::pair<std::int64_t, std::int64_t>;  // report id, row index

std::vector<TrendSeries> build_series(const std::vector<HistoryMeasurement>& measurements,
                                      const std::map<std::int64_t, std::size_t>& x_of,
                                      std::vector<std::int64_t>& failing_rows) {
  SeriesBuilder builder;
  std::map<RowKey, bool> row_blamed_a_tensor;  // failing rows: did a tensor of theirs fail?
  for (const HistoryMeasurement& m : measurements) {
    const std::size_t x = x_of.at(m.report_id);
    const RowKey row{m.report_id, m.row_index};
    if (m.verdict != scancheck::Verdict::pass && row_blamed_a_tensor.try_emplace(row, false).second) ++failing_rows[x];
    if (m.tensor.empty()) continue;
    TrendPoint& p = builder.point(m.backend, m.direction, m.tensor, x);
    // A NaN error is stored as NULL: it shows as a missing value and (it fails) a marker.
    keep_max(p.scaled_error, m.scaled_error);
    keep_max(p.bound_ratio, m.bound_ratio);
    keep_max(p.median_ms, m.median_ms);
    keep_max(p.profile_ms, m.profile_ms);
    if (!m.tensor_pass) {
      SeriesBuilder::mark(p, m, m.tensor_reason.empty() ? std::string() : m.tensor + ": " + m.tensor_reason);
      row_blamed_a_tensor[row] = true;
    }
  }
  for (const HistoryMeasurement& m : measurements) {
    const auto it = row_blamed_a_tensor.find({m.report_id, m.row_index});
    if (it == row_blamed_a_tensor.end() || it->second) continue;
    builder.mark_row_failure(m, x_of.at(m.report_id));
    it->second = true;  // once per row
  }
  return builder.take();
}

double floored(double e) { return std::isnan(e) ? e : std::max(e, trend_floor); }

//! A backend in one report: its largest scaled error and the plots that measured one.
struct BackendInReport {
  std::optional<double> error;
  std::set<std::size_t> measured;  //!< indices into the series
};

BackendTrend backend_trend(const std::string& backend, const std::vector<TrendSeries>& series) {
  std::map<std::size_t, BackendInReport> in_report;
  std::set<std::size_t> failed;
  for (std::size_t i = 0; i < series.size(); ++i) {
    if (series[i].backend != backend) continue;
    for (const TrendPoint& p : series[i].points) {
      BackendInReport& r = in_report[p.report];
      keep_max(r.error, p.scaled_error);
      if (p.scaled_error) r.measured.insert(i);
      if (p.failed) failed.insert(p.report);
    }
  }
  BackendTrend t;
  t.backend = backend;
  const auto& [latest, now] = *in_report.rbegin();
  t.latest = latest;
  t.latest_error = now.error;
  // Only reports that measured every tensor the latest did compete: a pass that crashed, or a shard that
  // ran part of the cases' tensors, must not look like the backend's best.
  for (const auto& [report, then] : in_report)
    if (report < t.latest && then.error && std::includes(then.measured.begin(), then.measured.end(),
                                                          now.measured.begin(), now.measured.end()) &&
        (!t.best_earlier_error || *then.error < *t.best_earlier_error)) {
      t.best_earlier = report;
      t.best_earlier_error = then.error;
    }
  t.failed_reports.assign(failed.begin(), failed.end());
  if (t.latest_error && t.best_earlier_error) {
    t.factor = floored(*t.latest_error) / floored(*t.best_earlier_error);
    t.trend = t.factor > trend_factor ? Trend::worse : t.factor < 1 / trend_factor ? Trend::better : Trend::same;
  }
  return t;
}

void count_latest_failures(std::vector<BackendTrend>& trends, const std::vector<HistoryMeasurement>& measurements,
                           const std::map<std::int64_t, std::size_t>& x_of) {
  std::set<std::tuple<std::string, std::int64_t, std::int64_t>> counted;
  for (const HistoryMeasurement& m : measurements) {
    if (m.verdict == scancheck::Verdict::pass) continue;
    if (!counted.insert({m.backend, m.report_id, m.row_index}).second) continue;  // once per row
    for (BackendTrend& t : trends)
      if (t.backend == m.backend && t.latest == x_of.at(m.report_id)) ++t.latest_failing_rows;
  }
}

// ---- shared text --------------------------------------------------------------------------------------

std::string date_of(const HistoryEntry& e) { return e.generated_at.substr(0, 10); }

//! "abc1234 2024-05-01": how a report is named on the x axis and in the tables.
std::string report_name(const HistoryEntry& e) { return short_revision(e.git_revision) + " " + date_of(e); }

std::string tensor_title(const TrendSeries& s) {
  return s.tensor.empty() ? fmt::format("{} ({}): failures without outputs", s.backend, to_string(s.direction))
                          : fmt::format("{} · {} ({})", s.backend, s.tensor, to_string(s.direction));
}

std::string trend_text(const BackendTrend& t) {
  if (t.trend == Trend::new_) return "new";
  return fmt::format("{} ({:.3g}x)", to_string(t.trend), t.factor);
}

// ---- the SVG of one series ----------------------------------------------------------------------------

//! Values below this are drawn at it (log axes have no zero).
constexpr double value_floor = 1e-12;

//! A plot's horizontal layout: report i at the middle of its slot.
struct XAxis {
  double left = 62, plot_width = 480;
  std::size_t count = 1;
  double operator()(std::size_t i) const {
    return left + (static_cast<double>(i) + 0.5) * plot_width / static_cast<double>(count);
  }
  //! Every how many reports a label is written: at most 40 labels.
  std::size_t label_every() const { return std::max<std::size_t>(1, (count + 39) / 40); }
};

//! A frame for a panel spanning [top, bottom] pixels of a plot `height` high.
Frame panel_frame(const XAxis& x, double height, double top, double bottom, std::pair<double, double> y_decades) {
  Frame f;
  f.width = x.left + x.plot_width + 16;
  f.height = height;
  f.left = x.left;
  f.right = 16;
  f.top = top;
  f.bottom = height - bottom;
  f.y = {y_decades.first, y_decades.second, f.y0(), f.y1()};
  return f;
}

template <class Value>
std::pair<double, double> value_decades(const TrendSeries& s, Value value, std::optional<double> also = {}) {
  bool any = also && *also > 0 && std::isfinite(*also);
  double lo = any ? *also : 0, hi = lo;
  for (const TrendPoint& p : s.points) {
    const std::optional<double> v = value(p);
    if (!v || !std::isfinite(*v)) continue;
    const double d = std::max(*v, value_floor);
    lo = any ? std::min(lo, d) : d;
    hi = any ? std::max(hi, d) : d;
    any = true;
  }
  return any ? decades(lo, hi) : std::pair<double, double>{-1, 0};
}

std::string panel_area(const Frame& f) {
  return fmt::format("<rect class=\"plot-area\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>\n", px(f.x0()),
                     px(f.y1()), px(f.x1() - f.x0()), px(f.y0() - f.y1()));
}

//! The y of a value on a panel: its log position, non-finite values at the top edge.
double y_of(const Frame& f, double v) { return std::isfinite(v) ? f.y(std::max(v, value_floor)) : f.y1(); }

//! A polyline through the present values and a dot per value, each with its report and value as tooltip.
template <class Value>
std::string value_series(const Frame& f, const XAxis& x, const TrendSeries& s, const HistoryView& view,
                         std::string_view css_class, std::string_view what, Value value) {
  std::string line, dots;
  for (const TrendPoint& p : s.points) {
    const std::optional<double> v = value(p);
    if (!v) continue;
    const double cx = x(p.report), cy = y_of(f, *v);
    put(line, "{}{},{}", line.empty() ? "" : " ", px(cx), px(cy));
    put(dots,
        "<circle class=\"point\" data-report=\"{}\" cx=\"{}\" cy=\"{}\" r=\"3\"><title>{}: {} {}</title></circle>\n",
        p.report, px(cx), px(cy), escape(report_name(view.reports[p.report])), what, num(*v));
  }
  if (dots.empty()) return "";
  return fmt::format("<g class=\"series {}\"><polyline points=\"{}\"/>\n{}</g>\n", css_class, line, dots);
}

//! Red diamonds on the error panel, at the error when there is one, else at the panel's top edge.
std::string failure_markers(const Frame& f, const XAxis& x, const TrendSeries& s, const HistoryView& view) {
  std::string out;
  for (const TrendPoint& p : s.points) {
    if (!p.failed) continue;
    const double cx = x(p.report), cy = p.scaled_error ? y_of(f, *p.scaled_error) : f.y1() + 7;
    put(out,
        "<g class=\"failure-marker\" data-report=\"{0}\"><title>{1}: {2} ({3})</title>"
        "<path d=\"M{4},{6} L{5},{7} L{4},{8} L{9},{7} Z\"/></g>\n",
        p.report, escape(p.verdict), escape(p.reason.empty() ? "no reason recorded" : p.reason),
        escape(report_name(view.reports[p.report])), px(cx), px(cx + 6), px(cy - 6), px(cy), px(cy + 6), px(cx - 6));
  }
  return out;
}

//! Faint vertical lines at the labelled reports, across a panel.
std::string report_grid(const Frame& f, const XAxis& x) {
  std::string out;
  for (std::size_t i = 0; i < x.count; i += x.label_every())
    put(out, "<line class=\"minor\" x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\"/>\n", px(x(i)), px(f.y1()), px(f.y0()));
  return out;
}

std::string report_labels(const XAxis& x, double y, const HistoryView& view) {
  std::string out;
  for (std::size_t i = 0; i < x.count; i += x.label_every())
    put(out,
        "<text class=\"tick revision\" data-report=\"{}\" text-anchor=\"end\" transform=\"translate({},{}) "
        "rotate(-50)\">{}</text>\n",
        i, px(x(i) + 3), px(y + 12), escape(report_name(view.reports[i])));
  return out;
}

std::string bound_factor_line(const Frame& f, double factor) {
  if (!(factor > 0) || !std::isfinite(factor)) return "";
  const double y = f.y(factor);
  return fmt::format(
      "<line class=\"bound-factor\" x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\"/>"
      "<text class=\"roundoff-label\" x=\"{3}\" y=\"{4}\" text-anchor=\"end\">bound factor {5}</text>\n",
      px(f.x0()), px(f.x1()), px(y), px(f.x1() - 4), px(y - 4), num(factor));
}

//! Whether a report measured the device time of the plot's pass, itself or in the user's joined profile.
bool timed(const TrendSeries& s) {
  return std::any_of(s.points.begin(), s.points.end(),
                     [](const TrendPoint& p) { return p.median_ms.has_value() || p.profile_ms.has_value(); });
}

std::string series_svg(const TrendSeries& s, const HistoryView& view) {
  const auto error = [](const TrendPoint& p) { return p.scaled_error; };
  const auto ratio = [](const TrendPoint& p) { return p.bound_ratio; };
  const auto time = [](const TrendPoint& p) { return p.median_ms; };
  const auto profiled = [](const TrendPoint& p) { return p.profile_ms; };
  XAxis x;
  x.count = view.reports.size();
  // Two plots side by side on a wide screen up to 30 reports; wider (scrolling) beyond 66.
  x.plot_width = std::clamp(18.0 * static_cast<double>(x.count), 480.0, 1200.0);
  const double bound_factor = view.reports.back().bound_factor;
  // Panels stacked top to bottom: error 150 px, bound ratio 90, time 70; titles between; labels below.
  constexpr double error_top = 30, error_h = 150, gap = 28, ratio_h = 90, time_h = 70, labels_h = 100;
  const double ratio_top = error_top + error_h + gap, time_top = ratio_top + ratio_h + gap;
  const double axis_y = timed(s) ? time_top + time_h : ratio_top + ratio_h;
  const double height = axis_y + labels_h;
  const Frame error_f = panel_frame(x, height, error_top, error_top + error_h, value_decades(s, error));
  const Frame ratio_f =
      panel_frame(x, height, ratio_top, ratio_top + ratio_h, value_decades(s, ratio, bound_factor));
  std::string out = fmt::format(
      "<svg class=\"trend\" data-backend=\"{0}\" data-tensor=\"{1}\" data-direction=\"{2}\" width=\"{3}\" "
      "height=\"{4}\" viewBox=\"0 0 {3} {4}\" role=\"img\" aria-label=\"{5} over {6} reports\">\n",
      escape(s.backend), escape(s.tensor), to_string(s.direction), px(error_f.width), px(height),
      escape(tensor_title(s)), view.reports.size());
  out += panel_area(error_f) + panel_title(error_f, tensor_title(s)) + y_decade_axis(error_f, "scaled error") +
         report_grid(error_f, x) + value_series(error_f, x, s, view, "error", "scaled error", error) +
         failure_markers(error_f, x, s, view);
  out += panel_area(ratio_f) + panel_title(ratio_f, "error / bound") + y_decade_axis(ratio_f, "bound ratio") +
         report_grid(ratio_f, x) + bound_factor_line(ratio_f, bound_factor) +
         value_series(ratio_f, x, s, view, "bound-ratio", "bound ratio", ratio);
  if (timed(s)) {
    // One scale for both: scancheck's CUDA-event median and the user's profile (summed CUDA durations).
    const auto smallest = [](const TrendPoint& p) {
      return p.median_ms && p.profile_ms ? std::optional(std::min(*p.median_ms, *p.profile_ms))
                                         : p.median_ms ? p.median_ms : p.profile_ms;
    };
    const auto largest = [](const TrendPoint& p) { return p.median_ms ? std::max(p.median_ms, p.profile_ms) : p.profile_ms; };
    const std::pair<double, double> span{value_decades(s, smallest).first, value_decades(s, largest).second};
    const Frame time_f = panel_frame(x, height, time_top, time_top + time_h, span);
    const bool measured = std::any_of(s.points.begin(), s.points.end(), [](const TrendPoint& p) { return p.median_ms.has_value(); });
    const bool profiled_any = std::any_of(s.points.begin(), s.points.end(), [](const TrendPoint& p) { return p.profile_ms.has_value(); });
    const char* title = measured && profiled_any ? "device time: median (purple), your profile (gold)"
                        : measured               ? "median device time"
                                                 : "device time in your profile";
    out += panel_area(time_f) + panel_title(time_f, title) +
           y_decade_axis(time_f, "ms") + report_grid(time_f, x) +
           value_series(time_f, x, s, view, "device-time", "median ms", time) +
           value_series(time_f, x, s, view, "profile-time", "profiled ms", profiled);
  }
  out += report_labels(x, axis_y, view);
  return out + "</svg>\n";
}

// ---- the page -----------------------------------------------------------------------------------------

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
  std::string out = fmt::format("<header id=\"summary\">\n<h1>scancheck history <small>{}</small></h1>\n",
                                escape(v.query.label));
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
                                       [&](const TrendSeries& s) { return s.backend == t.backend && timed(s); });
    put(out, "<section class=\"backend\" id=\"b{}\">\n<h2>{}</h2>\n{}<div class=\"panels\">\n", &t - v.backends.data(),
        escape(t.backend), legend(any_timed));
    for (const TrendSeries& s : v.series)
      if (s.backend == t.backend) out += "<figure class=\"scroll\">\n" + series_svg(s, v) + "</figure>\n";
    out += "</div>\n</section>\n";
  }
  return out;
}

// ---- Markdown -----------------------------------------------------------------------------------------

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

std::string_view to_string(Trend t) {
  switch (t) {
    case Trend::worse: return "worse";
    case Trend::better: return "better";
    case Trend::same: return "same";
    case Trend::new_: return "new";
  }
  return "new";
}

HistoryView history_view(const History& history, const HistoryQuery& query) {
  HistoryView v;
  v.database = history.path().string();
  v.query = query;
  v.reports = history.reports(query);
  if (v.reports.empty()) {
    const std::string glob = query.backends == "*" ? "" : fmt::format(" with a backend matching '{}'", query.backends);
    throw InputError(fmt::format("history database '{}' has no report of label '{}'{}{}", v.database, query.label, glob,
                                 query.since.empty() ? "" : fmt::format(" since {}", query.since)));
  }
  std::map<std::int64_t, std::size_t> x_of;
  for (std::size_t i = 0; i < v.reports.size(); ++i) x_of[v.reports[i].id] = i;
  const std::vector<HistoryMeasurement> measurements = history.measurements(query);
  v.failing_rows.assign(v.reports.size(), 0);
  v.series = build_series(measurements, x_of, v.failing_rows);
  for (const TrendSeries& s : v.series)
    if (v.backends.empty() || v.backends.back().backend != s.backend)
      v.backends.push_back(backend_trend(s.backend, v.series));  // the series are grouped by backend
  count_latest_failures(v.backends, measurements, x_of);
  return v;
}

std::string render_history_html(const HistoryView& v) {
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>scancheck history — {}</title>\n<style>{}{}</style>\n</head>\n<body>\n<main>\n",
      escape(v.query.label), base_style, style);
  out += header(v) + trend_table(v) + backend_sections(v);
  out += "<footer>Written by scancheck history show from the history database; self-contained: no scripts, no "
         "external resources.</footer>\n</main>\n</body>\n</html>\n";
  return out;
}

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
  out += "| backend | latest | error | best earlier | error | trend | failing rows (latest) | reports with failures |\n"
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

void write_history_page(const HistoryView& v, const std::filesystem::path& out) {
  const std::string html = render_history_html(v), markdown = render_history_markdown(v);
  write_directory_atomically(out, [&](const std::filesystem::path& tmp) {
    write_file(tmp / "history.html", {html});
    write_file(tmp / "history.md", {markdown});
  });
}

}  // namespace scancheck::render
