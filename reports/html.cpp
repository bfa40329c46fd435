// SPDX-License-Identifier: Apache-2.0
#include "reports/html.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "backends/variant.hpp"
#include "core/error.hpp"
#include "reports/summary.hpp"

namespace scancheck::reports {
namespace {

// ---- text ---------------------------------------------------------------------------------------------

template <class... Args>
void put(std::string& out, fmt::format_string<Args...> format, Args&&... args) {
  fmt::format_to(std::back_inserter(out), format, std::forward<Args>(args)...);
}

//! Every text taken from the report goes through here: & < > " ' become entities.
std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string num(double x) { return fmt::format("{:.3g}", x); }
std::string num(const std::optional<double>& x) { return x ? num(*x) : "–"; }
std::string percent(double fraction) { return fmt::format("{:.3g}%", 100 * fraction); }

//! An SVG coordinate, one decimal. The scales clamp every value to their axis, so a non-finite number only
//! reaches here by mistake: it becomes 0 rather than invalid markup.
std::string px(double v) { return fmt::format("{:.1f}", std::isfinite(v) ? v : 0.0); }

std::string superscript(int k) {
  static constexpr std::array<std::string_view, 10> digits{
      "⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
  std::string out = k < 0 ? "⁻" : "";
  for (const char c : std::to_string(k < 0 ? -k : k)) out += digits[static_cast<std::size_t>(c - '0')];
  return out;
}
//! "1", "10", "10²", "10⁻⁸"; with `plain_below` the powers up to it are written out ("100", "1000").
std::string power_of_ten(int k, int plain_below = 1) {
  if (k >= 0 && k <= plain_below) return fmt::format("{}", static_cast<std::int64_t>(std::pow(10.0, k)));
  return "10" + superscript(k);
}

// ---- numbers ------------------------------------------------------------------------------------------

//! The largest scaled error of a row's tensors; absent when it has none (the run failed).
std::optional<double> row_scaled_error(const Row& row) {
  std::optional<double> out;
  for (const TensorEntry& t : row.tensors) fold_max(out, scaled_error(t.metrics));
  return out;
}

// ---- grouping -----------------------------------------------------------------------------------------

using RowSet = std::vector<const Row*>;
using GroupKey = std::pair<Architecture, DType>;

std::map<GroupKey, RowSet> rows_by_group(const Report& r) {
  std::map<GroupKey, RowSet> out;
  for (const Row& row : r.rows) out[{row.architecture, row.io_dtype}].push_back(&row);
  return out;
}

std::map<Architecture, RowSet> rows_by_architecture(const Report& r) {
  std::map<Architecture, RowSet> out;
  for (const Row& row : r.rows) out[row.architecture].push_back(&row);
  return out;
}

//! The backends of `rows` in the order they first appear (the runner's registry order).
std::vector<std::string> backends_in(const RowSet& rows) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const Row* row : rows)
    if (seen.insert(row->backend).second) out.push_back(row->backend);
  return out;
}

std::string group_title(const GroupKey& g) { return fmt::format("{} · {}", to_string(g.first), to_string(g.second)); }

//! The name's parts, or nothing for a name outside the grammar (a hand-edited report): drawn as itself.
std::optional<BackendName> parsed(const std::string& backend) {
  try {
    return parse_backend_name(backend);
  } catch (const InputError&) {
    return std::nullopt;
  }
}

//! The series drawn dashed: each architecture's sequential baseline.
bool is_baseline(const std::string& backend) {
  const std::optional<BackendName> n = parsed(backend);
  return n && *n == baseline_of(n->architecture, n->io_dtype);
}

//! What a backend is coloured by: a built-in's schedule, a foreign backend's provider.
std::string schedule_of(const std::string& backend) {
  const std::optional<BackendName> n = parsed(backend);
  if (!n) return backend;
  if (!n->provider.empty()) return n->provider + ":";
  const std::optional<Variant> v = parse_variant(n->variant);
  return v ? to_string(v->schedule) : n->variant;
}

//! How backends are drawn everywhere on the page: a colour per schedule, red for failing backends.
struct Palette {
  std::map<std::string, std::string> schedule_colour;
  std::vector<std::string> schedules;  //!< order of first appearance
  std::set<std::string> failing;

  const std::string& colour_of(const std::string& backend) const { return schedule_colour.at(schedule_of(backend)); }
  bool fails(const std::string& backend) const { return failing.count(backend) > 0; }
};

constexpr std::string_view fail_red = "#d1242f";
constexpr std::string_view pass_green = "#1a7f37";

Palette make_palette(const Report& r) {
  // Tableau-like, red left out: red means failing.
  static constexpr std::array<std::string_view, 9> colours{"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b",
                                                           "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"};
  Palette p;
  for (const Row& row : r.rows) {
    if (!row.ok) p.failing.insert(row.backend);
    const std::string schedule = schedule_of(row.backend);
    if (p.schedule_colour.count(schedule)) continue;
    p.schedule_colour[schedule] = colours[p.schedules.size() % colours.size()];
    p.schedules.push_back(schedule);
  }
  return p;
}

// ---- SVG: log scales and axes -------------------------------------------------------------------------

//! A log10 axis: [lo, hi] are the decades at its ends, [from, to] their pixels.
struct LogScale {
  double lo = 0, hi = 1;
  double from = 0, to = 1;

