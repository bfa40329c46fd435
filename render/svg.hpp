// SPDX-License-Identifier: Apache-2.0
//! @file
//! Internal to render/: the SVG primitives the plots of the HTML page draw with: pixel coordinates, log10
//! scales, a plot's frame, its opening tag and title, and decade axes. Generic: nothing here knows the
//! report.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>
#include <utility>

namespace scancheck::render::detail {

//! An SVG coordinate, one decimal. The scales clamp every value to their axis, so a non-finite number only
//! reaches here by mistake: it becomes 0 rather than invalid markup.
std::string px(double v);

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
std::pair<double, double> decades(double min, double max);

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

//! A frame of the default width whose scales span the given decades.
Frame make_frame(std::pair<double, double> x_decades, std::pair<double, double> y_decades, double height = 310,
                 double bottom = 46);

//! The <svg> tag, labelled for screen readers, and the plot area's background.
std::string svg_open(const Frame&, std::string_view label);
//! The title above the plot area.
std::string panel_title(const Frame&, std::string_view title);

//! Decade grid lines and labels of the vertical axis (faint lines at 2..9 when there are few decades).
std::string y_decade_axis(const Frame&, std::string_view label);
//! Decade grid lines, minor ticks and labels of the horizontal axis; powers up to 1000 written out.
std::string x_decade_axis(const Frame&, std::string_view label);

}  // namespace scancheck::render::detail
