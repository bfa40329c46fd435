// SPDX-License-Identifier: Apache-2.0
//! @file
//! Internal to render/: the plot of one backend x tensor on the history page (history_html.hpp). The reports
//! in date order along x (labelled by short git revision and date) and up to three panels sharing it: the
//! scaled error (log scale), the bound ratio (log scale, the latest report's bound factor as a dashed line)
//! and, when measured, the device time (scancheck's median and a joined profile's, one scale). Failed points
//! carry a red diamond whose tooltip gives the verdict and the reason.
#pragma once

#include <string>

#include "render/history_view.hpp"

namespace scancheck::render::detail {

//! The plot's <svg>, with the series' backend, tensor and pass as data attributes.
std::string history_trend_svg(const TrendSeries&, const HistoryView&);

}  // namespace scancheck::render::detail