  //! The pixel of `v`, clamped to the axis: zero and negatives (and NaN) at its low end, +inf at its high end.
  double operator()(double v) const {
    const double e = v > 0 ? std::clamp(std::log10(v), lo, hi) : lo;
    return from + (e - lo) / (hi - lo) * (to - from);
  }
};

//! The whole decades around the positive finite values in [min, max], at least one decade wide.
std::pair<double, double> decades(double min, double max) {
  double lo = std::floor(std::log10(min)), hi = std::ceil(std::log10(max));
  if (!std::isfinite(lo)) lo = 0;
  if (!std::isfinite(hi) || hi <= lo) hi = lo + 1;
  return {lo, hi};
}

//! A plot's outer size, its margins and the scales of its area.
struct Frame {
  double width = 650, height = 310;
  double left = 62, right = 16, top = 30, bottom = 46;
  LogScale x, y;

  double x0() const { return left; }
  double x1() const { return width - right; }
  double y0() const { return height - bottom; }  //!< the bottom of the plot area
  double y1() const { return top; }
};

Frame make_frame(std::pair<double, double> x_decades, std::pair<double, double> y_decades, double height = 310,
                 double bottom = 46) {
  Frame f;
  f.height = height;
  f.bottom = bottom;
  f.x = {x_decades.first, x_decades.second, f.x0(), f.x1()};
  f.y = {y_decades.first, y_decades.second, f.y0(), f.y1()};
  return f;
}

std::string svg_open(const Frame& f, std::string_view label) {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "role=\"img\" aria-label=\"{2}\">\n<rect class=\"plot-area\" x=\"{3}\" y=\"{4}\" width=\"{5}\" "
      "height=\"{6}\"/>\n",
      px(f.width), px(f.height), escape(label), px(f.x0()), px(f.y1()), px(f.x1() - f.x0()), px(f.y0() - f.y1()));
}

std::string panel_title(const Frame& f, std::string_view title) {
  return fmt::format("<text class=\"panel-title\" x=\"{}\" y=\"{}\">{}</text>\n", px(f.x0()), px(f.top - 10),
                     escape(title));
}

//! Decade grid lines and labels of the vertical axis (faint lines at 2..9 when there are few decades).
std::string y_decade_axis(const Frame& f, std::string_view label) {
  std::string out;
  const int lo = static_cast<int>(std::ceil(f.y.lo)), hi = static_cast<int>(std::floor(f.y.hi));
  if (hi - lo <= 6)
    for (int k = lo - 1; k <= hi; ++k)
      for (int m = 2; m <= 9; ++m) {
        const double e = k + std::log10(m);
        if (e <= f.y.lo || e >= f.y.hi) continue;
        put(out, "<line class=\"minor\" x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\"/>\n", px(f.x0()), px(f.x1()),
            px(f.y(std::pow(10.0, e))));
      }
  for (int k = lo; k <= hi; ++k) {
    const double y = f.y(std::pow(10.0, k));
    put(out, "<line class=\"grid\" x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\"/>\n", px(f.x0()), px(f.x1()), px(y));
    put(out, "<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", px(f.x0() - 6), px(y + 4),
        power_of_ten(k));
  }
  put(out, "<text class=\"axis-label\" transform=\"translate({},{}) rotate(-90)\" text-anchor=\"middle\">{}</text>\n",
      px(16), px((f.y0() + f.y1()) / 2), escape(label));
  return out;
}

//! Decade grid lines, minor ticks and labels of the horizontal axis; powers up to 1000 written out.
std::string x_decade_axis(const Frame& f, std::string_view label) {
  std::string out;
  const int lo = static_cast<int>(std::ceil(f.x.lo)), hi = static_cast<int>(std::floor(f.x.hi));
  for (int k = lo - 1; k <= hi; ++k)
    for (int m = 2; m <= 9; ++m) {
      const double e = k + std::log10(m);
      if (e <= f.x.lo || e >= f.x.hi) continue;
      const double x = f.x(std::pow(10.0, e));
      put(out, "<line class=\"minor\" x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\"/>\n", px(x), px(f.y1()),
          px(f.y0()));
    }
  for (int k = lo; k <= hi; ++k) {
    const double x = f.x(std::pow(10.0, k));
    put(out, "<line class=\"grid\" x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\"/>\n", px(x), px(f.y1()), px(f.y0()));
    put(out, "<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", px(x), px(f.y0() + 16),
        power_of_ten(k, 3));
  }
  put(out, "<text class=\"axis-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
      px((f.x0() + f.x1()) / 2), px(f.height - 8), escape(label));
  return out;
}

