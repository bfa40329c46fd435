// SPDX-License-Identifier: Apache-2.0
#include "render/plots/ulp_histogram.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <fmt/format.h>

#include "render/html_text.hpp"
#include "render/row_groups.hpp"
#include "render/svg.hpp"

namespace scancheck::render::detail {

using namespace reports;  // the model rendered here

namespace {

// ---- data ---------------------------------------------------------------------------------------------

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

// ---- drawing ------------------------------------------------------------------------------------------

//! "0", "≤1", "≤2", ..., "≤512", "≤2¹⁰", ..., ">2²¹" (bucket k >= 1 holds (2^(k-2), 2^(k-1)] ulps).
std::string bucket_label(int k) {
  if (k == 0) return "0";
  if (k == ulp_buckets - 1) return ">2" + superscript(ulp_buckets - 3);
  if (k - 1 <= 9) return fmt::format("≤{}", 1 << (k - 1));
  return "≤2" + superscript(k - 1);
}

//! Forward, backward: the bars' and the legend swatches' colours.
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
      put(out,
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"><title>{} ulps, {}: {} elements</title>"
          "</rect>\n",
          px(left + static_cast<double>(p) * bar), px(top), px(bar), px(f.y0() - top), pass_colour[p], bucket_label(k),
          p == 0 ? "forward" : "backward", c);
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
  const Frame f =
      make_frame({0, 1}, {std::log10(0.5), std::max(1.0, std::ceil(std::log10(static_cast<double>(max))))}, 290, 56);
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
    put(out,
        "<span><i class=\"swatch bar\" style=\"background:{}\"></i>{}: {} elements, {} correctly rounded, "
        "{} within 1 ulp</span>",
        pass_colour[p], p == 0 ? "forward" : "backward", total, percent(static_cast<double>(counts[p][0]) / n),
        percent(static_cast<double>(counts[p][0] + counts[p][1]) / n));
  }
  out += "</div>\n";
  return out;
}

}  // namespace

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

}  // namespace scancheck::render::detail
