// SPDX-License-Identifier: Apache-2.0
#include "render/plots/bound_ratio_heat_map.hpp"

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "properties/policy.hpp"
#include "render/html_text.hpp"
#include "render/row_groups.hpp"
#include "render/svg.hpp"
#include "reports/summary.hpp"

namespace scancheck::render::detail {

using namespace reports;  // the model rendered here

namespace {

// ---- data ---------------------------------------------------------------------------------------------

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
      for (const TensorEntry& t : row->tensors) {
        const bool of_pass = direction_of(row->architecture, t.metrics.name) == direction;
        if (of_pass && std::find(out.begin(), out.end(), t.metrics.name) == out.end()) out.push_back(t.metrics.name);
      }
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

// ---- drawing ------------------------------------------------------------------------------------------

//! A cell's size, the width a character of a backend name takes (monospace 10.5px), the legend's height.
constexpr double cell_w = 58, cell_h = 14, name_char_w = 6.7, heat_legend_h = 64;

std::string heat_cell(double x, double y, const HeatCell& cell, const std::string& backend, const std::string& tensor,
                      double bound_factor) {
  const std::string where = escape(fmt::format("{} · {}", backend, tensor));
  if (!cell.measured)
    return fmt::format(
        "<rect class=\"cell unmeasured\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>{}: "
        "not measured</title></rect>\n",
        px(x), px(y), px(cell_w - 1), px(cell_h - 1), where);
  if (!cell.ratio)
    return fmt::format(
        "<rect class=\"cell unbounded\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>{}: "
        "no bound</title></rect>\n",
        px(x), px(y), px(cell_w - 1), px(cell_h - 1), where);
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
    put(out,
        "<line class=\"legend-tick\" x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\"/>\n<text class=\"tick\" "
        "x=\"{0}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>\n",
        px(tx), px(y), px(y + 16), px(y + 28), label);
  };
  tick(0.01, "≤0.01");
  if (bound_factor / 4 > 0.01) tick(bound_factor / 4, num(bound_factor / 4));
  tick(bound_factor, "≥" + num(bound_factor) + " (bound factor)");
  double at = x + w + 70;
  for (const auto& [css, label] : {std::pair{"cell unbounded", "no bound"},
                                   {"cell unmeasured", "not measured"},
                                   {"cell failed", "outlined: a row failed the tensor"}}) {
    put(out,
        "<rect class=\"{}\" x=\"{}\" y=\"{}\" width=\"22\" height=\"12\" fill=\"#fff\"/><text class=\"tick\" "
        "x=\"{}\" y=\"{}\">{}</text>\n",
        css, px(at), px(y), px(at + 28), px(y + 10), label);
    at += 28 + 6.2 * static_cast<double>(std::string_view(label).size()) + 24;
  }
  return out;
}

//! The band over the cells: the tensor names, rotated, and the title at its bottom left.
std::string heat_map_header(std::string_view title, const HeatMap& m, double left, double header) {
  std::string out =
      fmt::format("<text class=\"panel-title\" x=\"4\" y=\"{}\">{}</text>\n", px(header - 8), escape(title));
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

//! One architecture's map, sized to its longest backend and tensor names.
std::string bound_ratio_heat_map(std::string_view title, const HeatMap& m, const TolerancePolicy& policy,
                                 const Palette& palette) {
  std::size_t longest_backend = 0, longest_tensor = 0;
  for (const std::string& b : m.backends) longest_backend = std::max(longest_backend, b.size());
  for (const std::string& t : m.tensors) longest_tensor = std::max(longest_tensor, t.size());
  const double left = 12 + name_char_w * static_cast<double>(longest_backend);
  const double header = std::max(40.0, 26 + 4.0 * static_cast<double>(longest_tensor));  // sin 35° of the names
  const double body = cell_h * static_cast<double>(m.backends.size());
  const double width = left + std::max(cell_w * static_cast<double>(m.tensors.size()) + 90, 900.0);
  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" role=\"img\" aria-label=\"{2}\">\n",
      px(width), px(header + body + heat_legend_h), escape(title));
  out += heat_map_header(title, m, left, header);
  out += heat_map_rows(m, left, header, policy.bound_factor, palette);
  out += heat_legend(left, header + body + 16, policy.bound_factor);
  out += "</svg>\n";
  return out;
}

}  // namespace

std::string bound_ratio_heat_map_section(const Report& r, const Palette& palette) {
  std::string out = fmt::format(
      "<section id=\"bound-ratio-heat-map\">\n<h2>Bound ratios</h2>\n<p class=\"note\">Per backend and tensor, "
      "the largest bound ratio max |got − exact| / bound over all its rows (both passes): the error against "
      "{}. The policy allows {} times the bound. Hover a cell for its backend and tensor.</p>\n",
      escape(bound_description), num(r.policy.bound_factor));
  for (const auto& [architecture, rows] : rows_by_architecture(r))
    out += "<div class=\"scroll\">" +
           bound_ratio_heat_map(to_string(architecture), bound_ratios(rows), r.policy, palette) + "</div>\n";
  out += "</section>\n";
  return out;
}

}  // namespace scancheck::render::detail