// ---- error against length -----------------------------------------------------------------------------

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
      const std::optional<double> e = row->backend == backend && row->direction == direction ? row_scaled_error(*row)
                                                                                   : std::nullopt;
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
Frame error_frame(const std::vector<ErrorSeries>& forward, const std::vector<ErrorSeries>& backward,
                                     DType dtype) {
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
  const double opacity = std::clamp(2.4 / std::sqrt(static_cast<double>(std::max<std::size_t>(series.size(), 1))),
                                    0.22, 0.85);
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
    out += "<span class=\"failing\"><i class=\"swatch\" style=\"background:#d1242f\"></i>failing: ";
    constexpr std::size_t shown = 12;
    for (std::size_t i = 0; i < std::min(failing.size(), shown); ++i)
      put(out, "{}<code>{}</code>", i ? ", " : "", escape(failing[i]));
    if (failing.size() > shown) put(out, " and {} more", failing.size() - shown);
    out += "</span>";
  }
  out += "</div>\n";
  return out;
}

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

// ---- ulp histograms -----------------------------------------------------------------------------------

using UlpCounts = std::array<std::int64_t, ulp_buckets>;

UlpCounts ulp_counts(const RowSet& rows, Direction direction) {
  UlpCounts out{};
  for (const Row* row : rows)
    if (row->direction == direction)
      for (const TensorEntry& t : row->tensors)
        for (std::size_t k = 0; k < std::min(t.metrics.ulp_histogram.size(), out.size()); ++k)
          out[k] += t.metrics.ulp_histogram[k];
  return out;
}

//! "0", "≤1", "≤2", ..., "≤512", "≤2¹⁰", ..., ">2²¹" (bucket k >= 1 holds (2^(k-2), 2^(k-1)] ulps).
std::string bucket_label(int k) {
  if (k == 0) return "0";
  if (k == ulp_buckets - 1) return ">2" + superscript(ulp_buckets - 3);
  if (k - 1 <= 9) return fmt::format("≤{}", 1 << (k - 1));
  return "≤2" + superscript(k - 1);
}

constexpr std::array<std::string_view, 2> pass_colour{"#2f6db5", "#e07b1f"};

std::string ulp_bars(const Frame& f, const std::array<UlpCounts, 2>& counts) {
  std::string out;
  const double slot = (f.x1() - f.x0()) / ulp_buckets, bar = slot * 0.4;
  for (int k = 0; k < ulp_buckets; ++k) {
    const double left = f.x0() + k * slot + slot * 0.1;
    for (std::size_t p = 0; p < 2; ++p) {
      const std::int64_t c = counts[p][static_cast<std::size_t>(k)];
      if (c <= 0) continue;
      const double top = f.y(static_cast<double>(c));
      put(out, "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"><title>{} ulps, {}: {} elements</title>"
          "</rect>\n", px(left + static_cast<double>(p) * bar), px(top), px(bar), px(f.y0() - top), pass_colour[p],
          bucket_label(k), p == 0 ? "forward" : "backward", c);
    }
    put(out, "<text class=\"tick\" transform=\"translate({},{}) rotate(-50)\" text-anchor=\"end\">{}</text>\n",
        px(left + bar + 3), px(f.y0() + 10), bucket_label(k));
  }
  return out;
}

std::string ulp_histogram_panel(std::string_view title, const std::array<UlpCounts, 2>& counts) {
  std::int64_t max = 0;
  for (const UlpCounts& c : counts) max = std::max(max, *std::max_element(c.begin(), c.end()));
  // Counts of 1 get a visible bar: the axis starts at 1/2.
  const Frame f = make_frame({0, 1}, {std::log10(0.5), std::max(1.0, std::ceil(std::log10(static_cast<double>(max))))},
                             290, 56);
  std::string out = svg_open(f, title);
  out += panel_title(f, title);
  out += y_decade_axis(f, "elements");
  out += ulp_bars(f, counts);
  put(out, "<text class=\"axis-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">ulp error</text>\n",
      px((f.x0() + f.x1()) / 2), px(f.height - 6));
  if (max == 0)
    put(out, "<text class=\"empty-panel\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">no elements compared</text>\n",
        px((f.x0() + f.x1()) / 2), px((f.y0() + f.y1()) / 2));
  out += "</svg>\n";
  return out;
}

//! Under a histogram: per pass, how many elements were compared, how many are correctly rounded, within 1 ulp.
std::string ulp_summary(const std::array<UlpCounts, 2>& counts) {
  std::string out = "<div class=\"legend\">";
  for (std::size_t p = 0; p < 2; ++p) {
    std::int64_t total = 0;
    for (const std::int64_t c : counts[p]) total += c;
    const double n = static_cast<double>(std::max<std::int64_t>(total, 1));
    put(out, "<span><i class=\"swatch bar\" style=\"background:{}\"></i>{}: {} elements, {} correctly rounded, "
        "{} within 1 ulp</span>", pass_colour[p], p == 0 ? "forward" : "backward", total,
        percent(static_cast<double>(counts[p][0]) / n), percent(static_cast<double>(counts[p][0] + counts[p][1]) / n));
  }
  out += "</div>\n";
  return out;
}

