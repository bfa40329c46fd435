// SPDX-License-Identifier: Apache-2.0
#include "render/plots/error_against_length.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "render/html_text.hpp"
#include "render/row_groups.hpp"
#include "render/svg.hpp"

namespace scancheck::render::detail {

using namespace reports;  // the model rendered here

namespace {

// ---- data ---------------------------------------------------------------------------------------------

//! Scaled errors below this are drawn at it (log axes have no zero).
constexpr double error_floor = 1e-12;

//! One backend's line: per case length, the largest scaled error of its rows at that length.
struct ErrorSeries {
  std::string backend;
  std::map<std::int64_t, double> by_length;
};

std::vector<ErrorSeries> error_series(const RowSet& rows, Direction direction) {
  std::vector<ErrorSeries> out;
  for (const std::string& backend : backends_in(rows)) {
    ErrorSeries s{backend, {}};
    for (const Row* row : rows) {
      const std::optional<double> e =
          row->backend == backend && row->direction == direction ? row_scaled_error(*row) : std::nullopt;
      if (!e || std::isnan(*e)) continue;
      const double v = std::max(*e, error_floor);
      const auto [it, fresh] = s.by_length.try_emplace(row->shape.length, v);
      if (!fresh) it->second = std::max(it->second, v);
    }
    if (!s.by_length.empty()) out.push_back(std::move(s));
  }
  return out;
}

//! The decades of a group's panels (both passes share them): its lengths, its finite errors and the io
//! dtype's unit roundoff, which every panel marks.
Frame error_frame(const std::vector<ErrorSeries>& forward, const std::vector<ErrorSeries>& backward, DType dtype) {
  double min_length = 1, max_length = 1, min_error = unit_roundoff(dtype), max_error = unit_roundoff(dtype);
  bool first = true;
  for (const auto* series : {&forward, &backward})
    for (const ErrorSeries& s : *series)
      for (const auto& [length, error] : s.by_length) {
        const double l = static_cast<double>(length);
        min_length = first ? l : std::min(min_length, l);
        max_length = first ? l : std::max(max_length, l);
        first = false;
        min_error = std::min(min_error, error);
        if (std::isfinite(error)) max_error = std::max(max_error, error);
      }
  return make_frame(decades(min_length, max_length), decades(min_error, max_error));
}

// ---- drawing ------------------------------------------------------------------------------------------

std::string series_points(const Frame& f, const ErrorSeries& s) {
  std::string out;
  for (const auto& [length, error] : s.by_length)
    put(out, "{}{},{}", out.empty() ? "" : " ", px(f.x(static_cast<double>(length))), px(f.y(error)));
  return out;
}

//! One backend: a polyline through its lengths and a dot at each, with the backend as tooltip.
std::string error_series_svg(const Frame& f, const ErrorSeries& s, const Palette& palette) {
  const bool failing = palette.fails(s.backend), baseline = is_baseline(s.backend);
  const std::string_view css = failing ? "series fail" : baseline ? "series baseline" : "series";
  const std::string colour = failing ? std::string(fail_red) : baseline ? "#111" : palette.colour_of(s.backend);
  std::string out;
  put(out, "<g class=\"{}\" stroke=\"{}\" fill=\"{}\"><title>{}{}</title>\n", css, colour, colour, escape(s.backend),
      failing ? " (fails)" : "");
  if (s.by_length.size() > 1) put(out, "<polyline points=\"{}\"/>\n", series_points(f, s));
  for (const auto& [length, error] : s.by_length)
    put(out, "<circle cx=\"{}\" cy=\"{}\" r=\"{}\"/>\n", px(f.x(static_cast<double>(length))), px(f.y(error)),
        failing || baseline ? "2.4" : "1.7");
  out += "</g>\n";
  return out;
}

std::string unit_roundoff_line(const Frame& f, DType dtype) {
  const double y = f.y(unit_roundoff(dtype));
  return fmt::format(
      "<line class=\"roundoff\" x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\"/>\n"
      "<text class=\"roundoff-label\" x=\"{3}\" y=\"{4}\" text-anchor=\"end\">u = 2{5} ({6})</text>\n",
      px(f.x0()), px(f.x1()), px(y), px(f.x1() - 4), px(y - 4), superscript(dtype == DType::float32 ? -24 : -8),
      to_string(dtype));
}

//! Draw order: ordinary backends underneath, the baseline above them, failing backends on top.
int draw_rank(const std::string& backend, const Palette& palette) {
  return palette.fails(backend) ? 2 : is_baseline(backend) ? 1 : 0;
}

std::string error_against_length_panel(const Frame& f, std::string_view title, const std::vector<ErrorSeries>& series,
                                       DType dtype, const Palette& palette) {
  std::string out = svg_open(f, title);
  out += panel_title(f, title);
  out += y_decade_axis(f, "max |got − exact| / max |exact|");
  out += x_decade_axis(f, "case length L");
  out += unit_roundoff_line(f, dtype);
  // Lines fade as they multiply: a handful stay solid, a registry's worth (120) stay apart.
  const double opacity =
      std::clamp(2.4 / std::sqrt(static_cast<double>(std::max<std::size_t>(series.size(), 1))), 0.22, 0.85);
  put(out, "<g style=\"--line-opacity:{:.2f}\">\n", opacity);
  for (int rank = 0; rank <= 2; ++rank)
    for (const ErrorSeries& s : series)
      if (draw_rank(s.backend, palette) == rank) out += error_series_svg(f, s, palette);
  out += "</g>\n";
  if (series.empty())
    put(out, "<text class=\"empty-panel\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">no rows of this pass</text>\n",
        px((f.x0() + f.x1()) / 2), px((f.y0() + f.y1()) / 2));
  out += "</svg>\n";
  return out;
}

//! The legend under a group's panels: the schedules drawn (with how many backends each), the baseline,
//! and every failing backend by name.
std::string error_legend(const RowSet& rows, const Palette& palette) {
  std::map<std::string, int> counts;
  std::vector<std::string> failing;
  bool baseline = false;
  for (const std::string& b : backends_in(rows)) {
    ++counts[schedule_of(b)];
    if (palette.fails(b)) failing.push_back(b);
    baseline = baseline || is_baseline(b);
  }
  std::string out = "<div class=\"legend\">";
  for (const std::string& schedule : palette.schedules)
    if (counts.count(schedule))
      put(out, "<span><i class=\"swatch\" style=\"background:{}\"></i>{} ({})</span>",
          palette.schedule_colour.at(schedule), escape(schedule), counts[schedule]);
  if (baseline) out += "<span><i class=\"swatch dashed\"></i>sequential baseline</span>";
  out += "<span><i class=\"swatch dotted\"></i>unit roundoff u of the io dtype</span>";
  if (!failing.empty()) {
    put(out, "<span class=\"failing\"><i class=\"swatch\" style=\"background:{}\"></i>failing: ", fail_red);
    constexpr std::size_t shown = 12;
    for (std::size_t i = 0; i < std::min(failing.size(), shown); ++i)
      put(out, "{}<code>{}</code>", i ? ", " : "", escape(failing[i]));
    if (failing.size() > shown) put(out, " and {} more", failing.size() - shown);
    out += "</span>";
  }
  out += "</div>\n";
  return out;
}

}  // namespace

std::string error_against_length_section(const Report& r, const Palette& palette) {
  std::string out =
      "<section id=\"error-vs-length\">\n<h2>Error against length</h2>\n"
      "<p class=\"note\">Per row, the largest scaled error max |got − exact| / max |exact| of its tensors, against "
      "the case length (log–log). One line per backend through the maximum over the cases of each length, "
      "coloured by schedule (flags aside); failing backends red, the same-precision sequential baseline dashed black. "
      "Errors of 0 are drawn at 10⁻¹², infinite ones on the top edge. Hover a line for its backend.</p>\n";
  for (const auto& [group, rows] : rows_by_group(r)) {
    const std::vector<ErrorSeries> forward = error_series(rows, Direction::forward);
    const std::vector<ErrorSeries> backward = error_series(rows, Direction::backward);
    const Frame frame = error_frame(forward, backward, group.second);
    put(out, "<h3>{}</h3>\n<div class=\"panels\">\n", escape(group_title(group)));
    out += error_against_length_panel(frame, "forward pass", forward, group.second, palette);
    out += error_against_length_panel(frame, "backward pass (gradients)", backward, group.second, palette);
    out += "</div>\n" + error_legend(rows, palette);
  }
  out += "</section>\n";
  return out;
}

}  // namespace scancheck::render::detail
