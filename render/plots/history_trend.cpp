// SPDX-License-Identifier: Apache-2.0
#include "render/plots/history_trend.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "render/html_text.hpp"
#include "render/svg.hpp"

namespace scancheck::render::detail {
namespace {

std::string tensor_title(const TrendSeries& s) {
  return s.tensor.empty() ? fmt::format("{} ({}): failures without outputs", s.backend, to_string(s.direction))
                          : fmt::format("{} · {} ({})", s.backend, s.tensor, to_string(s.direction));
}

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

}  // namespace

std::string history_trend_svg(const TrendSeries& s, const HistoryView& view) {
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
  const double axis_y = s.timed() ? time_top + time_h : ratio_top + ratio_h;
  const double height = axis_y + labels_h;
  const Frame error_f = panel_frame(x, height, error_top, error_top + error_h, value_decades(s, error));
  const Frame ratio_f = panel_frame(x, height, ratio_top, ratio_top + ratio_h, value_decades(s, ratio, bound_factor));
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
  if (s.timed()) {
    // One scale for both: scancheck's CUDA-event median and the user's profile (summed CUDA durations).
    const auto smallest = [](const TrendPoint& p) {
      return p.median_ms && p.profile_ms ? std::optional(std::min(*p.median_ms, *p.profile_ms))
             : p.median_ms               ? p.median_ms
                                         : p.profile_ms;
    };
    const auto largest = [](const TrendPoint& p) {
      return p.median_ms ? std::max(p.median_ms, p.profile_ms) : p.profile_ms;
    };
    const std::pair<double, double> span{value_decades(s, smallest).first, value_decades(s, largest).second};
    const Frame time_f = panel_frame(x, height, time_top, time_top + time_h, span);
    const bool measured =
        std::any_of(s.points.begin(), s.points.end(), [](const TrendPoint& p) { return p.median_ms.has_value(); });
    const bool profiled_any =
        std::any_of(s.points.begin(), s.points.end(), [](const TrendPoint& p) { return p.profile_ms.has_value(); });
    const char* title = measured && profiled_any ? "device time: median (purple), your profile (gold)"
                        : measured               ? "median device time"
                                                 : "device time in your profile";
    out += panel_area(time_f) + panel_title(time_f, title) + y_decade_axis(time_f, "ms") + report_grid(time_f, x) +
           value_series(time_f, x, s, view, "device-time", "median ms", time) +
           value_series(time_f, x, s, view, "profile-time", "profiled ms", profiled);
  }
  out += report_labels(x, axis_y, view);
  return out + "</svg>\n";
}

}  // namespace scancheck::render::detail