std::string ulp_histogram_section(const Report& r) {
  std::string out =
      "<section id=\"ulp-histograms\">\n<h2>ULP histograms</h2>\n"
      "<p class=\"note\">Every compared element of every row, per (architecture, io dtype): its distance from the "
      "correctly rounded exact value in ulps of the stored dtype. Bucket 0 is exact, ≤2<sup>k</sup> holds "
      "(2<sup>k−1</sup>, 2<sup>k</sup>] ulps; counts on a log scale.</p>\n<div class=\"panels\">\n";
  for (const auto& [group, rows] : rows_by_group(r)) {
    const std::array<UlpCounts, 2> counts{ulp_counts(rows, Direction::forward), ulp_counts(rows, Direction::backward)};
    out += "<figure>\n" + ulp_histogram_panel(group_title(group), counts) + ulp_summary(counts) + "</figure>\n";
  }
  out += "</div>\n</section>\n";
  return out;
}

// ---- bound-ratio heat map -----------------------------------------------------------------------------

struct HeatCell {
  bool measured = false;  //!< some row of the backend has the tensor
  std::optional<double> ratio;
  bool failed = false;  //!< some row judged the tensor failing
};

struct HeatMap {
  std::vector<std::string> backends, tensors;
  std::vector<std::vector<HeatCell>> cells;  //!< [backend][tensor]
};

//! The tensors of `rows`: the forward outputs first, each pass in order of first appearance.
std::vector<std::string> tensors_in(const RowSet& rows) {
  std::vector<std::string> out;
  for (const Direction direction : {Direction::forward, Direction::backward})
    for (const Row* row : rows)
      for (const TensorEntry& t : row->tensors)
        if (direction_of(row->architecture, t.metrics.name) == direction && std::find(out.begin(), out.end(), t.metrics.name) == out.end())
          out.push_back(t.metrics.name);
  return out;
}

HeatMap bound_ratios(const RowSet& rows) {
  HeatMap m{backends_in(rows), tensors_in(rows), {}};
  m.cells.assign(m.backends.size(), std::vector<HeatCell>(m.tensors.size()));
  for (const Row* row : rows) {
    const auto b = std::find(m.backends.begin(), m.backends.end(), row->backend) - m.backends.begin();
    for (const TensorEntry& t : row->tensors) {
      const auto c = std::find(m.tensors.begin(), m.tensors.end(), t.metrics.name) - m.tensors.begin();
      HeatCell& cell = m.cells[static_cast<std::size_t>(b)][static_cast<std::size_t>(c)];
      cell.measured = true;
      cell.failed = cell.failed || !t.pass;
      fold_max(cell.ratio, t.metrics.bound_ratio);
    }
  }
  return m;
}

struct Rgb {
  double r, g, b;
};

//! Where a bound ratio sits on the colour scale, in [0, 1]: 0.01 and below at 0, bound_factor / 4 at 1/2,
//! bound_factor and above (and NaN) at 1; logarithmic in between.
double heat_position(double ratio, double bound_factor) {
  if (std::isnan(ratio)) return 1;
  const double factor = std::max(bound_factor, 0.02);
  const double lo = -2, hi = std::log10(factor), mid = std::log10(factor / 4);
  const double e = ratio > 0 ? std::log10(ratio) : lo;
  if (e >= hi) return 1;
  if (e <= lo) return 0;
  if (mid <= lo) return (e - lo) / (hi - lo);
  return e <= mid ? 0.5 * (e - lo) / (mid - lo) : 0.5 + 0.5 * (e - mid) / (hi - mid);
}

//! Pale cream through amber (bound_factor / 4) to red (bound_factor).
std::string heat_colour(double position) {
  static constexpr std::array<Rgb, 5> stops{
      {{255, 252, 235}, {254, 227, 145}, {254, 166, 60}, {240, 82, 40}, {190, 10, 35}}};
  const double s = std::clamp(position, 0.0, 1.0) * (stops.size() - 1);
  const std::size_t i = std::min(static_cast<std::size_t>(s), stops.size() - 2);
  const double t = s - static_cast<double>(i);
  const auto mix = [&](double a, double b) { return static_cast<int>(std::lround(a + (b - a) * t)); };
  return fmt::format("#{:02x}{:02x}{:02x}", mix(stops[i].r, stops[i + 1].r), mix(stops[i].g, stops[i + 1].g),
                     mix(stops[i].b, stops[i + 1].b));
}

constexpr double cell_w = 58, cell_h = 14, name_char_w = 6.7, heat_legend_h = 64;

std::string heat_cell(double x, double y, const HeatCell& cell, const std::string& backend,
                      const std::string& tensor, double bound_factor) {
  const std::string where = escape(fmt::format("{} · {}", backend, tensor));
  if (!cell.measured)
    return fmt::format("<rect class=\"cell unmeasured\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>{}: "
                       "not measured</title></rect>\n", px(x), px(y), px(cell_w - 1), px(cell_h - 1), where);
  if (!cell.ratio)
    return fmt::format("<rect class=\"cell unbounded\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>{}: "
                       "no bound</title></rect>\n", px(x), px(y), px(cell_w - 1), px(cell_h - 1), where);
  const double position = heat_position(*cell.ratio, bound_factor);
  return fmt::format(
      "<rect class=\"cell{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"><title>{}: bound ratio {}"
      "</title></rect>\n<text class=\"cell-value\" x=\"{}\" y=\"{}\" fill=\"{}\">{}</text>\n",
      cell.failed ? " failed" : "", px(x), px(y), px(cell_w - 1), px(cell_h - 1), heat_colour(position), where,
      num(*cell.ratio), px(x + cell_w / 2), px(y + cell_h - 3.5), position > 0.7 ? "#fff" : "#222",
      fmt::format("{:.2g}", *cell.ratio));
}

