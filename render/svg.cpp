// SPDX-License-Identifier: Apache-2.0
#include "render/svg.hpp"

#include <cmath>

#include <fmt/format.h>

#include "render/html_text.hpp"

namespace scancheck::render::detail {

std::string px(double v) { return fmt::format("{:.1f}", std::isfinite(v) ? v : 0.0); }

std::pair<double, double> decades(double min, double max) {
  double lo = std::floor(std::log10(min)), hi = std::ceil(std::log10(max));
  if (!std::isfinite(lo)) lo = 0;
  if (!std::isfinite(hi) || hi <= lo) hi = lo + 1;
  return {lo, hi};
}

Frame make_frame(std::pair<double, double> x_decades, std::pair<double, double> y_decades, double height,
                 double bottom) {
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

std::string y_decade_axis(const Frame& f, std::string_view label) {
  std::string out;
  const int lo = static_cast<int>(std::ceil(f.y.lo)), hi = static_cast<int>(std::floor(f.y.hi));
  // Minor lines only where they stay apart: over many decades they would grey the plot out.
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

std::string x_decade_axis(const Frame& f, std::string_view label) {
  std::string out;
  const int lo = static_cast<int>(std::ceil(f.x.lo)), hi = static_cast<int>(std::floor(f.x.hi));
  for (int k = lo - 1; k <= hi; ++k)
    for (int m = 2; m <= 9; ++m) {
      const double e = k + std::log10(m);
      if (e <= f.x.lo || e >= f.x.hi) continue;
      const double x = f.x(std::pow(10.0, e));
      put(out, "<line class=\"minor\" x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\"/>\n", px(x), px(f.y1()), px(f.y0()));
    }
  for (int k = lo; k <= hi; ++k) {
    const double x = f.x(std::pow(10.0, k));
    put(out, "<line class=\"grid\" x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\"/>\n", px(x), px(f.y1()), px(f.y0()));
    // Case lengths read better as 100 and 1000 than as powers.
    put(out, "<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", px(x), px(f.y0() + 16),
        power_of_ten(k, 3));
  }
  put(out, "<text class=\"axis-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", px((f.x0() + f.x1()) / 2),
      px(f.height - 8), escape(label));
  return out;
}

}  // namespace scancheck::render::detail
