// SPDX-License-Identifier: Apache-2.0
//! @file
//! Internal to render/: the colours of the HTML page. How backends are drawn (a colour per schedule, red for
//! failing backends, the sequential baseline apart), read from their names (backends/variant.hpp), and the
//! colour scale of bound ratios that the heat map and the verdict table share.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "reports/model.hpp"

namespace scancheck::render::detail {

//! The series drawn dashed: each architecture's sequential baseline.
bool is_baseline(const std::string& backend);

//! What a backend is coloured by: a built-in's schedule, a foreign backend's provider.
std::string schedule_of(const std::string& backend);

//! How backends are drawn everywhere on the page: a colour per schedule, red for failing backends.
struct Palette {
  std::map<std::string, std::string> schedule_colour;
  std::vector<std::string> schedules;  //!< order of first appearance
  std::set<std::string> failing;

  const std::string& colour_of(const std::string& backend) const { return schedule_colour.at(schedule_of(backend)); }
  bool fails(const std::string& backend) const { return failing.count(backend) > 0; }
};

inline constexpr std::string_view fail_red = "#d1242f";

//! The schedules in the order the rows first show them, each its colour; the backends with a failing row.
Palette make_palette(const reports::Report&);

//! Where a bound ratio sits on the colour scale, in [0, 1]: 0.01 and below at 0, bound_factor / 4 at 1/2,
//! bound_factor and above (and NaN) at 1; logarithmic in between.
double heat_position(double ratio, double bound_factor);

//! The colour at `position` of the scale: pale cream through amber (bound_factor / 4) to red (bound_factor).
std::string heat_colour(double position);

}  // namespace scancheck::render::detail