//! The colour bar under a heat map: the scale from 0.01 to bound_factor, then the two grey kinds of cell.
std::string heat_legend(double x, double y, double bound_factor) {
  std::string out;
  constexpr int steps = 60;
  constexpr double w = 300;
  for (int i = 0; i < steps; ++i)
    put(out, "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"12\" fill=\"{}\"/>\n", px(x + w * i / steps), px(y),
        px(w / steps + 0.5), heat_colour((i + 0.5) / steps));
  const auto tick = [&](double ratio, const std::string& label) {
    const double tx = x + w * heat_position(ratio, bound_factor);
    put(out, "<line class=\"legend-tick\" x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\"/>\n<text class=\"tick\" "
        "x=\"{0}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>\n", px(tx), px(y), px(y + 16), px(y + 28), label);
  };
  tick(0.01, "≤0.01");
  if (bound_factor / 4 > 0.01) tick(bound_factor / 4, num(bound_factor / 4));
  tick(bound_factor, "≥" + num(bound_factor) + " (bound factor)");
  double at = x + w + 70;
  for (const auto& [css, label] : {std::pair{"cell unbounded", "no bound"}, {"cell unmeasured", "not measured"},
                                   {"cell failed", "outlined: a row failed the tensor"}}) {
    put(out, "<rect class=\"{}\" x=\"{}\" y=\"{}\" width=\"22\" height=\"12\" fill=\"#fff\"/><text class=\"tick\" "
        "x=\"{}\" y=\"{}\">{}</text>\n", css, px(at), px(y), px(at + 28), px(y + 10), label);
    at += 28 + 6.2 * static_cast<double>(std::string_view(label).size()) + 24;
  }
  return out;
}

//! The band over the cells: the tensor names, rotated, and the title at its bottom left.
std::string heat_map_header(std::string_view title, const HeatMap& m, double left, double header) {
  std::string out = fmt::format("<text class=\"panel-title\" x=\"4\" y=\"{}\">{}</text>\n", px(header - 8),
                                escape(title));
  for (std::size_t c = 0; c < m.tensors.size(); ++c)
    put(out, "<text class=\"column\" transform=\"translate({},{}) rotate(-35)\">{}</text>\n",
        px(left + cell_w * static_cast<double>(c) + cell_w / 2 - 6), px(header - 6), escape(m.tensors[c]));
  return out;
}

//! One line per backend: its name (red when it fails), then a cell per tensor.
std::string heat_map_rows(const HeatMap& m, double left, double header, double bound_factor, const Palette& palette) {
  std::string out;
  for (std::size_t b = 0; b < m.backends.size(); ++b) {
    const double y = header + cell_h * static_cast<double>(b);
    put(out, "<text class=\"row-name{}\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n",
        palette.fails(m.backends[b]) ? " fail" : "", px(left - 6), px(y + cell_h - 3.5), escape(m.backends[b]));
    for (std::size_t c = 0; c < m.tensors.size(); ++c)
      out += heat_cell(left + cell_w * static_cast<double>(c), y, m.cells[b][c], m.backends[b], m.tensors[c],
                       bound_factor);
  }
  return out;
}

std::string bound_ratio_heat_map(std::string_view title, const HeatMap& m, const TolerancePolicy& policy,
                                 const Palette& palette) {
  std::size_t longest_backend = 0, longest_tensor = 0;
  for (const std::string& b : m.backends) longest_backend = std::max(longest_backend, b.size());
  for (const std::string& t : m.tensors) longest_tensor = std::max(longest_tensor, t.size());
  const double left = 12 + name_char_w * static_cast<double>(longest_backend);
  const double header = std::max(40.0, 26 + 4.0 * static_cast<double>(longest_tensor));  // sin 35° of the names
  const double body = cell_h * static_cast<double>(m.backends.size());
  const double width = left + std::max(cell_w * static_cast<double>(m.tensors.size()) + 90, 900.0);
  std::string out = fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
                                "viewBox=\"0 0 {0} {1}\" role=\"img\" aria-label=\"{2}\">\n",
                                px(width), px(header + body + heat_legend_h), escape(title));
  out += heat_map_header(title, m, left, header);
  out += heat_map_rows(m, left, header, policy.bound_factor, palette);
  out += heat_legend(left, header + body + 16, policy.bound_factor);
  out += "</svg>\n";
  return out;
}

std::string heat_map_section(const Report& r, const Palette& palette) {
  std::string out = fmt::format(
      "<section id=\"bound-ratio-heat-map\">\n<h2>Bound ratios</h2>\n<p class=\"note\">Per backend and tensor, "
      "the largest bound ratio max |got − exact| / bound over all its rows (both passes): the error against the "
      "reference's first-order bound on a float32 sequential evaluation. The policy allows {} times the bound. "
      "Hover a cell for its backend and tensor.</p>\n",
      num(r.policy.bound_factor));
  for (const auto& [architecture, rows] : rows_by_architecture(r))
    out += "<div class=\"scroll\">" +
           bound_ratio_heat_map(to_string(architecture), bound_ratios(rows), r.policy, palette) + "</div>\n";
  out += "</section>\n";
  return out;
}

// ---- verdict table ------------------------------------------------------------------------------------

//! One backend's line; device times only when the report has them.
std::string verdict_row(const BackendSummary& s, const TolerancePolicy& policy, bool timed) {
  std::string bound_style;
  if (s.bound_ratio) {
    const double position = heat_position(*s.bound_ratio, policy.bound_factor);
    bound_style = fmt::format(" style=\"background:{};color:{}\"", heat_colour(position),
                              position > 0.7 ? "#fff" : "inherit");
  }
  const std::string times =
      timed ? fmt::format("<td>{}</td><td>{}</td>", num(s.forward_ms), num(s.backward_ms)) : std::string();
  return fmt::format(
      "<tr{}><td class=\"name\">{}</td><td class=\"name\">{}</td><td>{}</td><td{}>{}</td><td>{}</td><td>{}</td>"
      "{}<td>{}</td><td>{}</td></tr>\n",
      s.ok() ? "" : " class=\"failed\"", escape(s.backend), escape(s.worst_tensor), num(s.ulp_max), bound_style,
      num(s.bound_ratio), num(s.baseline_ratio), num(s.scaled_error), times, s.rows,
      s.ok() ? std::string("<span class=\"verdict-pass\">pass</span>")
             : fmt::format("<span class=\"verdict-fail\">FAIL</span> ({} rows)", s.rows_failed));
}

std::string verdict_table(Architecture architecture, const std::vector<BackendSummary>& summaries,
                          const TolerancePolicy& policy, bool timed) {
  std::string out = fmt::format(
      "<h3>{}</h3>\n<div class=\"scroll\"><table>\n<thead><tr><th class=\"name\">backend</th>"
      "<th class=\"name\">worst tensor</th><th>max ulp</th><th>max bound ratio</th><th>max baseline ratio</th>"
      "<th>max scaled error</th>{}<th>rows</th><th>verdict</th></tr></thead>\n<tbody>\n",
      escape(to_string(architecture)), timed ? "<th>forward ms</th><th>backward ms</th>" : "");
  for (const BackendSummary& s : summaries)
    if (s.architecture == architecture) out += verdict_row(s, policy, timed);
  out += "</tbody></table></div>\n";
  return out;
}

std::vector<std::string> row_reasons(const Row& row) {
  std::vector<std::string> out;
  if (!row.error.empty()) out.push_back("run failed: " + row.error);
  for (const std::string& name : row.missing) out.push_back(name + ": missing from the outputs");
  for (const TensorEntry& t : row.tensors) out.insert(out.end(), t.reasons.begin(), t.reasons.end());
  return out;
}

std::string failing_row(const Row& row) {
  std::string out = fmt::format(
      "<div class=\"failure\"><div><code class=\"backend\">{}</code> · case {} · {} · {} · seed {}</div>\n<ul>",
      escape(row.backend), escape(row.case_id), escape(to_string(row.shape)), to_string(row.direction), row.seed);
  for (const std::string& reason : row_reasons(row)) put(out, "<li>{}</li>", escape(reason));
  put(out, "</ul>\n<code class=\"repro\">{}</code></div>\n", escape(row.repro));
  return out;
}

//! Every failing row with its reasons and repro line (the first few hundred: the rest are in report.json).
std::string failing_rows(const Report& r) {
  constexpr std::int64_t shown = 200;
  std::int64_t count = 0;
  std::string out;
  for (const Row& row : r.rows)
    if (!row.ok && count++ < shown) out += failing_row(row);
  if (count == 0) return "<p class=\"note\">No row failed.</p>\n";
  std::string head = fmt::format("<h3 id=\"failing-rows\">Failing rows ({})</h3>\n", count);
  if (count > shown) put(out, "<p class=\"note\">… and {} more failing rows in report.json.</p>\n", count - shown);
  return head + out;
}

std::string verdict_section(const Report& r) {
  std::string out =
      "<section id=\"verdict-table\">\n<h2>Verdicts</h2>\n<p class=\"note\">Per backend, over all its rows: the "
      "worst tensor (largest bound ratio, else largest scaled error), the largest ulp error, bound ratio, ratio "
      "to the sequential baseline's error and scaled error, the device times when measured, and the verdict.</p>\n";
  const std::vector<BackendSummary> summaries = summarise_backends(r);
  const bool timed = std::any_of(r.rows.begin(), r.rows.end(), [](const Row& row) { return row.timing.has_value(); });
  for (const auto& [architecture, rows] : rows_by_architecture(r))
    out += verdict_table(architecture, summaries, r.policy, timed);
  out += failing_rows(r);
  out += "</section>\n";
  return out;
}

// ---- page ---------------------------------------------------------------------------------------------

constexpr std::string_view style = R"css(
:root{--pass:#1a7f37;--fail:#d1242f;--ink:#1f2328;--muted:#59636e;--rule:#d1d9e0;--panel:#f6f8fa}
*{box-sizing:border-box}
body{margin:0;background:#fff;color:var(--ink);font:14px/1.45 system-ui,"Segoe UI",Roboto,"DejaVu Sans",sans-serif}
main{max-width:1360px;margin:0 auto;padding:24px 20px 48px}
h1{font-size:26px;margin:0 0 12px;font-weight:650}
h1 small{font-weight:400;color:var(--muted);font-size:18px}
h2{font-size:20px;margin:40px 0 6px;padding-bottom:4px;border-bottom:1px solid var(--rule)}
h3{font-size:15px;margin:22px 0 6px}
.banner{padding:12px 18px;border-radius:6px;color:#fff;font-size:18px;font-weight:600}
.banner.pass{background:var(--pass)}
.banner.fail{background:var(--fail)}
.facts{display:grid;grid-template-columns:repeat(auto-fit,minmax(280px,1fr));gap:12px;margin-top:16px}
.facts section.wide{grid-column:1/-1}
.facts section.wide dl{grid-template-columns:max-content 1fr max-content 1fr}
.facts section{background:var(--panel);border:1px solid var(--rule);border-radius:6px;padding:10px 14px}
.facts h3{margin:0 0 6px;font-size:12px;text-transform:uppercase;letter-spacing:.06em;color:var(--muted)}
dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:0;font-size:13px}
dt{color:var(--muted)}
dd{margin:0;font-variant-numeric:tabular-nums;overflow-wrap:anywhere}
.note{color:var(--muted);font-size:13px;max-width:1080px;margin:4px 0 10px}
.empty{font-size:17px;padding:24px;border:1px dashed var(--rule);border-radius:6px;text-align:center}
.panels{display:flex;flex-wrap:wrap;gap:14px}
figure{margin:0;max-width:650px}
.scroll{overflow-x:auto}
.legend{display:flex;flex-wrap:wrap;gap:4px 18px;font-size:12px;color:var(--muted);margin:4px 0 14px}
.legend .failing{color:var(--fail)}
.swatch{display:inline-block;width:18px;height:3px;vertical-align:middle;margin-right:6px}
.swatch.bar{height:10px;width:10px}
.swatch.dashed{border-top:2px dashed #111;height:0}
.swatch.dotted{border-top:2px dotted #6e7781;height:0}
svg{display:block;font:11px system-ui,"DejaVu Sans",sans-serif;fill:var(--ink)}
svg .plot-area{fill:#fff;stroke:#afb8c1}
svg .grid{stroke:#d8dee4;stroke-width:1}
svg .minor{stroke:#f0f2f4;stroke-width:1}
svg .tick{fill:#57606a;font-size:10.5px}
svg .axis-label{fill:#424a53;font-size:12px}
svg .panel-title{font-size:13px;font-weight:600}
svg .empty-panel{fill:#8c959f;font-size:13px}
svg .roundoff{stroke:#6e7781;stroke-width:1.2;stroke-dasharray:2 3}
svg .roundoff-label{fill:#6e7781;font-size:10.5px}
svg .series polyline{fill:none;stroke-width:1.1;stroke-opacity:var(--line-opacity,.4)}
svg .series circle{stroke:none;fill-opacity:var(--line-opacity,.4)}
svg .series.baseline polyline{stroke-width:1.6;stroke-opacity:.9;stroke-dasharray:6 4}
svg .series.baseline circle{fill-opacity:.9}
svg .series.fail polyline{stroke-width:1.8;stroke-opacity:.9}
svg .series.fail circle{fill-opacity:.95}
svg .cell.unbounded{fill:#c9ced4}
svg .cell.unmeasured{fill:#fff;stroke:#d0d7de;stroke-dasharray:2 2}
svg .cell.failed{stroke:#1f2328;stroke-width:1.6}
svg .cell-value{font-size:9px;text-anchor:middle;font-variant-numeric:tabular-nums}
svg .row-name,svg .column{font:10.5px ui-monospace,"DejaVu Sans Mono",monospace;fill:#24292f}
svg .row-name.fail{fill:var(--fail);font-weight:700}
svg .legend-tick{stroke:#57606a}
table{border-collapse:collapse;font-size:12.5px;font-variant-numeric:tabular-nums}
th,td{padding:2px 10px;border-bottom:1px solid #eaeef2;text-align:right;white-space:nowrap}
th{background:var(--panel);font-weight:600;border-bottom:1px solid var(--rule)}
td.name,th.name{text-align:left}
td.name{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:12px}
tr.failed td{background:#ffebe9}
.verdict-pass{color:var(--pass);font-weight:600}
.verdict-fail{color:var(--fail);font-weight:700}
.failure{border-left:4px solid var(--fail);background:#fff8f7;padding:8px 12px;margin:10px 0;border-radius:0 6px 6px 0}
.failure ul{margin:6px 0;padding-left:20px}
code{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:12.5px;background:#eff2f5;padding:1px 5px;
  border-radius:4px}
.repro{display:block;white-space:pre-wrap;overflow-wrap:anywhere;margin-top:6px}
.repro::before{content:"$ ";color:var(--muted)}
#scope li{margin:3px 0}
footer{margin-top:40px;color:var(--muted);font-size:12px}
)css";

std::string page_head(const Report& r) {
  return fmt::format("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                     "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                     "<title>scancheck tolerance report{}{}</title>\n<style>{}</style>\n</head>\n<body>\n<main>\n",
                     r.label.empty() ? "" : " — ", escape(r.label), style);
}

std::string fact(std::string_view name, std::string_view value) {
  return fmt::format("<dt>{}</dt><dd>{}</dd>", name, escape(value));
}

std::string facts_box(std::string_view title, const std::string& items, bool wide = false) {
  return fmt::format("<section{}><h3>{}</h3><dl>{}</dl></section>\n", wide ? " class=\"wide\"" : "", title, items);
}

std::string run_facts(const Report& r) {
  std::string items = fact("label", r.label.empty() ? "–" : r.label) + fact("generated", r.generated_at) +
                      fact("tool", r.tool.name + " " + r.tool.version) + fact("git revision", r.tool.git_revision) +
                      fact("schema version", std::to_string(r.schema_version));
  for (const Source& s : r.merged_from)
    items += fact("merged from", fmt::format("{} ({}, seed {})", s.generated_at, s.git_revision, s.seed));
  return facts_box("Run", items);
}

std::string environment_facts(const Environment& e) {
  return facts_box("Environment", fact("executor", e.executor) + fact("device", e.device.value_or("–")) +
                                      fact("compiler", e.compiler) + fact("CUDA", e.cuda.value_or("–")) +
                                      fact("host", e.host) + fact("reference threads", std::to_string(e.threads)));
}

std::string method_facts(const Method& m) {
  return facts_box("Method", fact("preset", m.preset) + fact("reference", m.reference_precision) +
                                 fact("bounds", m.bounds) + fact("baseline", m.baseline) +
                                 fact("sampling", m.sampling) + fact("seed", std::to_string(m.seed)) +
                                 fact("backends", m.backends) +
                                 (m.lengths.empty() ? "" : fact("lengths", fmt::format("{}", fmt::join(m.lengths, ", ")))),
                   true);
}

std::string coverage_facts(const Coverage& c) {
  return facts_box("Coverage",
                   fact("backends", fmt::format("{} of {} checked", c.backends_checked, c.backends_total)) +
                       fact("cases", std::to_string(c.cases)) + fact("shapes", std::to_string(c.shapes)) +
                       fact("rows", std::to_string(c.rows)) +
                       fact("elements", fmt::format("{} verified of {}", c.elements_verified, c.elements_total)) +
                       fact("fraction verified", percent(c.fraction_verified)));
}

std::string policy_facts(const TolerancePolicy& p) {
  return facts_box("Tolerance policy",
                   fact("bound factor", num(p.bound_factor) + " × the element's error bound") +
                       fact("baseline factor", num(p.baseline_factor) + " × the sequential baseline's error") +
                       fact("baseline slack", fmt::format("max({} ulps at scale, {} × max bound)",
                                                          num(p.baseline_slack_ulps), num(p.baseline_slack_bound))));
}

std::string summary_section(const Report& r) {
  std::string out = "<header id=\"summary\">\n<h1>scancheck tolerance report";
  if (!r.label.empty()) put(out, " <small>{}</small>", escape(r.label));
  const std::string summary = r.verdict.summary.empty() ? (r.verdict.pass ? "PASS" : "FAIL") : r.verdict.summary;
  put(out, "</h1>\n<div class=\"banner {}\">{}</div>\n<div class=\"facts\">\n", r.verdict.pass ? "pass" : "fail",
      escape(summary));
  out += run_facts(r) + environment_facts(r.environment) + coverage_facts(r.coverage) + policy_facts(r.policy) +
         method_facts(r.method);
  out += "</div>\n</header>\n";
  return out;
}

std::string scope_section(const Report& r) {
  std::string out = "<section id=\"scope\">\n<h2>Scope</h2>\n<ul>\n";
  for (const std::string& line : r.scope) put(out, "<li>{}</li>\n", escape(line));
  if (r.scope.empty()) out += "<li>The report states no scope.</li>\n";
  out += "</ul>\n</section>\n";
  return out;
}

}  // namespace

std::string render_html(const Report& r) {
  std::string out = page_head(r) + summary_section(r);
  if (r.rows.empty()) {
    out += "<p class=\"empty\">The report has no rows: nothing was checked.</p>\n";
  } else {
    const Palette palette = make_palette(r);
    out += error_against_length_section(r, palette);
    out += ulp_histogram_section(r);
    out += heat_map_section(r, palette);
    out += verdict_section(r);
  }
  out += scope_section(r);
  put(out,
      "<footer>Written by {} {} from report.json (schema v{}); self-contained: no scripts, no external "
      "resources.</footer>\n</main>\n</body>\n</html>\n",
      escape(r.tool.name), escape(r.tool.version), r.schema_version);
  return out;
}

}  // namespace scancheck::reports
